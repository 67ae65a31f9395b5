#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make system: boot a real Debian (systemd as PID 1, AppArmor) on a
# kernel and run the system plan (system/plan.sh): Debian 12 (bookworm,
# systemd 252) on the 6.1 kernels, Debian 13 (trixie, systemd 257) on the
# 6.12 ones; then compare what the /proc walkers saw on each patched
# kernel and its unpatched reference (issues 14 and 23).
#   scripts/system.sh                 the default list below, then the comparisons
#   scripts/system.sh patched612      one kernel (make system KERNEL=patched612)
#   scripts/system.sh patched stock   these; a pair compares its walkers
#   scripts/system.sh --compare A B   no boot: A's plan against B's, as
#                                     pidfs and verdict lines, from the
#                                     runs in the cache (stock-forky
#                                     upstream73: a kernel without pidfs
#                                     against the reference)
#   scripts/system.sh --packages      make system-deb: the package mode
#                                     below, every base
# Names: patched, stock (Debian 12); patched612, upstream (Debian 13):
# each base's BASE_SYSTEM and BASE_RELEASE (scripts/base/); and
# patched-trixie, stock-trixie: Debian 13 on the same two 6.1 kernels
# (BASE_SYSTEM_ALSO; issue 32). system-<name> names the same.
# SYSTEM_KERNELS sets the default list (common.sh: system_names).
#
# Kernel: tinyconfig + kconfig/{guest,x86_64,system}.config (+
# system-6.12.config on 6.12) in build/system-<kernel> (scripts/kernel.sh
# with KERNEL=system-<kernel>); <kernel>-<release> boots that same build.
# Root: mmdebstrap --variant=minbase of system/packages from the machine's
# apt sources (for trixie the same archive with the suite names changed),
# cached as $CACHE/system/rootfs-<hash>.tar, one per release (rebuilt when
# the list or the sources change); the ext4 image adds pfkill (make -C
# tool install), the plan, its programs (built against the kernel's
# headers) and the AppArmor profiles, and is rebuilt when one of those
# changes. QEMU boots it with snapshot=on, so the image stays as built.
# Package mode (issue 47): deb-patched, deb-patched612: Debian 12 or 13
# with the series' kernel of make deb (scripts/deb.sh, Debian's
# cloud-amd64 config; DEB_FLAVOUR) installed by apt from its packages, as
# an admin installs it; deb-debian, deb-debian612: the same release with
# Debian's own linux-image-cloud-amd64. The packages go in with apt in
# the root's chroot (postinst, initramfs-tools making the initrd); the
# boot is of the /boot/vmlinuz-* and /boot/initrd.img-* the postinst left
# (no bootloader: QEMU's -kernel and -initrd), udev loads the modules.
# The plan's programs are built against make deb's linux-libc-dev, the
# same binaries on both kernels; the walkers (results and kernel log
# warnings) of each patched kernel are compared with Debian's.
# Output in $CACHE/out/system-<name>: system.console, system.ktap;
# $CACHE/out/system-compare.ktap (patched/stock),
# system-compare-trixie.ktap (patched-trixie/stock-trixie) and
# system-compare-6.12.ktap (patched612/upstream): the walker comparisons;
# system-compare-trixie-pidfs.ktap: the pidfs case's lines of
# patched-trixie against upstream's (the same Debian 13 on each).
set -euo pipefail
. "$(dirname "$0")/common.sh"

