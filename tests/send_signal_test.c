// SPDX-License-Identifier: GPL-2.0
/* Covers: delivery through /proc/<pid>, pidfd_open and CLONE_PIDFD handles; siginfo to self and to others; sig 0; scope. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_conformance.h"
#include "kselftest_harness.h"

/*
 * Check a receiver's report of a plain signal (no siginfo passed) sent by
 * us: the kernel fills in SI_USER and our pid and uid, like kill(2).
 */
#define ASSERT_PLAIN_SIGNAL_FROM_US(r, sig, child) do {			\
	ASSERT_EQ(sig, (r).ret) {					\
		TH_LOG("receiver dequeued %d (errno %d)", (r).ret, (r).err); \
	}								\
	ASSERT_EQ(sig, (r).signo);					\
	ASSERT_EQ(SI_USER, (r).code);					\
	ASSERT_EQ(getpid(), (r).pid);					\
	ASSERT_EQ(getuid(), (r).uid);					\
	ASSERT_EQ(child, (r).self);					\
	ASSERT_EQ(0, (r).pending & PFC_SIGBIT(sig));			\
} while (0)

TEST(proc_dir_fd_delivers)
{
	struct pfc_report r;
	int rfd, procfd;
	pid_t pid;

	pid = pfc_fork_receiver(SIGUSR1, &rfd);
	ASSERT_GT(pid, 0);
	procfd = pfc_open_proc_dir(pid, O_RDONLY);
	ASSERT_GE(procfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(procfd, SIGUSR1, NULL, 0)) {
		TH_LOG("pidfd_send_signal(/proc/%d): %s", pid, strerror(errno));
	}
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_PLAIN_SIGNAL_FROM_US(r, SIGUSR1, pid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(procfd);
}

TEST(pidfd_open_fd_delivers)
{
	struct pfc_report r;
	int rfd, pidfd;
	pid_t pid;

	pid = pfc_fork_receiver(SIGUSR1, &rfd);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0) {
		TH_LOG("pidfd_open(%d): %s", pid, strerror(errno));
	}

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_PLAIN_SIGNAL_FROM_US(r, SIGUSR1, pid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(pidfd);
}

TEST(clone3_pidfd_delivers)
{
	struct pfc_report r;
	int rfd, pidfd = -1;
	pid_t pid;

	pid = pfc_clone3_receiver(SIGUSR1, 0, &rfd, &pidfd);
	if (pid < 0 && errno == ENOSYS)
		SKIP(return, "clone3() not supported");
	ASSERT_GT(pid, 0) {
		TH_LOG("clone3(CLONE_PIDFD): %s", strerror(errno));
	}
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_PLAIN_SIGNAL_FROM_US(r, SIGUSR1, pid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(pidfd);
}

struct clone_receiver_arg {
	int sig;
	int wfd;
};

static int clone_receiver_fn(void *data)
{
	struct clone_receiver_arg *arg = data;

	pfc_child_setup();
	pfc_receiver_main(arg->sig, arg->wfd);
}

TEST(clone_pidfd_delivers)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	struct clone_receiver_arg arg = { .sig = SIGUSR1 };
	struct pfc_report r;
	int pidfd = -1, p[2];
	pid_t pid;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	arg.wfd = p[1];
	/* Legacy clone(2): the pidfd comes back through parent_tid. */
	pid = clone(clone_receiver_fn, stack + sizeof(stack),
		    CLONE_PIDFD | SIGCHLD, &arg, &pidfd);
	ASSERT_GT(pid, 0) {
		TH_LOG("clone(CLONE_PIDFD): %s", strerror(errno));
	}
	close(p[1]);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	ASSERT_EQ(0, pfc_read_report(p[0], &r));
	ASSERT_PLAIN_SIGNAL_FROM_US(r, SIGUSR1, pid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(pidfd);
}

/* SI_QUEUE is the one siginfo a caller may hand to another process. */
TEST(queue_info_to_child_arrives)
{
	struct pfc_report r;
	siginfo_t info;
	int rfd, pidfd;
	pid_t pid;

	pid = pfc_fork_receiver(SIGUSR2, &rfd);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	pfc_queue_info(&info, SIGUSR2, SI_QUEUE, getpid(), 0x5eed);
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR2, &info, 0)) {
		TH_LOG("SI_QUEUE to a child: %s", strerror(errno));
	}
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_EQ(SIGUSR2, r.ret);
	ASSERT_EQ(SI_QUEUE, r.code);
	ASSERT_EQ(0x5eed, r.value);
	ASSERT_EQ(getpid(), r.pid);
	ASSERT_EQ(getuid(), r.uid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(pidfd);
}

/*
 * Send @info to ourselves through a pidfd and dequeue it with the raw
 * syscall; the caller checks what arrived.
 */
static int send_to_self_and_take(int sig, siginfo_t *info, siginfo_t *out)
{
	struct timespec ts = { 0 };
	sigset_t set;
	int pidfd, ret;

	if (pfc_block(sig))
		return -1;
	pidfd = sys_pidfd_open(getpid(), 0);
	if (pidfd < 0)
		return -1;
	ret = sys_pidfd_send_signal(pidfd, sig, info, 0);
	close(pidfd);
	if (ret)
		return -1;
	sigemptyset(&set);
	sigaddset(&set, sig);
	memset(out, 0, sizeof(*out));
	return sys_rt_sigtimedwait(&set, out, &ts) == sig ? 0 : -1;
}

TEST(self_si_queue_intact)
{
	siginfo_t info, got;

	pfc_queue_info(&info, SIGUSR1, SI_QUEUE, getpid(), 0x12345678);
	ASSERT_EQ(0, send_to_self_and_take(SIGUSR1, &info, &got)) {
		TH_LOG("SI_QUEUE to self: %s", strerror(errno));
	}
	ASSERT_EQ(SIGUSR1, got.si_signo);
	ASSERT_EQ(SI_QUEUE, got.si_code);
	ASSERT_EQ(0x12345678, got.si_value.sival_int);
	ASSERT_EQ(getpid(), got.si_pid);
	ASSERT_EQ(getuid(), got.si_uid);
}

/* To ourselves even SI_TKILL passes, and is not rewritten on the way. */
TEST(self_si_tkill_intact)
{
	siginfo_t info, got;

	pfc_queue_info(&info, SIGUSR2, SI_TKILL, getpid(), 0);
	ASSERT_EQ(0, send_to_self_and_take(SIGUSR2, &info, &got)) {
		TH_LOG("SI_TKILL to self: %s", strerror(errno));
	}
	ASSERT_EQ(SIGUSR2, got.si_signo);
	ASSERT_EQ(SI_TKILL, got.si_code);
	ASSERT_EQ(getpid(), got.si_pid);
}

/*
 * A caller may forge any siginfo for itself, SI_USER included: the kernel
 * delivers our made-up si_pid verbatim instead of filling in its own.
 */
TEST(self_forged_si_user_intact)
{
	siginfo_t info, got;

	pfc_queue_info(&info, SIGUSR1, SI_USER, 4242, 0);
	ASSERT_EQ(0, send_to_self_and_take(SIGUSR1, &info, &got)) {
		TH_LOG("SI_USER with info to self: %s", strerror(errno));
	}
	ASSERT_EQ(SIGUSR1, got.si_signo);
	ASSERT_EQ(SI_USER, got.si_code);
	ASSERT_EQ(4242, got.si_pid);
}

/* Without flags a process handle signals the thread group, like kill(2). */
TEST(default_scope_is_thread_group)
{
	int pidfd;
	pid_t pid;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	pid = pfc_fork_sleeper();
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	EXPECT_EQ(PFC_SIGBIT(SIGUSR1), pfc_status_mask(pid, "ShdPnd")) {
		TH_LOG("SIGUSR1 not in the shared pending set");
	}
	EXPECT_EQ(0, pfc_status_mask(pid, "SigPnd")) {
		TH_LOG("something went to the thread's private queue");
	}
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));
	ASSERT_NE(-1, pfc_reap(pid));
	close(pidfd);
}

