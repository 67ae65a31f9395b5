#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The comparisons' own tests (make test's harness:pidfs-compare and
# harness:selftests-compare), for NAME pidfs-compare or selftests-compare:
#   scripts/test-compare.sh NAME [CASE...]      every case, or those named
#   scripts/test-compare.sh NAME --update CASE  rewrite CASE's expected
# A case is a directory tests/harness/NAME/CASE/ with a run's
# KERNEL/test.ktap per kernel, "args" (the kernels, the reference
# first), optionally "allow" (else an empty allow file), and "expected":
# all of scripts/NAME.sh's stdout, then "exit status N". Prints KTAP, a
# difference as comments (diff -u, expected first) before it.
set -uo pipefail
. "$(dirname "$0")/common.sh"

name=${1:?usage: scripts/test-compare.sh pidfs-compare|selftests-compare [--update] [CASE...]}
shift
dir=$REPO/tests/harness/$name
[ -f "$REPO/scripts/$name.sh" ] && [ -d "$dir" ] || die "no comparison $name"
# The script's settings: PIDFS_COMPARE_DIR, SELFTESTS_COMPARE_ALLOW ...
env_prefix=$(tr a-z- A-Z_ <<<"$name")
update=
[ "${1:-}" = --update ] && { update=1; shift; }
cases=("$@")
if [ ${#cases[@]} = 0 ]; then
	for d in "$dir"/*/; do cases+=("$(basename "$d")"); done
fi

echo "TAP version 13"
echo "1..${#cases[@]}"
n=0 failed=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	[ -d "$dir/$c" ] || { echo "not ok $n $c # no $dir/$c"; failed=$((failed + 1)); continue; }
	read -r -a args < "$dir/$c/args"
	allow=$dir/$c/allow
	[ -f "$allow" ] || allow=/dev/null
	verdict=$(env ARCH=x86_64 "${env_prefix}_DIR=$dir/$c" "${env_prefix}_ALLOW=$allow" \
		"$REPO/scripts/$name.sh" "${args[@]}" 2>&1
		echo "exit status $?")
	[ -n "$update" ] && printf '%s\n' "$verdict" > "$dir/$c/expected"
	if diff=$(diff -u --label expected --label "pidfs-compare.sh's verdict" \
			"$dir/$c/expected" - 2>&1 <<<"$verdict"); then
		echo "ok $n $c"
	else
		sed 's/^/# /' <<<"$diff"
		echo "not ok $n $c"
		failed=$((failed + 1))
	fi
done
exit $((failed != 0))
