// SPDX-License-Identifier: GPL-2.0
/*
 * What pidfs costs a pidfd. On the stock 6.1 kernel every pidfd is a
 * file of the one shared anonymous inode; with the series each process
 * that has had a pidfd has an inode and a dentry of its own, made at the
 * first open and kept until the reap (the stash pins them), then freed
 * with the last close. So:
 *   - pidfs.open: pidfd_open() + close() of the only pidfd of a live
 *     child: after the first round, a reference and a file;
 *   - pidfs.clone: clone3(CLONE_PIDFD) + exit + wait + close: an inode
 *     and a dentry made and freed every round, the worst case.
 * The memory is not measured here: /proc/meminfo's slab total moves in
 * pages and reuses what earlier rounds freed, so it read 0; the cost is
 * the size of an inode and a dentry, given in the pidfs patch.
 * getppid() is the yardstick of the timed rows, as in bench/spawn.c: the
 * series leaves it alone, so scripts/bench.sh compares the ratios of the
 * patched and the stock boot (noregress.pidfs.*).
 */
#include "bench.h"

#define GETPPID_PER_OPEN	16
#define GETPPID_PER_CLONE	4096

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

static int op_open(void *ctx, long n)
{
	pid_t pid = *(pid_t *)ctx;
	int fd;

	while (n--) {
		fd = sys_pidfd_open(pid, 0);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int op_clone(void *ctx, long n)
{
	int fd = -1;
	struct clone_args_v0 args = {
		.flags = CLONE_PIDFD,
		.pidfd = (unsigned long)&fd,
		.exit_signal = SIGCHLD,
	};
	pid_t pid;

	(void)ctx;
	while (n--) {
		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			return -1;
		close(fd);
	}
	return 0;
}

int main(void)
{
	long per_open = GETPPID_PER_OPEN, per_clone = GETPPID_PER_CLONE;
	pid_t child;

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	bench_pair("pidfs.open",
		   (struct bench_side){ "pidfd_open+close", op_open, &child },
		   (struct bench_side){ "getppid x16", bench_op_getppid,
					&per_open });
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	bench_pair("pidfs.clone",
		   (struct bench_side){ "clone3 CLONE_PIDFD+exit+wait",
					op_clone, NULL },
		   (struct bench_side){ "getppid x4096", bench_op_getppid,
					&per_clone });
	return 0;
}
