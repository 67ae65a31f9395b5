#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build pfkill's Debian package the Debian way, check it with lintian,
# then install it into a scratch root and run what it installed.
#
#   tool/debian-check.sh [--no-install-test]     (make -C tool deb | deb-test)
#
# The build runs "dpkg-buildpackage -b -us -uc" on a copy of tool/ in a
# temporary directory, so nothing it writes (debian/pfkill/, ../*.deb)
# lands in the git tree. The scratch root is filled with "dpkg -x": the
# host's dpkg database is never touched. Results go to $DEB_OUT (default
# ${PIDFD_CACHE:-~/.cache/pidfd-signal}/out/deb): the .deb files,
# .buildinfo, .changes, build.log, lintian.txt.
#
# Output: "ok N name" / "not ok N name # why" lines; exit 0 when all pass.
# Needs dpkg-dev, debhelper, lintian, procps (build and tests) and
# bash-completion (for the completion check).
set -uo pipefail

install_test=1
case ${1-} in
--no-install-test) install_test= ;;
"") ;;
*) echo "usage: $0 [--no-install-test]" >&2; exit 2 ;;
esac

src=$(cd "$(dirname "$0")" && pwd)
DEB_OUT=${DEB_OUT:-${PIDFD_CACHE:-$HOME/.cache/pidfd-signal}/out/deb}

missing=
for cmd in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian \
	pgrep:procps; do
	command -v "${cmd%%:*}" >/dev/null || missing+=" ${cmd#*:}"
done
[ -f /usr/share/bash-completion/bash_completion ] || missing+=" bash-completion"
if [ -n "$missing" ]; then
	echo "$0: missing packages:$missing (apt-get install$missing)" >&2
	exit 2
fi

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1 # $2"; }
finish() {
	echo "# deb: $((n - failed)) passed, $failed failed ($DEB_OUT)"
	[ "$failed" = 0 ]
	exit
}

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
upstream=${version%-*}
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
mkdir -p "$DEB_OUT"
work=$(mktemp -d "$DEB_OUT/work.XXXXXX")
trap 'kill $victim 2>/dev/null; rm -rf "$work"' EXIT
victim=

# --- build -----------------------------------------------------------
tree=$work/pfkill-$upstream
mkdir "$tree"
# The working tree as it is (a clean checkout or not); the package's
# clean target removes what a local "make" built in it.
tar -C "$src" -cf - . | tar -C "$tree" -xf -
# Not the flags of a calling make (-s would hide the compile lines).
if (cd "$tree" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	dpkg-buildpackage -b -us -uc) >"$DEB_OUT/build.log" 2>&1; then
	rm -f "$DEB_OUT"/pfkill_* "$DEB_OUT"/pfkill-dbgsym_*
	mv "$work"/pfkill_* "$work"/pfkill-dbgsym_* "$DEB_OUT"/ 2>/dev/null
	ok deb:build
else
	sed 's/^/# /' "$DEB_OUT/build.log" | tail -30
	notok deb:build "dpkg-buildpackage failed, see $DEB_OUT/build.log"
	finish
fi
deb=$DEB_OUT/pfkill_${version}_$arch.deb
changes=$DEB_OUT/pfkill_${version}_$arch.changes

# dpkg-buildflags must have reached the compile and the link: look at
# the binary (fortified calls, stack protector, PIE, relro, bindnow).
bin=$tree/debian/pfkill/usr/bin/pfkill
syms=$(readelf --dyn-syms -W "$bin" 2>&1)
hard=$(readelf -h -l -d -W "$bin" 2>&1)
weak=
grep -q '__[a-z]*_chk' <<<"$syms" || weak+=" fortify"
grep -q '__stack_chk_fail' <<<"$syms" || weak+=" stack-protector"
grep -q 'Type:.*DYN' <<<"$hard" || weak+=" pie"
grep -q 'GNU_RELRO' <<<"$hard" || weak+=" relro"
grep -q 'FLAGS.*NOW' <<<"$hard" || weak+=" bindnow"
if [ -z "$weak" ]; then
	ok deb:hardening
else
	notok deb:hardening "pfkill built without:$weak"
fi

# --- lintian ---------------------------------------------------------
# The .changes covers the .deb, the dbgsym .deb and the .buildinfo.
# Warnings fail too; a warning we accept is an override in
# debian/pfkill.lintian-overrides with its reason.
if lintian --fail-on error,warning --display-info "$changes" \
	>"$DEB_OUT/lintian.txt" 2>&1; then
	ok deb:lintian
else
	notok deb:lintian "lintian: $(grep -c '^[EW]:' "$DEB_OUT/lintian.txt") errors/warnings"
fi
sed 's/^/# lintian: /' "$DEB_OUT/lintian.txt"

