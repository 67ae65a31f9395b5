// SPDX-License-Identifier: GPL-2.0
/*
 * pidfd_send_signal() scopes: PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP
 * and PIDFD_SIGNAL_PROCESS_GROUP through every kind of handle (process and
 * thread pidfds, /proc/<pid> and /proc/<pid>/task/<tid> directory fds, and
 * the PIDFD_SELF_* sentinels). Every delivery is checked on the receiving
 * side: which queue the signal sits in and the siginfo the receiving thread
 * dequeues.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd.h"
#include "pidfd_agent.h"
#include "pidfd_harness.h"

#define NO_FLAG 0U
#define F_THREAD ((unsigned int)PIDFD_SIGNAL_THREAD)
#define F_GROUP ((unsigned int)PIDFD_SIGNAL_THREAD_GROUP)
#define F_PGRP ((unsigned int)PIDFD_SIGNAL_PROCESS_GROUP)

struct expect {
	unsigned int flags;
	int err;	/* expected errno, 0 for success */
	int where;	/* AT_* */
	int code;	/* expected si_code */
};

/*
 * Check that @sig sits exactly at @where in @a, that the thread it belongs
 * to dequeues it with @code, @pid and @uid, and that nothing is left.
 */
static void expect_delivery(struct __test_metadata *_metadata, struct agent *a,
			    int sig, int where, int code, pid_t pid, uid_t uid,
			    const char *what)
{
	struct agent_res r;

	ASSERT_EQ(where, agent_pending(a, sig)) {
		TH_LOG("%s: signal pending in the wrong queue", what);
	}
	if (!where)
		return;

	r = agent_dequeue(a, where == AT_WORKER, sig);
	ASSERT_EQ(sig, r.ret) {
		TH_LOG("%s: dequeue failed: %s", what, strerror(r.err));
	}
	EXPECT_EQ(code, r.code) {
		TH_LOG("%s: wrong si_code", what);
	}
	EXPECT_EQ(pid, r.pid) {
		TH_LOG("%s: wrong si_pid", what);
	}
	EXPECT_EQ(uid, r.uid) {
		TH_LOG("%s: wrong si_uid", what);
	}
	ASSERT_EQ(0, agent_pending(a, sig)) {
		TH_LOG("%s: signal left pending", what);
	}
}

static void check_remote(struct __test_metadata *_metadata, struct agent *a,
			 int kind, const struct expect *e, size_t n,
			 const char *name)
{
	int fd, ret;
	size_t i;

	if (setup_skipped())
		return;
	fd = open_handle(kind, a->pid, a->worker);
	ASSERT_GE(fd, 0) {
		TH_LOG("%s: cannot open handle: %s", name, strerror(errno));
	}

	for (i = 0; i < n; i++) {
		char what[96];

		snprintf(what, sizeof(what), "%s flags %#x", name,
			 e[i].flags);
		ret = sys_pidfd_send_signal(fd, SIG_A, NULL, e[i].flags);
		if (e[i].err) {
			EXPECT_EQ(-1, ret);
			EXPECT_EQ(e[i].err, errno) {
				TH_LOG("%s: expected errno %d", what,
				       e[i].err);
			}
			EXPECT_EQ(0, agent_pending(a, SIG_A)) {
				TH_LOG("%s: delivered despite error", what);
			}
			continue;
		}
		ASSERT_EQ(0, ret) {
			TH_LOG("%s: %s", what, strerror(errno));
		}
		expect_delivery(_metadata, a, SIG_A, e[i].where, e[i].code,
				getpid(), getuid(), what);
	}
	close(fd);
}

/* SKIP() in a fixture setup does not stop the test body in this harness. */

FIXTURE(scope) {
	struct agent a;
};

FIXTURE_SETUP(scope)
{
	if (!have_scope_flags())
		SKIP(return, "pidfd_send_signal() has no scope flags");
	/* The agent leads its own process group. */
	ASSERT_EQ(0, agent_start(&self->a, 0, -1));
}

