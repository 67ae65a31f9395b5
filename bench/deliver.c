// SPDX-License-Identifier: GPL-2.0
/*
 * Issue item 2: a real delivery. A blocked SIGUSR1 sent to ourselves
 * and dequeued with sigtimedwait(), through a pidfd against kill(2).
 * PIDFD_SELF_THREAD_GROUP (series, no pidfd_open needed) rides along.
 */
#include "bench.h"

struct self {
	pid_t pid;
	int pidfd;
};

static int op_pidfd(void *ctx, long n)
{
	struct self *s = ctx;

	while (n--)
		if (sys_pidfd_send_signal(s->pidfd, BENCH_SIG, NULL, 0) ||
		    bench_consume())
			return -1;
	return 0;
}

static int op_kill(void *ctx, long n)
{
	struct self *s = ctx;

	while (n--)
		if (kill(s->pid, BENCH_SIG) || bench_consume())
			return -1;
	return 0;
}

int main(void)
{
	struct self s = { .pid = getpid() };
	struct bench_side kill_side = { "kill USR1", op_kill, &s };

	if (bench_block_sig()) {
		perror("sigprocmask");
		return 1;
	}
	s.pidfd = sys_pidfd_open(s.pid, 0);
	if (s.pidfd < 0) {
		perror("pidfd_open");
		return 1;
	}
	bench_pair("deliver", (struct bench_side){ "pidfd_send_signal USR1",
		   op_pidfd, &s }, kill_side);

	/* The same op with the magic fd; fails (n/a) where it is unknown. */
	s.pidfd = PIDFD_SELF_THREAD_GROUP;
	bench_pair("deliver.self", (struct bench_side){ "PIDFD_SELF_THREAD_GROUP",
		   op_pidfd, &s }, kill_side);
	return 0;
}
