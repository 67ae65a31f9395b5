#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, only those missing.
# (python3-ply and python3-git: checkpatch.pl runs scripts/spdxcheck.py;
# rsync: headers_install; linux-source-6.12: the upstream reference kernel;
# trinity, stress-ng: the fuzz scenario, also in make test's smoke run;
# sparse and linux-config-6.1 (Debian's amd64 config): make matrix;
# gcc-multilib: the -m32 guest programs;
# mmdebstrap, e2fsprogs: the Debian root of make system;
# ARCH=arm64 adds its own, below.)
set -euo pipefail
. "$(dirname "$0")/common.sh"

packages=(linux-source-6.1 linux-source-6.12 qemu-system-x86 busybox-static gcc make flex
	bison bc libelf-dev libssl-dev cpio ccache xz-utils git procps perl
	libc6-dev gcc-multilib coreutils util-linux rsync python3-ply python3-git
	trinity stress-ng sparse linux-config-6.1
	mmdebstrap e2fsprogs)
# ARCH=arm64: the emulator, the cross binutils, preprocessor (cc1), libc
# and libgcc; the gcc driver and the guest's userspace are unpacked into
# the cache below.
[ "$ARCH" = arm64 ] && packages+=(qemu-system-arm binutils-aarch64-linux-gnu
	cpp-12-aarch64-linux-gnu libgcc-12-dev-arm64-cross libc6-dev-arm64-cross)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
if [ ${#missing[@]} != 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (run as root or install them)"
	say "installing ${missing[*]}"
	apt_get update -q
	DEBIAN_FRONTEND=noninteractive apt_get install -y -q --no-install-recommends "${missing[@]}"
fi
[ "$ARCH" = arm64 ] || exit 0

# arm64 guest userspace: busybox, and procps's pgrep/pkill (bench/tools.c
# compares pfkill with them) with the shared libraries they need, from
# Debian's arm64 packages (apt-get download, dpkg-deb -x) into
# $CACHE/arm64/root; scripts/guest.sh copies from there.
arm64_debs=(busybox-static procps libproc2-0 libc6 libncursesw6 libtinfo6 libsystemd0
	libcap2 libgcrypt20 liblz4-1 liblzma5 libzstd1 libgpg-error0)
# The driver of Debian's gcc-12-aarch64-linux-gnu, unpacked into
# $CACHE/arm64/toolchain. Installed with dpkg it would remove gcc-multilib
# (its /usr/include/asm symlink is the conflict), which the -m32 builds
# use; the rest of that compiler (cc1, libgcc, binutils) is installed
# above, and the driver reaches it through links.
gcc_version=$(dpkg-query -W -f='${Version}' cpp-12-aarch64-linux-gnu)
dir=$CACHE/arm64
stamp="${arm64_debs[*]} gcc-12-aarch64-linux-gnu=$gcc_version"
[ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$KCC" ] && exit 0

if ! dpkg --print-foreign-architectures | grep -qx arm64 ||
		! apt-cache show busybox-static:arm64 >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || die "the arm64 packages need root (dpkg --add-architecture arm64)"
	say "adding the arm64 architecture to apt"
	dpkg --add-architecture arm64
	apt_get update -q
fi
rm -rf "$dir/debs" "$dir/root" "$dir/toolchain"
mkdir -p "$dir/debs"
say "downloading arm64 packages: ${arm64_debs[*]}; gcc-12-aarch64-linux-gnu $gcc_version"
(cd "$dir/debs" && apt_get download -q "${arm64_debs[@]/%/:arm64}" \
	"gcc-12-aarch64-linux-gnu=$gcc_version") 2>&1 | grep -v 'unsandboxed' >&2
for p in "${arm64_debs[@]}"; do
	deb=$(ls "$dir/debs/${p}_"*_arm64.deb 2>/dev/null) || die "apt-get download $p:arm64 failed"
	dpkg-deb -x "$deb" "$dir/root"
done
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
[ -x "$dir/root/bin/busybox" ] || die "no busybox in busybox-static:arm64"
rm -rf "$dir/debs"
echo "$stamp" > "$dir/stamp"
say "arm64 toolchain and userspace ready in $dir"
