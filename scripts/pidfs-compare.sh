#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A program that uses only upstream's API must not tell our kernels from
# upstream's pidfs (issue 32; make test's pidfs:compare):
#   scripts/pidfs-compare.sh KERNEL...
# tests/pidfs_test.c prints what it reads of pidfds as
# "# pidfs-observe: KEY VALUE" lines, values that are the same on every
# kernel with upstream's ABI. This compares each KERNEL's records with
# the reference kernel's (upstream, linux-source-6.12), per plan entry
# (conformance:pidfs_test and its 32-bit copy), from the runs'
# $PIDFS_COMPARE_DIR/KERNEL/test.ktap (default $CACHE/out). Prints KTAP:
# one case KERNEL:ENTRY each, a differing key as a comment before it
# ("# KEY: upstream 'V', KERNEL 'W'"), a key only one side printed as
# "(none)". A run without the entry skips its case; a reference without
# records fails. tests/pidfs-compare.allow (PIDFS_COMPARE_ALLOW) excuses
# a difference with its reason, one "KERNEL-GLOB KEY REASON..." a line.
# Exit 1 when a case failed.
set -uo pipefail
export LC_ALL=C	# one collation for sort and join
. "$(dirname "$0")/common.sh"

reference=${PIDFS_REFERENCE:-upstream}
dir=${PIDFS_COMPARE_DIR:-$CACHE/out}
allow=${PIDFS_COMPARE_ALLOW:-$REPO/tests/pidfs-compare.allow}
entries=(conformance:pidfs_test conformance32:pidfs_test)

ktap_of() { echo "$dir/$1$ARCH_SUFFIX/test.ktap"; }

# records KTAP ENTRY: the entry's "KEY VALUE" lines, sorted; status 1
# when the file has no such entry.
records() {
	[ -r "$1" ] || return 1
	tr -d '\r' < "$1" | awk -v entry="$2" '
		$0 == "# running " entry || index($0, "# running " entry " ") == 1 {
			inside = 1; seen = 1; next
		}
		inside && /^(not )?ok [0-9]+ / { inside = 0 }
		inside && sub(/^    # pidfs-observe: /, "") { print }
		END { exit !seen }' | sort
}

# allowed KERNEL KEY: the reason the allow file gives, if any.
allowed() {
	[ -r "$allow" ] || return 1
	local glob key reason
	while read -r glob key reason; do
		case $glob in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2053	# a glob, on purpose
		[[ $1 == $glob && $2 == "$key" ]] && { echo "$reason"; return 0; }
	done < "$allow"
	return 1
}

# compare KERNEL ENTRY REF-RECORDS: the differing keys as comments;
# status 1 when one is not excused.
compare() {
	local kernel=$1 entry=$2 ref=$3 mine key ref_value my_value why bad=0
	mine=$(records "$(ktap_of "$kernel")" "$entry")
	while IFS=$'\t' read -r key ref_value my_value; do
		if why=$(allowed "$kernel" "$key"); then
			echo "# allowed: $key: $reference '$ref_value', $kernel '$my_value' ($why)"
		else
			echo "# $key: $reference '$ref_value', $kernel '$my_value'"
			bad=1
		fi
	done < <(join -t $'\t' -a 1 -a 2 -e '(none)' -o 0,1.2,2.2 \
			<(by_key <<<"$ref") <(by_key <<<"$mine") |
		awk -F '\t' '$2 != $3')
	return $bad
}

# by_key: "KEY VALUE" lines as "KEY<TAB>VALUE", the values of a key
# printed twice joined with " | ", sorted by key for join(1).
by_key() {
	awk '$0 != "" {
		key = $1; value = substr($0, length($1) + 2)
		if (key in values) value = values[key] " | " value
		values[key] = value
	}
	END { for (key in values) print key "\t" values[key] }' |
		LC_ALL=C sort -t $'\t' -k 1,1
}

cases=()
for k; do
	[ "$k" = "$reference" ] && continue
	for e in "${entries[@]}"; do cases+=("$k $e"); done
done
echo "TAP version 13"
echo "1..${#cases[@]}"
n=0 failed=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	k=${c%% *} e=${c#* }
	if ! ref=$(records "$(ktap_of "$reference")" "$e"); then
		echo "ok $n $k:$e # SKIP $reference did not run $e"
		continue
	fi
	if ! records "$(ktap_of "$k")" "$e" > /dev/null; then
		echo "ok $n $k:$e # SKIP $k did not run $e"
		continue
	fi
	if [ -z "$ref" ]; then
		echo "# $reference printed no pidfs-observe record in $e"
		echo "not ok $n $k:$e"
		failed=$((failed + 1))
		continue
	fi
	# The differences first: scripts/ktap.sh shows them with the failure.
	if compare "$k" "$e" "$ref"; then
		echo "ok $n $k:$e"
	else
		echo "not ok $n $k:$e"
		failed=$((failed + 1))
	fi
done
exit $((failed != 0))
