# SPDX-License-Identifier: GPL-2.0
# Shared settings for the host scripts; sourced, not run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PIDFD_CACHE:-$HOME/.cache/pidfd-signal}
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
# The patched tree: a git repo, tag "base" is the pristine Debian source,
# branch "series" carries patches/ as commits.
TREE=$CACHE/src/linux
# KERNEL selects the build: patched (default), stock (tag base, same config)
# or debug (patched + kconfig/debug.config).
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
	stock) echo "$CACHE/src/stock" ;;
	patched|debug) echo "$TREE" ;;
	*) die "unknown KERNEL=$KERNEL (patched, stock or debug)" ;;
	esac
}
