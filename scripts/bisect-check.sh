#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel after every patch of the series (bisectability), in a
# worktree and O= directory of its own so the test build stays warm
# (BASE=6.12: the 6.12 series, with the patched612 kernel's .config).
#
#   scripts/bisect-check.sh [--smoke]
#
# --smoke (make test): after every patch, compile only the objects of the
# .c files the series changes that the guest config builds, in a worktree
# and build dir of their own (bisect-smoke*); no link. It catches a patch
# that uses what a later one adds, in seconds once ccache has seen the
# series. BISECT_BRANCH=b: the commits base..b instead of base..series.
set -euo pipefail
# The bisection is x86_64's, also when make test ARCH=arm64 runs it (make
# passes ARCH on in MAKEFLAGS too).
unset ARCH CROSS_COMPILE
. "$(dirname "$0")/common.sh"
smoke=0
[ "${1:-}" = --smoke ] && { smoke=1; shift; }
name=bisect$BASE_SUFFIX
[ $smoke = 1 ] && name=bisect-smoke$BASE_SUFFIX
lock "build-$name" x

wt=$CACHE/src/$name
obj=$CACHE/build/$name
[ -f "$CACHE/build/$KERNEL/.config" ] ||
	die "build the $KERNEL kernel first (make kernel)"
branch=${BISECT_BRANCH:-series}

# The tree lock is held only while the commits are listed: the builds run
# in a worktree of their own, on these commits, which stay in the repo
# when tree.sh rewrites the series branch, so make test and make bench
# need not wait the hour this takes.
commits=$(
	lock tree s
	[ -d "$wt" ] || git -C "$TREE" worktree add -q --detach "$wt" base >&2
	git -C "$TREE" rev-list --reverse "base..$branch"
)
[ -n "$commits" ] || die "no commits in base..$branch"

# A first run starts from a copy of a finished build with the same
# fragments: the pristine tree's (stock; BASE=6.12: upstream), so patch 1
# recompiles what it changes instead of the whole kernel; --smoke, the
# patched kernel's, which make test has just built. The copy is made with
# the worktree at base and dated after its files, and the checkouts that
# follow write the files each patch changes after it, so kbuild rebuilds
# exactly those and what depends on them.
ref=$CACHE/build/$BASE_PRISTINE
[ $smoke = 1 ] && ref=$CACHE/build/$KERNEL
if [ ! -f "$obj/.config" ] && [ -f "$ref/.built" ] &&
		cmp -s "$ref/.config-fragments" "$CACHE/build/$KERNEL/.config-fragments"; then
	say "seeding $obj from $ref"
	git -C "$wt" checkout -q --detach base
	(
		lock "build-${ref##*/}" s
		seed_build "$ref" "$obj" "$wt" $(($(date +%s) + 1))
	)
	sleep 2
fi
mkdir -p "$obj"
cmp -s "$CACHE/build/$KERNEL/.config" "$obj/.config" ||
	cp "$CACHE/build/$KERNEL/.config" "$obj/.config"

# --smoke: the objects of the series' .c files that the kernel's config
# builds (its build dir has them); the selftests are not kernel objects.
objects=()
if [ $smoke = 1 ]; then
	for f in $(git -C "$TREE" diff --name-only base "$branch" -- '*.c' ':!tools'); do
		[ -f "$CACHE/build/$KERNEL/${f%.c}.o" ] && objects+=("${f%.c}.o")
	done
	[ ${#objects[@]} -gt 0 ] || die "the series changes no .c file this config builds"
fi

kmake() { make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$JOBS" "$@"; }
n=0
for commit in $commits; do
	n=$((n + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$commit")
	say "[$n] $subject"
	git -C "$wt" checkout -q --detach "$commit"
	if [ $smoke = 0 ]; then
		kmake olddefconfig >/dev/null
		kmake bzImage || die "build fails after patch $n: $subject"
		continue
	fi
	# Each make costs seconds before it compiles anything (prepare,
	# objtool): a patch that changes only selftests or documentation
	# changes no object, and a new .config is needed only after a Kconfig.
	changed=$(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$commit")
	if ! grep -qv -e '^tools/' -e '^Documentation/' <<<"$changed"; then
		say "    no kernel file changed"
		continue
	fi
	grep -q 'Kconfig' <<<"$changed" && kmake olddefconfig >/dev/null
	# A file a later patch adds is not there yet.
	built=()
	for o in "${objects[@]}"; do
		[ -f "$wt/${o%.o}.c" ] && built+=("$o")
	done
	# Removed, so each is compiled at this patch whatever the dates say;
	# ccache makes the unchanged ones cheap.
	(cd "$obj" && rm -f "${built[@]}")
	kmake "${built[@]}" || die "${built[*]} do not compile after patch $n: $subject"
done
if [ $smoke = 1 ]; then
	say "all $n patches compile ${objects[*]}"
else
	say "all $n patches build on their own"
fi
