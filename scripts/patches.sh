#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate patches/ from the commits base..series of the cached tree,
# the way to land edits made there (git commit --amend, rebase -i ...).
# The hand-written 0000-cover-letter.patch is kept.
set -euo pipefail
. "$(dirname "$0")/common.sh"
lock tree x

cd "$REPO/patches"
git -C "$TREE" diff --quiet HEAD || die "$TREE has uncommitted changes"
find . -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
git -C "$TREE" format-patch -q --zero-commit --no-signature --start-number 1 \
	-o "$REPO/patches" base..HEAD
{
	echo "# Kernel series, in order (git am); base: Debian linux-source-6.1"
	ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-'
} > series
# The tree already holds exactly this series: no need to reapply.
git -C "$TREE" rev-parse HEAD > "$CACHE/src/applied-head"
(cat series $(grep -v '^#' series)) | sha1sum | cut -d' ' -f1 > "$CACHE/src/applied-series"
say "patches/: $(grep -vc '^#' series) patches"
