# SPDX-License-Identifier: GPL-2.0
#
# Entry points; the work is in scripts/, the settings are in docs/harness.md.
# KERNEL=patched (default), patched612 (the 6.12 series on
# linux-source-6.12), upstream, stock (the pristine Debian tree, same
# config), debug (patched + debug.config) or patched-<c> (patched +
# kconfig/matrix/<c>.config: KERNEL=patched-cr-n). ARCH=arm64 (make test,
# run, kernel, initramfs): the same kernel cross-built for arm64 and booted
# with qemu-system-aarch64 -M virt; ARCH=i386: a 32-bit kernel and guest,
# qemu-system-i386; default: x86_64.
# BASE=6.1 (default) or 6.12: the series that make patches, checkpatch,
# bisect-check, matrix, bench, stress and tree work on (patches/ or
# patches-6.12/); BASE=6.12 makes patched612 the default KERNEL. What
# differs between the bases, the names of their kernels included, is in
# scripts/base/<base>.sh; scripts/common.sh reads it and picks the
# defaults of BASE and KERNEL, so they are not set here (make help and
# make stress ask scripts/settings.sh).
PIDFD_CACHE ?= $(HOME)/.cache/pidfd-signal
# make test and make system run their own list of kernels, every base's
# (scripts/base/: BASE_TEST and BASE_SYSTEM): scripts/test.sh patched,
# upstream, patched612 and upstream73 (ARCH=arm64: patched); scripts/system.sh
# patched, stock, patched-trixie, stock-trixie (BASE_SYSTEM_ALSO: Debian
# 13 on the 6.1 kernels), upstream and patched612. Naming KERNEL (make test
# KERNEL=stock, make system KERNEL=patched612) passes that one to them.
# ONLY=globs: make test runs only the plan entries and host steps whose
# names match (make test ONLY='conformance:send_signal*'); ENTRY:CASE one
# case of an entry (ONLY='conformance:errors_test:global.einval_unknown_flags').
ONLY ?=
export BASE KERNEL PIDFD_CACHE ONLY

S := scripts
ARCH_SUFFIX := $(if $(filter arm64 aarch64,$(ARCH)),-arm64)$(if $(filter i386 i686,$(ARCH)),-i386)
X86_ONLY = $(if $(ARCH_SUFFIX),echo "make $@: x86_64 only (ARCH=$(ARCH) has test/run/kernel/initramfs)" >&2; exit 2)

.PHONY: help deps tree kernel initramfs run test bench stress system system-deb deb \
	checkpatch patches bisect-check matrix clean

