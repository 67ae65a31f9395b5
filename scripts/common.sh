# SPDX-License-Identifier: GPL-2.0
# Shared settings for the host scripts; sourced, not run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PIDFD_CACHE:-$HOME/.cache/pidfd-signal}
say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# BASE selects the series: 6.1 (default; patches/, Debian 12's kernel) or
# 6.12 (patches-6.12/, Debian 13's kernel and Debian 12's LTS kernel).
# KERNEL selects the build, and its base with it: patched, stock (the
# pristine 6.1 tree, same config), debug (patched +
# kconfig/debug.config), upstream (linux-source-6.12, same config: the
# reference), patched-<c> (patched + kconfig/matrix/<c>.config, the
# delta of a make matrix config: KERNEL=patched-cr-n boots without
# CHECKPOINT_RESTORE), system-patched and system-stock (+
# kconfig/system.config: make system's Debian root disk), bench-patched
# and bench-stock (+ kconfig/bench.config: make bench's, with SLUB);
# patched612, debug612, patched612-<c>, system-patched612,
# system-upstream, bench-patched612 and bench-upstream likewise for
# 6.12. BASE without KERNEL selects the base's patched
# kernel (make patches/checkpatch/bisect-check BASE=6.12 work on the
# 6.12 series).
# What differs between the bases, the names of their kernels included,
# is in one file per base, scripts/base/BASE.sh, and nowhere else: the
# scripts ask the functions below and the BASE_* variables, not $BASE
# or a list of names.
BASES=$(cd "$REPO/scripts/base" && ls -- *.sh | sed 's/\.sh$//' | sort -V | xargs)

# base_facts BASE: the BASE_* variables of scripts/base/BASE.sh (every
# table sets every name: a table sourced after another leaves nothing of
# it behind).
base_facts() {
	[ -f "$REPO/scripts/base/$1.sh" ] || die "unknown BASE=$1 (scripts/base/: $BASES)"
	. "$REPO/scripts/base/$1.sh"
}

# base_fact BASE NAME: the value of NAME in BASE's table; the selected
# base's variables stay as they are.
base_fact() {
	(base_facts "$1" && echo "${!2}")
}

# each_base NAME: the words of NAME in every base's table, oldest base
# first (the default kernels of make test and make system, the packages).
each_base() {
	local b
	for b in $BASES; do base_fact "$b" "$1"; done | xargs
}

# SERIES_BASES: the bases that carry a series of ours (BASE_PATCHES), oldest
# first; a reference base (7.3) has only its pristine kernel, and no tree,
# patched kernel or series step.
SERIES_BASES=$(for b in $BASES; do
	if [ -n "$(base_fact "$b" BASE_PATCHES)" ]; then echo "$b"; fi
done | xargs)

# base_tarball BASE: BASE's source tarball: /usr/src/ of the installed
# package, or of the package of BASE_SUITE that scripts/deps.sh unpacked
# into $CACHE/debian/SUITE.
base_tarball() {
	(base_facts "$1"
	 echo "${BASE_SUITE:+$CACHE/debian/$BASE_SUITE}/usr/src/$BASE_PACKAGE.tar.xz")
}

# base_has NAME: the loaded table names kernel NAME.
base_has() {
	local k
	case $1 in
	"$BASE_PATCHED"-*) [ -n "$BASE_PATCHED" ] && return 0 ;;
	bench-*) base_has "${1#bench-}"; return ;;
	esac
	for k in $BASE_KERNELS; do [ "$1" = "$k" ] && return 0; done
	for k in $BASE_SYSTEM; do [ "$1" = "system-$k" ] && return 0; done
	return 1
}

# kernel_bases NAME: the bases whose tables name kernel NAME: one; none
# for a name no table has; two when a table is wrong.
kernel_bases() {
	local b
	for b in $BASES; do
		if (base_facts "$b" && base_has "$1"); then echo "$b"; fi
	done | xargs
}

# kernel_names: every kernel name the tables know, for messages.
kernel_names() {
	local b names
	names=$(for b in $BASES; do
		(base_facts "$b" && echo $BASE_KERNELS ${BASE_PATCHED:+"$BASE_PATCHED-<c>"}
		 for k in $BASE_SYSTEM; do echo "system-$k"; done)
	done | xargs | sed 's/ /, /g')
	echo "$names; make system: $(system_names | sed 's/ /, /g')"
}

