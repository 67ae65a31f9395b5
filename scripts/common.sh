# SPDX-License-Identifier: GPL-2.0
# Shared settings for the host scripts; sourced, not run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PIDFD_CACHE:-$HOME/.cache/pidfd-signal}
# The reference: upstream 6.12 as Debian ships it (linux-source-6.12),
# built with the same config, so a claim of upstream's ABI is checked by
# running the same tests on it.
UPSTREAM_TARBALL=/usr/src/linux-source-6.12.tar.xz
# KERNEL selects the build: patched (default), stock (tag base, same config),
# debug (patched + kconfig/debug.config; debug612: patched612 + it), upstream (linux-source-6.12,
# same config), patched-<c> (patched + kconfig/matrix/<c>.config, the
# delta of a make matrix config: KERNEL=patched-cr-n boots without
# CHECKPOINT_RESTORE); system-patched and system-stock add
# kconfig/system.config (make system: a Debian root disk); patched612
# is the 6.12 series on linux-source-6.12 (patched612-<c>,
# system-patched612 likewise; system-upstream is the 6.12 reference with
# system.config and system-6.12.config, the Debian 13 system kernels).
# BASE selects the series: 6.1 (default; patches/, Debian 12's kernel) or
# 6.12 (patches-6.12/, Debian 13's kernel and Debian 12's LTS kernel).
# A kernel name decides its own base; BASE=6.12 without KERNEL makes
# patched612 the default kernel (make patches/checkpatch/bisect-check
# BASE=6.12 work on the 6.12 series).
BASE=${BASE:-6.1}
[ -z "${KERNEL:-}" ] && { [ "$BASE" = 6.12 ] && KERNEL=patched612 || KERNEL=patched; }
case $KERNEL in
patched612|patched612-*|debug612|system-patched612|system-upstream) BASE=6.12 ;;
*) BASE=6.1 ;;
esac
# Per base: the Debian package, its tarball, the series and the git tree
# that carries it (tag "base" is the pristine Debian source, branch
# "series" carries the series as commits); BASE_SUFFIX names the base's
# own files beside the 6.1 ones (src/bisect-6.12, out/series-6.12.mbox).
case $BASE in
6.1)
	SRC_PACKAGE=linux-source-6.1
	PATCHES=$REPO/patches
	TREE=$CACHE/src/linux
	APPLIED=$CACHE/src/applied
	BASE_SUFFIX=
	;;
6.12)
	SRC_PACKAGE=linux-source-6.12
	PATCHES=$REPO/patches-6.12
	TREE=$CACHE/src/linux-6.12
	APPLIED=$CACHE/src/applied-6.12
	BASE_SUFFIX=-6.12
	;;
esac
SRC_TARBALL=/usr/src/$SRC_PACKAGE.tar.xz
# ARCH selects the guest: x86_64 (default; built with the host's gcc,
# booted with qemu-system-x86_64) or arm64 (cross-built with Debian's
# aarch64-linux-gnu- toolchain, booted with qemu-system-aarch64 -M virt).
# What differs is in scripts/arch/ARCH.sh, nowhere else.
case ${ARCH:-x86_64} in
x86_64|x86) ARCH=x86_64 ;;
arm64|aarch64) ARCH=arm64 ;;
*)
	printf 'error: unknown ARCH=%s (x86_64 or arm64)\n' "$ARCH" >&2
	exit 1
	;;
esac
. "$REPO/scripts/arch/$ARCH.sh"
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
		awk -v what="$1: " 'index($0, what) != 1' "$f" 2>/dev/null
		printf '%s: %d s (%s, %s cores, load %s)\n' "$1" "$2" "$(date -u +%F)" "$(nproc)" \
			"$(cut -d' ' -f1 /proc/loadavg)"
	} > "$f.tmp" && mv "$f.tmp" "$f"
}

# The last line of every KTAP file the harness writes (guest/init.c gets it
# from scripts/guest.sh, system/plan.sh from scripts/system.sh); a file
# without it is a run that did not finish.
END_MARKER=PIDFD-SIGNAL-END

# What fails a run when the kernel prints it (scripts/ktap.sh), and what
# the stress table counts as splats (scripts/stress.sh): one pattern.
KERNEL_WARNING_RE='Kernel panic|BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|kmemleak:|INFO: task .* blocked|RCU stall|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage'

# guest_cflags HEADERS: the flags of every static guest program, against
# the kernel UAPI headers in HEADERS (out/KERNEL/headers/include).
guest_cflags() {
	echo "-static -O2 -g -Wall -pthread -isystem $1 -I$REPO/guest"
}

# ktap_case NAME INDENT COMMAND...: a KTAP file of one case on stdout:
# COMMAND's output, each line after INDENT ("    " makes its own "ok N"
# lines the case's subtests, "    # " makes every line a comment), then
# "ok 1 NAME", "ok 1 NAME # SKIP" when it exits 4 (KSFT_SKIP), or
# "not ok 1 NAME # exit status N"; then the end marker.
ktap_case() {
	local name=$1 indent=$2 status errexit=
	shift 2
	[[ $- == *e* ]] && errexit=1
	echo "KTAP version 1"
	echo "1..1"
	echo "# running $name"
	set +e
	"$@" 2>&1 | sed "s/^/$indent/"
	status=${PIPESTATUS[0]}
	[ -n "$errexit" ] && set -e
	case $status in
	0) echo "ok 1 $name" ;;
	4) echo "ok 1 $name # SKIP" ;;
	*) echo "not ok 1 $name # ${*#"$REPO/"}: exit status $status" ;;
	esac
	echo "$END_MARKER"
}

