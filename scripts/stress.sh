#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: build the base's debug kernel (scripts/base/: debug, the
# series with kconfig/debug.config; BASE=6.12: debug612, the 6.12 series
# with it and kconfig/debug-6.12.config), boot it with
# the stress plan (stress/*.c) and print one table: scenario, attempts,
# failures (wrong deliveries or broken invariants), splats (console
# reports while that program ran), leaks. Fails on any failure, splat,
# leak or missing program result (scripts/ktap.sh judges the run).
#
# Durations and sizes are guest parameters, passed on the kernel command
# line; override any of them with STRESS_ARGS, e.g.
#   STRESS_ARGS="pidfd.stress_attempts=1000000 pidfd.stress_fuzz_seconds=600" make stress
# STRESS_PANIC=1 also boots with panic_on_warn=1 (stop at the first splat).
set -euo pipefail
. "$(dirname "$0")/common.sh"

# table KTAP CONSOLE: the table. Rows come from the programs ("# ROW ..."
# in the KTAP file, from the stress:* and smoke:stress:* programs);
# splats are counted in the console between "# running" markers. Fails
# when a row that must be zero is not, a row attempted nothing, or a
# program printed no row. `make test` runs it on its smoke run
# (scripts/smoke.sh).
table() {
	local ktap=$1 console=$2 splats status=0
	splats=$(mktemp)
	awk -v warning="$KERNEL_WARNING_RE" 'match($0, /# running [^ ]+/) {
		prog = substr($0, RSTART + 10, RLENGTH - 10); sub(/^(smoke:)?stress:/, "", prog); next
	     }
	     $0 ~ warning {
		n[prog == "" ? "boot" : prog]++
	     }
	     END { for (p in n) print p, n[p] }' "$console" > "$splats"
	awk -v splatfile="$splats" '
	BEGIN {
		while ((getline l < splatfile) > 0) { split(l, a, " "); splat[a[1]] = a[2] }
		fmt = "%-44s %10s %9s %7s  %-22s %s\n"
		printf fmt, "scenario", "attempts", "failures", "splats", "leaks", "note"
	}
	/^# running / {
		prog = $3
		if (sub(/^(smoke:)?stress:/, "", prog)) seen[prog] = 1
		else prog = ""
		next
	}
	/^    # ROW / && prog != "" {
		line = substr($0, 11)
		split(line, f, "|")
		s = (prog in splat) ? splat[prog] : 0
		shown[prog] = 1
		race = f[1] ~ /kill\(2\)$/	# the PID-reuse race: expected
		note = f[5]
		if (f[2] != "n/a" && f[2] + 0 == 0) { bad++; note = note "  <- FAIL: nothing attempted" }
		else if (f[3] != "n/a" && f[3] + 0 != 0 && !race) { bad++; note = note "  <- FAIL" }
		if (s + 0 != 0) bad++
		printf fmt, f[1], f[2], f[3], s, f[4], note
		if (race) killrow = f[3]
	}
	END {
		for (p in seen) if (!(p in shown)) {
			bad++
			printf fmt, p, "-", "-", ((p in splat) ? splat[p] : 0), "-", "no result rows: crashed or timed out  <- FAIL"
		}
		if ("boot" in splat) printf fmt, "boot", "-", "-", splat["boot"], "-", "before the first program"
		if (killrow == "" || killrow == 0) print "note: kill(2) showed no wrong delivery this run (the race is probabilistic)"
		exit bad != 0
	}' "$ktap" || status=1
	rm -f "$splats"
	return $status
}

# scripts/smoke.sh (`make test`) runs the table on its own run.
if [ "${1:-}" = --table ]; then
	table "$2" "$3"
	exit
fi


[ "$KERNEL" = "$BASE_DEBUG" ] ||
	say "warning: stress on KERNEL=$KERNEL (make stress uses the base's debug kernel, $BASE_DEBUG)"
start=$SECONDS

# trinity and stress-ng (scripts/deps.sh installs them) go into the image:
# stress/host-programs.
"$REPO/scripts/tree.sh"
"$REPO/scripts/kernel.sh"
"$REPO/scripts/guest.sh"
built=$((SECONDS - start))

# slab_nomerge: a "pid" cache of its own in /sys/kernel/slab;
# kasan_multi_shot: report every KASAN error, not just the first.
args=(slab_nomerge kasan_multi_shot)
[ "${STRESS_PANIC:-0}" = 1 ] && args+=(panic_on_warn=1)
read -r -a user_args <<<"${STRESS_ARGS:-}"
GUEST_MEM=${GUEST_MEM:-2048} PIDFD_TIMEOUT=${PIDFD_TIMEOUT:-1700} \
	"$REPO/scripts/qemu.sh" stress "${args[@]}" "${user_args[@]}"

echo
table_status=0
table "$OUT/stress.ktap" "$OUT/stress.console" || table_status=1
echo
say "make stress: $((SECONDS - start)) s in all (build $built s, guest $((SECONDS - start - built)) s)"
"$REPO/scripts/ktap.sh" "$OUT/stress.console" "$OUT/stress.ktap" || exit 1
[ $table_status = 0 ] || { echo "stress table: rows marked FAIL above" >&2; exit 1; }
