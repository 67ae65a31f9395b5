// SPDX-License-Identifier: GPL-2.0
/*
 * Thread pidfds (PIDFD_THREAD): opening, F_GETFL, CLONE_PIDFD with
 * CLONE_THREAD, poll, waitid(P_PIDFD), exec by a thread other than the
 * leader, and tid reuse behind an old thread handle.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd.h"
#include "pidfd_agent.h"
#include "../kselftest_harness.h"

#define EXEC_HELPER_ENV "PIDFD_THREAD_TEST_EXEC_FD"

/*
 * After a thread other than the leader has exec'd this binary: report
 * getpid() and gettid() on the inherited pipe, then wait for EOF on stdin
 * of the pipe the test keeps, and exit.
 */
static void __attribute__((constructor)) exec_helper(void)
{
	const char *env = getenv(EXEC_HELPER_ENV);
	pid_t ids[2];
	int wfd, rfd;
	char c;

	if (!env)
		return;
	if (sscanf(env, "%d,%d", &wfd, &rfd) != 2)
		_exit(1);
	ids[0] = getpid();
	ids[1] = sys_gettid();
	if (write(wfd, ids, sizeof(ids)) != sizeof(ids))
		_exit(1);
	while (read(rfd, &c, 1) > 0)
		;
	_exit(0);
}

static int poll_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, timeout_ms);

	return ret < 0 ? -1 : ret == 0 ? 0 : p.revents;
}

TEST(open_flags)
{
	int fd, flags, non_leader_errno;
	pid_t worker;
	struct agent a;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	fd = sys_pidfd_open(getpid(), PIDFD_THREAD);
	ASSERT_GE(fd, 0);
	flags = fcntl(fd, F_GETFL);
	EXPECT_EQ(PIDFD_THREAD, flags & PIDFD_THREAD);
	EXPECT_EQ(0, flags & O_NONBLOCK);
	close(fd);

	fd = sys_pidfd_open(getpid(), PIDFD_THREAD | PIDFD_NONBLOCK);
	ASSERT_GE(fd, 0);
	flags = fcntl(fd, F_GETFL);
	EXPECT_EQ(PIDFD_THREAD, flags & PIDFD_THREAD);
	EXPECT_EQ(O_NONBLOCK, flags & O_NONBLOCK);
	close(fd);

	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, fcntl(fd, F_GETFL) & PIDFD_THREAD);
	close(fd);

	/* Unknown flags stay EINVAL, with or without PIDFD_THREAD. */
	EXPECT_EQ(-1, sys_pidfd_open(getpid(), PIDFD_THREAD | O_CLOEXEC));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_pidfd_open(getpid(), PIDFD_THREAD | 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_pidfd_open(getpid(), O_CREAT));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_pidfd_open(0, PIDFD_THREAD));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_pidfd_open(-1, PIDFD_THREAD));
	EXPECT_EQ(EINVAL, errno);

	/*
	 * A thread other than the leader needs PIDFD_THREAD: ENOENT since
	 * upstream 6.16, EINVAL before. The sentinels tell the generation
	 * apart (6.12, the reference, has neither).
	 */
	non_leader_errno = have_self_sentinels() ? ENOENT : EINVAL;
	ASSERT_EQ(0, agent_start(&a, -1, -1));
	worker = a.worker;
	EXPECT_EQ(-1, sys_pidfd_open(worker, 0));
	EXPECT_EQ(non_leader_errno, errno);
	EXPECT_EQ(-1, sys_pidfd_open(worker, PIDFD_NONBLOCK));
	EXPECT_EQ(non_leader_errno, errno);
	fd = sys_pidfd_open(worker, PIDFD_THREAD);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(0, sys_pidfd_send_signal(fd, 0, NULL, 0));
	close(fd);
	agent_stop(&a);
}

static int clone_thread_fn(void *arg)
{
	int *pipefd = arg;
	char c;

	/* Wait until told to go, then leave as a thread. */
	syscall(__NR_read, pipefd[0], &c, 1);
	syscall(__NR_exit, 0);
	return 0;
}

