#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/checkpatch.pl --strict over every patch in patches/series.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# spdxcheck.py wants Debian's python3 (with python3-ply), not a local one.
export PATH=/usr/bin:$PATH
status=0
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	echo "--- $p"
	"$TREE/scripts/checkpatch.pl" --strict --ignore FILE_PATH_CHANGES \
		--no-signoff --terse --show-types -q "$REPO/patches/$p" || status=1
done < "$REPO/patches/series"
[ $status = 0 ] && echo "checkpatch: clean" || echo "checkpatch: problems above"
exit $status
