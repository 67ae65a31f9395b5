// SPDX-License-Identifier: GPL-2.0
/*
 * The clone3() flags of upstream 7.1 that tie a child to its pidfd:
 * CLONE_AUTOREAP (no zombie, no exit signal, status through the pidfd),
 * CLONE_NNP (no_new_privs in the child only) and CLONE_PIDFD_AUTOKILL
 * (SIGKILL when the pidfd file clone3() returned is released). Every
 * admission rule with its errno, and both lifetimes. A case skips when
 * the kernel lacks the flags (an unknown flag is EINVAL: the probe).
 */

#include "pidfd_handle.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>

#include "../kselftest_harness.h"

/*
 * Are these flags, and PIDFD_INFO_EXIT to read the result, in this
 * kernel? A test that gets false skips.
 */
static bool have(uint64_t flags)
{
	if (!have_clone_flags(flags)) {
		ksft_print_msg("clone3(%#llx): errno %d\n",
			       (unsigned long long)flags, errno);
		return false;
	}
	if (!(supported_info() & PIDFD_INFO_EXIT)) {
		ksft_print_msg("no PIDFD_INFO_EXIT\n");
		return false;
	}
	return true;
}

#define AUTOREAP_SET (CLONE_PIDFD | CLONE_AUTOREAP)
#define NNP_SET (CLONE_PIDFD | CLONE_AUTOREAP | CLONE_NNP)
#define AUTOKILL_SET (CLONE_PIDFD | CLONE_AUTOREAP | CLONE_NNP | \
		      CLONE_PIDFD_AUTOKILL)

/* Expect clone3(flags, exit_signal) to fail with err, creating nothing. */
static void expect_refused(struct __test_metadata *_metadata, uint64_t flags,
			   int sig, int err)
{
	pid_t pid = clone3_fork(flags, sig, NULL);

	if (pid == 0)
		_exit(0);
	EXPECT_EQ(pid, -1) {
		TH_LOG("clone3(%#llx, %d) created %d",
		       (unsigned long long)flags, sig, pid);
	}
	EXPECT_EQ(errno, err) {
		TH_LOG("clone3(%#llx, %d): errno %d, not %d",
		       (unsigned long long)flags, sig, errno, err);
	}
}

#define THREAD_FLAGS (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)
#define AUTOKILL_FLAGS (CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL)

/* The status the pidfd reports once the child is gone; -1: none. */
static int reaped_status(struct __test_metadata *_metadata, int pidfd)
{
	struct pidfd_info info;

	if (!pidfd_reaped(pidfd, 10000)) {
		TH_LOG("the child was not reaped");
		return -1;
	}
	if (get_info(pidfd, PIDFD_INFO_EXIT, &info)) {
		TH_LOG("PIDFD_GET_INFO: errno %d", errno);
		return -1;
	}
	if (!(info.mask & PIDFD_INFO_EXIT)) {
		TH_LOG("no exit information");
		return -1;
	}
	return info.exit_code;
}

/* The child blocks until @fd (a pipe's read end) reaches end of file. */
static void wait_eof_exit(int fd, int code)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(code);
}

TEST(autoreap_refusals)
{
	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	/* Nobody is to be signaled. */
	expect_refused(_metadata, CLONE_PIDFD | CLONE_AUTOREAP, SIGCHLD, EINVAL);
	expect_refused(_metadata, CLONE_AUTOREAP, SIGUSR1, EINVAL);
	/* A process of its own, with us as its parent. */
	expect_refused(_metadata, CLONE_AUTOREAP | CLONE_PARENT, 0, EINVAL);
	expect_refused(_metadata, CLONE_AUTOREAP | THREAD_FLAGS, 0, EINVAL);
	expect_refused(_metadata, CLONE_PIDFD | CLONE_AUTOREAP | THREAD_FLAGS, 0, EINVAL);
}

/* An autoreaped process may not make siblings (CLONE_PARENT). */
TEST(autoreap_child_cannot_clone_parent)
{
	int pidfd, status;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pid_t sib = clone3_fork(CLONE_PARENT, 0, NULL);

		if (sib == 0)
			_exit(0);
		_exit(sib == -1 && errno == EINVAL ? 0 : 1);
	}
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(pidfd);

	/* The same from an ordinary child is allowed. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pid_t sib = clone3_fork(CLONE_PARENT, 0, NULL);

		if (sib == 0)
			_exit(0);
		_exit(sib > 0 ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	/* The sibling is our child. */
	EXPECT_GT(waitpid(-1, &status, __WALL), 0);
}