TEST(clone_thread_pidfd)
{
	const size_t stack_size = 64 * 1024;
	int pidfd = -1, pipefd[2], ret;
	char *stack;
	pid_t tid;

	/* Never freed: the thread may still be leaving when we return. */
	stack = malloc(stack_size);
	ASSERT_FALSE(!stack);
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	tid = clone(clone_thread_fn, stack + stack_size,
		    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		    CLONE_THREAD | CLONE_SYSVSEM | CLONE_PIDFD,
		    pipefd, &pidfd);
	if (tid < 0 && errno == EINVAL)
		SKIP(return, "CLONE_PIDFD | CLONE_THREAD is refused");
	ASSERT_GT(tid, 0);
	ASSERT_GE(pidfd, 0);

	EXPECT_EQ(PIDFD_THREAD, fcntl(pidfd, F_GETFL) & PIDFD_THREAD);
	EXPECT_EQ(0, sys_pidfd_send_signal(pidfd, 0, NULL, 0));
	EXPECT_EQ(0, poll_fd(pidfd, 0));

	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	ret = poll_fd(pidfd, 3000);
	EXPECT_EQ(POLLIN, ret & POLLIN);

	/* Once it is gone the handle is dead, whatever the scope. */
	while (sys_pidfd_send_signal(pidfd, 0, NULL, 0) == 0)
		usleep(1000);
	EXPECT_EQ(ESRCH, errno);
	close(pidfd);
	close(pipefd[0]);
	close(pipefd[1]);
}

/*
 * A child process with a leader and two threads, each leaving when told
 * through its own pipe.
 */
struct tgroup {
	pid_t pid;
	pid_t tid[3];	/* [0] is the leader */
	int go[3];	/* write end: tell thread i to exit */
};

static int tgroup_go[3][2];
static pid_t tgroup_tids[3];

static void *tgroup_thread(void *arg)
{
	long i = (long)arg;
	char c;

	__atomic_store_n(&tgroup_tids[i], sys_gettid(), __ATOMIC_SEQ_CST);
	while (read(tgroup_go[i][0], &c, 1) > 0)
		;
	syscall(__NR_exit, 0);
	return NULL;
}

static int tgroup_start(struct tgroup *g)
{
	int ids[2], i;

	if (pipe2(ids, O_CLOEXEC))
		return -1;
	for (i = 0; i < 3; i++)
		if (pipe2(tgroup_go[i], O_CLOEXEC))
			return -1;

	g->pid = fork();
	if (g->pid < 0)
		return -1;
	if (g->pid == 0) {
		pthread_t t;
		int k;
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (k = 0; k < 3; k++)
			close(tgroup_go[k][1]);
		tgroup_tids[0] = getpid();
		for (k = 1; k < 3; k++) {
			if (pthread_create(&t, NULL, tgroup_thread,
					   (void *)(long)k))
				_exit(1);
			while (!__atomic_load_n(&tgroup_tids[k],
						__ATOMIC_SEQ_CST))
				usleep(1000);
		}
		if (write(ids[1], tgroup_tids, sizeof(tgroup_tids)) !=
		    sizeof(tgroup_tids))
			_exit(1);
		while (read(tgroup_go[0][0], &c, 1) > 0)
			;
		/* Only the leader thread leaves; the process lives on. */
		syscall(__NR_exit, 0);
	}

	for (i = 0; i < 3; i++) {
		close(tgroup_go[i][0]);
		g->go[i] = tgroup_go[i][1];
	}
	close(ids[1]);
	if (!full_read(ids[0], g->tid, sizeof(g->tid)))
		return -1;
	close(ids[0]);
	return 0;
}

static void tgroup_exit(struct tgroup *g, int i)
{
	if (g->go[i] >= 0) {
		close(g->go[i]);
		g->go[i] = -1;
	}
}

/*
 * Poll as upstream: a thread pidfd on a thread other than the leader is
 * readable as soon as that thread has exited; a process pidfd and a thread
 * pidfd on the leader only once the whole thread group has exited, even if
 * the leader itself exited first. Waiters must be woken in each case.
 */