# make system's names: each base's BASE_SYSTEM kernels, booting its
# BASE_RELEASE, and <kernel>-<release> for every release of its
# BASE_SYSTEM_ALSO (patched-trixie: Debian 13 on build/system-patched).
# They name a boot, not a build: scripts/system.sh builds system-<kernel>.

# system_names: every name, each base's in its table's order, oldest base
# first (make system's default list).
system_names() {
	local b
	for b in $BASES; do
		(base_facts "$b"
		 echo $BASE_SYSTEM
		 for r in $BASE_SYSTEM_ALSO; do printf '%s\n' $BASE_SYSTEM | sed "s/\$/-$r/"; done)
	done | xargs
}

# system_boot NAME: "BASE KERNEL RELEASE" of make system name NAME
# (patched-trixie: "6.1 patched trixie"); nothing for an unknown name.
system_boot() {
	local b
	for b in $BASES; do
		(base_facts "$b"
		 for k in $BASE_SYSTEM; do
			[ "$1" = "$k" ] && echo "$b $k $BASE_RELEASE"
			for r in $BASE_SYSTEM_ALSO; do
				[ "$1" = "$k-$r" ] && echo "$b $k $r"
			done
		 done)
	done
}

# The default base: 6.1. A kernel's table decides its base.
if [ -z "${KERNEL:-}" ]; then
	base_facts "${BASE:-6.1}"
	KERNEL=$BASE_PATCHED
fi
# A boot of another release (make system KERNEL=stock-trixie, which runs
# deps.sh first) selects the build it boots: system-stock. (So no matrix
# config may be named after a release: patched-trixie is this, not
# patched + kconfig/matrix/trixie.config.)
read -r _ system_kernel system_release <<<"$(system_boot "${KERNEL#system-}")"
if [ -n "$system_kernel" ] && [ "${KERNEL#system-}" = "$system_kernel-$system_release" ]; then
	KERNEL=system-$system_kernel
fi
unset system_kernel system_release
BASE=$(kernel_bases "$KERNEL")
case $BASE in
'') die "unknown KERNEL=$KERNEL ($(kernel_names))" ;;
*' '*) die "KERNEL=$KERNEL is in more than one table: scripts/base/{${BASE// /,}}.sh" ;;
esac
base_facts "$BASE"
# The base's Debian package and tarball, the series, the git tree that
# carries it (tag "base" is the pristine Debian source, branch "series"
# the series as commits) and what tree.sh last applied there.
SRC_PACKAGE=$BASE_PACKAGE
SRC_TARBALL=$(base_tarball "$BASE")
PATCHES=$REPO/$BASE_PATCHES
TREE=$CACHE/src/$BASE_TREE
APPLIED=$CACHE/src/$BASE_APPLIED

# ARCH selects the guest: x86_64 (default; built with the host's gcc,
# booted with qemu-system-x86_64), arm64 (cross-built with Debian's
# aarch64-linux-gnu- toolchain, booted with qemu-system-aarch64 -M virt)
# or i386 (a 32-bit kernel and programs, qemu-system-i386).
# What differs is in scripts/arch/ARCH.sh, nowhere else.
case ${ARCH:-x86_64} in
x86_64|x86) ARCH=x86_64 ;;
arm64|aarch64) ARCH=arm64 ;;
i386|i686) ARCH=i386 ;;
*)
	printf 'error: unknown ARCH=%s (x86_64, arm64 or i386)\n' "$ARCH" >&2
	exit 1
	;;
