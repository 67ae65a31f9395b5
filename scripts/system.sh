#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make system: boot a real Debian 12 (systemd as PID 1, AppArmor) on the
# patched kernel and run the system plan (system/plan.sh), then the same on
# the stock kernel, and compare what the /proc walkers saw (issue 14).
#   scripts/system.sh                 patched, then stock, then the comparison
#   scripts/system.sh patched         one kernel (make system KERNEL=patched)
#
# Kernel: tinyconfig + kconfig/{guest,x86_64,system}.config in
# build/system-<kernel> (scripts/kernel.sh with KERNEL=system-<kernel>).
# Root: mmdebstrap --variant=minbase of system/packages from the machine's
# apt sources, cached as $CACHE/system/rootfs-<hash>.tar (rebuilt when
# the list changes); the ext4 image adds pfkill (make -C tool install),
# the plan, its programs (built against the kernel's headers) and the
# AppArmor profiles, and is rebuilt when one of those changes. QEMU boots
# it with snapshot=on, so the image stays as built.
# Output in $CACHE/out/system-<kernel>: system.console, system.ktap;
# $CACHE/out/system-compare.ktap: the walker comparison.
set -euo pipefail
. "$(dirname "$0")/common.sh"

kernels=${*:-patched stock}
SYS=$CACHE/system
mkdir -p "$SYS"

