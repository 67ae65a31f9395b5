// SPDX-License-Identifier: GPL-2.0
/*
 * Issue item 5: a write to /proc/<pid>/kill against pidfd_send_signal(),
 * both sending a blocked SIGUSR1 to ourselves, taken back with
 * sigtimedwait().
 *
 * "fd kept open": the cost of the write alone. If the kernel lets one
 * open file be written many times, that is what runs. The series' file
 * takes one write per open (a spent fd cannot be replayed by whoever
 * gets hold of it later), so there the files are opened in batches
 * outside the timed part and each written once.
 * "open-write-close": the whole cost of a one-off use.
 */
#include "bench.h"

#define BATCH 256	/* well under the default 1024 fd limit */

struct target {
	pid_t pid;
	int pidfd;
	char path[64];
	char sig[8];
	size_t siglen;
	int keep_fd;	/* the open fd for multi-write files, else -1 */
};

static int kill_write(struct target *t, int fd)
{
	if (write(fd, t->sig, t->siglen) != (ssize_t)t->siglen)
		return -1;
	return bench_consume();
}

static int op_kept(void *ctx, long n)
{
	struct target *t = ctx;
	int fds[BATCH], i, k;
	double t0;

	if (t->keep_fd >= 0) {
		while (n--)
			if (kill_write(t, t->keep_fd))
				return -1;
		return 0;
	}
	while (n > 0) {
		k = n < BATCH ? n : BATCH;
		t0 = bench_now_ns();
		for (i = 0; i < k; i++)
			if ((fds[i] = open(t->path, O_WRONLY | O_CLOEXEC)) < 0)
				return -1;
		bench_untimed_ns += bench_now_ns() - t0;
		for (i = 0; i < k; i++)
			if (kill_write(t, fds[i]))
				return -1;
		t0 = bench_now_ns();
		for (i = 0; i < k; i++)
			close(fds[i]);
		bench_untimed_ns += bench_now_ns() - t0;
		n -= k;
	}
	return 0;
}

static int op_once(void *ctx, long n)
{
	struct target *t = ctx;
	int fd, ret;

	while (n--) {
		fd = open(t->path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		ret = kill_write(t, fd);
		close(fd);
		if (ret)
			return -1;
	}
	return 0;
}

static int op_pidfd(void *ctx, long n)
{
	struct target *t = ctx;

	while (n--)
		if (sys_pidfd_send_signal(t->pidfd, BENCH_SIG, NULL, 0) ||
		    bench_consume())
			return -1;
	return 0;
}

int main(void)
{
	struct target t = { .pid = getpid(), .keep_fd = -1 };
	struct bench_side base = { "pidfd_send_signal USR1", op_pidfd, &t };
	const char *kept = "kill file write (fd open)";
	int fd;

	if (bench_block_sig()) {
		perror("sigprocmask");
		return 1;
	}
	t.pidfd = sys_pidfd_open(t.pid, 0);
	if (t.pidfd < 0) {
		perror("pidfd_open");
		return 1;
	}
	snprintf(t.path, sizeof(t.path), "/proc/%d/kill", t.pid);
	t.siglen = snprintf(t.sig, sizeof(t.sig), "%d", BENCH_SIG);

	fd = open(t.path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		bench_na("killfile.kept", kept, base.label, strerror(errno));
		bench_na("killfile.once", "open+write+close", base.label,
			 strerror(errno));
		return 0;
	}
	/* Which kind of file is it: does a second write on one fd work? */
	if (!kill_write(&t, fd) && !kill_write(&t, fd)) {
		t.keep_fd = fd;
	} else {
		close(fd);
		bench_consume();
		kept = "kill file write (one-shot fds)";
	}
	bench_pair("killfile.kept", (struct bench_side){ kept, op_kept, &t },
		   base);
	bench_pair("killfile.once", (struct bench_side){ "open+write+close",
		   op_once, &t }, base);
	return 0;
}
