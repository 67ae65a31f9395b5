#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate patches/ (BASE=6.12: patches-6.12/) from the commits
# base..series of the cached tree (src/linux, src/linux-6.12),
# the way to land edits made there (git commit --amend, rebase -i ...):
# one `git format-patch --cover-letter --thread` run, so that every
# patch is [PATCH n/m] of the same m and the mails form one thread. The
# cover letter's subject and text come from patches/cover-letter.txt
# (first line: the subject); its Cc: line from get_maintainer.pl.
#
# The selftest files every series carries are written once, in
# selftests/pidfd/: the tree's copy of each is brought up to date first,
# the change folded into the last patch of the series that touched the
# file. `make patches` without BASE does this for every base, so a change
# there reaches every series; scripts/twins.sh checks that it did.
set -euo pipefail
. "$(dirname "$0")/common.sh"
lock tree x

cover=$PATCHES/cover-letter.txt
[ -f "$cover" ] || die "missing $cover"
git -C "$TREE" diff --quiet HEAD || die "$TREE has uncommitted changes"

selftests=tools/testing/selftests/pidfd
for f in "$REPO"/selftests/pidfd/*; do
	path=$selftests/${f##*/}
	cmp -s "$f" "$TREE/$path" && continue
	last=$(git -C "$TREE" log -1 --format=%s base..HEAD -- "$path")
	[ -n "$last" ] || die "${f#"$REPO/"}: no patch of ${PATCHES#"$REPO/"} adds $path;" \
		"add it to the one that first needs it"
	say "${f#"$REPO/"} changed: folded into \"$last\""
	cp "$f" "$TREE/$path"
	git -C "$TREE" commit -q -m "fixup! $last" -- "$path"
done
GIT_SEQUENCE_EDITOR=true git -C "$TREE" rebase -q -i --autosquash base
# Author dates in series order, as a mailed series has them.
git -C "$TREE" rebase -q --ignore-date base

cd "$PATCHES"
find . -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
	--thread=shallow -o "$PATCHES" base..HEAD
mkdir -p "$CACHE/out"
git -C "$TREE" format-patch -q --stdout base..HEAD > "$CACHE/out/series$BASE_SUFFIX.mbox"
cc=$(cd "$TREE" && scripts/get_maintainer.pl --no-rolestats --no-git \
	--no-git-fallback "$CACHE/out/series$BASE_SUFFIX.mbox" | paste -sd, | sed 's/,/, /g')
subject=$(head -n 1 "$cover")
awk -v subject="$subject" -v cc="$cc" -v body="$cover" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject); print;
		if (cc != "") print "Cc: " cc; next }
	/\*\*\* BLURB HERE \*\*\*/ { n = 0
		while ((getline line < body) > 0) if (n++ >= 2) print line
		next }
	{ print }' 0000-cover-letter.patch > 0000-cover-letter.patch.tmp
mv 0000-cover-letter.patch.tmp 0000-cover-letter.patch
{
	echo "# Kernel series, in order (git am); base: Debian $SRC_PACKAGE"
	ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-'
} > series
# The tree already holds exactly this series: no need to reapply.
git -C "$TREE" rev-parse HEAD > "$APPLIED-head"
(cat series $(grep -v '^#' series)) | sha1sum | cut -d' ' -f1 > "$APPLIED-series"
say "${PATCHES#"$REPO/"}/: $(grep -vc '^#' series) patches and a cover letter"
