#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pidfs comparison's own tests (make test's harness:pidfs-compare):
#   scripts/test-pidfs-compare.sh [CASE...]      every case, or those named
#   scripts/test-pidfs-compare.sh --update CASE  rewrite CASE's expected
# A case is a directory tests/harness/pidfs-compare/CASE/ with a run's
# KERNEL/test.ktap per kernel, "args" (the kernels, the reference
# first), optionally "allow" (else an empty allow file), and "expected":
# all of scripts/pidfs-compare.sh's stdout, then "exit status N". Prints
# KTAP, a difference as comments (diff -u, expected first) before it.
set -uo pipefail
. "$(dirname "$0")/common.sh"

dir=$REPO/tests/harness/pidfs-compare
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
	verdict=$(ARCH=x86_64 PIDFS_COMPARE_DIR=$dir/$c PIDFS_COMPARE_ALLOW=$allow \
		"$REPO/scripts/pidfs-compare.sh" "${args[@]}" 2>&1
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
