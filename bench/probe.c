// SPDX-License-Identifier: GPL-2.0
/*
 * Issue item 1: the liveness probe. pidfd_send_signal(fd, 0) against
 * kill(pid, 0), both aimed at the same idle child. Signal 0 runs the
 * lookup and the permission check and stops there, so this is the
 * fixed cost of each entry point. The flags-0 figure is also half of
 * the patched-vs-stock "no regression" comparison in scripts/bench.sh.
 */
#include "bench.h"

struct target {
	pid_t pid;
	int pidfd;
	int procfd;
};

static int op_pidfd(void *ctx, long n)
{
	struct target *t = ctx;

	while (n--)
		if (sys_pidfd_send_signal(t->pidfd, 0, NULL, 0))
			return -1;
	return 0;
}

static int op_procfd(void *ctx, long n)
{
	struct target *t = ctx;

	while (n--)
		if (sys_pidfd_send_signal(t->procfd, 0, NULL, 0))
			return -1;
	return 0;
}

static int op_kill(void *ctx, long n)
{
	struct target *t = ctx;

	while (n--)
		if (kill(t->pid, 0))
			return -1;
	return 0;
}

int main(void)
{
	struct target t = { .pid = bench_fork_idler(-1) };
	struct bench_side kill_side = { "kill sig 0", op_kill, &t };
	char path[64];

	if (t.pid < 0) {
		perror("fork");
		return 1;
	}
	t.pidfd = sys_pidfd_open(t.pid, 0);
	snprintf(path, sizeof(path), "/proc/%d", t.pid);
	t.procfd = open(path, O_RDONLY | O_DIRECTORY);
	if (t.pidfd < 0 || t.procfd < 0) {
		perror("pidfd_open or open /proc/<pid>");
		return 1;
	}

	bench_pair("probe", (struct bench_side){ "pidfd_send_signal sig 0",
		   op_pidfd, &t }, kill_side);
	bench_pair("probe.procfd", (struct bench_side){ "/proc/<pid> fd sig 0",
		   op_procfd, &t }, kill_side);

	kill(t.pid, SIGKILL);
	waitpid(t.pid, NULL, 0);
	return 0;
}
