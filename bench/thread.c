// SPDX-License-Identifier: GPL-2.0
/*
 * Issue item 3: thread scope against tgkill(2). Every thread handle the
 * series offers sends a blocked SIGUSR1 to the calling thread, which
 * takes it back with sigtimedwait():
 *   - a process pidfd with PIDFD_SIGNAL_THREAD,
 *   - a thread pidfd (pidfd_open(tid, PIDFD_THREAD)), flags 0,
 *   - a /proc/<pid>/task/<tid> fd, flags 0,
 *   - PIDFD_SELF_THREAD, flags 0.
 * The measuring thread is the leader (PIDFD_SIGNAL_THREAD through a
 * process pidfd can only name the leader); a second, idle thread makes
 * the process a real thread group.
 */
#include "bench.h"
#include <pthread.h>

struct handle {
	pid_t pid;
	int fd;
	unsigned int flags;
};

static int op_pidfd(void *ctx, long n)
{
	struct handle *h = ctx;

	while (n--)
		if (sys_pidfd_send_signal(h->fd, BENCH_SIG, NULL, h->flags) ||
		    bench_consume())
			return -1;
	return 0;
}

static int op_tgkill(void *ctx, long n)
{
	struct handle *h = ctx;

	while (n--)
		if (sys_tgkill(h->pid, h->pid, BENCH_SIG) || bench_consume())
			return -1;
	return 0;
}

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* Run one pair, or report n/a when the handle cannot be had. */
static void pair(const char *name, const char *label, struct handle *h,
		 struct bench_side base)
{
	if (h->fd == -1) {
		bench_na(name, label, base.label, strerror(errno));
		return;
	}
	bench_pair(name, (struct bench_side){ label, op_pidfd, h }, base);
}

int main(void)
{
	pid_t pid = getpid();
	struct handle tg = { .pid = pid }, flag, thread, task, self;
	struct bench_side base = { "tgkill USR1", op_tgkill, &tg };
	pthread_t other;
	char path[64];

	/* Blocked before the second thread exists, so it inherits the mask. */
	if (bench_block_sig() || pthread_create(&other, NULL, idle, NULL)) {
		perror("setup");
		return 1;
	}

	flag = (struct handle){ pid, sys_pidfd_open(pid, 0), PIDFD_SIGNAL_THREAD };
	pair("thread.flag", "pidfd + PIDFD_SIGNAL_THREAD", &flag, base);

	thread = (struct handle){ pid, sys_pidfd_open(pid, PIDFD_THREAD), 0 };
	pair("thread.pidfd", "pidfd_open(PIDFD_THREAD)", &thread, base);

	snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, pid);
	task = (struct handle){ pid, open(path, O_RDONLY | O_DIRECTORY), 0 };
	pair("thread.taskfd", "/proc/<pid>/task/<tid> fd", &task, base);

	self = (struct handle){ pid, PIDFD_SELF_THREAD, 0 };
	pair("thread.self", "PIDFD_SELF_THREAD", &self, base);
	return 0;
}
