#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What scripts/common.sh makes of BASE, KERNEL and ARCH (the base's
# table, scripts/base/, and the paths), for make help and make stress,
# and for a look by hand:
#   scripts/settings.sh NAME...   the value of each NAME, one a line
#   KERNEL=system-upstream scripts/settings.sh BASE TREE BUILD
set -euo pipefail
. "$(dirname "$0")/common.sh"
for name; do
	[ -n "${!name+set}" ] || die "no setting $name"
	printf '%s\n' "${!name}"
done
