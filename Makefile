# SPDX-License-Identifier: GPL-2.0
#
# Entry points; the work is in scripts/. KERNEL=patched (default), upstream, stock
# (the pristine Debian tree, same config), debug (patched + debug.config)
# or patched-<c> (patched + kconfig/matrix/<c>.config: KERNEL=patched-cr-n).
# ARCH=arm64 (make test, run, kernel, initramfs): the same kernel cross-built
# for arm64 and booted with qemu-system-aarch64 -M virt; default: x86_64.

KERNEL ?= patched
PIDFD_CACHE ?= $(HOME)/.cache/pidfd-signal
# make test and make system run their own list of kernels (scripts/test.sh:
# patched and upstream, arm64 patched; scripts/system.sh: patched and
# stock); naming KERNEL (make test KERNEL=stock) passes that one to them.
KERNEL_ARG := $(if $(filter file,$(origin KERNEL)),,$(KERNEL))
# ONLY=globs: make test runs only the plan entries and host steps whose
# names match (make test ONLY='conformance:send_signal*').
ONLY ?=
export KERNEL PIDFD_CACHE ONLY

S := scripts
ARCH_SUFFIX := $(if $(filter arm64,$(ARCH)),-arm64)
X86_ONLY = $(if $(ARCH_SUFFIX),echo "make $@: x86_64 only (ARCH=arm64 has test/run/kernel/initramfs)" >&2; exit 2)

.PHONY: help deps tree kernel initramfs run test bench stress system checkpatch \
	patches bisect-check matrix clean

help:
	@echo "target            what it does                                     cold     warm"
	@echo "make run          boot the patched kernel: demo, then a shell      as test  17 s"
	@echo "make test         tool host tests, guest plan (64- and 32-bit) on  ~25 min  8.5 min"
	@echo "                  patched + upstream 6.12, smoke of bench/stress/run"
	@echo "                  (smoke:*), matrix:smoke, checkpatch; 'N passed, N failed'"
	@echo "make test ARCH=arm64   the same on an arm64 guest           18 min   124 s"
	@echo "                  (cross-built, qemu-system-aarch64 -M virt, patched kernel;"
	@echo "                  its kernel with an empty ccache: 31 min, loaded machine)"
	@echo "make bench        stock vs patched benchmarks, ratio tables        +5 min   171 s"
	@echo "make stress       debug kernel stress plan                         +41 min  ~10 min"
	@echo "                  (README's short STRESS_ARGS; defaults: ~+10 min, estimated)"
	@echo "make system       Debian 12 + systemd + AppArmor guest, system     22 min   133 s"
	@echo "                  plan on patched and stock (make system KERNEL=k: one)"
	@echo "make checkpatch   checkpatch.pl --strict over patches/             +tree    6 s"
	@echo "make patches      regenerate patches/ from the cached tree         +tree    <1 s"
	@echo "make bisect-check build the kernel after every patch of the series  ~18 min"
	@echo "make matrix       every patch x 9 configs, W=1 + sparse vs base,   ~75 min"
	@echo "                  vmlinux; table config x patch (scripts/matrix.sh [--smoke] [config...])"
	@echo "make deps | tree | kernel | initramfs   the steps of make run/test, one by one"
	@echo "make clean        remove \$$PIDFD_CACHE/out (builds stay)          -        <1 s"
	@echo "cold: fresh PIDFD_CACHE, 2 cores (+N: on top of make test's build); README has the details"
	@echo
	@echo "KERNEL=$(KERNEL)  ARCH=$(or $(ARCH),x86_64)  PIDFD_CACHE=$(PIDFD_CACHE)"
	@echo "tree:   $(PIDFD_CACHE)/src/linux (branch series, tag base)"
	@echo "build:  $(PIDFD_CACHE)/build/$(KERNEL)$(ARCH_SUFFIX)   output: $(PIDFD_CACHE)/out/$(KERNEL)$(ARCH_SUFFIX)"

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
	@$(S)/test.sh $(KERNEL_ARG)

bench: deps
	@$(X86_ONLY)
	@$(S)/bench.sh

stress: deps
	@$(X86_ONLY)
	@KERNEL=debug $(S)/stress.sh

system: deps
	@$(S)/system.sh $(KERNEL_ARG)

checkpatch: tree
	@$(S)/checkpatch.sh

patches:
	@$(S)/patches.sh

bisect-check: tree
	@$(S)/bisect-check.sh

matrix: tree
	@$(S)/matrix.sh

clean:
	rm -rf $(PIDFD_CACHE)/out
