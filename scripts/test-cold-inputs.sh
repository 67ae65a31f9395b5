#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A cold cache cannot break unseen (make test's harness:cold-inputs,
# issue 49): for every architecture (scripts/arch/*.sh), kernel.sh and
# guest.sh each run with --inputs on an empty cache of its own, as on a
# fresh machine: each must fetch what it reads from the cache itself
# (arch_inputs in common.sh: scripts/deps.sh) and find every file of
# ARCH_INPUTS and every base's source tarball there (check_inputs).
# Whatever reached them before (make deps, an earlier ARCH=i386 run) does
# not count. An architecture whose host packages are not installed (make
# test ARCH=arm64 never ran here) is a SKIP: make test installs no cross
# compiler of its own accord.
# Prints KTAP, one case per architecture and script; a failure shows the
# script's last lines as comments.
set -uo pipefail
. "$(dirname "$0")/common.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pidfd-cold.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

arches=$(cd "$REPO/scripts/arch" && ls -- *.sh | sed 's/\.sh$//' | xargs)
scripts="kernel.sh guest.sh"

# missing_packages ARCH: the host packages ARCH's table asks for that
# are not installed.
missing_packages() {
	not_installed $(ARCH=$1 bash -c '. "$0" && echo "${ARCH_PACKAGES[*]}"' "$REPO/scripts/common.sh")
}

echo "TAP version 13"
echo "1..$(( $(wc -w <<<"$arches") * $(wc -w <<<"$scripts") ))"
n=0 failed=0
for a in $arches; do
	missing=$(missing_packages "$a")
	for s in $scripts; do
		n=$((n + 1))
		if [ -n "$missing" ]; then
			echo "ok $n $a:$s # SKIP not installed: $missing"
			continue
		fi
		# (PIDFD_DEPS_<ARCH> names the cache it was fetched into: a
		# scratch cache is never it.)
		cache=$scratch/$a-${s%.sh}
		if out=$(ARCH="$a" PIDFD_CACHE="$cache" KERNEL= \
				"$REPO/scripts/$s" --inputs 2>&1); then
			echo "ok $n $a:$s"
		else
			tail -n 8 <<<"$out" | sed 's/^/# /'
			echo "not ok $n $a:$s # scripts/$s --inputs on an empty cache"
			failed=$((failed + 1))
		fi
		rm -rf "$cache"
	done
done
[ $failed = 0 ]