TEST(poll_thread_exit)
{
	struct tgroup g;
	int pfd, lfd, t1, t2;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	ASSERT_EQ(0, tgroup_start(&g));
	pfd = sys_pidfd_open(g.pid, 0);
	lfd = sys_pidfd_open(g.pid, PIDFD_THREAD);
	t1 = sys_pidfd_open(g.tid[1], PIDFD_THREAD);
	t2 = sys_pidfd_open(g.tid[2], PIDFD_THREAD);
	ASSERT_GE(pfd, 0);
	ASSERT_GE(lfd, 0);
	ASSERT_GE(t1, 0);
	ASSERT_GE(t2, 0);
	EXPECT_EQ(0, poll_fd(pfd, 0));
	EXPECT_EQ(0, poll_fd(lfd, 0));
	EXPECT_EQ(0, poll_fd(t1, 0));

	/* A thread exits: only its own pidfd becomes readable. */
	tgroup_exit(&g, 1);
	EXPECT_EQ(POLLIN, poll_fd(t1, 3000) & POLLIN);
	EXPECT_EQ(0, poll_fd(t2, 0));
	EXPECT_EQ(0, poll_fd(lfd, 0));
	EXPECT_EQ(0, poll_fd(pfd, 0));

	/* The leader exits first: its handles stay quiet. */
	tgroup_exit(&g, 0);
	usleep(100 * 1000);
	EXPECT_EQ(0, poll_fd(lfd, 0));
	EXPECT_EQ(0, poll_fd(pfd, 0));
	EXPECT_EQ(0, poll_fd(t2, 0));
	/* The zombie leader can still be signaled through its handle. */
	EXPECT_EQ(0, sys_pidfd_send_signal(lfd, 0, NULL, 0));

	/* The last thread exits: now the whole group is gone. */
	tgroup_exit(&g, 2);
	EXPECT_EQ(POLLIN, poll_fd(lfd, 3000) & POLLIN);
	EXPECT_EQ(POLLIN, poll_fd(pfd, 0) & POLLIN);
	EXPECT_EQ(POLLIN, poll_fd(t2, 0) & POLLIN);

	/* Reaped: hangup too. */
	EXPECT_EQ(g.pid, waitpid(g.pid, NULL, 0));
	EXPECT_EQ(POLLIN | POLLHUP, poll_fd(pfd, 0));
	EXPECT_EQ(POLLIN | POLLHUP, poll_fd(lfd, 0));
	close(pfd);
	close(lfd);
	close(t1);
	close(t2);
}

/*
 * waitid(P_PIDFD) as upstream: a thread pidfd on the leader waits for the
 * process like a process pidfd; one on another thread gives ECHILD.
 */
TEST(waitid_thread_pidfd)
{
	struct tgroup g;
	siginfo_t info;
	int lfd, t1;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	ASSERT_EQ(0, tgroup_start(&g));
	lfd = sys_pidfd_open(g.pid, PIDFD_THREAD);
	t1 = sys_pidfd_open(g.tid[1], PIDFD_THREAD);
	ASSERT_GE(lfd, 0);
	ASSERT_GE(t1, 0);

	memset(&info, 0, sizeof(info));
	EXPECT_EQ(-1, waitid(P_PIDFD, t1, &info, WEXITED | WNOHANG));
	EXPECT_EQ(ECHILD, errno);
	EXPECT_EQ(0, waitid(P_PIDFD, lfd, &info, WEXITED | WNOHANG));
	EXPECT_EQ(0, info.si_pid);

	tgroup_exit(&g, 0);
	tgroup_exit(&g, 1);
	tgroup_exit(&g, 2);
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, waitid(P_PIDFD, lfd, &info, WEXITED));
	EXPECT_EQ(g.pid, info.si_pid);
	EXPECT_EQ(CLD_EXITED, info.si_code);
	close(lfd);
	close(t1);
}

static int execer_fds[2];	/* report pipe, hold pipe */

