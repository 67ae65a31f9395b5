#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The one gate (make test): the tool's host tests, then the guest plan on
# each kernel of TEST_KERNELS (make test: the patched kernel and the
# upstream reference; make test KERNEL=k: that one), each judged by
# scripts/ktap.sh; the last line adds them up: "N passed, N failed".
# ARCH=arm64: the same for arm64 guests (out/KERNEL-arm64); the host
# tests are the same.
set -uo pipefail
. "$(dirname "$0")/common.sh"

# One make test per cache at a time: a second run would delete the first
# one's results and test.ktap between its boot and its verdict.
lock test x

kernels=${TEST_KERNELS:-$KERNEL}
results=$CACHE/out/test-results$ARCH_SUFFIX
mkdir -p "$results"
rm -f "$results"/*

host=$CACHE/out/host$ARCH_SUFFIX.ktap
rm -f "$host"
[ -f "$REPO/tool/Makefile" ] && {
	echo "KTAP version 1"
	echo "1..1"
	echo "# running tool:host"
	make -s -C "$REPO/tool" test 2>&1 | sed 's/^/    /'
	if [ "${PIPESTATUS[0]}" = 0 ]; then
		echo "ok 1 tool:host"
	else
		echo "not ok 1 tool:host # make -C tool test failed"
	fi
	echo "PIDFD-SIGNAL-END"
} > "$host"
if [ -f "$host" ]; then
	say "host tests of the tool: $(grep -c '^    ok ' "$host") ok," \
		"$(grep -c '^    not ok ' "$host") not ok"
	: > "$results/host.console"
	"$REPO/scripts/ktap.sh" "$results/host.console" "$host" > "$results/host.verdict"
fi

for k in $kernels; do
	# Each kernel is built and packed as `make initramfs` would for it.
	if ! KERNEL=$k "$REPO/scripts/tree.sh" || ! KERNEL=$k "$REPO/scripts/kernel.sh" ||
		! KERNEL=$k "$REPO/scripts/guest.sh"; then
		printf '  FAIL %s: kernel or initramfs did not build\n0 passed, 1 failed\n' \
			"$k" > "$results/$k.verdict"
		continue
	fi
	KERNEL=$k "$REPO/scripts/qemu.sh" test
	KERNEL=$k "$REPO/scripts/smoke.sh"	# bench, stress in small: smoke.ktap
	say "results of the $k $ARCH kernel"
	o=$CACHE/out/$k$ARCH_SUFFIX
	"$REPO/scripts/ktap.sh" "$o/test.console" "$o/test.ktap" "$o/smoke.ktap" |
		tee "$results/$k.verdict"
done

# A host-side step as a KTAP file of one case, its output as comments,
# judged like the guest plans.
host_case() {	# name ktap-file verdict command...
	local name=$1 tap=$2 verdict=$3
	shift 3
	{
		echo "KTAP version 1"
		echo "1..1"
		echo "# running $name"
		"$@" 2>&1 | sed 's/^/    # /'
		if [ "${PIPESTATUS[0]}" = 0 ]; then
			echo "ok 1 $name"
		else
			echo "not ok 1 $name # ${*#"$REPO/"} failed"
		fi
		echo "PIDFD-SIGNAL-END"
	} > "$tap"
	tail -n 5 "$tap" | sed 's/^    # //' >&2
	: > "$results/$verdict.console"
	"$REPO/scripts/ktap.sh" "$results/$verdict.console" "$tap" > "$results/$verdict.verdict"
}

# With the patched kernel (its tree): what a maintainer's bots check
# first. The config matrix in small (make matrix in full): the series'
# .c files at base and after the last patch, guest config, W=1 and
# sparse; any new warning or failure fails it. checkpatch.pl --strict
# over patches/ and the numbering of the series (make checkpatch).
case " $kernels " in
*" patched "*)
	say "make matrix in small: scripts/matrix.sh --smoke"
	host_case matrix:smoke "$CACHE/out/matrix-smoke.ktap" matrix \
		"$REPO/scripts/matrix.sh" --smoke
	say "make checkpatch: scripts/checkpatch.sh"
	host_case series:checkpatch "$CACHE/out/checkpatch.ktap" checkpatch \
		"$REPO/scripts/checkpatch.sh"
	;;
esac

# One verdict over the host tests and every kernel.
say "all results: host tests, $ARCH kernels $kernels"
grep -h '^  FAIL ' "$results"/*.verdict
awk '/^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; n++ }
	END { printf "%d passed, %d failed\n", p, f; exit (f != 0 || n == 0) }' \
	"$results"/*.verdict