compare_only=0
if [ "${1:-}" = --compare ]; then
	[ $# = 3 ] || die "usage: scripts/system.sh --compare A B"
	compare_only=1
	shift
fi
# package_boot NAME: "BASE RELEASE SOURCE" of a package mode name
# (deb-patched: "6.1 bookworm ours", deb-debian612: "6.12 trixie debian");
# package_names: all of them.
package_boot() {
	local b
	for b in $SERIES_BASES; do
		(base_facts "$b"
		 [ "$1" = "deb-$BASE_PATCHED" ] && echo "$b $BASE_RELEASE ours"
		 [ "$1" = "deb-debian$BASE_STEP" ] && echo "$b $BASE_RELEASE debian"
		 true)
	done
}
package_names() {
	local b
	for b in $SERIES_BASES; do
		echo "deb-$(base_fact "$b" BASE_PATCHED) deb-debian$(base_fact "$b" BASE_STEP)"
	done | xargs
}
if [ "${1:-}" = --packages ]; then
	shift
	set -- $(package_names)
fi
kernels=()
# Every base's, in its table's order (upstream before patched612: a cold
# system-patched612 starts from its build).
for k in ${*:-${SYSTEM_KERNELS:-$(system_names)}}; do
	k=${k#system-}
	[ -n "$(system_boot "$k")$(package_boot "$k")" ] ||
		die "make system: KERNEL=$(system_names | sed 's/ /, /g'), or $(package_names | sed 's/ /, /g'), not $k"
	kernels+=("$k")
done
SYS=$CACHE/system
mkdir -p "$SYS"

# release NAME: the Debian suite booted (its base's BASE_RELEASE, or the
# release in the name); build NAME: the kernel it boots (stock-trixie: stock)
release() {
	system_boot "$1" | cut -d' ' -f3
}
build() {
	system_boot "$1" | cut -d' ' -f2
}
# release_name SUITE: "Debian 12"
release_name() {
	local b
	for b in $BASES; do
		if [ "$(base_fact "$b" BASE_RELEASE)" = "$1" ]; then
			base_fact "$b" BASE_RELEASE_NAME
			return
		fi
	done
}

# --- the root filesystem tarball of a release, keyed by the package list ---
packages=$(grep -v '^#' "$REPO/system/packages" | xargs | tr ' ' ,)
host_sources=$(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

# rootfs_of SUITE [VARIANT KEY MMDEBSTRAP-ARG...]: prints the tarball,
# building it first when missing. A VARIANT (the package mode's) adds its
# arguments (hooks), and KEY (what they install) to the tarball's key.
rootfs_of() {
	local suite=$1 variant=${2:-} extra_key=${3:-} sources key rootfs start s mmargs srcargs
	shift
	[ $# -gt 0 ] && shift 2
	sources=$host_sources
	if [ "$suite" != "$host_suite" ]; then
		# The same archive with the suite names changed (bookworm-updates
		# becomes trixie-updates ...), in $SYS/sources-SUITE/.
		[ -n "$host_suite" ] || die "cannot tell the machine's Debian release (/etc/os-release)"
		rm -rf "$SYS/sources-$suite"
		mkdir -p "$SYS/sources-$suite"
		sources=
		for s in $host_sources; do
			sed "s/\\b$host_suite\\b/$suite/g" "$s" > "$SYS/sources-$suite/${s##*/}"
			sources+=" $SYS/sources-$suite/${s##*/}"
		done
	fi
	# A testing suite's -updates and -security Release files expire while
	# nothing is uploaded to them (forky's had for a month, 2026-12-07),
	# and apt refuses an expired one: their age is not ours to judge.
	mmargs=(--variant=minbase --include="$packages"
		--aptopt='Acquire::Check-Valid-Until "false"' "$@" "$suite")
	key=$( { echo "${mmargs[*]} $extra_key"; cat $sources; } | sha1sum | cut -c1-12)
	rootfs=$SYS/rootfs-$key.tar
	if [ ! -f "$rootfs" ]; then
		say "building the $(release_name "$suite")${variant:+ $variant} root with mmdebstrap ($packages; a minute or two)"
		start=$SECONDS
		# The machine's own apt sources (no mirror argument of our own).
		srcargs=()
		for s in $sources; do srcargs+=("$s"); done
		# (mmdebstrap picks the output format from the name's extension)
		rm -rf "$SYS/partial.tar"
		mmdebstrap --quiet "${mmargs[@]}" "$SYS/partial.tar" "${srcargs[@]}" >&2 ||
			die "mmdebstrap failed"
		mv "$SYS/partial.tar" "$rootfs"
		# The release's previous tarball goes; the other release's stays.
		s=$(cat "$SYS/rootfs-$suite${variant:+-$variant}.name" 2>/dev/null || true)
		[ -n "$s" ] && [ "$s" != "${rootfs##*/}" ] && rm -f "$SYS/$s"
		say "root filesystem in $((SECONDS - start)) s: $rootfs"
	fi
	echo "${rootfs##*/}" > "$SYS/rootfs-$suite${variant:+-$variant}.name"
	echo "$rootfs"
}

# --- one kernel: build, image, boot, judge ---
run_kernel() {
	local k=$1 build out headers suite rootfs
	suite=$(release "$k")
	rootfs=$(rootfs_of "$suite")
	export KERNEL=system-$(build "$k")
	build=$CACHE/build/$KERNEL
	headers=$CACHE/out/$KERNEL/headers/include
	out=$CACHE/out/system-$k
	"$REPO/scripts/tree.sh"
	"$REPO/scripts/kernel.sh"
	build_programs "$out" "$headers" "$headers/linux/pidfd.h"
	make_image "$k" "$rootfs" "$out"
	boot_plan "$k" "$suite" "$out" -kernel "$build/$KIMAGE_PATH" \
		-append "root=/dev/vda rw console=$GUEST_CONSOLE panic=-1 loglevel=5 ${SYSTEM_ARGS:-}"
}

# run_packaged NAME: the package mode's boot. The release's root with
# initramfs-tools, the kernel installed by apt-get in its chroot (ours
# from make deb's packages, copied in; Debian's from the archive), the
# kernel and initrd its postinst put in /boot booted.
run_packaged() {
	local k=$1 b suite source debs deb_out headers hooks rootfs out stage key
	read -r b suite source <<<"$(package_boot "$k")"
	out=$CACHE/out/system-$k
	deb_out=$CACHE/out/deb-${DEB_FLAVOUR:-cloud-amd64}$(base_fact "$b" BASE_SUFFIX)
	BASE=$b KERNEL= "$REPO/scripts/deb.sh" | sed 's/^/    /' >&2 ||
		die "make deb BASE=$b failed"
	headers=$deb_out/libc-dev/usr/include
	hooks=(--include=initramfs-tools)
	if [ "$source" = ours ]; then
		debs=$(ls "$deb_out"/linux-image-*.deb)
		key=$(sha1sum "$debs")
		hooks+=(--customize-hook="copy-in $debs /tmp"
			--customize-hook="chroot \"\$1\" apt-get install -y -q --no-install-recommends /tmp/${debs##*/}"
			--customize-hook="rm -f \"\$1/tmp/${debs##*/}\"")
	else
		key=linux-image-cloud-amd64
		hooks+=(--customize-hook="chroot \"\$1\" apt-get install -y -q --no-install-recommends linux-image-cloud-amd64")
	fi
	rootfs=$(rootfs_of "$suite" "$k" "$key" "${hooks[@]}")
	build_programs "$out" "$headers" "$deb_out/.built"
	make_image "$k" "$rootfs" "$out"
	# What the postinst left in /boot: one kernel, its initrd.
	stage=$SYS/boot-$k
	rm -rf "$stage"
	mkdir -p "$stage"
	tar -xf "$rootfs" -C "$stage" --wildcards './boot/vmlinuz-*' './boot/initrd.img-*'
	[ "$(ls "$stage"/boot/vmlinuz-* | wc -l)" = 1 ] && [ "$(ls "$stage"/boot/initrd.img-* | wc -l)" = 1 ] ||
		die "$k: not one kernel and one initrd in /boot: $(ls "$stage/boot" | xargs)"
	say "$k: $(ls "$stage/boot" | xargs) (installed by apt-get)"
	boot_plan "$k" "$suite" "$out" -kernel "$(ls "$stage"/boot/vmlinuz-*)" \
		-initrd "$(ls "$stage"/boot/initrd.img-*)" \
		-append "root=/dev/vda rw console=$GUEST_CONSOLE panic=-1 loglevel=5 ${SYSTEM_ARGS:-}"
	[ "$source" = ours ] && guest_plan "$k" "$b" "$(ls "$stage"/boot/vmlinuz-*)"
	rm -rf "$stage"
}

# guest_plan NAME BASE VMLINUZ: make test's guest plan (conformance suite,
# selftests, the tool's tests) on the packaged kernel, from the initramfs
# of the base's test kernel; then every case that passed on the test
# kernel (its last make test) must pass here too.
guest_plan() {
	local k=$1 b=$2 vmlinuz=$3 patched out start f
	patched=$(base_fact "$b" BASE_PATCHED)
	out=$CACHE/out/system-$k
	KERNEL=$patched "$REPO/scripts/kernel.sh"
	KERNEL=$patched "$REPO/scripts/guest.sh"
	say "booting make test's plan on the $k kernel (the $patched initramfs)"
	start=$SECONDS
	qemu_boot "${PIDFD_TIMEOUT:-1500}" "$out/test.console" "$out/test.ktap" /dev/null \
		-kernel "$vmlinuz" -initrd "$CACHE/out/$patched/initramfs.cpio" \
		-append "console=$GUEST_CONSOLE panic=-1 loglevel=5 pidfd.plan=/plans/test pidfd.results=$GUEST_RESULTS"
	say "$k: make test's plan in $((SECONDS - start)) s"
	"$REPO/scripts/ktap.sh" "$out/test.console" "$out/test.ktap" | tee "$out/test.verdict" || true
	files+=("$out/test.verdict")
	f=$CACHE/out/system-compare-$k-test.ktap
	ktap_case "system:test-plan-vs-$patched" "" passed_there_passes_here \
		"$CACHE/out/$patched/test.ktap" "$out/test.ktap" > "$f"
	: > "$SYS/compare-$k-test.console"
	"$REPO/scripts/ktap.sh" "$SYS/compare-$k-test.console" "$f" |
		tee "$CACHE/out/system-compare-$k-test.verdict" || true
	files+=("$CACHE/out/system-compare-$k-test.verdict")
}

# passed_there_passes_here REF NEW: every case ok in KTAP file REF is ok
# in NEW (one that skipped or failed in REF is not compared).
passed_there_passes_here() {
	local lost
	[ -f "$1" ] || { echo "    # no $1 (make test first)"; return 4; }
	lost=$(comm -23 <(tag_lines verdict "$1" | sed -n 's/ saw: ok$//p' | sort -u) \
		<(tag_lines verdict "$2" | sed -n 's/ saw: ok$//p' | sort -u))
	echo "    # $(tag_lines verdict "$1" | grep -c ' saw: ok$') cases ok on the test kernel"
	[ -z "$lost" ] && return 0
	echo "$lost" | sed 's/^/    # not ok here: /'
	return 1
}

# build_programs OUT INCLUDE DEP: the guest programs in OUT/bin, static,
# against the UAPI headers in INCLUDE (rebuilt when DEP is newer), by
# compile (common.sh): an interrupted compile leaves only a .tmp.
# sd_inode_id and sd_listen dlopen() the guest's libsystemd, so they
# are linked against the guest's libc, dynamically (built with this
# machine's Debian 12 glibc, they run on Debian 12, 13 and 14).
build_programs() {
	local out=$1 headers=$2 c p
	mkdir -p "$out/bin"
	CFLAGS_GUEST=$(guest_cflags "$headers")
	COMPILE_DEPS=("$3")
	rm -f "$out"/bin/*.tmp
	for c in "$REPO"/system/*.c; do
		p=$(basename "$c" .c)
		if [ "${p#sd_}" != "$p" ]; then
			CFLAGS_GUEST=${CFLAGS_GUEST#-static } compile "$out/bin/$p" "$c" -ldl
		else
			compile "$out/bin/$p" "$c"
		fi
	done
	make -s -C "$REPO/tool" pfkill pfgrep >&2 || die "cannot build tool/pfkill"
}

# make_image NAME ROOTFS OUT: the ext4 image OUT/system.img, ROOTFS and
# the plan; rebuilt when the root or anything added to it changed.
make_image() {
	local k=$1 rootfs=$2 out=$3 img stage inputs start
	img=$out/system.img
	inputs=$( { echo "$rootfs"; cat "$REPO"/system/plan.sh "$REPO"/system/*.service \
		"$REPO"/system/apparmor/* "$out"/bin/* "$REPO/tool/pfkill" \
		"$REPO/tool/pfkill.1" "$REPO/scripts/system.sh"; } | sha1sum | cut -d' ' -f1)
	[ -f "$img" ] && [ "$(cat "$img.inputs" 2>/dev/null)" = "$inputs" ] && return 0
	say "making the ext4 root image for $k"
	start=$SECONDS
	stage=$SYS/stage-$k
	# .inputs goes too: an image cut short must not match it later.
	rm -rf "$stage" "$img" "$img.inputs"
	mkdir -p "$stage"
	tar -xf "$rootfs" -C "$stage"
	make -s -C "$REPO/tool" install DESTDIR="$stage" PREFIX=/usr/local >&2
	install -d "$stage/opt/pidfd-system/bin" "$stage/opt/pidfd-system/apparmor"
	sed "s/@END_MARKER@/$END_MARKER/" "$REPO/system/plan.sh" > "$stage/opt/pidfd-system/plan"
	chmod 0755 "$stage/opt/pidfd-system/plan"
	install -m 0755 "$out"/bin/* "$stage/opt/pidfd-system/bin/"
	install -m 0644 "$REPO"/system/apparmor/* "$stage/opt/pidfd-system/apparmor/"
	install -m 0644 "$REPO/system/pidfd-system-test.service" "$stage/etc/systemd/system/"
	ln -sf ../pidfd-system-test.service \
		"$stage/etc/systemd/system/multi-user.target.wants/pidfd-system-test.service"
	echo pidfd-system > "$stage/etc/hostname"
	echo "/dev/vda / ext4 rw 0 1" > "$stage/etc/fstab"
	sed -i 's/^root:[^:]*:/root::/' "$stage/etc/shadow"	# a shell for debugging
	mkfs.ext4 -q -F -L pidfd-root -d "$stage" "$img" 2G || die "mkfs.ext4 failed"
	rm -rf "$stage"
	echo "$inputs" > "$img.inputs"
	say "image in $((SECONDS - start)) s: $img"
}

# boot_plan NAME SUITE OUT QEMU-ARGS...: boot OUT/system.img, judge the plan.
boot_plan() {
	local k=$1 suite=$2 out=$3 start
	shift 3
	local console=$out/system.console results=$out/system.ktap limit=${PIDFD_TIMEOUT:-1500}
	say "booting $(release_name "$suite") on the $k kernel (systemd, limit $limit s)"
	start=$SECONDS
	qemu_boot "$limit" "$console" "$results" /dev/null \
		-drive "file=$out/system.img,format=raw,if=virtio,snapshot=on" "$@"
	say "$k boot and plan: $((SECONDS - start)) s"
	"$REPO/scripts/ktap.sh" "$console" "$results" | tee "$out/system.verdict" || true
}

# --- the comparisons: walkers (case 3), pidfs (case 6) ---
# Every "# TAG: NAME status=N", "# TAG: NAME err: LINE" and
# "# TAG: NAME saw: WHAT" line of one run must be in the other and back:
# the walkers of each patched kernel against its reference, booting the
# same release (patched/stock, patched-trixie/stock-trixie,
# patched612/upstream); the pidfs case's lines of patched-trixie against
# upstream, both Debian 13: its programs must find pidfs on the patched
# 6.1 kernel as on upstream 6.12.
lines_of() {
	awk -v n="$1 " 'index($0, n) == 1' "$SYS/$2.$3" | sort
}

# tag_lines TAG KTAP: the run's "NAME status=N", "NAME err: LINE" and
# "NAME saw: WHAT" lines of TAG. TAG verdict: every subtest of the plan
# as "CASE:NAME saw: ok|fail|skip", numbers masked (a pid, a count);
# lines_compare leaves out what the reference skips.
tag_lines() {
	if [ "$1" = verdict ]; then
		tr -d '\r' < "$2" | awk '
			/^ok [0-9]+ |^not ok [0-9]+ / { next }
			/^# running / { c = $3; next }
			/^    (not )?ok [0-9]+ / {
				v = /^    not ok/ ? "fail" : / # SKIP/ ? "skip" : "ok"
				sub(/^    (not )?ok [0-9]+ /, ""); sub(/ # .*/, "")
				gsub(/[0-9]+/, "N"); print c ":" $0 " saw: " v }'
	else
		grep -h "^    # $1: " "$2" | tr -d '\r' | sed "s/^    # $1: //"
	fi
}

# lines_compare TAG A B: the TAG lines of both runs, one subtest per
# NAME; 4 (skip) without both runs, 1 when a NAME differs or there was
# none.
lines_compare() {
	local tag=$1 a=$2 b=$3 n=0 bad=0 name only_a only_b names
	local p=$CACHE/out/system-$a/system.ktap s=$CACHE/out/system-$b/system.ktap
	if [ ! -f "$p" ] || [ ! -f "$s" ]; then
		echo "    # needs both runs (make system)"
		return 4
	fi
	tag_lines "$tag" "$p" > "$SYS/$tag.$a"
	tag_lines "$tag" "$s" > "$SYS/$tag.$b"
	# Verdicts: every subtest the reference ($b) runs, and only those:
	# what it skips or has no subtest for it lacks (our own extensions:
	# the kill files, task-directory handles), nothing to compare with.
	if [ "$tag" = verdict ]; then
		sed -n 's/ saw: \(ok\|fail\)$//p' "$SYS/$tag.$b" > "$SYS/$tag.ran"
		for f in "$SYS/$tag.$a" "$SYS/$tag.$b"; do
			awk 'NR == FNR { ran[$0]; next } { n = $0; sub(/ saw: [a-z]*$/, "", n) }
				n in ran' "$SYS/$tag.ran" "$f" > "$f.kept"
			mv "$f.kept" "$f"
		done
		echo "    # $(wc -l < "$SYS/$tag.ran") subtests that $b runs (not the ones it skips)"
	fi
	# The names compared: the reference's for verdicts (one missing in
	# $a is a difference), else those of $a.
	names=$SYS/$tag.$a
	[ "$tag" = verdict ] && names=$SYS/$tag.$b
	while IFS= read -r name; do
		only_a=$(lines_of "$name" "$tag" "$a" | comm -23 - <(lines_of "$name" "$tag" "$b"))
		only_b=$(lines_of "$name" "$tag" "$b" | comm -23 - <(lines_of "$name" "$tag" "$a"))
		if [ -z "$only_a$only_b" ]; then
			echo "    ok $((++n)) $name"
		else
			# The differences first: scripts/ktap.sh shows them with the failure.
			echo "$only_a" | sed "/^\$/d; s/^/    # $a only: /"
			echo "$only_b" | sed "/^\$/d; s/^/    # $b only: /"
			echo "    not ok $((++n)) $name"
			bad=1
		fi
	done < <(sed -n 's/ status=[0-9]*$//p; s/ saw: .*//p' "$names" | sort -u)
	[ "$n" -gt 0 ] || { echo "    # no $tag lines"; return 1; }
	return $bad
}

# compare CASE TAG A B SUFFIX: the comparison as a one-case KTAP file
# (system:CASE-vs-B: walkers-vs-stock, pidfs-vs-upstream) and its verdict, in
# system-compare<SUFFIX>.* (the base's BASE_SUFFIX, then -<release> for
# another base's release, then -pidfs for the pidfs lines).
compare() {
	local case=$1 tag=$2 a=$3 b=$4 suffix=$5
	local f=$CACHE/out/system-compare$suffix.ktap
	ktap_case "system:$case-vs-$b" "" lines_compare "$tag" "$a" "$b" > "$f"
	: > "$SYS/compare$suffix.console"
	say "$tag lines: $a against $b"
	"$REPO/scripts/ktap.sh" "$SYS/compare$suffix.console" "$f" |
		tee "$CACHE/out/system-compare$suffix.verdict" || true
	files+=("$CACHE/out/system-compare$suffix.verdict")
}

has() {
	local k
	for k in "${kernels[@]}"; do [ "$k" = "$1" ] && return 0; done
	return 1
}

# release_reference SUITE: the pristine kernel of the base whose release
# SUITE is (trixie: upstream); nothing, and status 0, for none (set -e:
# a loop whose last test failed would end make system here).
release_reference() {
	local b
	for b in $BASES; do
		if [ "$(base_fact "$b" BASE_RELEASE)" = "$1" ]; then
			base_fact "$b" BASE_PRISTINE
		fi
	done
}

files=()
if [ $compare_only = 1 ]; then
	a=${kernels[0]} b=${kernels[1]}
	compare pidfs pidfs "$a" "$b" "-$a-vs-$b-pidfs"
	compare plan verdict "$a" "$b" "-$a-vs-$b-plan"
	verdicts "${files[@]}"
	exit
fi
for k in "${kernels[@]}"; do
	if [ -n "$(package_boot "$k")" ]; then
		run_packaged "$k"
	else
		run_kernel "$k"
	fi
	files+=("$CACHE/out/system-$k/system.verdict")
done
# Each base's patched kernel against its pristine one, when both ran,
# under each release it boots.
for b in $SERIES_BASES; do
	patched=$(base_fact "$b" BASE_PATCHED)
	pristine=$(base_fact "$b" BASE_PRISTINE)
	suffix=$(base_fact "$b" BASE_SUFFIX)
	if has "$patched" && has "$pristine"; then
		compare walkers walker "$patched" "$pristine" "$suffix"
	fi
	for r in $(base_fact "$b" BASE_SYSTEM_ALSO); do
		if has "$patched-$r" && has "$pristine-$r"; then
			compare walkers walker "$patched-$r" "$pristine-$r" "$suffix-$r"
		fi
		ref=$(release_reference "$r")
		if [ -n "$ref" ] && has "$patched-$r" && has "$ref"; then
			compare pidfs pidfs "$patched-$r" "$ref" "$suffix-$r-pidfs"
			# A reference without a series (7.3) has every feature:
			# the whole plan's verdicts must be its.
			[ -n "$(base_fact "$(kernel_bases "$ref")" BASE_PATCHES)" ] ||
				compare plan verdict "$patched-$r" "$ref" "$suffix-$r-plan"
		fi
	done
done
# The package mode: each base's packaged kernel against Debian's own.
for b in $SERIES_BASES; do
	patched=deb-$(base_fact "$b" BASE_PATCHED)
	debian=deb-debian$(base_fact "$b" BASE_STEP)
	if has "$patched" && has "$debian"; then
		compare walkers walker "$patched" "$debian" "-$patched"
	fi
done
say "make system: kernels ${kernels[*]}"
record_time "make system ${kernels[*]}" $SECONDS
verdicts "${files[@]}"
