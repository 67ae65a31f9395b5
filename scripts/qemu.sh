#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the selected kernel with the initramfs and run one plan:
#   scripts/qemu.sh PLAN [kernel args...]
# The console (ttyS0) streams here and into $OUT/PLAN.console; the guest's
# result port (ttyS1) goes to $OUT/PLAN.ktap. The whole boot is bounded by
# PIDFD_TIMEOUT seconds: running out is a failure, never a hang.
set -euo pipefail
. "$(dirname "$0")/common.sh"
lock "build-$KERNEL" x

plan=$1; shift
kernel=$BUILD/arch/x86/boot/bzImage
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
args=(console=ttyS0 panic=-1 loglevel=5 pidfd.plan=/plans/$plan "${extra[@]}" "$@")

rm -f "$results" "$console"
say "booting $KERNEL kernel, plan '$plan' (TCG, limit ${limit} s; Ctrl-A X quits)"
set +e
timeout -k 5 --foreground "$limit" qemu-system-x86_64 \
	-accel "${ACCEL:-tcg}" -cpu max -smp 2 -m "${GUEST_MEM:-2048}" \
	-nographic -no-reboot -nic none \
	-kernel "$kernel" -initrd "$initrd" -append "${args[*]}" \
	-serial mon:stdio -serial "file:$results" < "$stdin" | tee "$console"
status=${PIPESTATUS[0]}
set -e
if [ "$status" = 124 ]; then
	echo "error: guest still running after $limit s: killed" | tee -a "$console" >&2
fi
exit 0
