#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make matrix: build the series in the configurations of kconfig/matrix/
# after each of its patches, at W=1 and under sparse (C=1), and compare
# with the pristine tree (tag base) built the same way: a warning, gcc's
# or sparse's, that base does not have in those objects is new. Prints a
# table config x patch and exits non-zero on any new warning or failure;
# the first patch that fails a config is the bisect within the matrix.
#
#   scripts/matrix.sh [--smoke | --report] [config...]
#
# (--report: only print the table of the last runs of those configs;
# --ends: base and the last patch only, the patches between only to
# bisect a difference found at the last.)
# Small configs: tinyconfig + kconfig/{guest,x86_64}.config + kconfig/matrix/<c>.config,
# Debian's config: the file named on its "#base" line + the fragment. Per
# config `make prepare` once, then per patch only the objects the series
# touches (its .c files, and some objects that include the headers it
# changes), then vmlinux at the last patch for the small configs. --smoke
# (make test): the guest config, base and the last patch, the series' .c
# files only, no vmlinux. MATRIX_VMLINUX=0: no vmlinux. MATRIX_BRANCH=b:
# the commits base..b of the tree instead of base..series.
# Each config builds in $PIDFD_CACHE/build/matrix-<config> from the
# worktree src/matrix; results in out/matrix/ (--smoke: matrix-smoke-*).
# BASE=6.12: the 6.12 series in its own worktree, build dirs and results
# (matrix-6.12*), with Debian's 6.12 config (debian-6.12) instead of its
# 6.1 one (debian).
set -uo pipefail
export LC_ALL=C
# The matrix is x86_64's (its configs are: compat-n, Debian's amd64), also
# when make test ARCH=arm64 runs its smoke form; make passes ARCH=arm64 on
# in MAKEFLAGS too, so kmake names the host's ARCH (x86) as well.
unset ARCH CROSS_COMPILE
. "$(dirname "$0")/common.sh"
smoke=0
report=0
[ "${1:-}" = --smoke ] && { smoke=1; shift; }
[ "${1:-}" = --report ] && { report=1; shift; }
ends=0
[ "${1:-}" = --ends ] && { ends=1; shift; }
# --smoke has a worktree and build dirs of its own: make test need not
# wait for a make matrix, nor rebuild what it left.
name=matrix$BASE_SUFFIX
[ $smoke = 1 ] && name=matrix-smoke$BASE_SUFFIX
lock tree s
lock "build-$name" x
if [ $# -gt 0 ]; then
	configs=("$@")
elif [ $smoke = 1 ]; then
	configs=(guest)
else
	configs=(guest proc-n pidns-n cr-n smp-n preempt lsm compat-n fhandle-n coredump-n
		i386 debian$BASE_SUFFIX)
fi
for c in "${configs[@]}"; do
	[ -f "$REPO/kconfig/matrix/$c.config" ] || die "no kconfig/matrix/$c.config"
	# Debian's config of one release does not configure the other's tree.
	case $(sed -n 's/^#base //p' "$REPO/kconfig/matrix/$c.config") in
	''|*"/$BASE_CONFIG_PACKAGE/"*) ;;
	*) die "kconfig/matrix/$c.config is Debian's config of another kernel than BASE=$BASE" ;;
	esac
done
command -v sparse >/dev/null || die "sparse is missing (make deps)"

wt=$CACHE/src/$name
res=$CACHE/out/$name
mkdir -p "$res"
if [ ! -d "$wt" ]; then
	say "creating the matrix worktree at $wt"
	git -C "$TREE" worktree add -q --detach "$wt" base || die "git worktree add failed"