/* Report our tid, wait for the go, exec this binary as the helper. */
static void *execer(void *arg)
{
	char env[64], self[] = "/proc/self/exe";
	char *argv[2], *envp[2];
	pid_t tid = sys_gettid();
	char c;

	argv[0] = self;
	argv[1] = NULL;
	envp[0] = env;
	envp[1] = NULL;

	if (write(execer_fds[0], &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	if (read(execer_fds[1], &c, 1) != 1)
		_exit(1);
	snprintf(env, sizeof(env), EXEC_HELPER_ENV "=%d,%d", execer_fds[0],
		 execer_fds[1]);
	execve(self, argv, envp);
	_exit(1);
}

/*
 * A thread other than the leader execs. As upstream (de_thread() swaps the
 * two struct pids), afterwards the process handles and the old leader's
 * thread handles refer to the exec'ing thread, now the leader, and the
 * exec'ing thread's own old thread handles refer to nothing: ESRCH.
 */
TEST(exec_by_non_leader)
{
	int pfd, lfd, tfd, procfd, tl = -1, tt = -1;
	int report[2], hold[2];
	struct tgroup g;
	pid_t ids[2];
	bool taskfd = have_task_fd();
	siginfo_t info;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(hold));
	g.pid = fork();
	ASSERT_GE(g.pid, 0);
	if (g.pid == 0) {
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		block_test_signals();
		close(report[0]);
		close(hold[1]);
		execer_fds[0] = report[1];
		execer_fds[1] = hold[0];
		if (pthread_create(&t, NULL, execer, NULL))
			_exit(1);
		/* The leader waits to be reaped by de_thread(). */
		for (;;)
			pause();
	}

	close(report[1]);
	close(hold[0]);
	ASSERT_TRUE(full_read(report[0], &g.tid[1], sizeof(pid_t)));

	pfd = sys_pidfd_open(g.pid, 0);
	lfd = sys_pidfd_open(g.pid, PIDFD_THREAD);
	tfd = sys_pidfd_open(g.tid[1], PIDFD_THREAD);
	procfd = open_handle(H_PROC, g.pid, 0);
	ASSERT_GE(pfd, 0);
	ASSERT_GE(lfd, 0);
	ASSERT_GE(tfd, 0);
	ASSERT_GE(procfd, 0);
	if (taskfd) {
		tl = open_handle(H_TASK_MAIN, g.pid, g.tid[1]);
		tt = open_handle(H_TASK_WORKER, g.pid, g.tid[1]);
		ASSERT_GE(tl, 0);
		ASSERT_GE(tt, 0);
	}

	/* Let the thread exec and wait for the new image to report. */
	ASSERT_EQ(1, write(hold[1], "g", 1));
	ASSERT_TRUE(full_read(report[0], ids, sizeof(ids)));
	EXPECT_EQ(g.pid, ids[0]);
	EXPECT_EQ(g.pid, ids[1]);

	/* Process handles: the process, now led by the exec'd thread. */
	EXPECT_EQ(0, sys_pidfd_send_signal(pfd, SIG_A, NULL, 0));
	EXPECT_EQ(1, task_pending(g.pid, g.pid, SIG_A, true));
	EXPECT_EQ(0, sys_pidfd_send_signal(procfd, 0, NULL, 0));

	/*
	 * The old leader's thread handle: the exec'd thread (thread-directed
	 * once pidfd_send_signal() honours PIDFD_THREAD).
	 */
	EXPECT_EQ(0, sys_pidfd_send_signal(lfd, SIG_B, NULL, 0));
	if (have_scope_flags())
		EXPECT_EQ(1, task_pending(g.pid, g.pid, SIG_B, false));
	if (taskfd) {
		EXPECT_EQ(0, sys_pidfd_send_signal(tl, SIGRTMIN + 1, NULL, 0));
		EXPECT_EQ(1, task_pending(g.pid, g.pid, SIGRTMIN + 1, false));
	}

	/* The exec'ing thread's old tid handles: nothing. */
	EXPECT_EQ(-1, sys_pidfd_send_signal(tfd, SIGRTMIN + 2, NULL, 0));
	EXPECT_EQ(ESRCH, errno);
	if (have_scope_flags()) {
		EXPECT_EQ(-1, sys_pidfd_send_signal(tfd, SIGRTMIN + 2, NULL,
						    PIDFD_SIGNAL_THREAD_GROUP));
		EXPECT_EQ(ESRCH, errno);
	}
	if (taskfd) {
		EXPECT_EQ(-1, sys_pidfd_send_signal(tt, SIGRTMIN + 2, NULL, 0));
		EXPECT_EQ(ESRCH, errno);
	}
	EXPECT_EQ(0, task_pending(g.pid, g.pid, SIGRTMIN + 2, false));
	EXPECT_EQ(0, task_pending(g.pid, g.pid, SIGRTMIN + 2, true));
	EXPECT_EQ(POLLIN | POLLHUP, poll_fd(tfd, 0));
	EXPECT_EQ(0, poll_fd(pfd, 0));
	EXPECT_EQ(0, poll_fd(lfd, 0));
	EXPECT_EQ(-1, waitid(P_PIDFD, tfd, &info, WEXITED | WNOHANG));
	EXPECT_EQ(ECHILD, errno);

	/* Let it go and reap it through the old leader's thread pidfd. */
	close(hold[1]);
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, waitid(P_PIDFD, lfd, &info, WEXITED));
	EXPECT_EQ(g.pid, info.si_pid);
	EXPECT_EQ(CLD_EXITED, info.si_code);
	close(pfd);
	close(lfd);
	close(tfd);
	close(procfd);
	close_handle(tl);
	close_handle(tt);
}

