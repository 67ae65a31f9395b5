#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build the kernel selected by KERNEL into $BUILD (O=), then
# install its UAPI headers into $OUT/headers for the guest programs.
# tinyconfig + kconfig/guest.config + kconfig/x86_64.config (ARCH=arm64:
# kconfig/arm64.config) (+ the base's BASE_DEBUG_KCONFIG for its debug
# kernel: debug.config, and debug-6.12.config after it for debug612;
# + kconfig/matrix/<c>.config for patched-<c>; + BASE_SYSTEM_KCONFIG for
# system-*: system.config, and system-6.12.config for the 6.12 ones;
# + kconfig/bench.config for make bench's bench-*: SLUB, as Debian);
# every requested option is checked against the final .config.
set -euo pipefail
. "$(dirname "$0")/common.sh"
arch_inputs
# --inputs: only that (make test's harness:cold-inputs).
if [ "${1:-}" = --inputs ]; then check_inputs; exit; fi
lock tree s
lock "build-$KERNEL$ARCH_SUFFIX" x

src=$(source_tree)
fragments=("$REPO/kconfig/guest.config")
fragments+=("$REPO/kconfig/$ARCH_KCONFIG")
case $KERNEL in
"$BASE_DEBUG")
	for f in $BASE_DEBUG_KCONFIG; do fragments+=("$REPO/kconfig/$f"); done ;;
"$BASE_PATCHED"-*)
	fragments+=("$REPO/kconfig/matrix/${KERNEL#"$BASE_PATCHED"-}.config")
	[ -f "${fragments[-1]}" ] || die "KERNEL=$KERNEL: no ${fragments[-1]}" ;;
system-*)
	for f in $BASE_SYSTEM_KCONFIG; do fragments+=("$REPO/kconfig/$f"); done ;;
bench-*)
	fragments+=("$REPO/kconfig/bench.config") ;;
esac
mkdir -p "$BUILD" "$OUT"
kmake() { make -s -C "$src" O="$BUILD" "${KMAKE_ARCH[@]}" CC="ccache $KCC" -j"$JOBS" "$@"; }

# Show progress without the full compile log: a count every 200 objects,
# and every line that is not a plain "  CC foo.o" (warnings, errors).
progress() {
	awk '/^  [A-Z]/ { if (++n % 200 == 0) { printf "   ... %d steps\n", n; fflush() }; next }
	     /^make(\[[0-9]+\])?: (Entering|Leaving)/ { next }
	     { print "   " $0 } END { printf "   %d steps\n", n }' >&2
}

stamp=$(cat "${fragments[@]}" | sha1sum | cut -d' ' -f1)

# A first build of a kernel of a BASE_SEED series (patched612) starts
# from a copy of the pristine kernel's (upstream's) finished build of the
# same fragments, with its source paths rewritten: kbuild then recompiles
# only what the series changed (a minute instead of a cold build; ccache
# cannot help across two trees, every command line names its tree).
# Extraction keeps the tarball's mtimes, so an unchanged file is older
# than its object. (system-patched612 likewise from system-upstream.)
ref=$CACHE/build/$BASE_PRISTINE$ARCH_SUFFIX
[ "$KERNEL" = "system-$BASE_PATCHED" ] && ref=$CACHE/build/system-$BASE_PRISTINE
seed=no
[ "$BASE_SEED" = yes ] && series_kernel "${KERNEL#system-}" && seed=yes
if [ $seed = yes ] && [ ! -f "$BUILD/.config" ] && [ -f "$ref/.built" ] &&
		[ "$(cat "$ref/.config-fragments" 2>/dev/null)" = "$stamp" ]; then
	lock "build-${ref##*/}" x
	say "seeding $BUILD from the $BASE_PRISTINE build ($ref)"
	seed_build "$ref" "$BUILD" "$src"
