#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, only those missing.
# (python3-ply and python3-git: checkpatch.pl runs scripts/spdxcheck.py;
# rsync: headers_install; each base's linux-source-* (linux-source-6.12 is
# also the upstream reference kernel) and linux-config-* (Debian's amd64
# configs: make matrix), from scripts/base/, those of a base with a
# BASE_SUITE (7.3: trixie-backports) downloaded into the cache instead;
# trinity, stress-ng: the fuzz scenario, also in make test's smoke run;
# sparse: make matrix;
# gcc-multilib: the -m32 guest programs;
# mmdebstrap, e2fsprogs: the Debian root of make system;
# dpkg-dev, debhelper, lintian, bash-completion: pfkill's package (tool:deb);
# fakeroot, kmod (depmod): the kernel's packages (make deb, deb:smoke);
# scripts/arch/ARCH.sh adds its own: ARCH_PACKAGES.)
set -euo pipefail
. "$(dirname "$0")/common.sh"

packages=(qemu-system-x86 busybox-static gcc make flex
	bison bc libelf-dev libssl-dev cpio ccache xz-utils git procps perl
	libc6-dev gcc-multilib coreutils util-linux rsync python3-ply python3-git
	trinity stress-ng sparse
	mmdebstrap e2fsprogs dpkg-dev debhelper lintian bash-completion fakeroot kmod)
# Every base's source and config packages (scripts/base/) of the
# machine's release; the others' below (suite_packages).
for b in $BASES; do
	[ -z "$(base_fact "$b" BASE_SUITE)" ] || continue
	packages+=($(base_fact "$b" BASE_PACKAGE) $(base_fact "$b" BASE_CONFIG_PACKAGE))
done
packages+=("${ARCH_PACKAGES[@]}")
read -r -a missing <<<"$(not_installed "${packages[@]}")"
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
if [ ${#missing[@]} != 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (run as root or install them)"
	say "installing ${missing[*]}"
	apt_get update -q
	DEBIAN_FRONTEND=noninteractive apt_get install -y -q --no-install-recommends "${missing[@]}"
fi

# foreign_userspace DPKG-ARCH DIR: the guest's userspace for ARCH=arm64
# and ARCH=i386, from Debian's packages of that architecture (apt-get
# download, dpkg-deb -x) unpacked into DIR/root: busybox, and procps's
# pgrep/pkill (bench/tools.c and the tool's tests compare pfkill with
# them) with the libraries they need; scripts/guest.sh copies programs
# from there. Redone only when the list changed; the architecture is
# added to dpkg if it lacks it.
foreign_packages=(busybox-static procps libproc2-0 libc6 libncursesw6 libtinfo6 libsystemd0
	libcap2 libgcrypt20 liblz4-1 liblzma5 libzstd1 libgpg-error0)
foreign_userspace() {
	local arch=$1 dir=$2 stamp deb p
	stamp="$arch ${foreign_packages[*]}"
	[ "$(cat "$dir/root.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$dir/root/bin/busybox" ] &&
		return 0
	if ! dpkg --print-foreign-architectures | grep -qx "$arch" ||
			! apt-cache show "busybox-static:$arch" >/dev/null 2>&1; then
		[ "$(id -u)" = 0 ] || die "the $arch packages need root (dpkg --add-architecture $arch)"
		say "adding the $arch architecture to apt"
		dpkg --add-architecture "$arch"
		apt_get update -q
	fi
	rm -rf "$dir/debs" "$dir/root" "$dir/root.stamp"
	mkdir -p "$dir/debs"
	say "downloading $arch packages: ${foreign_packages[*]}"
	(cd "$dir/debs" && apt_get download -q "${foreign_packages[@]/%/:$arch}") 2>&1 |
		grep -v 'unsandboxed' >&2
	for p in "${foreign_packages[@]}"; do
		deb=$(ls "$dir/debs/${p}_"*"_$arch.deb" 2>/dev/null) ||
			die "apt-get download $p:$arch failed"
		dpkg-deb -x "$deb" "$dir/root"
	done
	rm -rf "$dir/debs"
	[ -x "$dir/root/bin/busybox" ] || die "no busybox in busybox-static:$arch"
	echo "$stamp" > "$dir/root.stamp"
}

# suite_packages SUITE PACKAGE...: the packages of SUITE (trixie-backports)
# of the machine's own archive, unpacked into $CACHE/debian/SUITE: apt-get
# with its lists and downloads in $CACHE/debian/SUITE.apt, so the
# machine's apt sources and its installed packages stay as they are.
# Redone only when the list changed (rm -rf $CACHE/debian/SUITE* to take
# a newer version).
suite_packages() {
	local suite=$1 dir=$CACHE/debian/$1 mirror stamp p deb apt
	shift
	stamp="$suite $*"
	[ "$(cat "$dir.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' |
		grep -v security | head -n 1)
	[ -n "$mirror" ] || die "no Debian archive in the machine's apt sources"
	apt=(-o "Dir::Etc::SourceList=$dir.apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir.apt/lists" -o "Dir::Cache=$dir.apt/cache"
		-o Debug::NoLocking=1)
	rm -rf "$dir" "$dir.apt" "$dir.stamp"
	mkdir -p "$dir.apt/lists/partial" "$dir.apt/cache/archives/partial" "$dir.apt/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
		> "$dir.apt/sources.list"
	say "downloading $* from $suite ($mirror)"
	apt-get "${apt[@]}" update -q >&2 || die "apt-get update of $suite failed"
	(cd "$dir.apt/debs" && apt-get "${apt[@]}" download -q "$@") 2>&1 |
		grep -v 'unsandboxed' >&2
	for p; do
		deb=$(ls "$dir.apt/debs/${p}_"*.deb 2>/dev/null) ||
			die "apt-get download $p from $suite failed"
		dpkg-deb -x "$deb" "$dir"
	done
	rm -rf "$dir.apt/debs"
	echo "$stamp" > "$dir.stamp"
}
for b in $BASES; do
	suite=$(base_fact "$b" BASE_SUITE)
	[ -z "$suite" ] || suite_packages "$suite" $(base_fact "$b" BASE_PACKAGE) \
		$(base_fact "$b" BASE_CONFIG_PACKAGE)
done
# procps 4.0.7 of forky and what it runs on: the reference of the tool's
# differential tests (tool:host; tool/Makefile's PROCPS_REF).
suite_packages forky procps libproc2-1 libc6 libsystemd0 libncursesw6 libtinfo6

arch_deps
