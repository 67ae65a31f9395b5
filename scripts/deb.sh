#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the patched kernel of BASE's series built with Debian's own
# config, as Debian binary packages (issue 47):
#   linux-image-<release>    the kernel and its modules (depmod'ed, signed)
#   linux-headers-<release>  to build modules against it
#   linux-libc-dev           the series' UAPI (pidfd.h, coredump.h ...)
# made by the kernel's own `make bindeb-pkg`: Debian's packaging
# (src:linux) needs the whole Debian source package and its build
# dependencies and builds every flavour of the architecture; bindeb-pkg
# builds the one flavour from the tree we already have, and its packages
# install with apt and run the same postinst hooks (initramfs-tools).
#   scripts/deb.sh            BASE=6.1 (default) or 6.12
#   scripts/deb.sh --smoke    make test's deb:smoke: the same, on the test
#                             kernel's config (tinyconfig + guest.config)
# DEB_FLAVOUR: cloud-amd64 (default), amd64 or rt-amd64, the config of
# linux-config-<version> it starts from (+ kconfig/deb.config, which says
# why); guest is --smoke's. The kernel release is <version>-pidfd-<flavour>; the package
# version Debian's source version + "+pidfd<date of the series' last
# commit in this repo>": 6.1.192-3+pidfd20261207.1640 sorts after the
# Debian kernel it was made from and after every earlier series.
#
# Built in $CACHE/build/deb-<flavour>[-6.12] from its own worktree of the
# series' tree ($CACHE/src/deb[-6.12], moved to the tree's head at each
# run: a cold build takes an hour or more, tree.sh must not change the
# files under it). --smoke builds in build/deb-guest[-6.12] from the tree
# itself, where ccache has every object of the test kernel.
# Packages in $CACHE/out/deb-<flavour>[-6.12]/; lintian runs on them
# (its findings that are bindeb-pkg's and not ours are argued in
# kconfig/deb.lintian); the checks below fail the run.
set -euo pipefail
. "$(dirname "$0")/common.sh"

smoke=0
[ "${1:-}" = --smoke ] && DEB_FLAVOUR=guest
flavour=${DEB_FLAVOUR:-cloud-amd64}
[ "$flavour" = guest ] && smoke=1
KERNEL=$BASE_PATCHED
"$REPO/scripts/deps.sh"
"$REPO/scripts/tree.sh"

name=deb-$flavour$BASE_SUFFIX
build=$CACHE/build/$name
out=$CACHE/out/$name
lock "build-$name" x
mkdir -p "$build" "$out"

# The source: the tree (smoke), or our worktree of it at the tree's head.
if [ $smoke = 1 ]; then
	lock tree s
	src=$TREE
else
	src=$CACHE/src/deb$BASE_SUFFIX
	(
		lock tree s
		head=$(git -C "$TREE" rev-parse HEAD)
		if [ ! -d "$src" ]; then
			git -C "$TREE" worktree prune
			git -C "$TREE" worktree add -q --detach "$src" "$head"
		fi
		git -C "$src" checkout -q --detach "$head"
	)
fi

# The config: Debian's (or the test kernel's fragments) + deb.config,
# written again only when one of them changed, so that a rebuild stays
# incremental.
kmake() { make -s -C "$src" O="$build" CC="ccache $KCC" LOCALVERSION= "$@"; }
if [ $smoke = 1 ]; then
	base_config=("$REPO/kconfig/guest.config" "$REPO/kconfig/$ARCH_KCONFIG")
else
	case $flavour in
	rt-amd64) base_config=(/usr/src/$BASE_CONFIG_PACKAGE/config.amd64_rt_amd64.xz) ;;
	*) base_config=(/usr/src/$BASE_CONFIG_PACKAGE/config.amd64_none_$flavour.xz) ;;
	esac
	[ -f "${base_config[0]}" ] || die "DEB_FLAVOUR=$flavour: no ${base_config[0]}"
fi
# (not localversion*: kbuild appends every such file of the build to the release)
release_fragment=$build/.deb-release.config
echo "CONFIG_LOCALVERSION=\"-pidfd-$flavour\"" > "$release_fragment.new"
stamp=$(cat "${base_config[@]}" "$REPO/kconfig/deb.config" "$release_fragment.new" | sha1sum | cut -c1-40)
if [ ! -f "$build/.config" ] || [ "$(cat "$build/.config-fragments" 2>/dev/null)" != "$stamp" ]; then
	say "configuring $name: ${base_config[*]##*/} + deb.config"
	rm -f "$build/.config-fragments"
	mv "$release_fragment.new" "$release_fragment"
	if [ $smoke = 1 ]; then
		kmake tinyconfig >/dev/null
		"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
			"${base_config[@]}" "$REPO/kconfig/deb.config" "$release_fragment" >/dev/null
	else
		xzcat "${base_config[0]}" > "$build/.config.debian"
		"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config.debian" \
			"$REPO/kconfig/deb.config" "$release_fragment" >/dev/null
		rm -f "$build/.config.debian"
	fi
	kmake olddefconfig >/dev/null
	echo "$stamp" > "$build/.config-fragments"
fi
rm -f "$release_fragment.new"
# (tinyconfig has no module signing: the key line is Debian's config's)
wanted=(CONFIG_DEBUG_INFO_NONE=y "CONFIG_LOCALVERSION=\"-pidfd-$flavour\"")
[ $smoke = 1 ] || wanted+=('CONFIG_SYSTEM_TRUSTED_KEYS=""')
for line in "${wanted[@]}"; do
	grep -qx -- "$line" "$build/.config" || die "$name: '$line' is not in its .config"
