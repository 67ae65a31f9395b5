#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The one gate (make test): the tool's host tests, then the guest plan on
# the selected kernel, judged together by scripts/ktap.sh.
set -uo pipefail
. "$(dirname "$0")/common.sh"

host=$OUT/host.ktap
mkdir -p "$OUT"
rm -f "$host"
[ -f "$REPO/tool/Makefile" ] && {
	echo "KTAP version 1"
	echo "1..1"
	echo "# running tool:host"
	make -s -C "$REPO/tool" test 2>&1 | sed 's/^/    /'
	if [ "${PIPESTATUS[0]}" = 0 ]; then
		echo "ok 1 tool:host"
	else
		echo "not ok 1 tool:host # make -C tool test failed"
	fi
	echo "PIDFD-SIGNAL-END"
} > "$host"
[ -f "$host" ] && say "host tests of the tool: $(grep -c '^    ok ' "$host") ok," \
	"$(grep -c '^    not ok ' "$host") not ok"

"$REPO/scripts/qemu.sh" test
"$REPO/scripts/smoke.sh"	# bench, stress in small: smoke.ktap
say "results of the $KERNEL kernel"
results=("$OUT/test.ktap" "$OUT/smoke.ktap")
[ -f "$host" ] && results=("$host" "${results[@]}")
"$REPO/scripts/ktap.sh" "$OUT/test.console" "${results[@]}"
