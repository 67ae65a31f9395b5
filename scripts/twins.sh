#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series must not drift apart (make test's series:twins):
#   scripts/twins.sh
# For every base's tree (scripts/base/*.sh; made up to date by tree.sh)
# at the tip of its series (HEAD, which tree.sh checks):
#  1. each file of selftests/pidfd/, the selftest files every series
#     carries, is the same text in the tree's
#     tools/testing/selftests/pidfd/ (make patches writes them there);
#  2. in every other file under tools/testing/selftests/pidfd/ and
#     include/uapi/ that a series changes, each line the series adds
#     (blanks collapsed) is in every other tree's copy too, but for the
#     lines selftests/twins.allow excuses, each entry with its reason.
# Prints its cases as KTAP (one per file), each difference as
# "FILE:LINE: ..." with the tree's path; exit 1 on any difference.
set -uo pipefail
. "$(dirname "$0")/common.sh"

shared=$REPO/selftests/pidfd
allow=$REPO/selftests/twins.allow
selftests=tools/testing/selftests/pidfd

for b in $SERIES_BASES; do
	KERNEL=$(base_fact "$b" BASE_PATCHED) "$REPO/scripts/tree.sh" >&2 ||
		die "the $b tree is not up to date"
done

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

tree_of() { echo "$CACHE/src/$(base_fact "$1" BASE_TREE)"; }
show() { git -C "$(tree_of "$1")" show "HEAD:$2" 2>/dev/null; }

# The cases' lines, printed after the plan once they are all known.
n=0
failed=0
lines=()
result() {	# ok|not-ok name
	n=$((n + 1))
	if [ "$1" = ok ]; then
		lines+=("ok $n $2")
	else
		lines+=("not ok $n $2")
		failed=1
	fi
}
note() { while IFS= read -r line; do lines+=("$line"); done; }

# 1. The shared files: one text, in every tree.
for f in "$shared"/*; do
	name=${f#"$REPO/"}
	path=$selftests/$(basename "$f")
	status=ok
	for b in $SERIES_BASES; do
		if ! show "$b" "$path" | cmp -s - "$f"; then
			{ show "$b" "$path" | diff --unchanged-line-format= \
				--old-line-format="# $name:%dn: %L" \
				--new-line-format="# $(tree_of "$b")/$path:%dn: %L" \
				"$f" - | head -n 6
			  echo "# the $b series differs from $name:" \
				"make patches writes it into every series"; } > "$tmp"
			note < "$tmp"
			status=not-ok
		fi
	done
	result $status "$name"
done

# 2. What the series change elsewhere: every line a series adds is in
# every other tree too (a base may have it already: 6.12 has the scope
# flags the 6.1 series adds).
changed=$(for b in $SERIES_BASES; do
	git -C "$(tree_of "$b")" diff --name-only base..HEAD -- \
		"$selftests" include/uapi
done | sort -u)
for path in $changed; do
	[ "${path%/*}" = "$selftests" ] && [ -e "$shared/${path##*/}" ] && continue
	status=ok
	for b in $SERIES_BASES; do
		for o in $SERIES_BASES; do
			[ "$o" = "$b" ] && continue
			# First the other tree's file, then this series' diff.
			awk -v path="$path" -v allow="$allow" -v o="$o" \
				-v here="$(tree_of "$b")/$path" '
			function norm(s) {
				gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
				return s
			}
			function excused(s,   i) {
				for (i = 1; i <= nex; i++) if (s ~ excuse[i]) return 1
				return 0
			}
			BEGIN {
				while ((getline line < allow) > 0)
					if (line !~ /^#/ && split(line, f, "|") >= 3 && f[1] == path)
						excuse[++nex] = f[2]
			}
			FNR == 1 { file++ }
			file == 1 { there[norm($0)] = 1; next }
			/^@@/ { split($3, h, ","); line = substr(h[1], 2) + 0; next }
			/^\+\+\+/ { next }
			/^\+/ {
				s = norm(substr($0, 2))
				if (s != "" && !(s in there) && !excused(s)) {
					printf "# %s:%d: not in the %s series: %s\n", here, line, o, s
					bad = 1
				}
				line++
			}
			END { exit bad }' <(show "$o" "$path") \
				<(git -C "$(tree_of "$b")" diff -U0 base..HEAD -- "$path") \
				> "$tmp" || status=not-ok
			note < "$tmp"
		done
	done
	result $status "$path"
done

echo "1..$n"
printf '%s\n' "${lines[@]}"
exit $failed