FIXTURE_TEARDOWN(scope)
{
	agent_stop(&self->a);
}

static const struct expect process_handle[] = {
	{ NO_FLAG,  0, AT_SHARED, SI_USER },
	{ F_THREAD, 0, AT_MAIN,   SI_TKILL },
	{ F_GROUP,  0, AT_SHARED, SI_USER },
	{ F_PGRP,   0, AT_SHARED, SI_USER },
};

static const struct expect leader_thread_handle[] = {
	{ NO_FLAG,  0, AT_MAIN,   SI_TKILL },
	{ F_THREAD, 0, AT_MAIN,   SI_TKILL },
	{ F_GROUP,  0, AT_SHARED, SI_USER },
	{ F_PGRP,   0, AT_SHARED, SI_USER },
};

static const struct expect worker_thread_handle[] = {
	{ NO_FLAG,  0,     AT_WORKER, SI_TKILL },
	{ F_THREAD, 0,     AT_WORKER, SI_TKILL },
	{ F_GROUP,  0,     AT_SHARED, SI_USER },
	/* No process group has the worker's tid as its id. */
	{ F_PGRP,   ESRCH, 0,         0 },
};

TEST_F(scope, process_pidfd)
{
	check_remote(_metadata, &self->a, H_PIDFD, process_handle,
		     ARRAY_SIZE(process_handle), "pidfd");
}

TEST_F(scope, proc_pid_fd)
{
	check_remote(_metadata, &self->a, H_PROC, process_handle,
		     ARRAY_SIZE(process_handle), "/proc/<pid>");
}

TEST_F(scope, thread_pidfd_leader)
{
	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");
	check_remote(_metadata, &self->a, H_THREAD_MAIN, leader_thread_handle,
		     ARRAY_SIZE(leader_thread_handle), "leader thread pidfd");
}

TEST_F(scope, thread_pidfd_worker)
{
	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");
	check_remote(_metadata, &self->a, H_THREAD_WORKER,
		     worker_thread_handle, ARRAY_SIZE(worker_thread_handle),
		     "worker thread pidfd");
}

TEST_F(scope, task_fd_leader)
{
	if (!have_task_fd())
		SKIP(return, "/proc/<pid>/task/<tid> fds are not handles");
	check_remote(_metadata, &self->a, H_TASK_MAIN, leader_thread_handle,
		     ARRAY_SIZE(leader_thread_handle), "/proc/<pid>/task/<pid>");
}

TEST_F(scope, task_fd_worker)
{
	if (!have_task_fd())
		SKIP(return, "/proc/<pid>/task/<tid> fds are not handles");
	check_remote(_metadata, &self->a, H_TASK_WORKER, worker_thread_handle,
		     ARRAY_SIZE(worker_thread_handle),
		     "/proc/<pid>/task/<tid>");
}

/* The agent signals itself through a sentinel from one of its threads. */
static void check_self(struct __test_metadata *_metadata, struct agent *a,
		       int worker, int kind, const struct expect *e, size_t n,
		       const char *name)
{
	struct agent_cmd c = { .op = OP_SEND, .worker = worker, .sig = SIG_A };
	struct agent_res r;
	size_t i;

	if (setup_skipped())
		return;
	c.fd = open_handle(kind, 0, 0);
	for (i = 0; i < n; i++) {
		char what[96];

		snprintf(what, sizeof(what), "%s from %s flags %#x", name,
			 worker ? "worker" : "leader", e[i].flags);
		c.flags = e[i].flags;
		r = agent_do(a, &c);
		if (e[i].err) {
			EXPECT_EQ(-1, r.ret);
			EXPECT_EQ(e[i].err, r.err) {
				TH_LOG("%s: expected errno %d", what,
				       e[i].err);
			}
			EXPECT_EQ(0, agent_pending(a, SIG_A));
			continue;
		}
		ASSERT_EQ(0, r.ret) {
			TH_LOG("%s: %s", what, strerror(r.err));
		}
		expect_delivery(_metadata, a, SIG_A, e[i].where, e[i].code,
				a->pid, getuid(), what);
	}
}