/*
 * A thread exits and its tid is handed out again (forced through
 * ns_last_pid in a new pid namespace): the old handles never reach the new
 * thread. Runs as pid 1 of the new namespace; reports a line number on
 * failure.
 */
#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "# line %d: %s (%s)\n", __LINE__, #cond, \
		strerror(errno)); _exit(__LINE__ & 0x7f ? : 1); } } while (0)

static int reuse_go[2];
static pid_t reuse_tid;

static void *reuse_thread(void *arg)
{
	char c;

	__atomic_store_n(&reuse_tid, sys_gettid(), __ATOMIC_SEQ_CST);
	read(reuse_go[0], &c, 1);
	return NULL;
}

static int reuse_child(void)
{
	unsigned int scopes[] = { 0, PIDFD_SIGNAL_THREAD,
				  PIDFD_SIGNAL_THREAD_GROUP,
				  PIDFD_SIGNAL_PROCESS_GROUP };
	int fds[2] = { -1, -1 }, nfds = 1, i, j, fd;
	bool scope = have_scope_flags();
	char path[64];
	pthread_t t;
	pid_t old;
	FILE *f;

	block_test_signals();
	/* A private /proc for this pid namespace. */
	CHECK(!unshare(CLONE_NEWNS));
	CHECK(!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	CHECK(!mount("proc", "/proc", "proc", 0, NULL));
	if (have_task_fd())
		nfds = 2;

	CHECK(!pipe(reuse_go));
	CHECK(!pthread_create(&t, NULL, reuse_thread, NULL));
	while (!__atomic_load_n(&reuse_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	old = reuse_tid;

	fds[0] = sys_pidfd_open(old, PIDFD_THREAD);
	CHECK(fds[0] >= 0);
	if (nfds == 2) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d", getpid(),
			 old);
		fds[1] = open(path, O_DIRECTORY | O_CLOEXEC);
		CHECK(fds[1] >= 0);
	}

	/* The thread exits and is released. */
	CHECK(write(reuse_go[1], "x", 1) == 1);
	CHECK(!pthread_join(t, NULL));
	for (i = 0; i < 3000 && poll_fd(fds[0], 0) != (POLLIN | POLLHUP); i++)
		usleep(1000);
	CHECK(poll_fd(fds[0], 0) == (POLLIN | POLLHUP));

	/* Hand its tid to the next thread. */
	f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	CHECK(f);
	fprintf(f, "%d", old - 1);
	CHECK(!fclose(f));
	__atomic_store_n(&reuse_tid, 0, __ATOMIC_SEQ_CST);
	CHECK(!pthread_create(&t, NULL, reuse_thread, NULL));
	while (!__atomic_load_n(&reuse_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	CHECK(reuse_tid == old);

	for (i = 0; i < nfds; i++) {
		for (j = 0; j < (scope ? 4 : 1); j++) {
			errno = 0;
			CHECK(sys_pidfd_send_signal(fds[i], SIG_A, NULL,
						    scopes[j]) == -1);
			CHECK(errno == ESRCH);
		}
	}
	CHECK(task_pending(getpid(), old, SIG_A, false) == 0);
	CHECK(task_pending(getpid(), old, SIG_A, true) == 0);

	/* A fresh handle on the new thread works. */
	fd = sys_pidfd_open(old, PIDFD_THREAD);
	CHECK(fd >= 0);
	CHECK(sys_pidfd_send_signal(fd, SIG_A, NULL, 0) == 0);
	CHECK(task_pending(getpid(), old, SIG_A, false) == 1);

	CHECK(write(reuse_go[1], "x", 1) == 1);
	CHECK(!pthread_join(t, NULL));
	return 0;
}

TEST(tid_reuse)
{
	int status;
	pid_t pid;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");
	if (access("/proc/sys/kernel/ns_last_pid", W_OK))
		SKIP(return, "no writable ns_last_pid (CONFIG_CHECKPOINT_RESTORE)");
	ASSERT_EQ(0, unshare(CLONE_NEWPID)) {
		TH_LOG("unshare(CLONE_NEWPID): %s", strerror(errno));
	}
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(reuse_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("failed at line %d (mod 128)", WEXITSTATUS(status));
	}
}

TEST_HARNESS_MAIN
