#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge a run: scripts/ktap.sh CONSOLE KTAP [KTAP...]
#
# Counts the test cases in the KTAP files: a program's own result lines
# (indented four spaces) when it printed any, else the program's line.
# A program that failed without a failing case counts as one failure, so
# a crash or timeout is never lost. Every KTAP file must end with the
# end marker (a guest that died early has none); the console must hold
# no panic, oops, BUG, WARNING or sanitizer report. Prints the failures,
# each with the program's log lines before it (its TH_LOG lines, at most
# KTAP_LOG_LINES, default 20) and FILE:LINE of its result line, then
# "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/common.sh"

console=$1; shift
log_lines=${KTAP_LOG_LINES:-20}
unfinished=
# A file that is not there (QEMU never started: ACCEL=typo) has no end
# marker either; awk would stop at it and print no verdict at all.
files=()
for f; do
	grep -q "^$END_MARKER" "$f" 2>/dev/null || unfinished="$unfinished $f"
	[ -r "$f" ] && files+=("$f")
done
[ ${#files[@]} = 0 ] && files=(/dev/null)	# not stdin
awk -v console="$console" -v unfinished="$unfinished" -v cap="$log_lines" \
	-v end="^$END_MARKER" -v warning="$KERNEL_WARNING_RE|still running after" '
# The output lines of the running program since its last result line,
# the last "cap" of them kept: what is printed under a failure.
function remember(line) {
	logn++
	logs[logn % cap] = line
}
function forget() { logn = 0 }
function explain(where,   i, first, text) {
	text = "  (" where ")"
	first = logn > cap ? logn - cap + 1 : 1
	if (first > 1) text = text "\n      ... " first - 1 " earlier lines"
	for (i = first; i <= logn; i++) text = text "\n      " logs[i % cap]
	forget()
	return text
}
function failed(name, reason) {
	fail++
	failures = failures "\n  FAIL " name reason explain(FILENAME ":" FNR)
}
# A file that ends inside a program (the guest died in it): the last
# lines of that program, kept for "did not finish" before the next file
# (smoke.ktap after test.ktap) is read.
function cut_short() {
	if (logn) last_lines = last_lines "\n      the last lines:" explain(last_file ":" last_fnr)
}
function finish_program(line, name,   failed_top) {
	failed_top = line ~ /^not ok /
	if (cases == 0) {
		if (failed_top) failed(name, line_reason(line))
		else if (line ~ /# SKIP/) { skip++; skips = skips "\n  SKIP " name }
		else pass++
	} else if (failed_top && case_fail == 0) {
		failed(name, line_reason(line))
	}
	cases = 0; case_fail = 0; forget()
}
function line_reason(line) { return (match(line, /#.*/) ? " " substr(line, RSTART) : "") }
# "ok 3 name # SKIP why" -> "name". The 6.1 harness prints no name for a
# skipped case ("ok 3 # SKIP why"): use the name its "#  RUN" line gave.
function program_name(line) {
	sub(/^(not )?ok [0-9]+ ?/, "", line); sub(/ *#.*/, "", line)
	return line == "" ? last_run : line
}
# The serial ports of the guest end each line with CR LF. With the CR, a
# failing name sends the cursor of a terminal back, "  (FILE:LINE)"
# overwrites the name, and "1..N" is no header line: drop it.
{ sub(/\r$/, "") }
FNR == 1 { cut_short() }
{ last_file = FILENAME; last_fnr = FNR }
$0 ~ end { next }
/^# running / { current = $3; forget() }
/^    #  RUN / { last_run = $3 }
/^    (not )?ok [0-9]+ / {
	cases++
	l = substr($0, 5)
	name = current ":" program_name(l)
	if (l ~ /^not ok/) { case_fail++; failed(name, "") }
	else if (toupper(l) ~ /# SKIP/) { skip++; skips = skips "\n  SKIP " name line_reason(l); forget() }
	else { pass++; forget() }
	next
}
/^(not )?ok [0-9]+ / { finish_program($0, program_name($0)); next }
# The header lines of a program say nothing about a failure.
/^    (K?TAP version |1\.\.[0-9]+$|# Starting )/ { next }
/^    / { remember(substr($0, 5)) }
END {
	cut_short()
	if (unfinished != "") {
		fail++; failures = failures "\n  FAIL run did not finish (no end marker):" unfinished last_lines
	}
	while ((getline line < console) > 0) {
		sub(/\r$/, "", line)
		if (line ~ warning) {
			fail++; failures = failures "\n  FAIL console: " line "  (" console ")"
		}
	}
	if (skips != "") printf "%d skipped:%s\n", skip, skips
	if (failures != "") printf "failures:%s\n", failures
	printf "%d passed, %d failed\n", pass, fail
	exit fail != 0
}' "${files[@]}"
