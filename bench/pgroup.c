// SPDX-License-Identifier: GPL-2.0
/*
 * Issue item 4: process-group scope against kill(-pgid), for groups of
 * 1, 10, 100 and 1000 idle processes. The signal is SIGURG, whose
 * default action is to ignore it: every member is looked up, checked
 * and has its signal lock taken, as with any signal, but nobody wakes
 * up or dies, so the group stays the same from round to round.
 */
#include "bench.h"

struct group {
	pid_t leader;
	int pidfd;
};

static int op_pidfd(void *ctx, long n)
{
	struct group *g = ctx;

	while (n--)
		if (sys_pidfd_send_signal(g->pidfd, SIGURG, NULL,
					  PIDFD_SIGNAL_PROCESS_GROUP))
			return -1;
	return 0;
}

static int op_kill(void *ctx, long n)
{
	struct group *g = ctx;

	while (n--)
		if (kill(-g->leader, SIGURG))
			return -1;
	return 0;
}

int main(void)
{
	static const int sizes[] = { 1, 10, 100, 1000 };
	long max = bench_param("pgroup_max", 1000);	/* smaller: the smoke form */
	unsigned int i;
	int m;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && sizes[i] <= max; i++) {
		struct group g = { .leader = bench_fork_idler(0) };
		char name[32];

		if (g.leader < 0) {
			perror("fork");
			return 1;
		}
		for (m = 1; m < sizes[i]; m++)
			if (bench_fork_idler(g.leader) < 0) {
				perror("fork");
				return 1;
			}
		g.pidfd = sys_pidfd_open(g.leader, 0);
		if (g.pidfd < 0) {
			perror("pidfd_open");
			return 1;
		}
		snprintf(name, sizeof(name), "pgroup.%d", sizes[i]);
		bench_pair(name, (struct bench_side){ "PIDFD_SIGNAL_PROCESS_GROUP",
			   op_pidfd, &g }, (struct bench_side){ "kill(-pgid) URG",
			   op_kill, &g });

		kill(-g.leader, SIGKILL);
		for (m = 0; m < sizes[i]; m++)
			waitpid(-g.leader, NULL, 0);
		close(g.pidfd);
	}
	return 0;
}
