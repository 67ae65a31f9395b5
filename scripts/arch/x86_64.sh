# SPDX-License-Identifier: GPL-2.0
# What is x86_64's in the harness; sourced by scripts/common.sh (ARCH=x86_64,
# the default). scripts/arch/arm64.sh defines the same names.

ARCH_SUFFIX=			# build/KERNEL, out/KERNEL
ARCH_KCONFIG=x86_64.config	# kconfig/ fragment after guest.config (32-bit tasks)
ARCH_PACKAGES=()		# scripts/deps.sh installs them (its list is x86_64's)
ARCH_TEST_KERNELS=		# make test without KERNEL=: empty, every base's BASE_TEST (scripts/base/)
ARCH_M32=yes			# -m32 copies of the tests: conformance32:* ...
ARCH_FUZZERS=yes		# trinity and stress-ng in the image (smoke:stress:s4_fuzz)
ARCH_ROOT=			# guest userspace from the host's own programs
ARCH_MULTIARCH=

# The kernel: the host's compiler, bzImage.
KMAKE_ARCH=()
KCC=gcc
KIMAGE_TARGET=bzImage
KIMAGE_PATH=arch/x86/boot/bzImage

# The guest programs.
GUEST_CC=gcc
BUSYBOX=/bin/busybox

# The machine: two 16550 ports, the console and the result port.
GUEST_CONSOLE=ttyS0
GUEST_RESULTS=/dev/ttyS1
QEMU_MACHINE=(qemu-system-x86_64 -accel "${ACCEL:-tcg}" -cpu max)

# What kernel.sh and guest.sh open from the cache (arch_deps fetched it;
# common.sh: check_inputs): nothing, the host's programs serve.
ARCH_INPUTS=()

# qemu_results_port FILE: the QEMU arguments that save the guest's
# result port (GUEST_RESULTS) in FILE, in QEMU_RESULTS.
qemu_results_port() {
	QEMU_RESULTS=(-serial "file:$1")
}

# arch_deps: what scripts/deps.sh does beyond apt-get install: nothing.
arch_deps() {
	:
}
