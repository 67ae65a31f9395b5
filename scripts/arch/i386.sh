# SPDX-License-Identifier: GPL-2.0
# What is i386's in the harness; sourced by scripts/common.sh (ARCH=i386).
# The same names as scripts/arch/x86_64.sh; docs/i386.md says why: a
# 32-bit kernel, where an inode number is 32 bits wide and pidfs hands out
# its 64-bit number as inode number and generation (Debian 12 and 13 ship
# i386 kernels, linux-image-686-pae).

ARCH_SUFFIX=-i386
ARCH_KCONFIG=i386.config	# CONFIG_64BIT off; x86_64.config's counterpart
ARCH_PACKAGES=()		# qemu-system-i386 is in qemu-system-x86
ARCH_TEST_KERNELS=patched	# make test without KERNEL= (empty: every base's BASE_TEST)
ARCH_M32=no			# every guest program is a 32-bit one already
ARCH_FUZZERS=no			# no trinity or stress-ng: their s4_fuzz rows skip
# Debian's i386 busybox, procps and their libraries (scripts/deps.sh).
ARCH_ROOT=$CACHE/i386/root
ARCH_MULTIARCH=i386-linux-gnu

# The kernel: the host's compiler, bzImage.
KMAKE_ARCH=(ARCH=i386)
KCC=gcc
KIMAGE_TARGET=bzImage
KIMAGE_PATH=arch/x86/boot/bzImage

# The guest programs: the host's gcc with gcc-multilib's 32-bit libc.
GUEST_CC="gcc -m32"
BUSYBOX=$ARCH_ROOT/bin/busybox	# busybox-static:i386

# The machine: two 16550 ports, the console and the result port.
GUEST_CONSOLE=ttyS0
GUEST_RESULTS=/dev/ttyS1
QEMU_MACHINE=(qemu-system-i386 -accel tcg -cpu max)

# What kernel.sh and guest.sh open from the cache (arch_deps fetched it;
# common.sh: check_inputs).
ARCH_INPUTS=("$BUSYBOX" "$ARCH_ROOT/usr/bin/pgrep" "$ARCH_ROOT/usr/bin/pkill")

qemu_results_port() {
	QEMU_RESULTS=(-serial "file:$1")
}

# arch_deps: after scripts/deps.sh installed its packages (it defines
# foreign_userspace): the guest's busybox and procps.
arch_deps() {
	foreign_userspace i386 "$CACHE/i386"
}
