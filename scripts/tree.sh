#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract Debian's linux-source-6.1 into the cache, make it a git repo
# tagged "base" and apply patches/series on branch "series" with git am.
# (KERNEL=upstream: extract linux-source-6.12 beside it, as it is;
# KERNEL=patched612 or BASE=6.12: the same for linux-source-6.12 into
# src/linux-6.12 with patches-6.12/series. Paths: scripts/common.sh.)
#
# Reapplies only when patches/ changed since the last application. If the
# tree holds commits that are not in patches/ (someone is editing the
# series there), it is left alone with a warning: run `make patches`.
set -euo pipefail
. "$(dirname "$0")/common.sh"

git_tree() { git -C "$TREE" "$@"; }

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

apply_series() {
	local p
	say "applying ${PATCHES#"$REPO/"}/series onto base"
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
		{ [ "${KERNEL#system-}" != upstream ] || [ -f "$CACHE/src/upstream/Makefile" ]; } &&
		{ [ "$BASE" != 6.1 ] || [ -d "$CACHE/src/stock" ]; }
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

# The upstream reference is a plain extraction: nothing is applied to it.
if { [ "$KERNEL" = upstream ] || [ "$KERNEL" = system-upstream ]; } &&
		[ ! -f "$CACHE/src/upstream/Makefile" ]; then
	[ -f "$UPSTREAM_TARBALL" ] || die "$UPSTREAM_TARBALL missing (apt-get install linux-source-6.12)"
	say "extracting $UPSTREAM_TARBALL into $CACHE/src/upstream (about a minute)"
	rm -rf "$CACHE/src/upstream.tmp"
	mkdir -p "$CACHE/src/upstream.tmp"
	tar -xJf "$UPSTREAM_TARBALL" -C "$CACHE/src/upstream.tmp" --strip-components=1
	mv "$CACHE/src/upstream.tmp" "$CACHE/src/upstream"
fi

# The stock kernel builds from a worktree of the pristine 6.1 tag.
if [ "$BASE" = 6.1 ] && [ ! -d "$CACHE/src/stock" ]; then
	say "creating the stock worktree at tag base"
	git_tree worktree add -q --detach "$CACHE/src/stock" base
fi
