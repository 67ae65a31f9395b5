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

# verdict CASE-DIR: scripts/NAME.sh on the case's runs and allow file.
verdict() {
	local args allow=$1/allow
	read -r -a args < "$1/args"
	[ -f "$allow" ] || allow=/dev/null
	env ARCH=x86_64 "${env_prefix}_DIR=$1" "${env_prefix}_ALLOW=$allow" \
		"$REPO/scripts/$name.sh" "${args[@]}"
}
recorded_cases "$dir" "$name.sh's verdict" verdict "$@"
