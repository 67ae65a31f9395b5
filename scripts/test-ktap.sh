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

# verdict CASE-DIR: ktap.sh on the case's files, inside its directory.
verdict() {
	local args=(console ktap)
	[ -f "$1/args" ] && read -r -a args < "$1/args"
	# The default KTAP_LOG_LINES (20) is part of what the cases check.
	(cd "$1" && env -u KTAP_LOG_LINES "$judge" "${args[@]}")
}
recorded_cases "$REPO/tests/harness/ktap" "ktap.sh's verdict" verdict "$@"
