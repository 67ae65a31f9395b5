#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The judge's own tests (make test's harness:ktap), as kunit_tool_test.py
# tests kunit's parser on recorded logs:
#   scripts/test-ktap.sh [CASE...]      every case, or those named
#   scripts/test-ktap.sh --update CASE  rewrite CASE's expected (read the diff)
# A case is a recorded run in tests/harness/ktap/CASE/: console, ktap (or
# the files its "args" names, in the order scripts/ktap.sh gets them) and
# expected, the verdict scripts/ktap.sh must reach: all of its stdout
# (skips, failures with their log lines and FILE:LINE, "N passed, N
# failed"), then "exit status N". ktap.sh runs inside the case's directory
# so that FILE:LINE names the case's own files. Prints KTAP: one line per
# case, a difference as comments (diff -u, expected first) before it.
# KTAP_JUDGE=FILE tests that copy of ktap.sh (with a common.sh beside it)
# instead: how a case is shown to catch a change of the judge.
set -uo pipefail
. "$(dirname "$0")/common.sh"

judge=${KTAP_JUDGE:-$REPO/scripts/ktap.sh}
dir=$REPO/tests/harness/ktap
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
	args=(console ktap)
	[ -f "$dir/$c/args" ] && read -r -a args < "$dir/$c/args"
	# The default KTAP_LOG_LINES (20) is part of what the cases check.
	verdict=$(cd "$dir/$c" && env -u KTAP_LOG_LINES "$judge" "${args[@]}" 2>&1
		echo "exit status $?")
	[ -n "$update" ] && printf '%s\n' "$verdict" > "$dir/$c/expected"
	if diff=$(diff -u --label expected --label "ktap.sh's verdict" "$dir/$c/expected" - 2>&1 \
			<<<"$verdict"); then
		echo "ok $n $c"
	else
		sed 's/^/# /' <<<"$diff"
		echo "not ok $n $c"
		failed=$((failed + 1))
	fi
done
exit $((failed != 0))
