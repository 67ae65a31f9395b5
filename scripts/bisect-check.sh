#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel after every patch of the series (bisectability), in a
# worktree and O= directory of its own so the test build stays warm
# (BASE=6.12: the 6.12 series, with the patched612 kernel's .config).
set -euo pipefail
. "$(dirname "$0")/common.sh"
lock "build-bisect$BASE_SUFFIX" x

wt=$CACHE/src/bisect$BASE_SUFFIX
obj=$CACHE/build/bisect$BASE_SUFFIX
[ -f "$CACHE/build/$KERNEL/.config" ] ||
	die "build the $KERNEL kernel first (make kernel)"

# The tree lock is held only while the commits are listed: the builds run
# in a worktree of their own, on these commits, which stay in the repo
# when tree.sh rewrites the series branch, so make test and make bench
# need not wait the hour this takes.
commits=$(
	lock tree s
	[ -d "$wt" ] || git -C "$TREE" worktree add -q --detach "$wt" base >&2
	git -C "$TREE" rev-list --reverse base..series
)

# A first run starts from a copy of the pristine tree's finished build
# with the same fragments (stock; BASE=6.12: upstream), so patch 1
# recompiles what it changes instead of the whole kernel. The copy is
# made with the worktree at base and dated after its files, and the checkouts that
# follow write the files each patch changes after it, so kbuild rebuilds
# exactly those and what depends on them.
ref=$CACHE/build/stock
[ "$BASE" = 6.12 ] && ref=$CACHE/build/upstream
if [ ! -f "$obj/.config" ] && [ -f "$ref/.built" ] &&
		cmp -s "$ref/.config-fragments" "$CACHE/build/$KERNEL/.config-fragments"; then
	say "seeding $obj from $ref"
	git -C "$wt" checkout -q --detach base
	(
		lock "build-${ref##*/}" s
		seed_build "$ref" "$obj" "$wt"
	)
	# One date for every file: touched one by one, a target could end up
	# older than a prerequisite touched after it.
	t=$(($(date +%s) + 1))
	find "$obj" -exec touch -h -d "@$t" {} +
	sleep 2
fi
mkdir -p "$obj"
cmp -s "$CACHE/build/$KERNEL/.config" "$obj/.config" ||
	cp "$CACHE/build/$KERNEL/.config" "$obj/.config"

n=0
for commit in $commits; do
	n=$((n + 1))
	say "[$n] $(git -C "$TREE" log -1 --format=%s "$commit")"
	git -C "$wt" checkout -q --detach "$commit"
	make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$JOBS" olddefconfig >/dev/null
	make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$JOBS" bzImage ||
		die "build fails after patch $n: $(git -C "$TREE" log -1 --format=%s "$commit")"
done
say "all $n patches build on their own"
