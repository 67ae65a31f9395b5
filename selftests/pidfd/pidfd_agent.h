/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small target process for the pidfd signal tests: an "agent" with a
 * leader thread and one worker thread, both blocking the test signals. The
 * test drives it through a pipe: it can make either thread dequeue a signal
 * with the raw rt_sigtimedwait() syscall (glibc rewrites SI_TKILL), send a
 * signal through a handle, open a handle, or call kill(2).
 */

#ifndef __PIDFD_AGENT_H
#define __PIDFD_AGENT_H

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pidfd.h"

#define SIG_A SIGUSR1
#define SIG_B SIGUSR2

/* Where a signal is pending in an agent. */
#define AT_MAIN		1	/* leader's private queue */
#define AT_WORKER	2	/* worker's private queue */
#define AT_SHARED	4	/* thread group's shared queue */

enum agent_op {
	OP_QUIT,
	OP_DEQUEUE,
	OP_SEND,
	OP_OPEN,
	OP_KILL,
};

/* Handles an agent or a test can hold on an agent. */
enum handle_kind {
	H_PIDFD,		/* pidfd_open(pid, 0) */
	H_THREAD_MAIN,		/* pidfd_open(pid, PIDFD_THREAD) */
	H_THREAD_WORKER,	/* pidfd_open(worker, PIDFD_THREAD) */
	H_PROC,			/* /proc/<pid> */
	H_TASK_MAIN,		/* /proc/<pid>/task/<pid> */
	H_TASK_WORKER,		/* /proc/<pid>/task/<worker> */
	H_SELF_THREAD,		/* PIDFD_SELF_THREAD */
	H_SELF_GROUP,		/* PIDFD_SELF_THREAD_GROUP */
};

struct agent_cmd {
	int op;
	int worker;		/* run it in the worker thread */
	int sig;
	int fd;
	unsigned int flags;
	int use_info;
	int info_signo;
	int info_code;
	int info_pid;
	int kind;
	pid_t pid;
};

struct agent_res {
	int ret;
	int err;
	int signo;
	int code;
	int pid;
	int uid;
};

struct agent {
	pid_t pid;
	pid_t worker;
	int cmd_fd;
	int res_fd;
};

struct agent_worker {
	pid_t tid;
	int cmd[2];
	int res[2];
};

static inline void block_test_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIG_A);
	sigaddset(&set, SIG_B);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGRTMIN + 2);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static inline int open_handle(int kind, pid_t pid, pid_t worker)
{
	char path[64];

	switch (kind) {
	case H_PIDFD:
		return sys_pidfd_open(pid, 0);
	case H_THREAD_MAIN:
		return sys_pidfd_open(pid, PIDFD_THREAD);
	case H_THREAD_WORKER:
		return sys_pidfd_open(worker, PIDFD_THREAD);
	case H_PROC:
		snprintf(path, sizeof(path), "/proc/%d", pid);
		return open(path, O_DIRECTORY | O_CLOEXEC);
	case H_TASK_MAIN:
		snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, pid);
		return open(path, O_DIRECTORY | O_CLOEXEC);
	case H_TASK_WORKER:
		snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, worker);
		return open(path, O_DIRECTORY | O_CLOEXEC);
	case H_SELF_THREAD:
		return PIDFD_SELF_THREAD;
	case H_SELF_GROUP:
		return PIDFD_SELF_THREAD_GROUP;
	}
	errno = EINVAL;
	return -1;
}

static inline void close_handle(int fd)
{
	if (fd >= 0)
		close(fd);
}

static inline bool full_read(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static inline bool full_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len;
}

static pid_t agent_worker_tid;

static inline void agent_exec(const struct agent_cmd *c, struct agent_res *r)
{
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t set;

	memset(r, 0, sizeof(*r));
	switch (c->op) {
	case OP_DEQUEUE:
		sigemptyset(&set);
		sigaddset(&set, c->sig);
		memset(&si, 0, sizeof(si));
		r->ret = sys_rt_sigtimedwait(&set, &si, &zero);
		r->signo = si.si_signo;
		r->code = si.si_code;
		r->pid = si.si_pid;
		r->uid = si.si_uid;
		break;
	case OP_SEND:
		if (c->use_info) {
			memset(&si, 0, sizeof(si));
			si.si_signo = c->info_signo;
			si.si_code = c->info_code;
			si.si_pid = c->info_pid;
			si.si_uid = getuid();
			r->ret = sys_pidfd_send_signal(c->fd, c->sig, &si,
						       c->flags);
		} else {
			r->ret = sys_pidfd_send_signal(c->fd, c->sig, NULL,
						       c->flags);
		}
		break;
	case OP_OPEN:
		/* Our own handles, or a process handle on c->pid. */
		if (c->pid > 0)
			r->ret = open_handle(c->kind, c->pid, 0);
		else
			r->ret = open_handle(c->kind, getpid(),
					     agent_worker_tid);
		break;
	case OP_KILL:
		r->ret = kill(c->pid, c->sig);
		break;
	}
	r->err = r->ret < 0 ? errno : 0;
}

