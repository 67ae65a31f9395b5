#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reference's own selftests on our kernels (make test's
# selftests73:compare, issue 44):
#   scripts/selftests-compare.sh KERNEL...
# The plan runs upstream 7.3's pidfd and coredump selftests on every
# x86_64 kernel as selftests73:<dir>:<prog> (scripts/guest.sh), their
# lines recorded as comments. For each KERNEL and each such entry the
# reference ran (the newest base's pristine kernel, upstream73), every
# case's verdict (pass, fail, skip) and the program's exit status must be
# the reference's, but for the differences tests/selftests-compare.allow
# excuses ("KERNEL-GLOB|ENTRY|CASE-GLOB|reason": a known gap, its issue).
# A case is its number in the program's plan (its name, which older
# kselftest programs follow with the outcome, "... test: Passed", is
# shown, not compared).
# Prints KTAP, one case per kernel and entry; exit 1 on a difference.
# SELFTESTS_COMPARE_DIR (default $CACHE/out) holds KERNEL/test.ktap.
set -uo pipefail
. "$(dirname "$0")/common.sh"
export LC_ALL=C	# join and sort agree on the order

ref_base=${BASES##* }
reference=$(base_fact "$ref_base" BASE_PRISTINE)
prefix=selftests$(base_fact "$ref_base" BASE_STEP):
dir=${SELFTESTS_COMPARE_DIR:-$CACHE/out}
allow=${SELFTESTS_COMPARE_ALLOW:-$REPO/tests/selftests-compare.allow}

# records KERNEL: "ENTRY<tab>N<tab>VERDICT<tab>NAME" of each recorded
# case, and "ENTRY<tab>exit<tab>STATUS<tab>exit status".
records() {
	awk -v prefix="$prefix" '
	{ sub(/\r$/, "") }
	/^# running / { entry = (index($3, prefix) == 1) ? $3 : ""; next }
	/^(not )?ok [0-9]+ / { entry = ""; next }
	entry == "" { next }
	/^    # exit status [0-9]+$/ { printf "%s\texit\t%s\texit status\n", entry, $4; next }
	/^    # (not ok|ok) [0-9]+ / {
		s = substr($0, 7)
		v = (s ~ /^not ok/) ? "fail" : "pass"
		sub(/^(not ok|ok) /, "", s)
		n = s; sub(/ .*/, "", n)
		name = substr(s, length(n) + 2)
		if (name ~ /# [Ss][Kk][Ii][Pp]/) v = "skip"
		sub(/^# [Ss][Kk][Ii][Pp] /, "", name)	# ksft_test_result_skip()
		sub(/ # .*/, "", name)
		printf "%s\t%s\t%s\t%s\n", entry, n, v, name
	}' "$dir/$1/test.ktap" 2>/dev/null | sort -u
}

# of_entry ENTRY: "N<tab>VERDICT<tab>NAME" of ENTRY's records on stdin,
# sorted by N.
of_entry() {
	awk -F '\t' -v e="$1" '$1 == e { print $2 "\t" $3 "\t" $4 }' | sort -t $'\t' -k1,1
}

# excused KERNEL ENTRY CASE: a line of the allow file covers it.
excused() {
	local k e c reason
	while IFS='|' read -r k e c reason; do
		case $k in ''|'#'*) continue ;; esac
		[ -n "$reason" ] || die "${allow#"$REPO/"}: a line without its reason: $k|$e|$c"
		# shellcheck disable=SC2053	# globs, on purpose
		[[ $1 == $k && $2 == "$e" && $3 == $c ]] && return 0
	done < "$allow"
	return 1
}

ref_records=$(records "$reference")
[ -n "$ref_records" ] || die "no $prefix records of $reference in ${dir#"$REPO/"}/$reference/test.ktap"
entries=$(cut -f1 <<<"$ref_records" | sort -u)
kernels=()
for k; do [ "$k" = "$reference" ] || kernels+=("$k"); done

echo "TAP version 13"
echo "1..$(( ${#kernels[@]} * $(wc -l <<<"$entries") ))"
n=0 failed=0
for k in "${kernels[@]}"; do
	mine=$(records "$k")
	for e in $entries; do
		n=$((n + 1))
		bad=0 excuses=0
		while IFS=$'\t' read -r c ref_v my_v name; do
			if excused "$k" "$e" "$c $name"; then
				excuses=$((excuses + 1))
				continue
			fi
			echo "# $k $e: $c $name: $reference $ref_v, $k $my_v"
			bad=1
		done < <(join -t $'\t' -a1 -a2 -e '(none)' -o 0,1.2,2.2,1.3,2.3 \
			<(of_entry "$e" <<<"$ref_records") <(of_entry "$e" <<<"$mine") |
			awk -F '\t' '$2 != $3 { print $1 "\t" $2 "\t" $3 "\t" ($4 != "(none)" ? $4 : $5) }')
		note=
		[ $excuses = 0 ] || note=" # $excuses difference(s) excused by ${allow#"$REPO/"}"
		if [ $bad = 0 ]; then
			echo "ok $n $k:$e$note"
		else
			echo "not ok $n $k:$e"
			failed=$((failed + 1))
		fi
	done
done
[ $failed = 0 ]
