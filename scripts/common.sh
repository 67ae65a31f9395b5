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
# ARCH selects the guest: x86_64 (default; built with the host's gcc,
# booted with qemu-system-x86_64) or arm64 (cross-built with Debian's
# aarch64-linux-gnu- toolchain, booted with qemu-system-aarch64 -M virt).
# Each arm64 kernel has its own build and output dirs: build/KERNEL-arm64.
case ${ARCH:-x86_64} in
x86_64|x86)
	ARCH=x86_64
	ARCH_SUFFIX=
	KMAKE_ARCH=()			# the kernel's default: the host's
	KCC=gcc
	KIMAGE_TARGET=bzImage
	KIMAGE_PATH=arch/x86/boot/bzImage
	GUEST_CC=gcc
	GUEST_CONSOLE=ttyS0		# the first 16550 port
	GUEST_RESULTS=/dev/ttyS1	# the second: QEMU saves it as PLAN.ktap
	BUSYBOX=/bin/busybox
	;;
arm64|aarch64)
	ARCH=arm64
	ARCH_SUFFIX=-arm64
	# Debian's gcc-12-aarch64-linux-gnu, unpacked by scripts/deps.sh into
	# the cache: as a dpkg package it Conflicts with gcc-multilib, which
	# the 32-bit (-m32) builds need. Binutils, cpp and the arm64 libc and
	# libgcc are ordinary packages.
	ARM64_TOOLCHAIN=$CACHE/arm64/toolchain
	KMAKE_ARCH=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	KCC=$ARM64_TOOLCHAIN/usr/bin/aarch64-linux-gnu-gcc-12
	KIMAGE_TARGET=Image
	KIMAGE_PATH=arch/arm64/boot/Image
	GUEST_CC=$KCC
	GUEST_CONSOLE=ttyAMA0		# the PL011 of -M virt (it has one)
	GUEST_RESULTS=/dev/hvc0		# a virtconsole on virtio-mmio
	BUSYBOX=$CACHE/arm64/root/bin/busybox	# busybox-static:arm64 (deps.sh)
	;;
*)
	printf 'error: unknown ARCH=%s (x86_64 or arm64)\n' "$ARCH" >&2
	exit 1
	;;
esac
BUILD=$CACHE/build/$KERNEL$ARCH_SUFFIX
OUT=$CACHE/out/$KERNEL$ARCH_SUFFIX
JOBS=${JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$CACHE
export CCACHE_NOHASHDIR=1

# ONLY: comma-separated glob patterns over the names of the test plan's
# entries (conformance:send_signal_test, tool:host, smoke:bench:probe,
# series:checkpatch ...): make test runs those that match, and leaves the
# others out. The guest gets it as pidfd.only= (guest/init.c matches it
# with fnmatch(3), as only_match does here). Empty: everything.
ONLY=${ONLY:-}

# only_match NAME: NAME is selected by ONLY.
only_match() {
	local pattern patterns
	[ -z "$ONLY" ] && return 0
	IFS=, read -r -a patterns <<<"$ONLY"
	for pattern in "${patterns[@]}"; do
		# shellcheck disable=SC2053	# a glob, on purpose
		[ -n "$pattern" ] && [[ $1 == $pattern ]] && return 0
	done
	return 1
}

# verdicts FILE...: the failures (with their log lines) of scripts/ktap.sh
# verdict files, then their sum "N passed, N failed"; non-zero when
# something failed or there was no verdict.
verdicts() {
	awk '/^  FAIL / { show = 1 } /^[^ ]|^  SKIP / { show = 0 } show' "$@"
	awk '/^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; n++ }
		END { printf "%d passed, %d failed\n", p, f; exit (f != 0 || n == 0) }' "$@"
}

# record_time WHAT SECONDS: the last duration of WHAT in $CACHE/times.txt,
# the one place that holds measured times (make help shows it).
record_time() {
	local f=$CACHE/times.txt
	mkdir -p "$CACHE"
	{
		grep -v "^$1: " "$f" 2>/dev/null
		printf '%s: %d s (%s, %s cores, load %s)\n' "$1" "$2" "$(date -u +%F)" "$(nproc)" \
			"$(cut -d' ' -f1 /proc/loadavg)"
	} > "$f.tmp" && mv "$f.tmp" "$f"
}

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
