#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An interrupted build step must leave no output that looks up to date
# (make test's harness:interrupt; STYLE.md: .DELETE_ON_ERROR, write then
# rename). Runs compile of scripts/common.sh, the code guest.sh builds
# every guest program with, in a scratch directory with a fake compiler
# (GUEST_CC) that writes its output in steps, as the linker does: an
# empty file, then half of it, then all of it, made executable. The
# compile is killed at each step (at "whole" the compiler is done and the
# caller has not taken its output yet) with SIGINT (Ctrl-C: the whole process
# group) and with SIGTERM; then compile runs again, undisturbed, and the
# program must be there, executable and whole. Also: a compiler that
# fails halfway, and an output that is up to date is not rebuilt.
# Prints KTAP, one case each; seconds, no kernel, no cache.
set -uo pipefail
. "$(dirname "$0")/common.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pidfd-interrupt.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
src=$scratch/src/prog.c
out=$scratch/out/prog
mkdir -p "$scratch/src"
echo 'int main(void) { return 0; }' > "$src"

# The fake compiler: -o OUT SOURCE. It leaves a mark when it reaches a
# step; STOP_AT=step makes it wait there to be killed, FAIL_AT=step
# makes it fail there (a compiler that does not clean up after itself).
cat > "$scratch/fake-cc" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in
	-o) o=$2; shift 2 ;;
	*) s=$1; shift ;;
	esac
done
step() {
	touch "$MARKS/$1"
	[ "${FAIL_AT:-}" = "$1" ] && exit 1
	[ "${STOP_AT:-}" = "$1" ] && sleep 60
	return 0
}
step start
: > "$o"
step empty
printf '#!/bin/sh\n' > "$o"
step half
printf 'echo built from %s\n' "$s" >> "$o"
chmod +x "$o"
step whole
EOF
chmod +x "$scratch/fake-cc"
export MARKS=$scratch/marks

# build [VAR=value...]: compile, as guest.sh calls it, in a shell of its
# own; the environment says where the fake compiler stops or fails.
build() {
	env "$@" bash -c '. "$1/scripts/common.sh"
		GUEST_CC=$2/fake-cc CFLAGS_GUEST=
		compile "$3" "$4"' build "$REPO" "$scratch" "$out" "$src" 2>/dev/null
}

n=0 failed=0
# result NAME: the case passes when the output is whole and executable.
result() {
	local got
	n=$((n + 1))
	got=$("$out" 2>&1)
	if [ -x "$out" ] && [ "$got" = "built from $src" ]; then
		echo "ok $n $1"
	else
		echo "# after the interruption, the next run left $(ls -l "$out" 2>&1)"
		echo "# running it: ${got:-nothing}"
		echo "not ok $n $1"
		failed=$((failed + 1))
	fi
}
fresh() { rm -rf "$scratch/out" "$MARKS"; mkdir -p "$scratch/out" "$MARKS"; }

echo "TAP version 13"
echo "1..10"
for sig in INT TERM; do
	for at in start empty half whole; do
		fresh
		# Job control for this one: a process group of its own that does
		# not ignore SIGINT, as a command started from a terminal; only
		# for this one, so no other takes the terminal from make.
		set -m
		build STOP_AT=$at < /dev/null &
		pid=$!
		set +m
		for _ in $(seq 100); do [ -e "$MARKS/$at" ] && break; sleep 0.05; done
		kill -s "$sig" -- -"$pid"
		wait "$pid" 2>/dev/null	# (not the shell's "Interrupt" line)
		build
		result "SIG$sig while the compiler is at $at: the next run builds it whole"
	done
done
fresh
build FAIL_AT=half
build
result "a compiler that fails halfway: the next run builds it whole"

# The case above left a whole, newer output: no compiler run this time.
n=$((n + 1))
rm -rf "$MARKS"; mkdir -p "$MARKS"
build
if [ -e "$MARKS/start" ]; then
	echo "# the compiler ran again for an output newer than its source"
	echo "not ok $n an output that is up to date is not rebuilt"
	failed=$((failed + 1))
else
	echo "ok $n an output that is up to date is not rebuilt"
fi
exit $((failed != 0))