TEST(autoreap_exit_no_zombie_no_sigchld)
{
	sigset_t chld, pending;
	int pidfd, status;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, &chld, NULL), 0);
	/* The probe's child sent none either; start clean anyway. */
	signal(SIGCHLD, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);

	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(42);
	ASSERT_GE(pidfd, 0);
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 42);
	/* No zombie: nothing to wait for. */
	EXPECT_EQ(still_waitable(pid), 0);
	EXPECT_EQ(waitpid(pid, NULL, __WALL | WNOHANG), -1);
	EXPECT_EQ(errno, ECHILD);
	/* No exit signal. */
	ASSERT_EQ(sigpending(&pending), 0);
	EXPECT_FALSE(sigismember(&pending, SIGCHLD));
	close(pidfd);
}

TEST(autoreap_signal_death)
{
	int pipefd[2], pidfd, status;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	ASSERT_EQ(pipe(pipefd), 0);
	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(pipefd[1]);
		wait_eof_exit(pipefd[0], 0);
	}
	close(pipefd[0]);
	ASSERT_EQ(sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0), 0);
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
	EXPECT_EQ(still_waitable(pid), 0);
	close(pipefd[1]);
	close(pidfd);
}

/* Fire and forget: without a pidfd the child still leaves no zombie. */
TEST(autoreap_without_pidfd)
{
	int i;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	pid = clone3_fork(CLONE_AUTOREAP, 0, NULL);
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	for (i = 0; i < 500 && still_waitable(pid) == 1; i++)
		usleep(10000);
	EXPECT_EQ(still_waitable(pid), 0);
}

static void *exit_in_a_while(void *arg)
{
	usleep(200000);
	_exit(0);
	return NULL;
}

/* A parent blocked in wait() is woken, and finds nothing: ECHILD. */
TEST(autoreap_wakes_waiting_parent)
{
	int pidfd;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		exit_in_a_while(NULL);
		_exit(1);
	}
	alarm(20);
	EXPECT_EQ(waitpid(-1, NULL, __WALL), -1);
	EXPECT_EQ(errno, ECHILD);
	alarm(0);
	close(pidfd);
}

/* Reparented to a subreaper, the child is still reaped by the kernel. */
TEST(autoreap_after_reparenting)
{
	struct pidfd_info info;
	int pipefd[2], report[2], pidfd, status;
	pid_t middle, pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ASSERT_EQ(pipe(pipefd), 0);
	ASSERT_EQ(pipe(report), 0);
	middle = fork();
	ASSERT_GE(middle, 0);
	if (middle == 0) {
		pid_t child = clone3_fork(CLONE_AUTOREAP, 0, NULL);

		if (child == 0) {
			close(pipefd[1]);
			wait_eof_exit(pipefd[0], 33);
		}
		if (write(report[1], &child, sizeof(child)) != sizeof(child))
			_exit(1);
		_exit(child > 0 ? 0 : 2);
	}
	close(pipefd[0]);
	ASSERT_EQ(read(report[0], &pid, sizeof(pid)), sizeof(pid));
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(middle, &status, 0), middle);
	ASSERT_EQ(status, 0);

	/* It is ours now. */
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(get_info(pidfd, 0, &info), 0);
	EXPECT_EQ(info.ppid, getpid());

	close(pipefd[1]);
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 33);
	EXPECT_EQ(still_waitable(pid), 0);
	EXPECT_EQ(waitpid(-1, NULL, __WALL | WNOHANG), -1);
	EXPECT_EQ(errno, ECHILD);
	close(pidfd);
}

/* The autoreaped child's own children are ordinary. */
TEST(autoreap_not_inherited)
{
	int pidfd, status;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int st;
		pid_t g = fork();

		if (g == 0)
			_exit(77);
		if (g < 0 || waitpid(g, &st, 0) != g)
			_exit(1);
		_exit(WIFEXITED(st) && WEXITSTATUS(st) == 77 ? 0 : 2);
	}
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(pidfd);
}

static void *group_exit_later(void *arg)
{
	usleep(200000);
	syscall(SYS_exit_group, 99);
	return NULL;
}

/* Leader first, then the group: reaped once all are gone, group status. */
TEST(autoreap_multithreaded)
{
	int pidfd, status;
	pthread_t t;
	pid_t pid;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (pthread_create(&t, NULL, group_exit_later, NULL))
			_exit(1);
		syscall(SYS_exit, 0);
		_exit(2);
	}
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 99);
	EXPECT_EQ(still_waitable(pid), 0);
	close(pidfd);
}

static pid_t traced_child;

static void *trace_then_leave(void *arg)
{
	siginfo_t si;

	if (ptrace(PTRACE_SEIZE, traced_child, 0, 0))
		return (void *)1L;
	/* The child may go now (its pipe is closed by the caller). */
	close(*(int *)arg);
	/* Seen exited by us, the tracer, and left unreaped. */
	if (waitid(P_PID, traced_child, &si, WEXITED | WNOWAIT | __WALL))
		return (void *)2L;
	return NULL;
}

