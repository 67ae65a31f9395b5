// SPDX-License-Identifier: GPL-2.0
/*
 * What pidfs costs a pidfd. On the stock 6.1 kernel every pidfd is a
 * file of the one shared anonymous inode; with the series each process
 * that has a pidfd open has an inode and a dentry of its own, made at
 * the first open and freed with the last close. So:
 *   - pidfs.open: pidfd_open() + close() of the only pidfd of a child,
 *     the worst case (inode and dentry made and freed every time);
 *   - pidfs.clone: clone3(CLONE_PIDFD) + exit + wait + close;
 *   - pidfs.bytes: the slab memory one more pidfd costs, each on its own
 *     process, from /proc/meminfo before and after (the median of a few
 *     rounds; printed as the row's value, not a ratio).
 * getppid() is the yardstick of the timed rows, as in bench/spawn.c: the
 * series leaves it alone, so scripts/bench.sh compares the ratios of the
 * patched and the stock boot (noregress.pidfs.*).
 */
#include "bench.h"

#define GETPPID_PER_OPEN	16
#define GETPPID_PER_CLONE	4096
#define MEMORY_CHILDREN		256
#define MEMORY_ROUNDS		5

struct clone_args_v0 {
	unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal;
	unsigned long long stack, stack_size, tls;
};

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

static int op_getppid(void *ctx, long n)
{
	long per_job = *(long *)ctx, k;

	while (n--)
		for (k = 0; k < per_job; k++)
			if (getppid() < 0)
				return -1;
	return 0;
}

/* Slab memory in bytes (SReclaimable + SUnreclaim), or -1. */
static long slab_bytes(void)
{
	long kb, total = -1;
	char line[128];
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			total = kb * 1024;
	fclose(f);
	return total;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * Bytes of slab one pidfd costs, on a process of its own: children are
 * started first, then a pidfd opened on each. -1 if it cannot tell.
 */
static long bytes_per_pidfd(void)
{
	static pid_t child[MEMORY_CHILDREN];
	static int fd[MEMORY_CHILDREN];
	long per[MEMORY_ROUNDS], before, after;
	int r, i, ok = 1;

	for (r = 0; r < MEMORY_ROUNDS && ok; r++) {
		for (i = 0; i < MEMORY_CHILDREN; i++) {
			child[i] = fork();
			if (child[i] == 0) {
				pause();
				_exit(0);
			}
			if (child[i] < 0)
				ok = 0;
		}
		before = slab_bytes();
		for (i = 0; i < MEMORY_CHILDREN; i++) {
			fd[i] = child[i] > 0 ? sys_pidfd_open(child[i], 0) : -1;
			if (fd[i] < 0)
				ok = 0;
		}
		after = slab_bytes();
		per[r] = (after - before) / MEMORY_CHILDREN;
		if (before < 0 || after < 0)
			ok = 0;
		for (i = 0; i < MEMORY_CHILDREN; i++) {
			if (fd[i] >= 0)
				close(fd[i]);
			if (child[i] > 0) {
				kill(child[i], SIGKILL);
				waitpid(child[i], NULL, 0);
			}
		}
	}
	if (!ok)
		return -1;
	qsort(per, MEMORY_ROUNDS, sizeof(per[0]), cmp_long);
	return per[MEMORY_ROUNDS / 2];
}

int main(void)
{
	long per_open = GETPPID_PER_OPEN, per_clone = GETPPID_PER_CLONE;
	long bytes;
	pid_t child;

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	bench_pair("pidfs.open",
		   (struct bench_side){ "pidfd_open+close", op_open, &child },
		   (struct bench_side){ "getppid x16", op_getppid, &per_open });
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	bench_pair("pidfs.clone",
		   (struct bench_side){ "clone3 CLONE_PIDFD+exit+wait",
					op_clone, NULL },
		   (struct bench_side){ "getppid x4096", op_getppid,
					&per_clone });

	bytes = bytes_per_pidfd();
	if (bytes < 0) {
		bench_na("pidfs.bytes", "slab bytes per pidfd", "-",
			 "no /proc/meminfo or no children");
		return 0;
	}
	printf("# bench: pidfs.bytes,slab bytes per pidfd,-,%ld,-,-,-,-\n",
	       bytes);
	printf("%-28s %-30s %ld\n", "pidfs.bytes", "slab bytes per pidfd",
	       bytes);
	bench_smoke_case("pidfs.bytes", 1, NULL);
	return 0;
}