/* sig 0 checks the target exists and may be signaled, and sends nothing. */
TEST(sig0_probes_live_process)
{
	int pidfd, procfd;
	pid_t pid;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	pid = pfc_fork_sleeper();
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	procfd = pfc_open_proc_dir(pid, O_RDONLY);
	ASSERT_GE(procfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, 0, NULL, 0));
	ASSERT_EQ(0, sys_pidfd_send_signal(procfd, 0, NULL, 0));
	EXPECT_EQ(0, pfc_status_mask(pid, "ShdPnd"));
	EXPECT_EQ(0, pfc_status_mask(pid, "SigPnd"));
	/* The same probe really sees a queued signal (the check can fail). */
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	EXPECT_EQ(PFC_SIGBIT(SIGUSR1), pfc_status_mask(pid, "ShdPnd"));

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));
	ASSERT_NE(-1, pfc_reap(pid));
	close(procfd);
	close(pidfd);
}

TEST(sigkill_terminates)
{
	siginfo_t info;
	int pidfd;
	pid_t pid;

	pid = pfc_fork_sleeper();
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PIDFD, pidfd, &info, WEXITED)) {
		TH_LOG("waitid(P_PIDFD): %s", strerror(errno));
	}
	ASSERT_EQ(pid, info.si_pid);
	ASSERT_EQ(CLD_KILLED, info.si_code);
	ASSERT_EQ(SIGKILL, info.si_status);
	close(pidfd);
}

TEST_HARNESS_MAIN
