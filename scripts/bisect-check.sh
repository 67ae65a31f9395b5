#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel after every patch of the series (bisectability), in a
# worktree and O= directory of its own so the test build stays warm
# (BASE=6.12: the 6.12 series, with the patched612 kernel's .config).
set -euo pipefail
. "$(dirname "$0")/common.sh"
lock tree s
lock "build-bisect$BASE_SUFFIX" x

wt=$CACHE/src/bisect$BASE_SUFFIX
obj=$CACHE/build/bisect$BASE_SUFFIX
[ -d "$wt" ] || git -C "$TREE" worktree add -q --detach "$wt" base
mkdir -p "$obj"
cp "$CACHE/build/$KERNEL/.config" "$obj/.config" 2>/dev/null ||
	die "build the $KERNEL kernel first (make kernel)"

n=0
for commit in $(git -C "$TREE" rev-list --reverse base..series); do
	n=$((n + 1))
	say "[$n] $(git -C "$TREE" log -1 --format=%s "$commit")"
	git -C "$wt" checkout -q --detach "$commit"
	make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$JOBS" olddefconfig >/dev/null
	make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$JOBS" bzImage ||
		die "build fails after patch $n: $(git -C "$TREE" log -1 --format=%s "$commit")"
done
say "all $n patches build on their own"