fi
# The commits: base, then each patch of the series.
branch=${MATRIX_BRANCH:-series}
mapfile -t commits < <(git -C "$TREE" rev-parse base; git -C "$TREE" rev-list --reverse "base..$branch")
last=$((${#commits[@]} - 1))
[ $last -gt 0 ] || die "branch $branch has no commits on base"
steps=$(seq 0 $last)
[ $smoke = 1 ] || [ $ends = 1 ] && steps="0 $last"

# The objects, after each patch: every .c the series changes outside
# tools/ (at a commit where it exists: a file the series adds is not
# built before it; one the config does not build is left out). At base
# and at the last patch also some objects that include the headers it
# changes and are built in most configs (a changed declaration or macro
# must not clash there); a difference there is then bisected over the
# patches like the others.
mapfile -t core < <(git -C "$TREE" diff --name-only base..$branch -- '*.c' ':!tools/' |
	sed 's/\.c$/.o/' | sort -u)
mapfile -t extra < <(git -C "$TREE" diff --name-only base..$branch -- include/ | while read -r h; do
	case $h in
	include/uapi/linux/pidfd.h) echo fs/coredump.o ;;
	include/uapi/linux/fcntl.h) echo fs/fcntl.o fs/open.o fs/namei.o ;;
	include/linux/proc_fs.h) echo fs/proc/fd.o fs/proc/array.o ;;
	include/linux/sched/signal.h) echo kernel/ptrace.o fs/exec.o ;;
	include/linux/pid.h) echo kernel/pid.o kernel/exit.o fs/proc/base.o ;;
	include/uapi/linux/sched.h) echo kernel/fork.o kernel/nsproxy.o ;;
	include/linux/pidfs.h) echo kernel/pid.o kernel/exit.o init/main.o fs/libfs.o ;;
	include/linux/seccomp.h|include/asm-generic/seccomp.h) echo kernel/seccomp.o fs/proc/array.o ;;
	include/linux/net.h|include/linux/socket.h) echo net/socket.o net/core/scm.o ;;
	include/net/scm.h) echo net/core/scm.o net/unix/garbage.o ;;
	include/uapi/asm-generic/socket.h) echo net/socket.o ;;
	include/uapi/linux/magic.h) echo fs/libfs.o fs/nsfs.o ;;
	include/linux/exportfs.h) echo fs/kernfs/mount.o fs/libfs.o ;;
	*) echo "matrix: no objects listed for $h, add them" >&2 ;;
	esac
done | tr ' ' '\n' | sort -u | grep -vxF -f <(printf '%s\n' "${core[@]}"))

# The worktree is this script's own: a run killed during a checkout
# leaves it dirty, so force it, and stop if the commit is not there.
wt_checkout() {	# commit
	git -C "$wt" checkout -q -f --detach "$1" &&
		git -C "$wt" clean -q -fd &&
		[ "$(git -C "$wt" rev-parse HEAD)" = "$1" ] ||
		die "cannot check out $1 in $wt"
}

# From here on the commits are named by their ids: the worktree does not
# need the tree's branch, so let tree.sh and patches.sh rewrite it.
for f in /proc/$$/fd/*; do
	[ "$(readlink "$f")" = "$CACHE/tree.lock" ] && eval "exec ${f##*/}>&-"
done
unset PIDFD_LOCK_tree