/*
 * While traced the tracer sees the exit; once the tracer (a thread of the
 * parent) goes away without reaping, the child is reaped.
 */
TEST(autoreap_tracer_leaves)
{
	int pipefd[2], pidfd, status;
	pthread_t t;
	void *ret;

	if (!have(AUTOREAP_SET))
		SKIP(return, "no CLONE_AUTOREAP");
	ASSERT_EQ(pipe(pipefd), 0);
	traced_child = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(traced_child, 0);
	if (traced_child == 0) {
		close(pipefd[1]);
		wait_eof_exit(pipefd[0], 3);
	}
	close(pipefd[0]);
	ASSERT_EQ(pthread_create(&t, NULL, trace_then_leave, &pipefd[1]), 0);
	ASSERT_EQ(pthread_join(t, &ret), 0);
	ASSERT_EQ((long)ret, 0);
	/* The tracer thread has exited: detached, and reaped then. */
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 3);
	EXPECT_EQ(still_waitable(traced_child), 0);
	close(pidfd);
}

TEST(nnp_child_only)
{
	int pidfd, status;
	pid_t pid;

	if (!have(NNP_SET))
		SKIP(return, "no CLONE_NNP");
	expect_refused(_metadata, CLONE_NNP | THREAD_FLAGS, 0, EINVAL);
	ASSERT_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);

	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_NNP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 1);
	close(pidfd);
	/* Ours is untouched. */
	EXPECT_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);

	/* Without the flag, the child inherits ours: 0. */
	pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	status = reaped_status(_metadata, pidfd);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(pidfd);

	/* Nor does it need autoreap: an ordinary child, waited for. */
	pid = clone3_fork(CLONE_NNP, SIGCHLD, NULL);
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 1);
}

TEST(autokill_refusals)
{
	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	expect_refused(_metadata, CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP, 0,
		       EINVAL);
	expect_refused(_metadata, CLONE_PIDFD | CLONE_PIDFD_AUTOKILL | CLONE_NNP, SIGCHLD,
		       EINVAL);
	expect_refused(_metadata, CLONE_PIDFD | CLONE_PIDFD_AUTOKILL | CLONE_NNP, 0,
		       EINVAL);
	expect_refused(_metadata, AUTOKILL_FLAGS | CLONE_NNP | THREAD_FLAGS, 0, EINVAL);
	/* exit_signal is refused by CLONE_AUTOREAP's rule. */
	expect_refused(_metadata, AUTOKILL_FLAGS | CLONE_NNP, SIGCHLD, EINVAL);
}

/*
 * Without CAP_SYS_ADMIN, autokill needs CLONE_NNP: EPERM, but only after
 * every EINVAL rule. Results are bits of the exit status of a child that
 * dropped its capabilities by becoming uid 1000.
 */
TEST(autokill_needs_nnp_or_cap_sys_admin)
{
	int status;
	pid_t pid;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	if (geteuid())
		SKIP(return, "needs root to drop privileges");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int bad = 0, fd;
		pid_t c;

		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(100);
		c = clone3_fork(AUTOKILL_FLAGS, 0, &fd);
		if (c == 0)
			_exit(0);
		if (!(c == -1 && errno == EPERM))
			bad |= 1;
		c = clone3_fork(CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL, 0, &fd);
		if (c == 0)
			_exit(0);
		if (!(c == -1 && errno == EINVAL))
			bad |= 2;
		c = clone3_fork(AUTOKILL_FLAGS, SIGCHLD, &fd);
		if (c == 0)
			_exit(0);
		if (!(c == -1 && errno == EINVAL))
			bad |= 4;
		c = clone3_fork(AUTOKILL_FLAGS | CLONE_NNP, 0, &fd);
		if (c == 0)
			_exit(0);
		if (c < 0)
			bad |= 8;
		else
			close(fd);
		_exit(bad);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0) {
		TH_LOG("failed checks %#x (1 EPERM, 2/4 EINVAL first, 8 NNP)",
		       WEXITSTATUS(status));
	}
}

/* Start a child that would live until told; return its clone3 pidfd. */
static int spawn_autokill(struct __test_metadata *_metadata, uint64_t extra,
			  pid_t *pidp, int pipefd[2])
{
	int pidfd;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = clone3_fork(AUTOKILL_FLAGS | extra, 0, &pidfd);
	if (pid == 0) {
		close(pipefd[1]);
		wait_eof_exit(pipefd[0], 9);
	}
	close(pipefd[0]);
	*pidp = pid;
	return pid > 0 ? pidfd : -1;
}

