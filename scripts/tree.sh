#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the base's Debian package (linux-source-6.1; KERNEL=patched612
# or BASE=6.12: linux-source-6.12) into the cache (src/linux,
# src/linux-6.12), make it a git repo tagged "base" and apply the series
# (patches/series, patches-6.12/series) on branch "series" with git am.
# An unpatched kernel's tree is made beside it: src/stock, a worktree of
# tag base; src/upstream, linux-source-6.12 as it is (KERNEL=upstream,
# system-upstream). What is whose: scripts/base/; paths: scripts/common.sh.
#
# Reapplies only when patches/ changed since the last application. If the
# tree holds commits that are not in patches/ (someone is editing the
# series there), it is left alone with a warning: run `make patches`.
set -euo pipefail
. "$(dirname "$0")/common.sh"
arch_inputs	# the source tarballs

git_tree() { git -C "$TREE" "$@"; }
src=$(source_tree)

# pristine NAME: make src/NAME, the tree of the unpatched kernel NAME, as
# the table of the base whose pristine kernel it is says: a worktree of
# that base's tag base (stock), or its package extracted as it is, with
# the tarball's dates (upstream, upstream73; nothing is applied to it).
pristine() {
	local name=$1 dir=$CACHE/src/$1 b tarball
	for b in $BASES; do
		if [ "$(base_fact "$b" BASE_PRISTINE)" = "$name" ]; then break; fi
	done
	base_facts "$b"
	[ "$BASE_PRISTINE" = "$name" ] || die "no table of scripts/base/ has the pristine kernel $name"
	case $BASE_PRISTINE_SRC in
	worktree)
		say "creating the $name worktree at tag base"
		git -C "$CACHE/src/$BASE_TREE" worktree add -q --detach "$dir" base ;;
	package)
		tarball=$(base_tarball "$b")
		[ -f "$tarball" ] || die "$tarball missing (scripts/deps.sh installs $BASE_PACKAGE)"
		say "extracting $tarball into $dir (about a minute)"
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1
		mv "$dir.tmp" "$dir" ;;
	esac
}

# A base without a series (7.3): its pristine tree (a new directory, no
# build reads it yet: its own lock, not the trees'), and the tree of the
# series whose selftests its kernels boot (BASE_SELFTESTS).
if [ -z "$BASE_PATCHES" ]; then
	if [ ! -f "$src/Makefile" ]; then
		lock "src-${src##*/}" x
		[ -f "$src/Makefile" ] || (pristine "${src##*/}")
	fi
	exec env KERNEL="$(base_fact "$BASE_SELFTESTS" BASE_PATCHED)" "$0"
fi

