#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the selected kernel with the initramfs and run one plan:
#   scripts/qemu.sh PLAN [kernel args...]
# The console (ttyS0; arm64: the PL011, ttyAMA0) streams here and into
# $OUT/PLAN.console; the guest's result port (ttyS1; arm64: hvc0, a
# virtconsole, since -M virt has a single UART) goes to $OUT/PLAN.ktap.
# The whole boot is bounded by PIDFD_TIMEOUT seconds: running out is a
# failure, never a hang.
set -euo pipefail
. "$(dirname "$0")/common.sh"
lock "build-$KERNEL" x

plan=$1; shift
kernel=$BUILD/$KIMAGE_PATH
initrd=$OUT/initramfs.cpio
console=$OUT/$plan.console
results=$OUT/$plan.ktap
limit=${PIDFD_TIMEOUT:-1500}
[ -f "$kernel" ] || die "no kernel at $kernel"
[ -f "$initrd" ] || die "no initramfs at $initrd"

extra=()
stdin=/dev/null
if [ "$plan" = run ] && [ -t 0 ]; then
	extra+=(pidfd.shell=1)
	stdin=/dev/tty
fi
# ONLY (make test ONLY=globs): guest/init.c runs the entries that match.
[ -n "$ONLY" ] && [ "$plan" = test ] && extra+=("pidfd.only=$ONLY")
args=(console=$GUEST_CONSOLE panic=-1 loglevel=5 pidfd.plan=/plans/$plan
	pidfd.results=$GUEST_RESULTS "${extra[@]}" "$@")

# The machine; its second channel carries the results.
case $ARCH in
x86_64)
	machine=(qemu-system-x86_64 -accel "${ACCEL:-tcg}" -cpu max)
	results_port=(-serial "file:$results")
	;;
arm64)
	# pauth-impdef: QEMU's fast pointer-authentication hash instead of
	# the architected QARMA, which is slow under TCG.
	machine=(qemu-system-aarch64 -M virt -accel tcg -cpu max,pauth-impdef=on)
	results_port=(-device virtio-serial-device -chardev "file,id=results,path=$results"
		-device "virtconsole,chardev=results")
	;;
esac

rm -f "$results" "$console"
say "booting $KERNEL $ARCH kernel, plan '$plan' (TCG, limit ${limit} s; Ctrl-A X quits)"
set +e
timeout -k 5 --foreground "$limit" "${machine[@]}" \
	-smp 2 -m "${GUEST_MEM:-2048}" \
	-nographic -no-reboot -nic none \
	-kernel "$kernel" -initrd "$initrd" -append "${args[*]}" \
	-serial mon:stdio "${results_port[@]}" < "$stdin" | tee "$console"
status=${PIPESTATUS[0]}
set -e
if [ "$status" = 124 ]; then
	echo "error: guest still running after $limit s: killed" | tee -a "$console" >&2
fi
exit 0
