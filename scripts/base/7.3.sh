# SPDX-License-Identifier: GPL-2.0
# Upstream 7.3 as Debian packages it (linux-source-7.3, trixie-backports):
# the reference, with no series of ours (issue 44). make test boots its
# pristine kernel, upstream73, with the same plan as the patched kernels:
# a test of a feature upstream has passes here, or the claim "as
# upstream" is wrong. Sourced by scripts/common.sh like
# scripts/base/6.1.sh, which says what each name means.

# Not a package of the machine's release: scripts/deps.sh downloads both
# from BASE_SUITE of the machine's archive into $PIDFD_CACHE/debian/SUITE
# and unpacks them there; nothing is installed.
BASE_PACKAGE=linux-source-7.3
BASE_CONFIG_PACKAGE=linux-config-7.3
BASE_SUITE=trixie-backports
# No series: no tree of commits, no patched or debug kernel, no host
# steps (make patches, checkpatch, bisect-check and matrix are the
# series bases').
BASE_PATCHES=
BASE_TREE=
BASE_APPLIED=
BASE_SUFFIX=-7.3
BASE_STEP=73
BASE_PATCHED=
BASE_DEBUG=
# The package extracted as it is into src/upstream73, our fragments.
BASE_PRISTINE=upstream73
BASE_PRISTINE_SRC=package
BASE_KERNELS="upstream73"
BASE_TEST="upstream73"
# Its kernels boot the pidfd selftests of the newest series (the 6.12
# series': 6.12's kselftest harness, which takes -r/-t): the shared
# texts of selftests/pidfd/ run here as on the patched kernels.
BASE_SELFTESTS=6.12
# make system: system-upstream73 boots Debian 14 (forky: systemd 262,
# util-linux 2.42, procps 4.0.7), the reference of the forky runs of the
# patched kernels (patched-forky, patched612-forky).
BASE_SYSTEM="upstream73"
BASE_RELEASE=forky
BASE_RELEASE_NAME="Debian 14"
BASE_SYSTEM_ALSO=

BASE_DEBUG_KCONFIG=
BASE_SYSTEM_KCONFIG="system.config system-6.12.config"
BASE_SEED=no
# Options of kconfig/ that 7.3 does not have (kernel.sh does not require
# them): 7.3's fs/proc/Makefile builds /proc/sys with CONFIG_SYSCTL.
BASE_KCONFIG_GONE="CONFIG_PROC_SYSCTL"