[ -n "$install_test" ] || finish

# --- install into a scratch root and run -----------------------------
root=$work/root
dpkg -x "$deb" "$root"
bin=$root/usr/bin

want="usr/bin/pfkill usr/bin/pfgrep usr/bin/pfwait
	usr/share/man/man1/pfkill.1.gz usr/share/man/man1/pfgrep.1.gz
	usr/share/man/man1/pfwait.1.gz usr/share/bash-completion/completions/pfkill
	usr/share/bash-completion/completions/pfgrep
	usr/share/bash-completion/completions/pfwait
	usr/share/doc/pfkill/copyright usr/share/doc/pfkill/README.Debian"
lost=
for f in $want; do
	[ -e "$root/$f" ] || lost+=" $f"
done
for f in pfgrep pfwait; do
	[ "$(readlink "$bin/$f")" = pfkill ] || lost+=" usr/bin/$f->pfkill"
done
# procps's names stay procps's: the package must not shadow them.
for f in pgrep pkill pidwait; do
	[ -e "$bin/$f" ] && lost+=" (usr/bin/$f must not be shipped)"
done
if [ -z "$lost" ]; then ok deb:files; else notok deb:files "missing:$lost"; fi

first=$("$bin/pfkill" --version 2>&1 | head -n 1)
if [ "$first" = "pfkill $upstream" ]; then
	ok deb:version
else
	notok deb:version "pfkill --version says '$first', debian/changelog $upstream"
fi

# A process of our own with a name nobody else has, our child (-P $$).
name=pfkdeb$$
cp /bin/sleep "$work/$name"
"$work/$name" 300 &
victim=$!
# Its comm is set once it has exec'd.
for _ in $(seq 100); do
	[ "$(cat /proc/$victim/comm 2>/dev/null)" = "$name" ] && break
	sleep 0.05
done
out=$("$bin/pfgrep" -x -P $$ "$name")
if [ "$out" = "$victim" ]; then
	ok deb:pfgrep
else
	notok deb:pfgrep "pfgrep -x -P $$ $name printed '$out', want $victim"
fi
# An administrator's drop-in link named pgrep lists, and signals nobody.
ln -s "$bin/pfkill" "$work/pgrep"
out=$("$work/pgrep" -x -P $$ "$name")
if [ "$out" = "$victim" ] && kill -0 "$victim"; then
	ok deb:pgrep-link
else
	notok deb:pgrep-link "a pgrep link printed '$out', want $victim alive"
fi
# pfwait, started before the kill, returns once the victim has gone.
vpid=$victim
"$bin/pfwait" -e -x -P $$ "$name" >"$work/pfwait.out" &
waiter=$!
sleep 0.2
"$bin/pfkill" -x -P $$ "$name"
rc=$?
wait "$victim"
status=$?
victim=
wait "$waiter"
wrc=$?
# Where the kernel keeps exit statuses (PIDFD_GET_INFO), -e adds how it
# ended.
waited="waiting for $name (pid $vpid)"
ended="$name killed by SIGTERM (pid $vpid)"
out=$(cat "$work/pfwait.out")
if [ "$wrc" = 0 ] && { [ "$out" = "$waited" ] ||
	[ "$out" = "$waited"$'\n'"$ended" ]; }; then
	ok deb:pfwait
else
	notok deb:pfwait "pfwait exit $wrc, printed '$(cat "$work/pfwait.out")'"
fi
"$bin/pfgrep" -x -P $$ "$name" >/dev/null
again=$?
if [ "$rc" = 0 ] && [ "$status" = 143 ] && [ "$again" = 1 ]; then
	ok deb:pfkill
else
	notok deb:pfkill "pfkill exit $rc, victim status $status (want 143), pfgrep after it exit $again (want 1)"
fi

# The completion, loaded as bash-completion loads it: by command name.
comp=$(bin=$bin user=$(id -un) bash -c '
	. /usr/share/bash-completion/bash_completion
	. "$0"
	c() {
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
		_pfkill "$1" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
		printf "%s " "${COMPREPLY[@]}"; echo
	}
	complete -p pfkill pfgrep >/dev/null || exit 1
	c "$bin/pfkill" --sig | grep -qw -- --signal || echo "no --signal"
	c "$bin/pfkill" --signal KIL | grep -qw KILL || echo "no KILL"
	c "$bin/pfkill" -HU | grep -qw -- -HUP || echo "no -HUP"
	c "$bin/pfgrep" -u "${user:0:2}" | grep -qw "$user" || echo "no user"
' "$root/usr/share/bash-completion/completions/pfgrep" 2>&1)
if [ -z "$comp" ]; then
	ok deb:completion
else
	notok deb:completion "${comp//$'\n'/; }"
fi

finish