/* Closing the clone3 pidfd kills; another pidfd watches it happen. */
TEST(autokill_close_kills)
{
	int pipefd[2], pidfd, watch, status;
	pid_t pid;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	pidfd = spawn_autokill(_metadata, CLONE_NNP, &pid, pipefd);
	ASSERT_GE(pidfd, 0);
	watch = sys_pidfd_open(pid, 0);
	ASSERT_GE(watch, 0);
	usleep(100000);
	EXPECT_FALSE(pidfd_readable(watch, 0));

	close(pidfd);
	status = reaped_status(_metadata, watch);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
	EXPECT_EQ(still_waitable(pid), 0);
	close(pipefd[1]);
	close(watch);
}

/* A dup is the same file: the child lives until the last close. */
TEST(autokill_dup_keeps_alive)
{
	int pipefd[2], pidfd, copy, watch, status;
	pid_t pid;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	pidfd = spawn_autokill(_metadata, CLONE_NNP, &pid, pipefd);
	ASSERT_GE(pidfd, 0);
	watch = sys_pidfd_open(pid, 0);
	ASSERT_GE(watch, 0);
	copy = dup(pidfd);
	ASSERT_GE(copy, 0);

	close(pidfd);
	EXPECT_FALSE(pidfd_readable(watch, 300));
	EXPECT_EQ(sys_pidfd_send_signal(watch, 0, NULL, 0), 0);

	close(copy);
	status = reaped_status(_metadata, watch);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
	close(pipefd[1]);
	close(watch);
}

/* Another process holding the file (inherited by fork) keeps it alive. */
TEST(autokill_other_holder_keeps_alive)
{
	int pipefd[2], hold[2], pidfd, watch, status;
	pid_t pid, holder;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	pidfd = spawn_autokill(_metadata, CLONE_NNP, &pid, pipefd);
	ASSERT_GE(pidfd, 0);
	watch = sys_pidfd_open(pid, 0);
	ASSERT_GE(watch, 0);
	ASSERT_EQ(pipe(hold), 0);
	holder = fork();
	ASSERT_GE(holder, 0);
	if (holder == 0) {
		close(hold[1]);
		wait_eof_exit(hold[0], 0); /* holding pidfd until then */
	}
	close(hold[0]);

	close(pidfd);
	EXPECT_FALSE(pidfd_readable(watch, 300));

	close(hold[1]);
	ASSERT_EQ(waitpid(holder, NULL, 0), holder);
	status = reaped_status(_metadata, watch);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
	close(pipefd[1]);
	close(watch);
}

/* A pidfd_open() of the child is another file: it neither arms nor holds. */
TEST(autokill_pidfd_open_does_not_arm)
{
	int pipefd[2], pidfd, other, watch, status;
	pid_t pid;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	pidfd = spawn_autokill(_metadata, CLONE_NNP, &pid, pipefd);
	ASSERT_GE(pidfd, 0);
	watch = sys_pidfd_open(pid, 0);
	ASSERT_GE(watch, 0);
	other = sys_pidfd_open(pid, 0);
	ASSERT_GE(other, 0);

	close(other);
	EXPECT_FALSE(pidfd_readable(watch, 300));
	EXPECT_EQ(sys_pidfd_send_signal(watch, 0, NULL, 0), 0);

	/* It does not keep it alive either. */
	close(pidfd);
	status = reaped_status(_metadata, watch);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
	close(pipefd[1]);
	close(watch);
}

/* A child that ended on its own keeps its status; the close is harmless. */
TEST(autokill_after_normal_exit)
{
	int pipefd[2], pidfd, status;
	pid_t pid;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	pidfd = spawn_autokill(_metadata, CLONE_NNP, &pid, pipefd);
	ASSERT_GE(pidfd, 0);
	close(pipefd[1]);
	status = reaped_status(_metadata, pidfd);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 9);
	EXPECT_EQ(close(pidfd), 0);
}

static void *block_forever(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* The whole thread group dies; root may do without CLONE_NNP. */
TEST(autokill_thread_group_without_nnp_as_root)
{
	int pipefd[2], pidfd, watch, status;
	pid_t pid;

	if (!have(AUTOKILL_SET))
		SKIP(return, "no CLONE_PIDFD_AUTOKILL");
	if (geteuid())
		SKIP(return, "needs CAP_SYS_ADMIN");
	ASSERT_EQ(pipe(pipefd), 0);
	pid = clone3_fork(AUTOKILL_FLAGS, 0, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pthread_t t;

		close(pipefd[1]);
		if (pthread_create(&t, NULL, block_forever, NULL))
			_exit(1);
		/* Our no_new_privs is ours: not set. */
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0))
			_exit(2);
		wait_eof_exit(pipefd[0], 0);
	}
	close(pipefd[0]);
	watch = sys_pidfd_open(pid, 0);
	ASSERT_GE(watch, 0);
	usleep(100000);
	EXPECT_FALSE(pidfd_readable(watch, 0));
	close(pidfd);
	status = reaped_status(_metadata, watch);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
	close(pipefd[1]);
	close(watch);
}

TEST_HARNESS_MAIN
