#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The smoke form of `make bench`, `make stress` and `make run`, part of
# `make test`, so that no target can break unseen. Seconds, not minutes.
#
#   scripts/smoke.sh plan   the guest half: lines for /plans/test
#                           (scripts/guest.sh adds them). Every bench/*.c
#                           with one short round per pair, three stress
#                           scenarios for a few seconds (the PID-reuse
#                           race; the fuzzers, trinity and stress-ng
#                           counted; the coredump socket's), the demo:
#                           smoke:bench:<prog>, smoke:stress:<prog>,
#                           smoke:run:demo.
#   scripts/smoke.sh        the host half, after the test boot: writes
#                           $OUT/smoke.ktap for scripts/ktap.sh with
#     smoke:host:bench-tools  bench/tools.c built and run on the host by
#                             scripts/bench.sh's own code (20 processes)
#     smoke:bench:report      bench.sh's table, CSV and SVG from the
#                             smoke rows of the guest and the host
#     smoke:stress:table      stress.sh's table from the smoke stress run
#
# The programs read the small sizes from the environment (PIDFD_BENCH_*,
# PIDFD_STRESS_*; see bench/bench.h and stress/stress.h) and, with
# PIDFD_SMOKE set, print one KTAP case per measured pair or table row. On
# the kernels of a series (patched, patched612, debug, patched-<c> ...:
# series_kernel) every feature is there, so an n/a pair or row fails
# (PIDFD_SMOKE=strict); on other kernels it is a SKIP.
set -uo pipefail
. "$(dirname "$0")/common.sh"

SMOKE_STRESS=(s1_recycle s4_fuzz s5_coredump)
bench_env="PIDFD_BENCH_ROUNDS=2 PIDFD_BENCH_ROUND_MS=10 PIDFD_BENCH_PGROUP_MAX=10 PIDFD_BENCH_TOOLS=20"
stress_env="PIDFD_STRESS_STORM_SECONDS=4 PIDFD_STRESS_ATTEMPTS=500 PIDFD_STRESS_FUZZ_SECONDS=10"
stress_env+=" PIDFD_STRESS_COREDUMP_SECONDS=6"
# trinity needs seconds to start under TCG: a small budget it may finish late.
stress_env+=" PIDFD_STRESS_TRINITY_SYSCALLS=5000 PIDFD_STRESS_TRINITY_GRACE=60"
stress_env+=" PIDFD_STRESS_STRESSNG_CLONE=0"
# The arm64 image has no trinity or stress-ng (scripts/deps.sh fetches
# procps only for it; make stress is x86_64's): their rows skip there.
[ "$ARCH_FUZZERS" = yes ] || stress_env+=" PIDFD_STRESS_NO_FUZZERS=1"
mode=lenient
series_kernel "$KERNEL" && mode=strict

