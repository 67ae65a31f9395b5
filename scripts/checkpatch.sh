#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/checkpatch.pl --strict over every patch in patches/series
# (BASE=6.12: patches-6.12/series, with the 6.12 tree's checkpatch.pl), and
# the [PATCH n/m] numbers of the patches against the cover letter's 0/m.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# spdxcheck.py wants Debian's python3 (with python3-ply), not a local one.
export PATH=/usr/bin:$PATH
status=0
# The numbering: the cover letter is [PATCH 0/m], the series' patches are
# 1/m..m/m in the order of patches/series.
cover=$PATCHES/0000-cover-letter.patch
m=$(grep -m1 '^Subject: ' "$cover" 2>/dev/null | sed -n 's|^Subject: \[PATCH 0*0/\([0-9]*\)\].*|\1|p')
if [ -z "$m" ]; then
	echo "numbering: no [PATCH 0/m] subject in $cover"
	status=1
else
	n=0
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		n=$((n + 1))
		grep -m1 "^Subject: " "$PATCHES/$p" | sed 's/^Subject: //' | grep -Eq "^\[PATCH 0*$n/0*$m\] " ||
			{ echo "numbering: $p is not [PATCH $n/$m]"; status=1; }
	done < "$PATCHES/series"
	[ "$n" = "$((10#$m))" ] || { echo "numbering: $n patches, cover says 0/$m"; status=1; }
	[ $status = 0 ] && echo "numbering: cover 0/$m, patches 1/$m..$n/$m"
fi
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	echo "--- $p"
	"$TREE/scripts/checkpatch.pl" --strict --ignore FILE_PATH_CHANGES \
		--no-signoff --terse --show-types -q "$PATCHES/$p" || status=1
done < "$PATCHES/series"
[ $status = 0 ] && echo "checkpatch: clean" || echo "checkpatch: problems above"
exit $status