TEST_F(scope, self_thread_sentinel)
{
	if (!have_self_sentinels())
		SKIP(return, "no PIDFD_SELF_* sentinels");
	check_self(_metadata, &self->a, 0, H_SELF_THREAD, leader_thread_handle,
		   ARRAY_SIZE(leader_thread_handle), "PIDFD_SELF_THREAD");
	check_self(_metadata, &self->a, 1, H_SELF_THREAD, worker_thread_handle,
		   ARRAY_SIZE(worker_thread_handle), "PIDFD_SELF_THREAD");
}

TEST_F(scope, self_thread_group_sentinel)
{
	if (!have_self_sentinels())
		SKIP(return, "no PIDFD_SELF_* sentinels");
	/* The thread group is named by its leader, whichever thread asks. */
	check_self(_metadata, &self->a, 0, H_SELF_GROUP, process_handle,
		   ARRAY_SIZE(process_handle), "PIDFD_SELF_THREAD_GROUP");
	check_self(_metadata, &self->a, 1, H_SELF_GROUP, process_handle,
		   ARRAY_SIZE(process_handle), "PIDFD_SELF_THREAD_GROUP");
}

/* Send with a caller-supplied siginfo; return 0 or the errno. */
static int send_info(struct agent *a, int worker, int fd, int code,
		     unsigned int flags)
{
	struct agent_cmd c = {
		.op = OP_SEND, .worker = worker, .sig = SIG_B, .fd = fd,
		.flags = flags, .use_info = 1, .info_signo = SIG_B,
		.info_code = code, .info_pid = 4242,
	};
	struct agent_res r = agent_do(a, &c);

	return r.ret ? r.err : 0;
}

static int agent_open(struct agent *a, int kind)
{
	struct agent_cmd c = { .op = OP_OPEN, .kind = kind };

	return agent_do(a, &c).ret;
}

/*
 * A caller-chosen si_code >= 0 or SI_TKILL is accepted only when the
 * pidfd names the calling thread itself and the scope is the thread or the
 * thread group.
 */