esac
. "$REPO/scripts/arch/$ARCH.sh"
ARCH_TEST_KERNELS=${ARCH_TEST_KERNELS:-$(each_base BASE_TEST)}
BUILD=$CACHE/build/$KERNEL$ARCH_SUFFIX
OUT=$CACHE/out/$KERNEL$ARCH_SUFFIX
JOBS=${JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$CACHE
export CCACHE_NOHASHDIR=1

# arch_inputs: what scripts/deps.sh puts in place for ARCH (the packages,
# and arch_deps: the foreign userspace of arm64 and i386 and arm64's
# compiler driver in the cache) is there before a script reads it.
# tree.sh, kernel.sh, guest.sh and test.sh ask themselves, so no path depends on
# an earlier `make deps` for its ARCH (make test's i386:pidfs step runs
# test.sh with ARCH=i386; issue 49). deps.sh runs once per ARCH and cache
# in a run: PIDFD_DEPS_<ARCH>=CACHE tells the scripts it starts.
arch_inputs() {
	local var=PIDFD_DEPS_$ARCH
	[ "${!var:-}" = "$CACHE" ] && return 0
	"$REPO/scripts/deps.sh" || die "scripts/deps.sh for ARCH=$ARCH failed"
	check_inputs || die "ARCH=$ARCH: scripts/deps.sh left inputs missing"
	export "$var=$CACHE"
}

# check_inputs: every file of ARCH_INPUTS (scripts/arch/ARCH.sh) and every
# base's source tarball is there; else the missing ones, and failure.
# kernel.sh --inputs and guest.sh --inputs stop after it: make test's
# harness:cold-inputs runs them on an empty cache (scripts/test-cold-inputs.sh).
check_inputs() {
	local f missing=0
	for f in "${ARCH_INPUTS[@]}" $(for b in $BASES; do base_tarball "$b"; done); do
		[ -e "$f" ] && continue
		printf 'error: ARCH=%s: no %s (scripts/deps.sh fetches it)\n' "$ARCH" "$f" >&2
		missing=1
	done
	return $missing
}

# ONLY: comma-separated glob patterns over the names of the test plan's
# entries (conformance:send_signal_test, tool:host, smoke:bench:probe,
# series:checkpatch ...): make test runs those that match, and leaves the
# others out. The guest gets it as pidfd.only= (guest/init.c matches it
# with fnmatch(3), as only_match and only_case do here). Empty:
# everything. ENTRY:CASE runs one case of a plan entry (only_case).
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

# only_case NAME: plan entry NAME is selected by ONLY: whole (a pattern
# matches NAME; prints nothing) or some of its cases: each pattern
# ENTRY:CASE whose ENTRY (up to the last colon) matches NAME selects case
# CASE, the harness's name of it ("#  RUN" prints fixture.test or
# fixture.variant.test; a test name alone is every fixture's); prints
# them, one a line. As guest/init.c's selected(). Host steps take no
# case: only_match.
only_case() {
	local pattern patterns cases=()
	[ -z "$ONLY" ] && return 0
	IFS=, read -r -a patterns <<<"$ONLY"
	for pattern in "${patterns[@]}"; do
		[ -n "$pattern" ] || continue
		# shellcheck disable=SC2053	# globs, on purpose
		[[ $1 == $pattern ]] && return 0
		[[ $pattern == *:* && $1 == ${pattern%:*} ]] && cases+=("${pattern##*:}")
	done
	[ ${#cases[@]} -gt 0 ] || return 1
	printf '%s\n' "${cases[@]}"
}

# verdicts FILE...: the failures (with their log lines) of scripts/ktap.sh
# verdict files, then their sum "N passed, N failed"; non-zero when
# something failed or there was no verdict. A file without its summary
# line (ktap.sh itself failed) is one failure, not a kernel that
# silently drops out of the sum.
verdicts() {
	local f broken=0
	awk '/^  FAIL / { show = 1 } /^[^ ]|^  SKIP / { show = 0 } show' "$@"
	for f; do
		grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$f" 2>/dev/null && continue
		echo "  FAIL no verdict in $f"
		broken=$((broken + 1))
	done
	awk -v f="$broken" '/^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; n++ }
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

# not_installed PACKAGE...: those of the Debian packages that are not
# installed, on one line.
not_installed() {
	local p
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			echo "$p"
	done | xargs
}

# recorded_cases DIR LABEL VERDICT [--update] [CASE...]: the host scripts'
# own tests on recorded runs (test-ktap.sh, test-compare.sh): each case,
# DIR/CASE (default: every one), holds in "expected" all that function
# VERDICT DIR/CASE prints, then "exit status N"; --update rewrites it.
# Prints KTAP, a difference as comments (diff -u, expected first, LABEL
# the other side) before its line; fails when a case differs.
recorded_cases() {
	local dir=$1 label=$2 verdict_of=$3 update= c n=0 failed=0 verdict diff cases
	shift 3
	[ "${1:-}" = --update ] && { update=1; shift; }
	cases=("$@")
	if [ ${#cases[@]} = 0 ]; then
		for c in "$dir"/*/; do cases+=("$(basename "$c")"); done
	fi
	echo "TAP version 13"
	echo "1..${#cases[@]}"
	for c in "${cases[@]}"; do
		n=$((n + 1))
		[ -d "$dir/$c" ] || { echo "not ok $n $c # no $dir/$c"; failed=$((failed + 1)); continue; }
		verdict=$("$verdict_of" "$dir/$c" 2>&1
			echo "exit status $?")
		[ -n "$update" ] && printf '%s\n' "$verdict" > "$dir/$c/expected"
		if diff=$(diff -u --label expected --label "$label" "$dir/$c/expected" - 2>&1 \
				<<<"$verdict"); then
			echo "ok $n $c"
		else
			sed 's/^/# /' <<<"$diff"
			echo "not ok $n $c"
			failed=$((failed + 1))
		fi
	done
	[ $failed = 0 ]
}

# The last line of every KTAP file the harness writes (guest/init.c gets it
# from scripts/guest.sh, system/plan.sh from scripts/system.sh); a file
# without it is a run that did not finish.
END_MARKER=PIDFD-SIGNAL-END

# What fails a run when the kernel prints it (scripts/ktap.sh), and what
# the stress table counts as splats (scripts/stress.sh): one pattern.
KERNEL_WARNING_RE='Kernel panic|BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|kmemleak:|INFO: task .* blocked|INFO: .*detected stall|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage'

# guest_cflags HEADERS: the flags of every static guest program, against
# the kernel UAPI headers in HEADERS (out/KERNEL/headers/include).
guest_cflags() {
	echo "-static -O2 -g -Wall -pthread -isystem $1 -I$REPO/guest"
}

# stale OUTPUT INPUT...: OUTPUT is missing or older than an input.
stale() {
	local out=$1 f; shift
	[ -e "$out" ] || return 0
	for f; do [ "$f" -nt "$out" ] && return 0; done
	return 1
}

# compile OUTPUT SOURCE [FLAGS...]: $GUEST_CC $CFLAGS_GUEST FLAGS, only when
# OUTPUT is stale against SOURCE, the headers beside it, guest/*.h and the
# files of COMPILE_DEPS (scripts/guest.sh: the kernel's pidfd.h, itself,
# its flags stamp). Here, not in guest.sh, so that scripts/test-interrupt.sh
# runs the same code. The compiler writes OUTPUT.tmp, renamed to OUTPUT
# when it succeeded: a compile that was interrupted (Ctrl-C, a kill) or
# failed must not leave an OUTPUT newer than its source, which every
# later run would trust (a zero-length program: "Permission denied").
COMPILE_DEPS=()
compile() {
	local out=$1 src_file=$2; shift 2
	stale "$out" "$src_file" "${COMPILE_DEPS[@]}" \
		$(dirname "$src_file")/*.h "$REPO"/guest/*.h || return 0
	echo "   CC $out" >&2
	rm -f "$out.tmp"
	$GUEST_CC $CFLAGS_GUEST "$@" -o "$out.tmp" "$src_file" ||
		{ rm -f "$out.tmp"; die "cannot compile $src_file"; }
	mv -f "$out.tmp" "$out"
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

# series_kernel NAME: kernel NAME carries the selected base's series:
# its patched, patched-<c> or debug kernel.
series_kernel() {
	case $1 in "$BASE_PATCHED"|"$BASE_PATCHED"-*|"$BASE_DEBUG") return 0 ;; esac
	return 1
}

# source_tree: the tree the selected build (system-<k> and bench-<k> as
# <k>) builds from: the series' tree, or src/<name> for an unpatched
# kernel (stock, a worktree of tag base; upstream, linux-source-6.12 as
# it is); tree.sh makes it as the table of the base whose pristine
# kernel it is says.
source_tree() {
	local k=${KERNEL#system-}

	k=${k#bench-}
	if series_kernel "$k"; then
		echo "$TREE"
	else
		echo "$CACHE/src/$k"
	fi
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