static void *agent_worker_fn(void *arg)
{
	struct agent_worker *w = arg;
	struct agent_cmd c;
	struct agent_res r;

	w->tid = sys_gettid();
	memset(&r, 0, sizeof(r));
	full_write(w->res[1], &r, sizeof(r));
	while (full_read(w->cmd[0], &c, sizeof(c)) && c.op != OP_QUIT) {
		agent_exec(&c, &r);
		full_write(w->res[1], &r, sizeof(r));
	}
	return NULL;
}

/*
 * Fork an agent. @pgid: -1 to stay in our process group, 0 to lead a new
 * one, else the group to join. @uid: -1 or the uid to switch to.
 */
static inline int agent_start(struct agent *a, pid_t pgid, int uid)
{
	int cmd[2], res[2];

	if (pipe2(cmd, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		return -1;

	a->pid = fork();
	if (a->pid < 0)
		return -1;

	if (a->pid == 0) {
		struct agent_worker w;
		struct agent_cmd c;
		struct agent_res r;
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		block_test_signals();
		if (pgid >= 0 && setpgid(0, pgid))
			_exit(1);
		if (uid >= 0 && (setresgid(uid, uid, uid) ||
				 setresuid(uid, uid, uid)))
			_exit(1);
		if (pipe2(w.cmd, O_CLOEXEC) || pipe2(w.res, O_CLOEXEC))
			_exit(1);
		if (pthread_create(&t, NULL, agent_worker_fn, &w))
			_exit(1);
		if (!full_read(w.res[0], &r, sizeof(r)))
			_exit(1);
		agent_worker_tid = w.tid;
		memset(&r, 0, sizeof(r));
		r.ret = w.tid;
		full_write(res[1], &r, sizeof(r));
		while (full_read(cmd[0], &c, sizeof(c)) && c.op != OP_QUIT) {
			if (c.worker) {
				full_write(w.cmd[1], &c, sizeof(c));
				full_read(w.res[0], &r, sizeof(r));
			} else {
				agent_exec(&c, &r);
			}
			full_write(res[1], &r, sizeof(r));
		}
		_exit(0);
	}

	close(cmd[0]);
	close(res[1]);
	a->cmd_fd = cmd[1];
	a->res_fd = res[0];
	{
		struct agent_res r;

		if (!full_read(a->res_fd, &r, sizeof(r)))
			return -1;
		a->worker = r.ret;
	}
	return 0;
}

static inline struct agent_res agent_do(struct agent *a,
					const struct agent_cmd *c)
{
	struct agent_res r;

	memset(&r, 0, sizeof(r));
	r.ret = -1;
	r.err = EPIPE;
	if (full_write(a->cmd_fd, c, sizeof(*c)))
		full_read(a->res_fd, &r, sizeof(r));
	return r;
}

static inline void agent_stop(struct agent *a)
{
	if (a->pid <= 0)
		return;
	kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	close(a->cmd_fd);
	close(a->res_fd);
	a->pid = 0;
}

/* Is @sig pending in the private (SigPnd) or shared (ShdPnd) queue? */
static inline int task_pending(pid_t pid, pid_t tid, int sig, bool shared)
{
	unsigned long long mask;
	char path[64], line[256];
	const char *key = shared ? "ShdPnd:" : "SigPnd:";
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		if (sscanf(line + strlen(key), "%llx", &mask) == 1)
			ret = !!(mask & (1ULL << (sig - 1)));
		break;
	}
	fclose(f);
	return ret;
}

/* AT_* mask of where @sig is pending in agent @a, or -1. */
static inline int agent_pending(struct agent *a, int sig)
{
	int m = task_pending(a->pid, a->pid, sig, false);
	int w = task_pending(a->pid, a->worker, sig, false);
	int s = task_pending(a->pid, a->pid, sig, true);

	if (m < 0 || w < 0 || s < 0)
		return -1;
	return (m ? AT_MAIN : 0) | (w ? AT_WORKER : 0) | (s ? AT_SHARED : 0);
}

static inline struct agent_res agent_dequeue(struct agent *a, int worker,
					     int sig)
{
	struct agent_cmd c = { .op = OP_DEQUEUE, .worker = worker, .sig = sig };

	return agent_do(a, &c);
}

/* Probes for the features under test. */
static inline bool have_thread_pidfd(void)
{
	int fd = sys_pidfd_open(getpid(), PIDFD_THREAD);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static inline bool have_scope_flags(void)
{
	int fd = sys_pidfd_open(getpid(), 0);
	int ret;

	if (fd < 0)
		return false;
	ret = sys_pidfd_send_signal(fd, 0, NULL, PIDFD_SIGNAL_THREAD);
	close(fd);
	return ret == 0;
}

static inline bool have_task_fd(void)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/task/%d", getpid(),
		 sys_gettid());
	fd = open(path, O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ret = sys_pidfd_send_signal(fd, 0, NULL, 0);
	close(fd);
	return ret == 0;
}

/* Both sentinels: a kernel with only one of them is not the one tested. */
static inline bool have_self_sentinels(void)
{
	return sys_pidfd_send_signal(PIDFD_SELF_THREAD, 0, NULL, 0) == 0 &&
	       sys_pidfd_send_signal(PIDFD_SELF_THREAD_GROUP, 0, NULL, 0) == 0;
}

#endif /* __PIDFD_AGENT_H */