# qemu_boot LIMIT CONSOLE RESULTS STDIN QEMU-ARGS...: boot the machine of
# scripts/arch/ARCH.sh with QEMU-ARGS (-kernel, -append ...), the console
# on stdio and saved in CONSOLE, the result port in RESULTS, killed after
# LIMIT seconds (a line in CONSOLE says so: scripts/ktap.sh fails it).
# GUEST_ICOUNT=N (make bench): the guest's clock counts the instructions
# it executes, 2^N ns each, and does not run while the guest idles.
qemu_boot() {
	local limit=$1 console=$2 results=$3 stdin=$4 status errexit= icount=()
	shift 4
	[ -n "${GUEST_ICOUNT:-}" ] && icount=(-icount "shift=$GUEST_ICOUNT,sleep=off")
	[[ $- == *e* ]] && errexit=1
	qemu_results_port "$results"
	rm -f "$console" "$results"
	set +e
	timeout -k 5 --foreground "$limit" "${QEMU_MACHINE[@]}" \
		-smp 2 -m "${GUEST_MEM:-2048}" "${icount[@]}" -nographic -no-reboot -nic none "$@" \
		-serial mon:stdio "${QEMU_RESULTS[@]}" < "$stdin" | tee "$console"
	status=${PIPESTATUS[0]}
	[ -n "$errexit" ] && set -e
	if [ "$status" = 124 ]; then
		echo "error: guest still running after $limit s: killed" | tee -a "$console" >&2
	fi
	return 0
}

# seed_build FROM TO SRC [DATE]: make O= directory TO a copy of the finished
# build FROM of another tree with the same content and config, rewritten
# to build SRC (its .cmd files, dependency files and Makefile name their
# tree), so that kbuild rebuilds only the files of SRC that are newer
# than their objects. ccache cannot share objects between two trees.
# The dependency lists of the .cmd files name the tree relative to the
# build directory (../../src/upstream/include/linux/pid.h): both forms
# are rewritten, or a header the series changes would not rebuild the
# objects it was copied with. DATE (seconds since the epoch): the date
# of every copied file, instead of the one the series' files give.
seed_build() {
	local from=$1 to=$2 src=$3 t=${4:-} old old_rel src_rel
	old=$(readlink "$from/source")
	old_rel=$(realpath -m --relative-to="$from" "$old")
	src_rel=$(realpath -m --relative-to="$to" "$src")
	rm -rf "$to.tmp"
	cp -a "$from" "$to.tmp"
	find "$to.tmp" -type f \( -name '*.cmd' -o -name '*.d' -o -name Makefile \) -print0 |
		xargs -0 grep -lFZ "$old" | xargs -0 -r sed -i "s|$old|$src|g"
	find "$to.tmp" -type f \( -name '*.cmd' -o -name '*.d' \) -print0 |
		xargs -0 grep -lFZ "$old_rel/" |
		xargs -0 -r sed -i "s|\([ :]\)$old_rel/|\1$src_rel/|g"
	ln -sfn "$src" "$to.tmp/source"
	# The objects must be older than every file the series changed (git
	# am wrote them when it applied the series): a reference built after
	# that has newer objects, and kbuild would keep them, so the copy's
	# files are dated one second before the oldest changed file. One date
	# for every file: touched one by one, a target could end up older
	# than a prerequisite touched after it.
	if [ -z "$t" ]; then
		t=$(git -C "$src" diff --name-only base HEAD 2>/dev/null |
			(cd "$src" && xargs -r stat -c %Y -- 2>/dev/null) | sort -n | head -n 1)
		[ -n "$t" ] && t=$((t - 1))
	fi
	[ -n "$t" ] && find "$to.tmp" -exec touch -h -d "@$t" {} +
	rm -f "$to.tmp/.built"
	rm -rf "$to"
	mv "$to.tmp" "$to"
}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Source tree for the selected build: stock builds from a worktree of "base".
source_tree() {
	case $KERNEL in
	stock|system-stock) echo "$CACHE/src/stock" ;;
	patched|debug|patched-*|system-patched) echo "$TREE" ;;
	patched612|patched612-*|debug612|system-patched612) echo "$TREE" ;;
	upstream|system-upstream) echo "$CACHE/src/upstream" ;;
	*) die "unknown KERNEL=$KERNEL (patched, patched612, stock, debug, debug612, upstream, patched-<matrix config>, patched612-<c>, system-patched, system-stock, system-patched612 or system-upstream)" ;;
	esac
}

# lock NAME s|x: take $CACHE/NAME.lock shared or exclusive until the script
# exits, waiting (and saying so) while another run holds it. Builds read
# the tree under "tree" shared; tree.sh rewrites it under "tree"
# exclusive; one build dir is used by one run at a time ("build-KERNEL").
# A script started by a holder inherits the lock.
lock() {
	local var=PIDFD_LOCK_${1//[-.]/_} fd
	[ -n "${!var:-}" ] && return 0
	mkdir -p "$CACHE"
	exec {fd}>"$CACHE/$1.lock"
	if ! flock -n "-$2" "$fd"; then
		say "waiting for another run that holds $CACHE/$1.lock"
		flock "-$2" "$fd"
	fi
	export "$var=1"
}
