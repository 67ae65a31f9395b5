#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest programs statically against the selected kernel's UAPI
# headers with $GUEST_CC (gcc; ARCH=arm64: aarch64-linux-gnu-gcc; ARCH=i386:
# gcc -m32) and pack them with busybox into $OUT/initramfs.cpio:
#   /init                 guest/init.c (PID 1)
#   /bin                  busybox and its applets, guest/demo.c
#   /tests/selftests      tools/testing/selftests/pidfd of the patched tree
#   /tests/conformance    tests/*.c
#   /tests/tool           the pfkill tool and its tests (tool/)
#   /tests/*32            the same three built with -m32 (x86_64 only)
#   /bench, /stress       bench/*.c, stress/*.c
#   /plans/{test,run,bench,stress}   (test includes scripts/smoke.sh plan)
# Only what changed is rebuilt; the kernel is never relinked for this.
set -euo pipefail
. "$(dirname "$0")/common.sh"
arch_inputs
# --inputs: only that (make test's harness:cold-inputs).
if [ "${1:-}" = --inputs ]; then check_inputs; exit; fi
lock tree s
lock "build-$KERNEL$ARCH_SUFFIX" x

headers=$OUT/headers/include
root=$OUT/rootfs
[ -d "$headers" ] || die "no kernel headers in $headers (run scripts/kernel.sh)"
CFLAGS_GUEST=$(guest_cflags "$headers")
# Rewritten (and so newer than every program) only when the compiler, the
# flags or the end marker change.
flags_stamp=$OUT/guest-flags
echo "$GUEST_CC $CFLAGS_GUEST $END_MARKER" | cmp -s - "$flags_stamp" ||
	echo "$GUEST_CC $CFLAGS_GUEST $END_MARKER" > "$flags_stamp"
mkdir -p "$root"/{bin,tests/selftests,tests/conformance,tests/tool,bench,plans}
# What an interrupted run was writing (compile, copy_new): never packed.
find "$root" -name '*.tmp' -delete

