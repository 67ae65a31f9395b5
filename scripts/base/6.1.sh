# SPDX-License-Identifier: GPL-2.0
# What is the 6.1 series' in the harness (patches/ on Debian 12's kernel);
# sourced by scripts/common.sh (base_facts) when a kernel of this table or
# BASE=6.1 is selected. scripts/base/6.12.sh sets the same names;
# docs/harness.md says how to add a base.

# The Debian packages: the source (/usr/src/BASE_PACKAGE.tar.xz), Debian's
# own configs (kconfig/matrix/debian.config reads them). scripts/deps.sh
# installs both.
BASE_PACKAGE=linux-source-6.1
BASE_CONFIG_PACKAGE=linux-config-6.1
# Empty: packages of the machine's own release, installed with apt-get.
# A suite (7.3.sh: trixie-backports): downloaded from it into the cache.
BASE_SUITE=
# The series in the repo, its tree in $PIDFD_CACHE/src (a git repo: tag
# base is the package, branch series the series as commits) and what
# scripts/tree.sh last applied there ($PIDFD_CACHE/src/applied-head,
# -series).
BASE_PATCHES=patches
BASE_TREE=linux
BASE_APPLIED=applied
# This base's files beside the other bases' (out/series.mbox,
# src/bisect, build/matrix, kconfig/matrix/debian.config ...), and its
# host steps in make test (matrix:smoke, series:checkpatch, series:bisect).
# The first base has none: its names predate the second.
BASE_SUFFIX=
BASE_STEP=

# Its kernels: build/<name>, out/<name>.
BASE_PATCHED=patched		# the series; patched-<c>: + kconfig/matrix/<c>.config
BASE_DEBUG=debug		# the series + BASE_DEBUG_KCONFIG (make stress)
# The series' base unpatched, same config: make bench's baseline,
# bisect-check's first build, make system's walker reference. Built from
# src/stock, a worktree of the tree's tag base, made with the tree.
BASE_PRISTINE=stock
BASE_PRISTINE_SRC=worktree
# Every name that selects this base (besides patched-<c> and system-<k>).
# upstream is the 6.12 table's pristine kernel, but make test boots it
# with this series' pidfd selftests (scripts/guest.sh takes them from
# TREE): the upstream ABI that the 6.1 series claims is checked there.
BASE_KERNELS="patched debug stock upstream"
BASE_TEST=patched		# make test's kernels (x86_64), in this order
# The base whose series' pidfd selftests this base's kernels boot; empty:
# this base's own (a base without a series names one: 7.3.sh).
BASE_SELFTESTS=
# make system: system-patched, system-stock, booting Debian 12.
BASE_SYSTEM="patched stock"
BASE_RELEASE=bookworm
BASE_RELEASE_NAME="Debian 12"
# Other bases' releases make system also boots on the same two kernels
# (the same builds, build/system-patched and build/system-stock), as
# <kernel>-<release>: patched-trixie and stock-trixie, Debian 13's
# userspace (systemd 257, util-linux 2.41) on 6.1, as a Debian 12 host
# runs newer containers (issue 32: the programs that look for pidfs).
BASE_SYSTEM_ALSO="trixie forky"

# kconfig/ fragments after guest.config and the architecture's.
BASE_DEBUG_KCONFIG="debug.config"
BASE_SYSTEM_KCONFIG="system.config"
# A first build of a kernel of the series starts from a copy of the
# pristine kernel's build of the same fragments (seed_build): no, stock
# is built after patched if at all.
BASE_SEED=no
# Options of kconfig/ this base's kernel does not have, not required.
BASE_KCONFIG_GONE=