TEST_F(scope, siginfo_to_self)
{
	int pfd, own, other;

	if (setup_skipped())
		return;
	pfd = agent_open(&self->a, H_PIDFD);
	ASSERT_GE(pfd, 0);

	/* The leader through the process pidfd: its own struct pid. */
	EXPECT_EQ(0, send_info(&self->a, 0, pfd, SI_USER, NO_FLAG));
	expect_delivery(_metadata, &self->a, SIG_B, AT_SHARED, SI_USER, 4242,
			getuid(), "leader, own pidfd");
	EXPECT_EQ(0, send_info(&self->a, 0, pfd, SI_USER, F_THREAD));
	expect_delivery(_metadata, &self->a, SIG_B, AT_MAIN, SI_USER, 4242,
			getuid(), "leader, own pidfd, thread scope");
	EXPECT_EQ(0, send_info(&self->a, 0, pfd, SI_TKILL, F_GROUP));
	expect_delivery(_metadata, &self->a, SIG_B, AT_SHARED, SI_TKILL, 4242,
			getuid(), "leader, own pidfd, group scope");
	/* Never at process-group scope. */
	EXPECT_EQ(EPERM, send_info(&self->a, 0, pfd, SI_USER, F_PGRP));
	EXPECT_EQ(0, agent_pending(&self->a, SIG_B));
	/* Negative codes other than SI_TKILL are fine at any scope. */
	EXPECT_EQ(0, send_info(&self->a, 0, pfd, SI_QUEUE, F_PGRP));
	expect_delivery(_metadata, &self->a, SIG_B, AT_SHARED, SI_QUEUE, 4242,
			getuid(), "leader, own pidfd, SI_QUEUE to pgrp");

	/* The worker is not the process pidfd's struct pid. */
	EXPECT_EQ(EPERM, send_info(&self->a, 1, pfd, SI_USER, NO_FLAG));
	EXPECT_EQ(EPERM, send_info(&self->a, 1, pfd, SI_TKILL, F_THREAD));
	EXPECT_EQ(0, agent_pending(&self->a, SIG_B));
	EXPECT_EQ(0, send_info(&self->a, 1, pfd, SI_QUEUE, NO_FLAG));
	expect_delivery(_metadata, &self->a, SIG_B, AT_SHARED, SI_QUEUE, 4242,
			getuid(), "worker, process pidfd, SI_QUEUE");

	if (have_thread_pidfd()) {
		own = agent_open(&self->a, H_THREAD_WORKER);
		other = agent_open(&self->a, H_THREAD_MAIN);
		ASSERT_GE(own, 0);
		ASSERT_GE(other, 0);
		EXPECT_EQ(0, send_info(&self->a, 1, own, SI_USER, NO_FLAG));
		expect_delivery(_metadata, &self->a, SIG_B, AT_WORKER, SI_USER,
				4242, getuid(), "worker, own thread pidfd");
		EXPECT_EQ(EPERM, send_info(&self->a, 1, other, SI_USER,
					   NO_FLAG));
		EXPECT_EQ(EPERM, send_info(&self->a, 0, own, SI_USER,
					   NO_FLAG));
		EXPECT_EQ(0, agent_pending(&self->a, SIG_B));
	}

	if (have_self_sentinels()) {
		EXPECT_EQ(0, send_info(&self->a, 1, PIDFD_SELF_THREAD, SI_USER,
				       NO_FLAG));
		expect_delivery(_metadata, &self->a, SIG_B, AT_WORKER, SI_USER,
				4242, getuid(), "worker, PIDFD_SELF_THREAD");
		EXPECT_EQ(0, send_info(&self->a, 0, PIDFD_SELF_THREAD_GROUP,
				       SI_USER, NO_FLAG));
		expect_delivery(_metadata, &self->a, SIG_B, AT_SHARED, SI_USER,
				4242, getuid(),
				"leader, PIDFD_SELF_THREAD_GROUP");
		/* The thread group's struct pid is the leader's. */
		EXPECT_EQ(EPERM, send_info(&self->a, 1,
					   PIDFD_SELF_THREAD_GROUP, SI_USER,
					   NO_FLAG));
		EXPECT_EQ(EPERM, send_info(&self->a, 1, PIDFD_SELF_THREAD,
					   SI_USER, F_PGRP));
		EXPECT_EQ(0, agent_pending(&self->a, SIG_B));
	}
}

TEST_F(scope, siginfo_to_other)
{
	unsigned int flags[] = { NO_FLAG, F_THREAD, F_GROUP, F_PGRP };
	int fd, i;
	siginfo_t si;

	if (setup_skipped())
		return;
	fd = sys_pidfd_open(self->a.pid, 0);
	ASSERT_GE(fd, 0);

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		memset(&si, 0, sizeof(si));
		si.si_signo = SIG_B;
		si.si_pid = 4242;
		si.si_code = SI_USER;
		EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_B, &si, flags[i]));
		EXPECT_EQ(EPERM, errno);
		si.si_code = SI_TKILL;
		EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_B, &si, flags[i]));
		EXPECT_EQ(EPERM, errno);
		si.si_code = 1;
		EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_B, &si, flags[i]));
		EXPECT_EQ(EPERM, errno);
		EXPECT_EQ(0, agent_pending(&self->a, SIG_B));

		si.si_code = SI_QUEUE;
		ASSERT_EQ(0, sys_pidfd_send_signal(fd, SIG_B, &si, flags[i]));
		expect_delivery(_metadata, &self->a, SIG_B,
				flags[i] == F_THREAD ? AT_MAIN : AT_SHARED,
				SI_QUEUE, 4242, getuid(), "SI_QUEUE");
	}
	close(fd);
}