# --- the root filesystem tarball, keyed by the package list ---
packages=$(grep -v '^#' "$REPO/system/packages" | xargs | tr ' ' ,)
sources=$(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
mmargs=(--variant=minbase --include="$packages" bookworm)
key=$( { echo "${mmargs[*]}"; cat $sources; } | sha1sum | cut -c1-12)
rootfs=$SYS/rootfs-$key.tar
if [ ! -f "$rootfs" ]; then
	say "building the Debian 12 root with mmdebstrap ($packages; about a minute)"
	start=$SECONDS
	# The machine's own apt sources (no mirror argument of our own).
	srcargs=()
	for s in $sources; do srcargs+=("$s"); done
	# (mmdebstrap picks the output format from the name's extension)
	rm -rf "$SYS/partial.tar"
	mmdebstrap --quiet "${mmargs[@]}" "$SYS/partial.tar" "${srcargs[@]}" ||
		die "mmdebstrap failed"
	mv "$SYS/partial.tar" "$rootfs"
	find "$SYS" -maxdepth 1 -name 'rootfs-*.tar' ! -name "rootfs-$key.tar" -delete
	say "root filesystem in $((SECONDS - start)) s: $rootfs"
fi

# --- one kernel: build, image, boot, judge ---
run_kernel() {
	local k=$1 build out img stage inputs ikey start
	export KERNEL=system-$k
	build=$CACHE/build/$KERNEL
	out=$CACHE/out/$KERNEL
	"$REPO/scripts/tree.sh"
	"$REPO/scripts/kernel.sh"
	mkdir -p "$out/bin"

	# The guest programs, static, against this kernel's UAPI headers.
	local cflags
	cflags=$(guest_cflags "$out/headers/include")
	for c in "$REPO"/system/*.c; do
		local p=$out/bin/$(basename "$c" .c)
		if [ ! -e "$p" ] || [ "$c" -nt "$p" ] || [ "$REPO/guest/pidfd_sys.h" -nt "$p" ] ||
			[ "$out/headers/include/linux/pidfd.h" -nt "$p" ]; then
			echo "   CC $p" >&2
			gcc $cflags -o "$p" "$c" || die "cannot compile $c"
		fi
	done
	make -s -C "$REPO/tool" pfkill pfgrep >&2 || die "cannot build tool/pfkill"

	# The image: rebuilt when the root or anything added to it changed.
	img=$out/system.img
	inputs=$( { echo "$rootfs"; cat "$REPO"/system/plan.sh "$REPO"/system/*.service \
		"$REPO"/system/apparmor/* "$out"/bin/* "$REPO/tool/pfkill" \
		"$REPO/tool/pfkill.1" "$REPO/scripts/system.sh"; } | sha1sum | cut -d' ' -f1)
	if [ ! -f "$img" ] || [ "$(cat "$img.inputs" 2>/dev/null)" != "$inputs" ]; then
		say "making the ext4 root image for $k"
		start=$SECONDS
		stage=$SYS/stage-$k
		rm -rf "$stage" "$img"
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
	fi

	local console=$out/system.console results=$out/system.ktap limit=${PIDFD_TIMEOUT:-1500}
	say "booting Debian 12 on the $k kernel (systemd, limit $limit s)"
	start=$SECONDS
	qemu_boot "$limit" "$console" "$results" /dev/null \
		-kernel "$build/$KIMAGE_PATH" \
		-drive "file=$img,format=raw,if=virtio,snapshot=on" \
		-append "root=/dev/vda rw console=$GUEST_CONSOLE panic=-1 loglevel=5 ${SYSTEM_ARGS:-}"
	say "$k boot and plan: $((SECONDS - start)) s"
	"$REPO/scripts/ktap.sh" "$console" "$results" | tee "$out/system.verdict" || true
}

# --- the walkers (case 3): patched against stock ---
# Every "# walker: NAME status=N" and "# walker: NAME err: LINE" line of
# the patched run must be in the stock run and back.
lines_of() {
	awk -v n="$1 " 'index($0, n) == 1' "$SYS/walkers.$2" | sort
}

# The walker lines of both runs, one subtest per walker; 4 (skip)
# without both runs, 1 when a walker differs or there was none.
walkers_compare() {
	local p=$CACHE/out/system-patched/system.ktap s=$CACHE/out/system-stock/system.ktap
	local n=0 bad=0 name only_p only_s
	if [ ! -f "$p" ] || [ ! -f "$s" ]; then
		echo "    # needs both runs (make system)"
		return 4
	fi
	grep -h '^    # walker: ' "$p" | tr -d '\r' | sed 's/^    # walker: //' > "$SYS/walkers.patched"
	grep -h '^    # walker: ' "$s" | tr -d '\r' | sed 's/^    # walker: //' > "$SYS/walkers.stock"
	while IFS= read -r name; do
		only_p=$(lines_of "$name" patched | comm -23 - <(lines_of "$name" stock))
		only_s=$(lines_of "$name" stock | comm -23 - <(lines_of "$name" patched))
		if [ -z "$only_p$only_s" ]; then
			echo "    ok $((++n)) $name"
		else
			# The differences first: scripts/ktap.sh shows them with the failure.
			echo "$only_p" | sed '/^$/d; s/^/    # patched only: /'
			echo "$only_s" | sed '/^$/d; s/^/    # stock only: /'
			echo "    not ok $((++n)) $name"
			bad=1
		fi
	done < <(sed -n 's/ status=[0-9]*$//p' "$SYS/walkers.patched")
	[ "$n" -gt 0 ] || { echo "    # no walker lines"; return 1; }
	return $bad
}

compare() {
	local f=$CACHE/out/system-compare.ktap
	ktap_case system:walkers-vs-stock "" walkers_compare > "$f"
	: > "$SYS/compare.console"
	say "walkers: patched against stock"
	"$REPO/scripts/ktap.sh" "$SYS/compare.console" "$f" | tee "$CACHE/out/system-compare.verdict" || true
}

for k in $kernels; do
	case $k in patched|stock) ;; *) die "make system: KERNEL=patched or stock, not $k" ;; esac
	run_kernel "$k"
done
files=()
for k in $kernels; do files+=("$CACHE/out/system-$k/system.verdict"); done
if [ "$kernels" = "patched stock" ] || [ "$kernels" = "stock patched" ]; then
	compare
	files+=("$CACHE/out/system-compare.verdict")
fi
say "make system: kernels $kernels"
record_time "make system $kernels" $SECONDS
verdicts "${files[@]}"
