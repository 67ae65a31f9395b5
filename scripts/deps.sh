#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, only those missing.
# (python3-ply and python3-git: checkpatch.pl runs scripts/spdxcheck.py;
# rsync: headers_install; each base's linux-source-* (linux-source-6.12 is
# also the upstream reference kernel) and linux-config-* (Debian's amd64
# configs: make matrix), from scripts/base/;
# trinity, stress-ng: the fuzz scenario, also in make test's smoke run;
# sparse: make matrix;
# gcc-multilib: the -m32 guest programs;
# mmdebstrap, e2fsprogs: the Debian root of make system;
# dpkg-dev, debhelper, lintian, bash-completion: pfkill's package (tool:deb);
# scripts/arch/ARCH.sh adds its own: ARCH_PACKAGES.)
set -euo pipefail
. "$(dirname "$0")/common.sh"

packages=(qemu-system-x86 busybox-static gcc make flex
	bison bc libelf-dev libssl-dev cpio ccache xz-utils git procps perl
	libc6-dev gcc-multilib coreutils util-linux rsync python3-ply python3-git
	trinity stress-ng sparse
	mmdebstrap e2fsprogs dpkg-dev debhelper lintian bash-completion)
# Every base's source and config packages (scripts/base/).
read -r -a base_packages <<<"$(each_base BASE_PACKAGE) $(each_base BASE_CONFIG_PACKAGE)"
packages+=("${base_packages[@]}")
packages+=("${ARCH_PACKAGES[@]}")
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
arch_deps