TEST_F(scope, bad_input)
{
	const unsigned int bad_flags[] = {
		F_THREAD | F_GROUP, F_THREAD | F_PGRP, F_GROUP | F_PGRP,
		F_THREAD | F_GROUP | F_PGRP, 1U << 3, 1U << 31, ~0U,
		F_THREAD | (1U << 4),
	};
	const int bad_fds[] = {
		-1, -2, -9999, -10002, -10003, INT_MIN,
	};
	const int bad_sigs[] = { -1, _NSIG + 1, 1000, INT_MAX };
	int fd, i;
	siginfo_t si;

	if (setup_skipped())
		return;
	fd = sys_pidfd_open(self->a.pid, 0);
	ASSERT_GE(fd, 0);

	for (i = 0; i < ARRAY_SIZE(bad_flags); i++) {
		EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_A, NULL,
						    bad_flags[i]));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("flags %#x", bad_flags[i]);
		}
		/* Flags are checked before the fd is looked at. */
		EXPECT_EQ(-1, sys_pidfd_send_signal(-1, SIG_A, NULL,
						    bad_flags[i]));
		EXPECT_EQ(EINVAL, errno);
	}

	for (i = 0; i < ARRAY_SIZE(bad_fds); i++) {
		EXPECT_EQ(-1, sys_pidfd_send_signal(bad_fds[i], SIG_A, NULL,
						    0));
		EXPECT_EQ(EBADF, errno) {
			TH_LOG("fd %d", bad_fds[i]);
		}
		EXPECT_EQ(-1, sys_pidfd_send_signal(bad_fds[i], SIG_A, NULL,
						    F_THREAD));
		EXPECT_EQ(EBADF, errno);
	}

	for (i = 0; i < ARRAY_SIZE(bad_sigs); i++) {
		unsigned int f;

		for (f = 0; f <= F_PGRP; f = f ? f << 1 : 1) {
			EXPECT_EQ(-1, sys_pidfd_send_signal(fd, bad_sigs[i],
							    NULL, f));
			EXPECT_EQ(EINVAL, errno) {
				TH_LOG("sig %d flags %#x", bad_sigs[i], f);
			}
		}
	}

	/* si_signo must match sig. */
	memset(&si, 0, sizeof(si));
	si.si_signo = SIG_B;
	si.si_code = SI_QUEUE;
	EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_A, &si, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_A, &si, F_THREAD));
	EXPECT_EQ(EINVAL, errno);

	/* A regular file is no handle. */
	close(fd);
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_A, NULL, F_THREAD));
	EXPECT_EQ(EBADF, errno);
	close(fd);

	/* Nothing reached the agent. */
	EXPECT_EQ(0, agent_pending(&self->a, SIG_A));
	EXPECT_EQ(0, agent_pending(&self->a, SIG_B));
}

/*
 * PIDFD_SIGNAL_PROCESS_GROUP: a group led by agent a with member b. The
 * sender c runs as uid 2000; a runs as 2000 too, b as 1000, so c may signal
 * a but not b. The result must be what kill(-pgid) gives.
 */
FIXTURE(pgrp) {
	struct agent a, b, c;
};

FIXTURE_SETUP(pgrp)
{
	self->b.pid = 0;
	self->c.pid = 0;
	if (!have_scope_flags())
		SKIP(return, "pidfd_send_signal() has no scope flags");
	if (geteuid() != 0)
		SKIP(return, "needs root (agents run as other uids)");
	ASSERT_EQ(0, agent_start(&self->a, 0, 2000));
	ASSERT_EQ(0, agent_start(&self->b, self->a.pid, 1000));
	ASSERT_EQ(0, agent_start(&self->c, -1, 2000));
}

FIXTURE_TEARDOWN(pgrp)
{
	agent_stop(&self->c);
	agent_stop(&self->b);
	agent_stop(&self->a);
}