extract() {
	[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing (apt-get install $SRC_PACKAGE)"
	say "extracting $SRC_TARBALL into $TREE (about a minute)"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$SRC_TARBALL" -C "$TREE.tmp" --strip-components=1 \
		--checkpoint=20000 --checkpoint-action='echo=... %u records'
	cd "$TREE.tmp"
	# Debian's top-level .gitignore ignores everything ("/*").
	sed -i '\|^/\*$|d' .gitignore
	git init -q -b series
	git config user.name "pidfd-signal"
	git config user.email "pidfd-signal@localhost"
	git config core.autocrlf false
	git config gc.auto 0
	say "committing the pristine tree (about 30 s)"
	git add -f -A
	git commit -q -m "Debian $SRC_PACKAGE $(dpkg-query -W -f='${Version}' "$SRC_PACKAGE" 2>/dev/null)"
	git tag base
	cd - >/dev/null
	mv "$TREE.tmp" "$TREE"
}

series_hash() {
	(cd "$PATCHES" && cat series $(grep -v '^#' series 2>/dev/null) 2>/dev/null) |
		sha1sum | cut -d' ' -f1
}

# A new version of the series that changes only messages, tests or a few
# files must not make kbuild recompile every kernel built from this tree
# (a header such as pid.h is included almost everywhere): save_dates
# notes the dates of the files the series applied before (commit OLD)
# touches, and keep_dates gives back its date to each whose content the
# new series left as OLD had it.
save_dates() {	# OLD dates-file
	git_tree diff --name-only base "$1" -- | while IFS= read -r f; do
		if [ -f "$TREE/$f" ]; then
			printf '%s %s\n' "$(stat -c %.9Y "$TREE/$f")" "$f"
		fi
	done > "$2"
}
keep_dates() {	# OLD dates-file
	local t f
	while read -r t f; do
		if [ -f "$TREE/$f" ] && git_tree diff --quiet "$1" HEAD -- "$f"; then
			touch -d "@$t" "$TREE/$f"
		fi
	done < "$2"
}

apply_series() {
	local p old dates
	say "applying ${PATCHES#"$REPO/"}/series onto base"
	old=$(git_tree rev-parse -q --verify series || true)
	# A tree with edits of its own: its dates say nothing of OLD's files.
	[ -n "$old" ] && [ "$(git_tree rev-parse HEAD)" = "$old" ] &&
		git_tree diff --quiet HEAD || old=
	dates=$(mktemp)
	[ -z "$old" ] || save_dates "$old" "$dates"
	# No record until the whole series is in: the next run applies again
	# from base after an interruption or a patch that failed, instead of
	# taking the half-applied tree for commits of its own ("make patches"
	# would then drop the rest of the series).
	rm -f "$APPLIED-head" "$APPLIED-series"
	git_tree am --abort >/dev/null 2>&1 || true
	git_tree checkout -q -f -B series base
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$PATCHES/$p" ] || die "${PATCHES#"$REPO/"}/series names $p, which does not exist"
		if ! git_tree am -q --whitespace=nowarn "$PATCHES/$p"; then
			git_tree am --abort || true
			die "patch does not apply: ${PATCHES#"$REPO/"}/$p"
		fi
		say "  applied $p"
	done < "$PATCHES/series"
	[ -z "$old" ] || keep_dates "$old" "$dates"
	rm -f "$dates"
	git_tree rev-parse HEAD > "$APPLIED-head"
	series_hash > "$APPLIED-series"
}

# Everything already as patches/ describes it: the usual case. Checking
# that needs no lock (a tree being changed does not match yet), so a
# long reader of the tree such as bisect-check holds no test run up.
up_to_date() {
	[ -d "$TREE/.git" ] && [ -f "$APPLIED-series" ] &&
		[ "$(series_hash)" = "$(cat "$APPLIED-series")" ] &&
		[ "$(git_tree rev-parse HEAD)" = "$(cat "$APPLIED-head")" ] &&
		[ -f "$src/Makefile" ] &&
		{ [ "$BASE_PRISTINE_SRC" != worktree ] || [ -d "$CACHE/src/$BASE_PRISTINE" ]; }
}
up_to_date && exit 0
lock tree x

mkdir -p "$CACHE/src"
[ -d "$TREE/.git" ] || extract

if [ ! -f "$APPLIED-series" ]; then
	apply_series
elif [ "$(series_hash)" != "$(cat "$APPLIED-series")" ]; then
	if [ "$(git_tree rev-parse HEAD)" != "$(cat "$APPLIED-head")" ]; then
		die "${PATCHES#"$REPO/"}/ changed and $TREE has its own new commits; regenerate it (make patches BASE=$BASE) or reset the tree"
	fi
	apply_series
elif [ "$(git_tree rev-parse HEAD)" != "$(cat "$APPLIED-head")" ]; then
	say "warning: $TREE has commits not in ${PATCHES#"$REPO/"}/ (building them; run make patches)"
fi

# The kernel's own tree, when it is an unpatched one; a base's pristine
# worktree is cheap and made with its tree, whichever kernel asked.
[ -f "$src/Makefile" ] || (pristine "${src##*/}")
if [ "$BASE_PRISTINE_SRC" = worktree ] && [ ! -d "$CACHE/src/$BASE_PRISTINE" ]; then
	(pristine "$BASE_PRISTINE")
fi