bench_programs() {
	local c
	for c in "$REPO"/bench/*.c; do
		[ -e "$c" ] && basename "$c" .c
	done
}

if [ "${1:-}" = plan ]; then
	for t in $(bench_programs); do
		echo "smoke:bench:$t 120 /bin/env PIDFD_SMOKE=$mode $bench_env /bench/$t"
	done
	for t in "${SMOKE_STRESS[@]}"; do
		echo "smoke:stress:$t 120 /bin/env PIDFD_SMOKE=$mode $stress_env /stress/$t"
	done
	# 120 s: without ns_last_pid (KERNEL=patched-cr-n) the demo forks
	# until the PID comes round, 30-41 s under TCG on a busy host.
	echo "smoke:run:demo 120 /bin/demo"
	exit 0
fi

# One run at a time per kernel, like the boot whose results it reads.
lock "build-$KERNEL$ARCH_SUFFIX" x
dir=$OUT/smoke
ktap=$OUT/smoke.ktap
guest=$OUT/test.ktap
rm -rf "$dir" "$ktap"
mkdir -p "$dir"

# case N OK NAME [REASON]: one KTAP case line.
case_line() {
	if [ "$2" = 0 ]; then echo "ok $1 $3"; else echo "not ok $1 $3${4:+ # $4}"; fi
}

# bench/tools.c on the host, by bench.sh's own build and run code.
host_bench_tools() {
	local n status=0 t f ok
	env PIDFD_SMOKE=strict PIDFD_BENCH_ROUNDS=2 PIDFD_BENCH_ROUND_MS=10 \
		"$REPO/scripts/bench.sh" --host "$dir" 20 || status=1
	cat "$dir/host.txt" 2>/dev/null
	n=$(grep -cE '^(not )?ok ' "$dir/host.txt" 2>/dev/null)
	n=$((n + 1))
	case_line $n $status "bench.sh --host: built and ran" "see the errors above"
	if ! command -v strace >/dev/null; then
		echo "ok $((n + 1)) strace counts # SKIP strace not installed"
		return $status
	fi
	ok=0
	for t in pfgrep pgrep pfkill pkill; do
		f=$dir/strace/$t-20.txt
		awk '$NF == "total" { found = 1 } END { exit !found }' "$f" 2>/dev/null ||
			{ echo "# no strace total in $f"; ok=1; }
	done
	case_line $((n + 1)) $ok "strace counts"
	return $((status | ok))
}

# bench.sh's table, CSV and plot from the smoke rows.
bench_report() {
	local n=0 status=0 t ok rows raw=$dir/raw.csv
	for t in $(bench_programs); do
		n=$((n + 1))
		grep -q "^# running smoke:bench:$t " "$guest" 2>/dev/null && ok=0 || ok=1
		case_line $n $ok "in the test plan: smoke:bench:$t" "not run by the test boot"
		status=$((status | ok))
	done
	awk -v k="$KERNEL" '/^# running / { prog = $3 }
		prog ~ /^smoke:bench:/ && sub(/^    # bench: /, "") { print k "," $0 }' \
		"$guest" > "$raw" 2>/dev/null
	sed -n 's/^# bench: /host,/p' "$dir/host.txt" >> "$raw" 2>/dev/null
	# The table leaves out the stock rows of the features stock lacks.
	rows=$(awk -F, '!($1 == "stock" && $2 !~ /^(probe|deliver|spawn)$/)' "$raw" | wc -l)
	echo "# $rows raw rows for the table ($(grep -vc '^host,' "$raw") from the guest)"
	"$REPO/scripts/bench.sh" --report "$raw" "$dir" "$dir/strace" 20 > "$dir/table.txt" &&
		ok=0 || ok=1
	sed 's/^/# /' "$dir/table.txt"
	n=$((n + 1)); case_line $n $ok "report runs" "bench.sh --report failed"
	status=$((status | ok))
	# A row for each raw row (stock rows aside), the CSV, a whole SVG.
	ok=0
	[ "$rows" -gt 0 ] && [ "$(($(wc -l < "$dir/table.txt") - 1))" -ge "$rows" ] || ok=1
	n=$((n + 1)); case_line $n $ok "table has every row" "$(($(wc -l < "$dir/table.txt") - 1)) table rows for $rows raw rows"
	status=$((status | ok))
	ok=0
	[ "$(($(wc -l < "$dir/bench.csv") - 1))" -ge "$rows" ] || ok=1
	n=$((n + 1)); case_line $n $ok "csv has every row"
	status=$((status | ok))
	tail -n 1 "$dir/bench.svg" 2>/dev/null | grep -qx '</svg>' && ok=0 || ok=1
	n=$((n + 1)); case_line $n $ok "svg complete"
	return $((status | ok))
}

# stress.sh's table from the smoke stress run in the test boot.
stress_table() {
	local n=0 status=0 t ok
	for t in "${SMOKE_STRESS[@]}"; do
		n=$((n + 1))
		grep -q "^# running smoke:stress:$t " "$guest" 2>/dev/null && ok=0 || ok=1
		case_line $n $ok "in the test plan: smoke:stress:$t" "not run by the test boot"
		status=$((status | ok))
	done
	"$REPO/scripts/stress.sh" --table "$guest" "$OUT/test.console" > "$dir/stress-table.txt" &&
		ok=0 || ok=1
	sed 's/^/# /' "$dir/stress-table.txt"
	n=$((n + 1)); case_line $n $ok "table" "rows marked FAIL"
	return $((status | ok))
}

entry=0
run_entry() {
	local name=$1 fn=$2 status
	entry=$((entry + 1))
	echo "# running $name"
	"$fn" > "$dir/$name.out" 2>&1
	status=$?
	sed 's/^/    /' "$dir/$name.out"
	if [ $status = 0 ]; then echo "ok $entry $name"; else echo "not ok $entry $name # exit status $status"; fi
}

# The host entries ONLY selects (all by default); none: no smoke.ktap.
entries=()
for e in smoke:host:bench-tools:host_bench_tools smoke:bench:report:bench_report \
		smoke:stress:table:stress_table; do
	only_match "${e%:*}" && entries+=("$e")
done
[ ${#entries[@]} = 0 ] && exit 0
{
	echo "KTAP version 1"
	echo "1..${#entries[@]}"
	for e in "${entries[@]}"; do
		run_entry "${e%:*}" "${e##*:}"
	done
	echo "$END_MARKER"
} > "$ktap"
say "smoke of bench, stress, run: $(grep -c '^ok ' "$ktap") of ${#entries[@]} host entries ok"
exit 0