TEST_F(pgrp, all_members)
{
	int kinds[] = { H_PIDFD, H_PROC, H_THREAD_MAIN, H_TASK_MAIN };
	int i, fd;

	if (setup_skipped())
		return;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (kinds[i] == H_THREAD_MAIN && !have_thread_pidfd())
			continue;
		if (kinds[i] == H_TASK_MAIN && !have_task_fd())
			continue;
		fd = open_handle(kinds[i], self->a.pid, self->a.worker);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, sys_pidfd_send_signal(fd, SIG_A, NULL, F_PGRP));
		expect_delivery(_metadata, &self->a, SIG_A, AT_SHARED, SI_USER,
				getpid(), getuid(), "leader");
		expect_delivery(_metadata, &self->b, SIG_A, AT_SHARED, SI_USER,
				getpid(), getuid(), "member");
		EXPECT_EQ(0, agent_pending(&self->c, SIG_A));
		close(fd);
	}
}

TEST_F(pgrp, non_leader_target)
{
	int fd = sys_pidfd_open(self->b.pid, 0);

	if (setup_skipped())
		return;
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, sys_pidfd_send_signal(fd, SIG_A, NULL, F_PGRP));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(0, agent_pending(&self->a, SIG_A));
	EXPECT_EQ(0, agent_pending(&self->b, SIG_A));
	close(fd);
}

TEST_F(pgrp, skips_unpermitted_member)
{
	struct agent_cmd kc = { .op = OP_KILL, .pid = -self->a.pid,
				.sig = SIG_A };
	struct agent_cmd oc = { .op = OP_OPEN, .kind = H_PIDFD,
				.pid = self->a.pid };
	struct agent_cmd sc = { .op = OP_SEND, .sig = SIG_A, .flags = F_PGRP };
	struct agent_res r;
	int i;

	if (setup_skipped())
		return;
	/* c opens a pidfd on a: pidfd_open() needs no permission. */
	r = agent_do(&self->c, &oc);
	ASSERT_GE(r.ret, 0);
	sc.fd = r.ret;

	for (i = 0; i < 2; i++) {
		/* First the reference, kill(-pgid); then the pidfd. */
		r = agent_do(&self->c, i ? &sc : &kc);
		ASSERT_EQ(0, r.ret) {
			TH_LOG("%s: %s", i ? "pidfd" : "kill(-pgid)",
			       strerror(r.err));
		}
		expect_delivery(_metadata, &self->a, SIG_A, AT_SHARED,
				SI_USER, self->c.pid, 2000, "permitted member");
		EXPECT_EQ(0, agent_pending(&self->b, SIG_A)) {
			TH_LOG("unpermitted member was signaled");
		}
	}
}

/* When c may signal no member at all, both give EPERM. */
TEST_F(pgrp, no_permitted_member)
{
	struct agent_cmd oc = { .op = OP_OPEN, .kind = H_PIDFD };
	struct agent_cmd kc = { .op = OP_KILL, .sig = SIG_A };
	struct agent_cmd sc = { .op = OP_SEND, .sig = SIG_A, .flags = F_PGRP };
	struct agent d, e;
	struct agent_res r;

	if (setup_skipped())
		return;
	ASSERT_EQ(0, agent_start(&d, 0, 1000));
	ASSERT_EQ(0, agent_start(&e, d.pid, 1000));
	oc.pid = d.pid;
	kc.pid = -d.pid;
	r = agent_do(&self->c, &oc);
	ASSERT_GE(r.ret, 0);
	sc.fd = r.ret;

	r = agent_do(&self->c, &kc);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EPERM, r.err);
	r = agent_do(&self->c, &sc);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EPERM, r.err);
	EXPECT_EQ(0, agent_pending(&d, SIG_A));
	EXPECT_EQ(0, agent_pending(&e, SIG_A));
	agent_stop(&e);
	agent_stop(&d);
}

TEST_HARNESS_MAIN