fi
# A build seeded before seed_build rewrote the relative paths still names
# the pristine tree in the dependency lists of the objects it has not
# recompiled since: repair it once (a header of the series would not
# rebuild them otherwise; the .built stamp goes, so kbuild looks again).
if [ $seed = yes ] && [ -f "$BUILD/.config" ] && [ -d "$ref" ]; then
	ref_rel=$(realpath -m --relative-to="$ref" "$CACHE/src/$BASE_PRISTINE")
	src_rel=$(realpath -m --relative-to="$BUILD" "$src")
	if [ "$ref_rel" != "$src_rel" ] &&
			grep -rlqF --include='.*.cmd' " $ref_rel/" "$BUILD" 2>/dev/null; then
		say "repairing the $BASE_PRISTINE paths left in $BUILD's dependency lists"
		find "$BUILD" -type f -name '.*.cmd' -print0 |
			xargs -0 grep -lFZ " $ref_rel/" |
			xargs -0 -r sed -i "s| $ref_rel/| $src_rel/|g"
		rm -f "$BUILD/.built"
	fi
fi

# Reconfigure only when a fragment changed: a stable .config keeps the
# rebuild incremental.
if [ ! -f "$BUILD/.config" ] || [ "$(cat "$BUILD/.config-fragments" 2>/dev/null)" != "$stamp" ]; then
	say "configuring $KERNEL $ARCH kernel: tinyconfig + ${fragments[*]##*/}"
	# Written again only when .config is whole: a configuration cut short
	# must not match the fragments of an earlier one.
	rm -f "$BUILD/.config-fragments"
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$BUILD" "$BUILD/.config" \
		"${fragments[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	echo "$stamp" > "$BUILD/.config-fragments"
fi

missing=0
while IFS= read -r line; do
	# An option this base's kernel does not have (BASE_KCONFIG_GONE).
	opt=${line#\# }; opt=${opt%%[= ]*}
	[[ " $BASE_KCONFIG_GONE " == *" $opt "* ]] && continue
	case $line in
	CONFIG_*=*)
		grep -qx -- "$line" "$BUILD/.config" && continue ;;
	'# CONFIG_'*' is not set')
		! grep -q "^$opt=" "$BUILD/.config" && continue ;;
	*) continue ;;
	esac
	echo "kconfig: requested '$line' is not in $BUILD/.config" >&2
	missing=1
done < <(awk '# the last fragment that names an option decides it
	/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { o = $2 }
	o != "" { if (!(o in v)) order[n++] = o; v[o] = $0; o = "" }
	END { for (i = 0; i < n; i++) print v[order[i]] }' "${fragments[@]}")
if [ $missing = 1 ]; then
	rm -f "$BUILD/.config-fragments"
	die "config fragment not satisfied (missing dependency?)"
fi

# Nothing to do when the last build finished and since it began no file of
# the source tree (nor .config) changed, nor the fragments, the compiler or
# the tree's commit: even a kbuild that finds nothing to do takes tens of
# seconds on a tinyconfig kernel. Edits made while it ran are newer than
# its start, so the next run builds them.
built=$BUILD/.built
fingerprint=$( { echo "$stamp"; "$KCC" --version | head -n 1
	git -C "$src" rev-parse HEAD 2>/dev/null || true; } | sha1sum | cut -d' ' -f1)
if [ -f "$built" ] && [ "$(cat "$built")" = "$fingerprint" ] &&
		[ -f "$BUILD/$KIMAGE_PATH" ] && [ -f "$OUT/headers/include/linux/pidfd.h" ] &&
		[ ! "$BUILD/.config" -nt "$built" ] &&
		[ -z "$(find "$src" -path "$src/.git" -prune -o -newer "$built" -print -quit)" ]; then
	say "$KERNEL $ARCH kernel: nothing changed since its last build ($BUILD/$KIMAGE_PATH)"
	exit 0
fi
rm -f "$built"
touch "$BUILD/.build-start"

say "building $KERNEL $ARCH $KIMAGE_TARGET in $BUILD"
start=$SECONDS
if ! make -C "$src" O="$BUILD" "${KMAKE_ARCH[@]}" CC="ccache $KCC" -j"$JOBS" \
		"$KIMAGE_TARGET" 2>&1 | progress; then
	die "kernel build failed ($KERNEL $ARCH)"
fi
[ -f "$BUILD/$KIMAGE_PATH" ] || die "no $KIMAGE_TARGET after build"
say "kernel ready in $((SECONDS - start)) s: $BUILD/$KIMAGE_PATH"
record_time "kernel $KERNEL$ARCH_SUFFIX" $((SECONDS - start))

kmake headers_install INSTALL_HDR_PATH="$OUT/headers" >/dev/null
echo "$fingerprint" > "$built"
touch -r "$BUILD/.build-start" "$built"
