# SPDX-License-Identifier: GPL-2.0
# What is arm64's in the harness; sourced by scripts/common.sh (ARCH=arm64).
# The same names as scripts/arch/x86_64.sh; docs/arm64.md says why.

ARCH_SUFFIX=-arm64
ARCH_KCONFIG=arm64.config	# PL011 console, virtio-mmio, virtio console
# The emulator, the cross binutils, preprocessor (cc1), libc and libgcc;
# scripts/deps.sh unpacks the gcc driver and the guest's userspace into
# the cache.
ARCH_PACKAGES=(qemu-system-arm binutils-aarch64-linux-gnu cpp-12-aarch64-linux-gnu
	libgcc-12-dev-arm64-cross libc6-dev-arm64-cross)
ARCH_TEST_KERNELS=patched	# make test without KERNEL= (empty: every base's BASE_TEST)
ARCH_M32=no			# -m32 is x86_64's: compat_test's *_peer cases skip
ARCH_FUZZERS=no			# no trinity or stress-ng: their s4_fuzz rows skip
# Debian's arm64 busybox, procps and their libraries (scripts/deps.sh),
# whose shared libraries live in /lib/ARCH_MULTIARCH there.
ARCH_ROOT=$CACHE/arm64/root
ARCH_MULTIARCH=aarch64-linux-gnu

# Debian's gcc-12-aarch64-linux-gnu, unpacked by scripts/deps.sh into the
# cache: as a dpkg package it Conflicts with gcc-multilib, which the
# 32-bit (-m32) builds need. Binutils, cpp and the arm64 libc and libgcc
# are ordinary packages.
ARM64_TOOLCHAIN=$CACHE/arm64/toolchain
KMAKE_ARCH=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
KCC=$ARM64_TOOLCHAIN/usr/bin/aarch64-linux-gnu-gcc-12
KIMAGE_TARGET=Image
KIMAGE_PATH=arch/arm64/boot/Image

GUEST_CC=$KCC
BUSYBOX=$ARCH_ROOT/bin/busybox	# busybox-static:arm64

# -M virt has one UART (the PL011, ttyAMA0): the console. The results go
# to a virtconsole on virtio-mmio, /dev/hvc0 in the guest.
GUEST_CONSOLE=ttyAMA0
GUEST_RESULTS=/dev/hvc0
# pauth-impdef: QEMU's fast pointer-authentication hash instead of the
# architected QARMA, which is slow under TCG.
QEMU_MACHINE=(qemu-system-aarch64 -M virt -accel tcg -cpu max,pauth-impdef=on)

# What kernel.sh and guest.sh open from the cache (arch_deps fetched it;
# common.sh: check_inputs).
ARCH_INPUTS=("$KCC" "$BUSYBOX" "$ARCH_ROOT/usr/bin/pgrep" "$ARCH_ROOT/usr/bin/pkill")

qemu_results_port() {
	QEMU_RESULTS=(-device virtio-serial-device -chardev "file,id=results,path=$1"
		-device "virtconsole,chardev=results")
}

# arch_deps: after scripts/deps.sh installed ARCH_PACKAGES (it defines
# apt_get and foreign_userspace): the guest's userspace and the compiler
# driver, in the cache.
arch_deps() {
	local gcc_version dir stamp deb libdir f
	foreign_userspace arm64 "$CACHE/arm64"
	# The driver of Debian's gcc-12-aarch64-linux-gnu, unpacked into
	# $CACHE/arm64/toolchain. Installed with dpkg it would remove gcc-multilib
	# (its /usr/include/asm symlink is the conflict), which the -m32 builds
	# use; the rest of that compiler (cc1, libgcc, binutils) is installed
	# above, and the driver reaches it through links.
	gcc_version=$(dpkg-query -W -f='${Version}' cpp-12-aarch64-linux-gnu)
	dir=$CACHE/arm64
	stamp="gcc-12-aarch64-linux-gnu=$gcc_version"
	[ "$(cat "$dir/toolchain.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$KCC" ] && return 0

	rm -rf "$dir/debs" "$dir/toolchain"
	mkdir -p "$dir/debs"
	say "downloading gcc-12-aarch64-linux-gnu $gcc_version"
	(cd "$dir/debs" && apt_get download -q "gcc-12-aarch64-linux-gnu=$gcc_version") 2>&1 |
		grep -v 'unsandboxed' >&2
	deb=$(ls "$dir/debs"/gcc-12-aarch64-linux-gnu_*.deb 2>/dev/null) ||
		die "apt-get download gcc-12-aarch64-linux-gnu=$gcc_version failed"
	dpkg-deb -x "$deb" "$dir/toolchain"
	for libdir in "$dir"/toolchain/usr/lib/gcc-cross/aarch64-linux-gnu/*; do
		for f in /usr/lib/gcc-cross/aarch64-linux-gnu/"${libdir##*/}"/*; do
			[ -e "$libdir/${f##*/}" ] || ln -s "$f" "$libdir/"
		done
	done
	ln -s /usr/aarch64-linux-gnu "$dir/toolchain/usr/aarch64-linux-gnu"
	printf '#include <stdio.h>\nint main(void) { return puts("ok") < 0; }\n' > "$dir/hello.c"
	"$KCC" -static -o "$dir/hello" "$dir/hello.c" ||
		die "the unpacked aarch64-linux-gnu-gcc-12 cannot build a static program"
	rm -rf "$dir/debs"
	echo "$stamp" > "$dir/toolchain.stamp"
	say "arm64 toolchain and userspace ready in $dir"
}
