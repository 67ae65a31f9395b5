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
lock "build-$KERNEL$ARCH_SUFFIX" x

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

say "booting $KERNEL $ARCH kernel, plan '$plan' (limit ${limit} s; Ctrl-A X quits)"
qemu_boot "$limit" "$console" "$results" "$stdin" \
	-kernel "$kernel" -initrd "$initrd" -append "${args[*]}"