done

debian_version=$(dpkg-query -W -f '${Version}' "$BASE_PACKAGE")
series_date=$(TZ=UTC git -C "$REPO" log -1 --format=%cd --date=format-local:%Y%m%d.%H%M \
	-- "$BASE_PATCHES" 2>/dev/null || true)
[ -n "$series_date" ] || series_date=$(TZ=UTC date -r "$PATCHES" +%Y%m%d.%H%M)
version=$debian_version+pidfd$series_date

# build_packages: make bindeb-pkg, the packages moved to $out. The
# maintainer is this repository's author (lintian refuses root@host);
# dpkg-buildpackage writes the packages beside the build directory.
build_packages() {
	local start=$SECONDS
	rm -f "$out/.built"
	DEBFULLNAME=$(git -C "$REPO" log -1 --format=%an 2>/dev/null || echo pidfd-signal)
	DEBEMAIL=$(git -C "$REPO" log -1 --format=%ae 2>/dev/null || echo pidfd-signal@example.org)
	export DEBFULLNAME DEBEMAIL
	say "building $name: version $version (a cold Debian-config build: an hour or more)"
	touch "$out/.build-start"
	rm -f "$CACHE"/build/linux-*_"$version"_*.deb
	if ! make -C "$src" O="$build" CC="ccache $KCC" LOCALVERSION= -j"$JOBS" \
			KDEB_PKGVERSION="$version" KDEB_SOURCENAME=linux-pidfd \
			bindeb-pkg > "$out/build.log" 2>&1; then
		tail -n 30 "$out/build.log" >&2
		die "make bindeb-pkg failed ($out/build.log)"
	fi
	rm -f "$out"/*.deb
	mv "$CACHE"/build/linux-*_"$version"_*.deb "$out/"
	rm -f "$CACHE"/build/linux-pidfd_"$version"_*
	say "packages in $((SECONDS - start)) s: $out"
	record_time "deb $name" $((SECONDS - start))
}

# Built again only when the packages of this version were not made from
# this config and tree, or a file of the tree changed since (the
# worktree changes only by the checkout above; the smoke's tree may be
# edited); the checks below run either way.
fingerprint=$( { echo "$stamp $version"; git -C "$src" rev-parse HEAD; } | sha1sum | cut -c1-40)
if [ "$(cat "$out/.built" 2>/dev/null)" = "$fingerprint" ] &&
		ls "$out"/linux-image-*_"$version"_*.deb >/dev/null 2>&1 &&
		[ -z "$(find "$src" -path "$src/.git" -prune -o -newer "$out/.built" -print -quit)" ]; then
	say "$name: the packages of $version are up to date ($out)"
else
	build_packages
fi
# (asked after the build: before it, 6.12's kbuild has no auto.conf to
# read CONFIG_LOCALVERSION from)
release=$(kmake kernelrelease)
ls -s --block-size=M "$out"/*.deb | sed 's|/.*/||; s/^/  /' >&2

# What an admin relies on, checked in the packages themselves.
image=$(ls "$out"/linux-image-"$release"_*.deb)
libc=$(ls "$out"/linux-libc-dev_*.deb)
fail=0
check() {	# what command...
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		fail=1
	fi
}
contents=$out/contents
dpkg-deb -c "$image" | awk '{ print $NF }' > "$contents.image"
rm -rf "$out/libc-dev"
dpkg-deb -x "$libc" "$out/libc-dev"
check "linux-image has /boot/vmlinuz-$release" grep -qx "./boot/vmlinuz-$release" "$contents.image"
check "linux-image's version is $version" \
	test "$(dpkg-deb -f "$image" Version)" = "$version"
check "$version sorts after Debian's $debian_version" \
	dpkg --compare-versions "$version" gt "$debian_version"
if grep -q '^CONFIG_MODULES=y' "$build/.config"; then
	check "linux-image has modules.dep (depmod ran)" \
		grep -qx "./lib/modules/$release/modules.dep" "$contents.image"
	check "linux-headers-$release is built" test -f "$(ls "$out"/linux-headers-"$release"_*.deb)"
fi
check "linux-libc-dev's linux/pidfd.h has PIDFD_GET_INFO" \
	grep -q 'define PIDFD_GET_INFO' "$out/libc-dev/usr/include/linux/pidfd.h"
check "linux-libc-dev's linux/pidfd.h has PIDFD_SELF" \
	grep -q 'define PIDFD_SELF' "$out/libc-dev/usr/include/linux/pidfd.h"
check "linux-libc-dev has linux/coredump.h" test -f "$out/libc-dev/usr/include/linux/coredump.h"
check "the kernel reports $release" \
	grep -aq "$release" "$build/arch/x86/boot/bzImage"

# lintian: every finding of level error must be argued in deb.lintian.
say "lintian $out/*.deb"
lintian --tag-display-limit 0 --suppress-tags-from-file "$REPO/kconfig/deb.lintian" \
	"$out"/*.deb > "$out/lintian.txt" 2>&1 || true
if grep -q '^E: ' "$out/lintian.txt"; then
	grep '^E: ' "$out/lintian.txt"
	echo "FAIL: lintian errors (not argued in kconfig/deb.lintian)"
	fail=1
else
	echo "ok: lintian: no error ($(grep -c '^W: ' "$out/lintian.txt" || true) warnings, $out/lintian.txt)"
fi
if [ $fail = 0 ]; then
	echo "$fingerprint" > "$out/.built"
	touch -r "$out/.build-start" "$out/.built"
fi
exit $fail