help:
	@echo "make run          build and boot the patched kernel: the PID-reuse demo, then a shell"
	@echo "make test         the tool's and the harness's host tests; the guest plan (64- and 32-bit"
	@echo "                  programs) on the patched 6.1 and 6.12 kernels, upstream 6.12 and upstream 7.3 (the"
	@echo "                  reference; its own pidfd/coredump selftests on each kernel); smoke of bench/stress/run;"
	@echo "                  matrix:smoke and checkpatch of both series, pfkill's .deb. Ends 'N passed, N failed'"
	@echo "  KERNEL=k          one kernel: patched, patched612, upstream, stock, debug, patched-<matrix config>"
	@echo "  ONLY=globs        only the plan entries and host steps that match, e.g."
	@echo "                    ONLY='conformance:send_signal*' (README: Running one test); one case:"
	@echo "                    ONLY='conformance:errors_test:global.einval_unknown_flags'"
	@echo "  ARCH=arm64        the same on an arm64 guest (docs/arm64.md)"
	@echo "  ARCH=i386         the same on a 32-bit x86 kernel and guest (docs/i386.md)"
	@echo "make bench        stock vs patched microbenchmarks, ratio tables (docs/bench.md; BASE=6.12:"
	@echo "                  patched612 vs upstream)"
	@echo "make stress       the debug kernel's stress and fuzz plan (docs/stress.md; BASE=6.12: debug612)"
	@echo "make system       a real Debian with systemd and AppArmor: Debian 12, 13 and 14 on patched and stock 6.1,"
	@echo "                  Debian 13 and 14 on patched612 and upstream 6.12, Debian 14 on 7.3; walkers, pidfs"
	@echo "                  and (against 7.3) every verdict compared (docs/system.md)"
	@echo "  KERNEL=k          one of them: patched, stock, patched612, upstream (no comparison)"
	@echo "make deb          the series' kernel built with Debian's own config (cloud-amd64; DEB_FLAVOUR=amd64)"
	@echo "                  as Debian packages: linux-image, linux-headers, linux-libc-dev (docs/deb.md;"
	@echo "                  BASE=6.12: the 6.12 series). Cold: an hour or more"
	@echo "make system-deb   make system's package mode: Debian 12 and 13 with make deb's packages installed by"
	@echo "                  apt, and with Debian's own kernel; the plan on each, walkers compared (docs/deb.md)"
	@echo "make checkpatch   checkpatch.pl --strict over patches/ (BASE=6.12: patches-6.12/)"
	@echo "make patches      regenerate every series (BASE=b: one) from the cached tree's series"
	@echo "                  branch, after writing selftests/pidfd/ into each tree"
	@echo "make bisect-check build the kernel after every patch of the series"
	@echo "  BASE=6.12         these three (and tree) on the 6.12 series: patches-6.12/, src/linux-6.12"
	@echo "make matrix       every patch x every kconfig/matrix config, W=1 + sparse (docs/matrix.md;"
	@echo "                  BASE=6.12: the 6.12 series, Debian's 6.12 config)"
	@echo "make deps | tree | kernel | initramfs   the steps of make run/test, one by one"
	@echo "make clean        remove \$$PIDFD_CACHE/out (builds stay)"
	@echo "Settings (docs/harness.md): PIDFD_CACHE PIDFD_TIMEOUT GUEST_MEM ACCEL JOBS SYSTEM_ARGS SYSTEM_KERNELS ..."
	@if [ -s $(PIDFD_CACHE)/times.txt ]; then echo; echo "last runs on this machine ($(PIDFD_CACHE)/times.txt):"; \
		sed 's/^/  /' $(PIDFD_CACHE)/times.txt; fi
	@echo
	@s=$$($(S)/settings.sh BASE KERNEL ARCH TREE BUILD OUT) && set -- $$s && \
	echo "BASE=$$1  KERNEL=$$2  ARCH=$$3  ONLY=$(ONLY)  PIDFD_CACHE=$(PIDFD_CACHE)" && \
	echo "tree:   $$4 (branch series, tag base)" && \
	echo "build:  $$5   output: $$6"

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

kernel: tree
	@$(S)/kernel.sh

initramfs: kernel
	@$(S)/guest.sh

run: initramfs
	@$(S)/qemu.sh run

test: deps
	@$(S)/test.sh $(KERNEL)

bench: deps
	@$(X86_ONLY)
	@$(S)/bench.sh

stress: deps
	@$(X86_ONLY)
	@k=$$(KERNEL= $(S)/settings.sh BASE_DEBUG) && KERNEL=$$k $(S)/stress.sh

system: deps
	@$(X86_ONLY)
	@$(S)/system.sh $(KERNEL)

# make deb and make system-deb: x86_64's Debian configs (amd64 flavours).
deb: deps
	@$(X86_ONLY)
	@$(S)/deb.sh

system-deb: deps
	@$(X86_ONLY)
	@KERNEL= $(S)/system.sh --packages

checkpatch: tree
	@$(S)/checkpatch.sh

# Without BASE: every series, so that a change to selftests/pidfd/ reaches
# them all.
patches:
	@$(if $(filter command line environment,$(origin BASE)),$(S)/patches.sh,\
		for b in $$($(S)/settings.sh SERIES_BASES); do BASE=$$b $(S)/patches.sh || exit; done)

bisect-check: tree
	@$(S)/bisect-check.sh

matrix: tree
	@$(S)/matrix.sh

clean:
	rm -rf $(PIDFD_CACHE)/out
