# SPDX-License-Identifier: GPL-2.0
# What is the 6.12 series' in the harness (patches-6.12/ on Debian 13's
# kernel, also Debian 12's LTS kernel); sourced by scripts/common.sh
# (base_facts) when a kernel of this table or BASE=6.12 is selected.
# scripts/base/6.1.sh sets the same names and says what they mean.

BASE_PACKAGE=linux-source-6.12
BASE_CONFIG_PACKAGE=linux-config-6.12
BASE_SUITE=
BASE_PATCHES=patches-6.12
BASE_TREE=linux-6.12
BASE_APPLIED=applied-6.12
# src/bisect-6.12, out/series-6.12.mbox, kconfig/matrix/debian-6.12.config
# ...; make test's matrix612:smoke, series612:checkpatch, series612:bisect.
BASE_SUFFIX=-6.12
BASE_STEP=612

BASE_PATCHED=patched612
BASE_DEBUG=debug612
# upstream: the package extracted as it is into src/upstream (no series,
# same config), the reference of both series; see BASE_KERNELS in 6.1.sh.
BASE_PRISTINE=upstream
BASE_PRISTINE_SRC=package
BASE_KERNELS="patched612 debug612"
# upstream first: a cold patched612 build starts from its build.
BASE_TEST="upstream patched612"
BASE_SELFTESTS=
BASE_SYSTEM="upstream patched612"
BASE_RELEASE=trixie		# Debian 13, systemd 257
BASE_RELEASE_NAME="Debian 13"
BASE_SYSTEM_ALSO=forky

# debug-6.12.config: what 6.12 names differently; system-6.12.config:
# what Debian 13's systemd 257 needs.
BASE_DEBUG_KCONFIG="debug.config debug-6.12.config"
BASE_SYSTEM_KCONFIG="system.config system-6.12.config"
# patched612 from upstream's build, system-patched612 from
# system-upstream's: kbuild recompiles only what the series changed.
BASE_SEED=yes
BASE_KCONFIG_GONE=