# prune DIR SRCDIR: drop programs whose source is gone, so a removed
# test does not linger in the image.
prune() {
	local f
	for f in "$1"/*; do
		[ -e "$f" ] && [ ! -e "$2/$(basename "$f").c" ] && rm -f "$f"
	done
	return 0
}

# The conformance suite is built against one kselftest harness for every
# kernel, linux-source-6.12's: it takes -r fixture[.variant].test and -t
# test, which make test ONLY='conformance:FILE:CASE' passes (guest/init.c);
# 6.1's ignores its arguments. Its two headers are taken from the 6.12
# package into the cache once (the kernel trees stay out of the
# repository), from the extracted reference tree when there is one.
harness_inc=$CACHE/src/kselftest-6.12
if [ ! -f "$harness_inc/kselftest_harness.h" ]; then
	rm -rf "$harness_inc.tmp"
	mkdir -p "$harness_inc.tmp"
	ref=$CACHE/src/upstream/tools/testing/selftests
	if [ -f "$ref/kselftest_harness.h" ]; then
		cp "$ref/kselftest_harness.h" "$ref/kselftest.h" "$harness_inc.tmp/"
	else
		tar -xJf "$(base_tarball 6.12)" \
			-C "$harness_inc.tmp" --strip-components=4 --wildcards \
			'*/tools/testing/selftests/kselftest_harness.h' \
			'*/tools/testing/selftests/kselftest.h' ||
			die "cannot take the kselftest harness from linux-source-6.12"
	fi
	rm -rf "$harness_inc"
	mv "$harness_inc.tmp" "$harness_inc"
fi
# compile (scripts/common.sh) rebuilds a program also when these changed.
COMPILE_DEPS=("$headers/linux/pidfd.h" "$REPO/scripts/guest.sh" "$flags_stamp"
	"$harness_inc"/*.h)

# copy_new FROM TO: what cp -uL does (copy when TO is missing or older),
# but written as TO.tmp and renamed: cp -u would keep a copy that was cut
# short for good, as it is newer than FROM.
copy_new() {
	stale "$2" "$1" || return 0
	cp -L "$1" "$2.tmp" && mv -f "$2.tmp" "$2"
}

say "building guest programs ($KERNEL $ARCH headers)"
compile "$root/init" "$REPO/guest/init.c" "-DEND_MARKER=\"$END_MARKER\""
compile "$root/bin/demo" "$REPO/guest/demo.c"

# The pidfd selftests, built by their Makefile, always from a patched
# tree: on the stock kernel the tests our series adds must skip, and that
# is only seen if they run there. patched612 runs those of the 6.12
# series (src/linux-6.12); every other kernel, the upstream reference
# included, those of the 6.1 series (src/linux), as before.
# A base without a series boots those of BASE_SELFTESTS (upstream73: the
# 6.12 series').
selftests_tree=$TREE
[ -z "$BASE_SELFTESTS" ] || selftests_tree=$CACHE/src/$(base_fact "$BASE_SELFTESTS" BASE_TREE)
selftests_dir=$selftests_tree/tools/testing/selftests/pidfd
# selftest_files DIR OUTPUT VAR...: the file names the selftest Makefile
# in DIR lists in its variables VAR (TEST_GEN_PROGS ...).
selftest_files() {
	local dir=$1 output=$2 v vars=
	shift 2
	for v; do vars+=" \$($v)"; done
	make -s -C "$dir" -f Makefile -f - OUTPUT="$output" print-files \
		<<<"print-files: ; @echo \$(notdir$vars)"
}
mkdir -p "$OUT/selftests-pidfd"
make -s -C "$selftests_dir" OUTPUT="$OUT/selftests-pidfd" \
	KHDR_INCLUDES="-isystem $headers" LDFLAGS=-static CC="$GUEST_CC" >&2 ||
	die "cannot build $selftests_dir"
selftests=$(selftest_files "$selftests_dir" "$OUT/selftests-pidfd" TEST_GEN_PROGS)
# Copied anew on every run: a copy cut short is never kept.
rm -f "$root"/tests/selftests/*
for t in $selftests; do
	cp "$OUT/selftests-pidfd/$t" "$root/tests/selftests/$t"
done

# The reference's own pidfd and coredump selftests (issue 44): the same
# programs on the reference and on each kernel of a series (x86_64; the
# pristine 6.12 is compared with nothing, and there 7.3's tests of what
# it lacks only wait out their timeouts), built once from the reference
# base's tree (the newest table, scripts/base/7.3.sh) against its UAPI
# headers, in $CACHE/out/selftests-<ref>. Each runs as
# selftests<step>:<dir>:<prog> (selftests73:pidfd:pidfd_info_test) through
# /tests/record, which prints its lines as comments: a case is not
# judged on any kernel alone (7.3 fails one of its own); the host step
# selftests<step>:compare wants each case's verdict on a kernel equal to
# the reference's (scripts/selftests-compare.sh).
ref_base=${BASES##* }
ref_step=$(base_fact "$ref_base" BASE_STEP)
ref_dirs="pidfd coredump"
ref_progs=()
build_reference_selftests() {
	local ref src out d t
	ref=$(base_fact "$ref_base" BASE_PRISTINE)
	KERNEL=$ref "$REPO/scripts/tree.sh" >&2 || die "cannot make the $ref tree"
	src=$CACHE/src/$ref
	out=$CACHE/out/selftests-$ref
	if [ ! -f "$out/headers/include/linux/pidfd.h" ]; then
		rm -rf "$out/headers" "$out/headers-build"
		make -s -C "$src" O="$out/headers-build" INSTALL_HDR_PATH="$out/headers.tmp" \
			headers_install >&2 || die "cannot install the $ref UAPI headers"
		mv "$out/headers.tmp" "$out/headers"
		rm -rf "$out/headers-build"
	fi
	# (coredump_test_helpers.c uses offsetof() without <stddef.h>; glibc
	# 2.36 does not bring it in.)
	for d in $ref_dirs; do
		mkdir -p "$out/$d"
		make -s -C "$src/tools/testing/selftests/$d" OUTPUT="$out/$d" \
			KHDR_INCLUDES="-isystem $out/headers/include" LDFLAGS=-static \
			USERCFLAGS="-include stddef.h" CC="$GUEST_CC" >&2 ||
			die "cannot build the $ref $d selftests"
		rm -rf "$root/tests/selftests$ref_step/$d"
		mkdir -p "$root/tests/selftests$ref_step/$d"
		for t in $(selftest_files "$src/tools/testing/selftests/$d" "$out/$d" \
				TEST_GEN_PROGS); do
			ref_progs+=("$d:$t")
		done
		# The helpers and scripts the programs run from their directory.
		for t in $(selftest_files "$src/tools/testing/selftests/$d" "$out/$d" \
				TEST_GEN_PROGS TEST_GEN_PROGS_EXTENDED TEST_FILES); do
			if [ -e "$out/$d/$t" ]; then
				cp "$out/$d/$t" "$root/tests/selftests$ref_step/$d/"
			else
				cp "$src/tools/testing/selftests/$d/$t" "$root/tests/selftests$ref_step/$d/"
			fi
		done
	done
	cat > "$root/tests/record" <<-'EOF'
	#!/bin/sh
	# record PROGRAM: run a reference selftest in its directory, its lines
	# as comments, then its exit status: for the host's comparison.
	cd "${1%/*}" || exit 1
	set -o pipefail
	"$@" 2>&1 | sed 's/^/# /'
	echo "# exit status $?"
	EOF
	chmod 755 "$root/tests/record"
}
if [ -z "$ARCH_SUFFIX" ] && { series_kernel "$KERNEL" ||
		[ "$KERNEL" = "$(base_fact "$ref_base" BASE_PRISTINE)" ]; }; then
	build_reference_selftests
else
	rm -rf "$root/tests/selftests$ref_step" "$root/tests/record"
fi

selftest_inc="-I$harness_inc -I$REPO/tests"
conformance=()
prune "$root/tests/conformance" "$REPO/tests"
for c in "$REPO"/tests/*.c; do
	[ -e "$c" ] || continue
	t=$(basename "$c" .c)
	compile "$root/tests/conformance/$t" "$c" $selftest_inc
	conformance+=("$t")
done

# bench/*.c and stress/*.c: one program each, run by plans/bench and
# plans/stress.
for kind in bench stress; do
	mkdir -p "$root/$kind"
	prune "$root/$kind" "$REPO/$kind"
	: > "$root/plans/$kind"
	for c in "$REPO/$kind"/*.c; do
		[ -e "$c" ] || continue
		t=$(basename "$c" .c)
		compile "$root/$kind/$t" "$c" -I"$REPO/$kind" $selftest_inc
		echo "$kind:$t 1800 /$kind/$t" >> "$root/plans/$kind"
	done
done

tool=no
if [ -f "$REPO/tool/Makefile" ]; then
	# Against this kernel's headers; tool/'s check-khdr fails the build
	# if a kernel header came from anywhere else.
	make -s -C "$REPO/tool" guest-install DESTDIR="$root/tests/tool" CC="$GUEST_CC" \
		KHDR_INCLUDES="-isystem $headers" STATIC_DIR="$OUT/tool-static" >&2 ||
		die "cannot build tool/ for the guest"
	[ -x "$root/tests/tool/bin/pfkill-tests" ] && tool=yes
fi

# 32-bit copies (x86_64 only): the conformance suite, the pidfd selftests
# and the tool's tests built with -m32 run in the same plan as
# conformance32:*, selftests32:pidfd:* and tool32:pfkill, so the compat
# entry points (siginfo, clone_args, the sentinels) are exercised by
# 32-bit tasks. The UAPI headers are the same: asm/ picks the 32-bit
# definitions by __i386__.
selftests32=""
conformance32=()
tool32=no
build_32bit() {
	local c t
	gcc -m32 -static -x c -o /dev/null - <<<'int main(void) { return 0; }' 2>/dev/null ||
		die "gcc -m32 cannot link a static program (install gcc-multilib: make deps)"
	mkdir -p "$root/tests/selftests32" "$root/tests/conformance32" "$OUT/selftests-pidfd32"
	make -s -C "$selftests_dir" OUTPUT="$OUT/selftests-pidfd32" \
		KHDR_INCLUDES="-isystem $headers" USERCFLAGS=-m32 \
		LDFLAGS="-m32 -static" CC=gcc >&2 ||
		die "cannot build $selftests_dir with -m32"
	selftests32=$selftests
	rm -f "$root"/tests/selftests32/*
	for t in $selftests32; do
		cp "$OUT/selftests-pidfd32/$t" "$root/tests/selftests32/$t"
	done

	prune "$root/tests/conformance32" "$REPO/tests"
	for c in "$REPO"/tests/*.c; do
		[ -e "$c" ] || continue
		t=$(basename "$c" .c)
		compile "$root/tests/conformance32/$t" "$c" -m32 $selftest_inc
		conformance32+=("$t")
	done

	if [ -f "$REPO/tool/Makefile" ]; then
		make -s -C "$REPO/tool" guest-install DESTDIR="$root/tests/tool32" \
			CC="gcc -m32" STATIC_DIR="$OUT/tool-static32" \
			KHDR_INCLUDES="-isystem $headers" >&2 ||
			die "cannot build tool/ with -m32 for the guest"
		[ -x "$root/tests/tool32/bin/pfkill-tests" ] && tool32=yes
	fi
	return 0
}
[ "$ARCH_M32" = yes ] && build_32bit

# copy_foreign FILE: FILE (a path in the guest) from the packages of
# another architecture that scripts/deps.sh unpacked into ARCH_ROOT
# (arm64, i386), with its ELF interpreter and the libraries its NEEDED
# entries name, recursively (ldd cannot run them, or would name the
# host's).
copy_foreign() {
	local f=$1 lib d dep
	mkdir -p "$root$(dirname "$f")"
	copy_new "$ARCH_ROOT$f" "$root$f"
	dep=$(readelf -l "$ARCH_ROOT$f" | sed -n 's/.*program interpreter: \(.*\)\]$/\1/p')
	[ -z "$dep" ] || [ -e "$root$dep" ] || copy_foreign "$dep"
	for lib in $(readelf -d "$ARCH_ROOT$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		for d in "/lib/$ARCH_MULTIARCH" "/usr/lib/$ARCH_MULTIARCH"; do
			[ -e "$ARCH_ROOT$d/$lib" ] || continue
			[ -e "$root$d/$lib" ] || copy_foreign "$d/$lib"
			continue 2
		done
		die "$f needs $lib, which is not in $ARCH_ROOT (arch_deps of scripts/arch/$ARCH.sh)"
	done
}

# Host programs some plans need (procps for bench, trinity and stress-ng
# for stress), listed one per line in bench/host-programs and
# stress/host-programs: copied with the shared libraries ldd names. For
# arm64 and i386 they come from Debian's packages of that architecture
# in ARCH_ROOT (procps; trinity and stress-ng are not fetched: the stress
# plan reports them as not in the image).
for list in "$REPO"/{bench,stress}/host-programs; do
	[ -f "$list" ] || continue
	grep -v '^#' "$list" | while read -r prog; do
		[ -n "$prog" ] || continue
		if [ -n "$ARCH_ROOT" ]; then
			for path in /usr/bin/$prog /bin/$prog MISSING; do
				[ -x "$ARCH_ROOT$path" ] && break
			done
			if [ "$path" = MISSING ]; then
				say "warning: $list names $prog, not in the $ARCH packages of scripts/arch/$ARCH.sh: skipped"
				continue
			fi
			copy_foreign "$path"
			continue
		fi
		# Only the plan that lists a program needs it (scripts/stress.sh
		# installs trinity and stress-ng): skip it here, do not fail.
		path=$(command -v "$prog") || { say "warning: $list names $prog, not installed on the host: skipped"; continue; }
		for f in "$path" $(ldd "$path" 2>/dev/null | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$f")"
			copy_new "$f" "$root$f"
		done
		mkdir -p "$root/usr/bin"
		[ "$path" = "/usr/bin/$(basename "$path")" ] ||
			copy_new "$path" "$root/usr/bin/$(basename "$path")"
	done
done

# case_slot PROGRAM: " {case}" when PROGRAM's kselftest harness takes
# -r/-t (6.12's and later: its usage text is in the program). guest/init.c
# puts the case of ONLY=ENTRY:CASE there, and fails an entry without the
# slot that was given a case: 6.1's harness ignores its arguments and
# would run every case.
case_slot() {
	grep -qF 'run specified test' "$1" && echo " {case}"
	return 0
}

# Plans: "name timeout program args".
{
	for t in $selftests; do
		echo "selftests:pidfd:$t 300 /tests/selftests/$t$(case_slot "$root/tests/selftests/$t")"
	done
	for t in "${conformance[@]}"; do
		echo "conformance:$t 300 /tests/conformance/$t$(case_slot "$root/tests/conformance/$t")"
	done
	[ $tool = yes ] && echo "tool:pfkill 900 /bin/env PFKILL_TEST_TIMEOUT=300 /tests/tool/bin/pfkill-tests {case}"
	for t in $selftests32; do
		echo "selftests32:pidfd:$t 300 /tests/selftests32/$t$(case_slot "$root/tests/selftests32/$t")"
	done
	for t in "${conformance32[@]}"; do
		echo "conformance32:$t 300 /tests/conformance32/$t$(case_slot "$root/tests/conformance32/$t")"
	done
	[ $tool32 = yes ] && echo "tool32:pfkill 900 /bin/env PFKILL_TEST_TIMEOUT=300 /tests/tool32/bin/pfkill-tests {case}"
	for t in "${ref_progs[@]}"; do
		echo "selftests$ref_step:$t 900 /tests/record /tests/selftests$ref_step/${t%%:*}/${t#*:}"
	done
	# The smoke form of make bench, stress and run (smoke:*).
	"$REPO/scripts/smoke.sh" plan
} > "$root/plans/test"
echo "demo 120 /bin/demo" > "$root/plans/run"

# The cpio list for usr/gen_init_cpio.
gen=$CACHE/bin/gen_init_cpio
if [ ! -x "$gen" ]; then
	mkdir -p "$CACHE/bin"
	# (-x only once whole: written as $gen.tmp, then renamed)
	gcc -O2 -o "$gen.tmp" "$selftests_tree/usr/gen_init_cpio.c" || die "cannot build gen_init_cpio"
	mv -f "$gen.tmp" "$gen"
fi
list=$OUT/initramfs.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	for d in proc sys tmp etc root sbin usr usr/bin; do
		echo "dir /$d 0755 0 0"
	done
	(cd "$root" && find . -mindepth 1 -type d | sort) | sed 's|^\.\(.*\)|dir \1 0755 0 0|'
	(cd "$root" && find . -type f | sort) |
		while read -r f; do
			mode=0644; [ -x "$root/$f" ] && mode=0755
			echo "file ${f#.} $root/${f#./} $mode 0 0"
		done
	(cd "$root" && find . -type l | sort) |
		while read -r f; do echo "slink ${f#.} $(readlink "$root/$f") 0777 0 0"; done
	echo "file /bin/busybox $BUSYBOX 0755 0 0"
	# The applets of the host's busybox-static: for arm64 and i386 that
	# is the same Debian version (scripts/deps.sh), and the host cannot
	# run arm64's.
	for applet in $(/bin/busybox --list | grep -vx busybox); do
		[ -e "$root/bin/$applet" ] || echo "slink /bin/$applet busybox 0777 0 0"
	done
} > "$list"
"$gen" "$list" > "$OUT/initramfs.cpio.tmp" || die "gen_init_cpio failed"
mv "$OUT/initramfs.cpio.tmp" "$OUT/initramfs.cpio"
say "initramfs ready: $OUT/initramfs.cpio ($(du -h "$OUT/initramfs.cpio" | cut -f1)," \
	"$(wc -l < "$root/plans/test") test programs)"
