# SPDX-License-Identifier: GPL-2.0
# Shared settings for the host scripts; sourced, not run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PIDFD_CACHE:-$HOME/.cache/pidfd-signal}
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
# The reference: upstream 6.12 as Debian ships it (linux-source-6.12),
# built with the same config, so a claim of upstream's ABI is checked by
# running the same tests on it.
UPSTREAM_TARBALL=/usr/src/linux-source-6.12.tar.xz
# The patched tree: a git repo, tag "base" is the pristine Debian source,
# branch "series" carries patches/ as commits.
TREE=$CACHE/src/linux
# KERNEL selects the build: patched (default), stock (tag base, same config),
# debug (patched + kconfig/debug.config), upstream (linux-source-6.12,
# same config), patched-<c> (patched + kconfig/matrix/<c>.config, the
# delta of a make matrix config: KERNEL=patched-cr-n boots without
# CHECKPOINT_RESTORE); system-patched and system-stock add
# kconfig/system.config (make system: a Debian root disk).
KERNEL=${KERNEL:-patched}
BUILD=$CACHE/build/$KERNEL
OUT=$CACHE/out/$KERNEL
JOBS=${JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$CACHE
export CCACHE_NOHASHDIR=1

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Source tree for the selected build: stock builds from a worktree of "base".
source_tree() {
	case $KERNEL in
	stock|system-stock) echo "$CACHE/src/stock" ;;
	patched|debug|patched-*|system-patched) echo "$TREE" ;;
	upstream) echo "$CACHE/src/upstream" ;;
	*) die "unknown KERNEL=$KERNEL (patched, stock, debug, upstream, patched-<matrix config>, system-patched or system-stock)" ;;
	esac
}

# lock NAME s|x: take $CACHE/NAME.lock shared or exclusive until the script
# exits, waiting (and saying so) while another run holds it. Builds read
# the tree under "tree" shared; tree.sh rewrites it under "tree"
# exclusive; one build dir is used by one run at a time ("build-KERNEL").
# A script started by a holder inherits the lock.
lock() {
	local var=PIDFD_LOCK_${1//-/_} fd
	[ -n "${!var:-}" ] && return 0
	mkdir -p "$CACHE"
	exec {fd}>"$CACHE/$1.lock"
	if ! flock -n "-$2" "$fd"; then
		say "waiting for another run that holds $CACHE/$1.lock"
		flock "-$2" "$fd"
	fi
	export "$var=1"
}