# Is an object in the build of this config? Its directory's Makefile and
# the parent's name the option: obj-$(CONFIG_X) += f.o, or += dir/.
guard_ok() {	# obj config-file
	local dir=${1%/*} file=${1##*/} opt
	while [ "$dir" != . ] && [ -n "$dir" ]; do
		opt=$(grep -E "^[a-z0-9-]*-\\\$\\(CONFIG_[A-Z0-9_]+\\)[[:space:]]*[+:]?=.*[[:space:]]$file([[:space:]]|\$)" \
			"$wt/$dir/Makefile" 2>/dev/null | sed -E 's/.*\$\((CONFIG_[A-Z0-9_]+)\).*/\1/' | head -n 1)
		if [ -n "$opt" ] && ! grep -q "^$opt=[ym]" "$2"; then
			return 1
		fi
		file=${dir##*/}/
		[ "$dir" = "${dir%/*}" ] && break
		dir=${dir%/*}
	done
	return 0
}

wrap=$REPO/scripts/matrix-wrap
export MATRIX_SRC=$wt MATRIX_SPARSE_CACHE=$CACHE/build/matrix-sparse-cache
kmake() {	# build-dir args...
	local b=$1
	shift
	MATRIX_LOGS=$b/matrix-logs make -C "$wt" O="$b" ARCH=x86 CROSS_COMPILE= CC="$wrap cc" \
		HOSTCC="ccache gcc" CHECK="$wrap sparse" CF=-fmax-warnings=unlimited \
		-j"$JOBS" "$@"
}

# W=1 also runs scripts/kernel-doc over each .c it compiles, from the
# make rule and not through CC, so the wrapper does not see it: run it
# here, after each step, into a log per object of its own.
kernel_doc() {	# build-dir objs...
	local b=$1 o
	shift
	for o in "$@"; do
		mkdir -p "$(dirname "$b/matrix-logs/doc/$o")"
		"$wt/scripts/kernel-doc" -none "$wt/${o%.o}.c" > "$b/matrix-logs/doc/$o.log" 2>&1
	done
}

# Warnings of the listed objects, one per line, normalised: no line or
# column numbers, paths relative to the tree; sorted, duplicates kept.
# Kind cc is W=1's: gcc's and kernel-doc's.
warnings() {	# build-dir kind(cc|sparse) objs...
	local b=$1 kind=$2 o k
	shift 2
	for o in "$@"; do
		for k in $kind $([ "$kind" = cc ] && echo doc); do
			[ -f "$b/matrix-logs/$k/$o.log" ] && cat "$b/matrix-logs/$k/$o.log"
		done
	done | grep -E '(warning|error):' |
		sed -E "s#$wt/##g; s#(\\.\\./)+src/$name/##g; s#:[0-9]+:[0-9]+:#:#; s#:[0-9]+:#:#" | sort
}

# Configure (and make prepare) only when the fragments changed.
configure() {	# config build-dir
	local c=$1 b=$2 frag=$REPO/kconfig/matrix/$1.config stamp basecfg line opt
	basecfg=$(sed -n 's/^#base //p' "$frag")
	stamp=$(cat "$frag" "$REPO/kconfig/guest.config" "$REPO/kconfig/x86_64.config" |
		sha1sum | cut -d' ' -f1)
	mkdir -p "$b"
	[ -f "$b/.config" ] && [ "$(cat "$b/.matrix-stamp" 2>/dev/null)" = "$stamp" ] && return 0
	rm -f "$b/.matrix-stamp"
	if [ -n "$basecfg" ]; then
		xzcat "$basecfg" > "$b/.config" || return 1
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" "$frag" >/dev/null
	else
		kmake "$b" -s tinyconfig >/dev/null || return 1
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" \
			"$REPO/kconfig/guest.config" "$REPO/kconfig/x86_64.config" "$frag" >/dev/null
	fi
	kmake "$b" -s olddefconfig >/dev/null || return 1
	# Every line of the fragment must hold in the final .config.
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qx -- "$line" "$b/.config" && continue ;;
		'# CONFIG_'*' is not set')
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$b/.config" && continue ;;
		*) continue ;;
		esac
		echo "matrix: $c: '$line' is not in $b/.config" >&2
		return 1
	done < "$frag"
	kmake "$b" -s prepare || return 1
	echo "$stamp" > "$b/.matrix-stamp"
}

# One step: build the objects at commit $i, collect their warnings, and
# compare with base. Sets cell and bad (1: a failure or a new warning).
step() {	# config build-dir i objs...
	local c=$1 b=$2 i=$3 log nw ns built o objs=()
	shift 3
	wt_checkout "${commits[$i]}"
	for o; do
		[ -f "$wt/${o%.o}.c" ] && objs+=("$o")
	done
	set -- "${objs[@]}"
	log=$res/$c/$i.log
	built=ok
	kmake "$b" W=1 C=1 -k "$@" > "$log" 2>&1 || built=FAIL
	kernel_doc "$b" "$@"
	warnings "$b" cc "$@" > "$res/$c/$i.cc"
	warnings "$b" sparse "$@" > "$res/$c/$i.sparse"
	bad=0
	if [ "$i" = 0 ]; then
		cell="$built/$(wc -l < "$res/$c/0.cc")/$(wc -l < "$res/$c/0.sparse")"
		[ $built = ok ] || bad=1
		return
	fi
	# Against base over the same objects.
	comm -13 <(base_warnings "$c" cc "$@") "$res/$c/$i.cc" > "$res/$c/$i.new-cc"
	comm -13 <(base_warnings "$c" sparse "$@") "$res/$c/$i.sparse" > "$res/$c/$i.new-sparse"
	nw=$(wc -l < "$res/$c/$i.new-cc")
	ns=$(wc -l < "$res/$c/$i.new-sparse")
	cell="$built/$nw/$ns"
	if [ $built != ok ] || [ "$nw" != 0 ] || [ "$ns" != 0 ]; then
		bad=1
		{
			echo "matrix $c, patch $i: $built, $nw new gcc and $ns new sparse warnings:"
			grep -h -B2 -A3 -E '(warning|error):' "$log" | head -n 40
			cat "$res/$c/$i.new-cc" "$res/$c/$i.new-sparse"
		} >&2
	fi
}

# Base's warnings of a subset of the objects: kept per object at base.
base_warnings() {	# config kind objs...
	local c=$1 kind=$2 o k
	shift 2
	for o in "$@"; do
		for k in $kind $([ "$kind" = cc ] && echo doc); do
			cat "$res/$c/base/$k/$o.log" 2>/dev/null
		done
	done | grep -E '(warning|error):' |
		sed -E "s#$wt/##g; s#(\\.\\./)+src/$name/##g; s#:[0-9]+:[0-9]+:#:#; s#:[0-9]+:#:#" | sort
}

status=0
start_all=$SECONDS
declare -A row first vmcell
[ $report = 1 ] && configs_run=() || configs_run=("${configs[@]}")
for c in "${configs_run[@]}"; do
	b=$CACHE/build/$name-$c
	start=$SECONDS
	rm -rf "$res/$c"
	mkdir -p "$res/$c"
	wt_checkout "${commits[0]}"
	say "matrix $c: configure in $b"
	if ! configure "$c" "$b" > "$res/$c/configure.log" 2>&1; then
		cat "$res/$c/configure.log" >&2
		row[$c]="configure/prepare FAILED"
		echo "${row[$c]}" > "$res/$c/row"
		echo base > "$res/$c/first"
		status=1
		continue
	fi
	mcore=()
	mextra=()
	for o in "${core[@]}"; do guard_ok "$o" "$b/.config" && mcore+=("$o"); done
	[ $smoke = 1 ] ||
		for o in "${extra[@]}"; do guard_ok "$o" "$b/.config" && mextra+=("$o"); done
	echo "${mcore[*]} (at base and the last patch also: ${mextra[*]})" > "$res/$c/objects"
	# An object without its logs (a first run, an interrupted one) is rebuilt.
	for o in "${mcore[@]}" "${mextra[@]}"; do
		[ -f "$b/matrix-logs/cc/$o.log" ] && [ -f "$b/matrix-logs/sparse/$o.log" ] ||
			rm -f "$b/$o"
	done
	row[$c]=
	first[$c]=
	for i in $steps; do
		if [ "$i" = 0 ] || [ "$i" = $last ]; then
			step "$c" "$b" "$i" "${mcore[@]}" "${mextra[@]}"
		else
			step "$c" "$b" "$i" "${mcore[@]}"
		fi
		if [ "$i" = 0 ]; then
			# Keep base's logs per object, to compare subsets with.
			for o in "${mcore[@]}" "${mextra[@]}"; do
				for k in cc sparse doc; do
					mkdir -p "$(dirname "$res/$c/base/$k/$o")"
					cp "$b/matrix-logs/$k/$o.log" "$res/$c/base/$k/$o.log" 2>/dev/null
				done
			done
		fi
		row[$c]+=$(printf ' %-8s' "$cell")
		if [ $bad = 1 ]; then
			status=1
			[ -n "${first[$c]}" ] || first[$c]=$([ "$i" = 0 ] && echo base || echo "$i")
		fi
	done
	# Something only the header objects show at the last patch: which
	# patch brought it (they were not built after the others).
	if [ $bad = 1 ] && [ "${first[$c]}" = "$last" ] && [ $smoke = 0 ] &&
		{ [ ${#mextra[@]} -gt 0 ] || [ $ends = 1 ]; }; then
		for i in $(seq 1 $((last - 1))); do
			step "$c" "$b" "$i" "${mcore[@]}" "${mextra[@]}" 2>/dev/null
			[ $bad = 1 ] && { first[$c]=$i; break; }
		done
	fi
	echo "${row[$c]}" > "$res/$c/row"
	echo "${first[$c]}" > "$res/$c/first"
	say "matrix $c: $((SECONDS - start)) s (objects: $(cat "$res/$c/objects"))"
done

# vmlinux at the last patch, small configs (not Debian's, not --smoke).
for c in "${configs_run[@]}"; do
	vmcell[$c]=-
	[ $smoke = 0 ] && [ "${MATRIX_VMLINUX:-1}" = 1 ] || continue
	[ -z "$(sed -n 's/^#base //p' "$REPO/kconfig/matrix/$c.config")" ] || continue
	b=$CACHE/build/$name-$c
	[ -f "$b/.matrix-stamp" ] || continue
	start=$SECONDS
	wt_checkout "${commits[$last]}"
	say "matrix $c: vmlinux at patch $last"
	if kmake "$b" W=1 -k vmlinux > "$res/$c/vmlinux.log" 2>&1; then
		vmcell[$c]=ok
	else
		vmcell[$c]=FAIL
		status=1
		[ -n "${first[$c]}" ] || first[$c]=$last
		grep -E -B2 -A3 'error' "$res/$c/vmlinux.log" | head -n 40 >&2
	fi
	echo "${vmcell[$c]}" > "$res/$c/vmlinux"
	echo "${first[$c]}" > "$res/$c/first"
	say "matrix $c: vmlinux $((SECONDS - start)) s"
done
wt_checkout "${commits[0]}"

table=$res/table.txt
{
	printf '%-12s' config
	for i in $steps; do [ "$i" = 0 ] && printf ' %-8s' base || printf ' %-8s' "$i"; done
	printf ' %-8s %s\n' vmlinux "first bad"
	for c in "${configs[@]}"; do
		# From the files each config's run left (--report: all of them).
		r=$(cat "$res/$c/row" 2>/dev/null) || r=" (not run)"
		v=$(cat "$res/$c/vmlinux" 2>/dev/null) || v=-
		f=$(cat "$res/$c/first" 2>/dev/null) || f=
		[ -f "$res/$c/row" ] || f="not run"
		printf '%-12s%s %-8s %s\n' "$c" "$r" "$v" "${f:-none}"
		[ -z "$f" ] || status=1
	done
} > "$table"
echo
echo "make matrix: per patch builds/new W=1 warnings/new sparse warnings (base:"
echo "builds/its warnings/its sparse warnings); objects in out/matrix/<config>/objects"
cat "$table"
echo "$((SECONDS - start_all)) s; logs in $res"
[ $status = 0 ] && echo "matrix: clean" || echo "matrix: FAILED (new warnings or failures above)"
exit $status
