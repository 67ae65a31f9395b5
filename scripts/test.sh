#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The one gate (make test):
#   scripts/test.sh [KERNEL...]
# the tool's host tests and the harness's own (harness:ktap,
# harness:interrupt), then the guest plan on each KERNEL (default: every
# base's BASE_TEST, scripts/base/: patched, upstream, patched612;
# ARCH=arm64: patched), each judged by scripts/ktap.sh; the last line
# adds them up: "N passed, N failed". make test KERNEL=k passes k.
# ONLY=globs (scripts/common.sh) runs only the plan entries and host
# steps whose names match, ENTRY:CASE one case of a plan entry;
# ONLY='harness:*' builds no kernel.
# ARCH=arm64: the same for arm64 guests (out/KERNEL-arm64); the host
# tests are the same.
set -uo pipefail
. "$(dirname "$0")/common.sh"

# One make test per cache at a time: a second run would delete the first
# one's results and test.ktap between its boot and its verdict.
lock test x
start=$SECONDS
# The packages and the cache inputs of this ARCH: the i386:pidfs step
# below runs this script again with ARCH=i386 (arch_inputs in common.sh).
arch_inputs

kernels=${*:-$ARCH_TEST_KERNELS}
results=$CACHE/out/test-results$ARCH_SUFFIX
mkdir -p "$results"
rm -f "$results"/*

host=$CACHE/out/host$ARCH_SUFFIX.ktap
rm -f "$host"
[ -n "$ONLY" ] && say "ONLY=$ONLY: the plan entries and host steps that match"
# How many entries ONLY selected: none is an error, not a pass.
selected=0
# The tool's own TAP lines are the subtests of tool:host.
[ -f "$REPO/tool/Makefile" ] && only_match tool:host &&
	ktap_case tool:host "    " make -s -C "$REPO/tool" test > "$host"
if [ -f "$host" ]; then
	selected=$((selected + 1))
	say "host tests of the tool: $(grep -c '^    ok ' "$host") ok," \
		"$(grep -c '^    not ok ' "$host") not ok"
	: > "$results/host.console"
	"$REPO/scripts/ktap.sh" "$results/host.console" "$host" > "$results/host.verdict"
fi

# The harness's own tests, on the host in seconds, no kernel: each prints
# its cases as KTAP, the subtests of its step (as tool:host's), in
# out/NAME.ktap (harness-ktap.ktap) and judged by ktap.sh like the rest.
harness_step() {	# name command...
	local name=$1 file=${1//:/-} tap
	shift
	only_match "$name" || return 0
	selected=$((selected + 1))
	tap=$CACHE/out/$file$ARCH_SUFFIX.ktap
	ktap_case "$name" "    " "$@" > "$tap"
	say "$name: $(grep -c '^    ok ' "$tap") ok, $(grep -c '^    not ok ' "$tap") not ok"
	: > "$results/$file.console"
	"$REPO/scripts/ktap.sh" "$results/$file.console" "$tap" > "$results/$file.verdict"
}
# ktap.sh on recorded runs, each with the verdict it must reach.
harness_step harness:ktap "$REPO/scripts/test-ktap.sh"
# compile (guest.sh) killed at several points, then run again: the
# program must come out whole (no half-written output that looks new).
harness_step harness:interrupt "$REPO/scripts/test-interrupt.sh"
# The series must not drift apart: the shared selftests one text in every
# tree, and what a series adds elsewhere in the selftests and the UAPI
# headers present in the others (scripts/twins.sh, selftests/twins.allow).
harness_step series:twins "$REPO/scripts/twins.sh"
# scripts/pidfs-compare.sh on recorded runs, each with its verdict.
harness_step harness:pidfs-compare "$REPO/scripts/test-compare.sh" pidfs-compare
# scripts/selftests-compare.sh likewise.
harness_step harness:selftests-compare "$REPO/scripts/test-compare.sh" selftests-compare
# Every input a step reads from the cache is fetched by that step itself:
# kernel.sh and guest.sh of each ARCH on an empty cache (issue 49).
harness_step harness:cold-inputs "$REPO/scripts/test-cold-inputs.sh"
# No guest entry is named harness:*: ONLY of such names alone boots and
# builds no kernel.
only_harness() {
	local pattern patterns
	[ -n "$ONLY" ] || return 1
	IFS=, read -r -a patterns <<<"$ONLY"
	for pattern in "${patterns[@]}"; do
		[ -z "$pattern" ] || [[ $pattern == harness:* ]] || return 1
	done
}
if only_harness; then
	say "ONLY=$ONLY: harness steps only, no kernel"
	kernels=
fi

booted=()
for k in $kernels; do
	# Each kernel is built and packed as `make initramfs` would for it.
	if ! KERNEL=$k "$REPO/scripts/tree.sh" || ! KERNEL=$k "$REPO/scripts/kernel.sh" ||
		! KERNEL=$k "$REPO/scripts/guest.sh"; then
		printf '  FAIL %s: kernel or initramfs did not build\n0 passed, 1 failed\n' \
			"$k" > "$results/$k.verdict"
		selected=$((selected + 1))
		continue
	fi
	o=$CACHE/out/$k$ARCH_SUFFIX
	# The guest entries ONLY selects; none: no boot for this kernel.
	# A case (ENTRY:CASE) is one name: the harness compares with strcmp.
	n=0
	while read -r name _; do
		case $name in ''|'#'*) continue ;; esac
		c=$(only_case "$name") || continue
		n=$((n + 1))
		case $c in *[][*?]*)
			die "ONLY=$ONLY: a case of $name is a glob (${c//$'\n'/ }); the kselftest harness takes exact names only (-r fixture.test or fixture.variant.test, -t test: as its '#  RUN' lines print them)" ;;
		esac
	done < "$o/rootfs/plans/test"
	if [ $n = 0 ]; then
		say "ONLY=$ONLY selects no entry of the $k plan: not booted"
	else
		KERNEL=$k "$REPO/scripts/qemu.sh" test
		booted+=("$k")
	fi
	KERNEL=$k "$REPO/scripts/smoke.sh"	# bench, stress in small: smoke.ktap
	files=()
	[ $n = 0 ] || files+=("$o/test.ktap")
	[ -f "$o/smoke.ktap" ] && files+=("$o/smoke.ktap")
	[ ${#files[@]} = 0 ] && continue
	selected=$((selected + 1))
	say "results of the $k $ARCH kernel"
	console=$o/test.console
	[ $n = 0 ] && console=/dev/null	# not booted
	"$REPO/scripts/ktap.sh" "$console" "${files[@]}" |
		tee "$results/$k.verdict"
done

# The reference, the newest base's pristine kernel (upstream73), and our
# kernels among those booted: what the comparisons below compare with it
# (upstream 6.12 is no kernel of ours, and older than the reference).
reference=$(base_fact "${BASES##* }" BASE_PRISTINE)
ours=()
for k in "${booted[@]}"; do
	if (base_facts "$(kernel_bases "$k")" && series_kernel "$k"); then ours+=("$k"); fi
done
compare=()
[[ " ${booted[*]} " == *" $reference "* ]] && [ ${#ours[@]} -gt 0 ] &&
	compare=("$reference" "${ours[@]}")

# A program that uses only upstream's API must not tell our kernels from
# upstream's pidfs (issue 32): what tests/pidfs_test.c read on each of
# our kernels booted now against the reference's, when both ran
# (pidfs:compare, scripts/pidfs-compare.sh, tests/pidfs-compare.allow).
# Selected by its name or by ONLY selecting the test itself.
if [ ${#compare[@]} -gt 0 ] &&
	{ only_match pidfs:compare || only_case conformance:pidfs_test > /dev/null ||
		only_case conformance32:pidfs_test > /dev/null; }; then
	selected=$((selected + 1))
	say "pidfs:compare: the pidfs_test records of ${ours[*]} against $reference"
	tap=$CACHE/out/pidfs-compare$ARCH_SUFFIX.ktap
	ktap_case pidfs:compare "    " env PIDFS_REFERENCE="$reference" \
		"$REPO/scripts/pidfs-compare.sh" "${compare[@]}" > "$tap"
	say "pidfs:compare: $(grep -c '^    ok ' "$tap") ok, $(grep -c '^    not ok ' "$tap") not ok"
	: > "$results/pidfs-compare.console"
	"$REPO/scripts/ktap.sh" "$results/pidfs-compare.console" "$tap" > "$results/pidfs-compare.verdict"
fi

# Upstream 7.3's own pidfd and coredump selftests, run on every x86_64
# kernel as selftests73:* (scripts/guest.sh): each case's verdict on our
# kernels equal to 7.3's (selftests73:compare,
# scripts/selftests-compare.sh, tests/selftests-compare.allow), when the
# reference and one of ours ran.
ref_step=$(base_fact "${BASES##* }" BASE_STEP)
if [ -z "$ARCH_SUFFIX" ] && [ ${#compare[@]} -gt 0 ] &&
	only_match "selftests$ref_step:compare"; then
	selected=$((selected + 1))
	say "selftests$ref_step:compare: the $reference selftests' verdicts on ${ours[*]}"
	tap=$CACHE/out/selftests-compare.ktap
	ktap_case "selftests$ref_step:compare" "    " \
		"$REPO/scripts/selftests-compare.sh" "${compare[@]}" > "$tap"
	say "selftests$ref_step:compare: $(grep -c '^    ok ' "$tap") ok, $(grep -c '^    not ok ' "$tap") not ok"
	: > "$results/selftests-compare.console"
	"$REPO/scripts/ktap.sh" "$results/selftests-compare.console" "$tap" > "$results/selftests-compare.verdict"
fi

# A host-side step as a KTAP file of one case, its output as comments,
# judged like the guest plans.
host_case() {	# name ktap-file verdict command...
	local name=$1 tap=$2 verdict=$3
	shift 3
	ktap_case "$name" "    # " "$@" > "$tap"
	tail -n 5 "$tap" | sed 's/^    # //' >&2
	: > "$results/$verdict.console"
	"$REPO/scripts/ktap.sh" "$results/$verdict.console" "$tap" > "$results/$verdict.verdict"
}

# With a base's patched kernel (its tree): what a maintainer's bots check
# first, on its series. The config matrix in small (make matrix in full):
# the series' .c files at base and after the last patch, guest config,
# W=1 and sparse; any new warning or failure fails it. checkpatch.pl
# --strict over the series and its numbering (make checkpatch). The
# series' .c files compiled after every patch (make bisect-check in
# small). The entries and files are named by the base's table
# (scripts/base/): matrix:smoke, series:checkpatch, series:bisect for
# 6.1; matrix612:smoke ... and matrix-smoke-6.12.ktap ... for 6.12.
# Each such kernel is also booted for i386 below.
i386_kernels=()
for b in $SERIES_BASES; do
	patched=$(base_fact "$b" BASE_PATCHED)
	case " $kernels " in *" $patched "*) ;; *) continue ;; esac
	i386_kernels+=("$patched")
	step=$(base_fact "$b" BASE_STEP)
	sfx=$(base_fact "$b" BASE_SUFFIX)
	by=${sfx:+ BASE=$b}
	if only_match "matrix$step:smoke"; then
		say "make matrix$by in small: scripts/matrix.sh --smoke"
		host_case "matrix$step:smoke" "$CACHE/out/matrix-smoke$sfx.ktap" "matrix$sfx" \
			env KERNEL="$patched" "$REPO/scripts/matrix.sh" --smoke
		selected=$((selected + 1))
	fi
	if only_match "series$step:checkpatch"; then
		say "make checkpatch$by: scripts/checkpatch.sh"
		host_case "series$step:checkpatch" "$CACHE/out/checkpatch$sfx.ktap" "checkpatch$sfx" \
			env KERNEL="$patched" "$REPO/scripts/checkpatch.sh"
		selected=$((selected + 1))
	fi
	# The series as Debian packages (make deb in small: the test
	# kernel's config, whose objects ccache has; make deb builds Debian's).
	if [ -z "$ARCH_SUFFIX" ] && only_match "deb$step:smoke"; then
		say "make deb$by in small: scripts/deb.sh --smoke"
		host_case "deb$step:smoke" "$CACHE/out/deb-smoke$sfx.ktap" "deb-kernel$sfx" \
			env KERNEL="$patched" "$REPO/scripts/deb.sh" --smoke
		selected=$((selected + 1))
	fi
	# Its objects are x86_64's: the x86_64 run checks the series.
	if [ -z "$ARCH_SUFFIX" ] && only_match "series$step:bisect"; then
		say "make bisect-check$by in small: scripts/bisect-check.sh --smoke"
		host_case "series$step:bisect" "$CACHE/out/bisect-smoke$sfx.ktap" "bisect$sfx" \
			env KERNEL="$patched" "$REPO/scripts/bisect-check.sh" --smoke
		selected=$((selected + 1))
	fi
done
# A 32-bit kernel in small (make test ARCH=i386 in full, docs/i386.md):
# the pidfs identity, where an inode number is half of a process's
# 64-bit number and the generation the other half, and the file handles
# that carry the whole, on each base's patched kernel built for i386.
# Its own results (out/test-results-i386), one case here.
i386_plan='selftests:pidfd:pidfd_pidfs_test,selftests:pidfd:pidfd_file_handle_test,conformance:pidfs_test'
if [ -z "$ARCH_SUFFIX" ] && [ ${#i386_kernels[@]} -gt 0 ] && only_match i386:pidfs; then
	say "make test ARCH=i386 in small: $i386_plan on ${i386_kernels[*]}"
	host_case i386:pidfs "$CACHE/out/i386-pidfs.ktap" i386 \
		env ARCH=i386 ONLY="$i386_plan" "$REPO/scripts/test.sh" "${i386_kernels[@]}"
	selected=$((selected + 1))
fi
# pfkill's Debian package as a user gets it: built with
# dpkg-buildpackage, lintian-clean, installed into a scratch root and run.
# nocheck: its build-time tests are tool:host's, which ran above.
if [ -f "$REPO/tool/Makefile" ] && only_match tool:deb; then
	say "pfkill's Debian package: make -C tool deb-test"
	host_case tool:deb "$CACHE/out/deb.ktap" deb env DEB_BUILD_OPTIONS=nocheck \
		make -s -C "$REPO/tool" deb-test
	selected=$((selected + 1))
fi
[ "$selected" -gt 0 ] ||
	die "ONLY=$ONLY matches no test (names: the '# running' lines of a full run's $CACHE/out/*/test.ktap)"

# One verdict over the host tests and every kernel.
say "all results: host tests, $ARCH kernels $kernels"
record_time "make test${ONLY:+ ONLY=$ONLY} $kernels$ARCH_SUFFIX" $((SECONDS - start))
verdicts "$results"/*.verdict
