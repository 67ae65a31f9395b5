// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl(pidfd, PIDFD_GET_INFO): what a pidfd tells about its process, as
 * upstream 7.1 has it. Ids as the caller sees them; the exit status only
 * once the task is reaped, and still after that; thread pidfds describe
 * their thread; the struct is extensible by size; a pid outside the
 * caller's pid namespace is EREMOTE. Every case skips when the kernel
 * has no PIDFD_GET_INFO (upstream 6.12, our series before it).
 */

#include "pidfd_handle.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "../kselftest_harness.h"

TEST(live_process_ids)
{
	struct pidfd_info info;
	int pipefd[2], pidfd;
	pid_t pid;

	if (!have_get_info())
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	/* PID and CREDS come whether asked for or not. */
	ASSERT_EQ(get_info(pidfd, 0, &info), 0);
	EXPECT_TRUE(info.mask & PIDFD_INFO_PID);
	EXPECT_TRUE(info.mask & PIDFD_INFO_CREDS);
	EXPECT_EQ(info.pid, pid);
	EXPECT_EQ(info.tgid, pid);
	EXPECT_EQ(info.ppid, getpid());
	EXPECT_EQ(info.ruid, getuid());
	EXPECT_EQ(info.euid, geteuid());
	EXPECT_EQ(info.rgid, getgid());
	EXPECT_EQ(info.egid, getegid());
	EXPECT_TRUE(!(info.mask & PIDFD_INFO_CGROUPID) || info.cgroupid);
	/* Not asked for, not given. */
	EXPECT_FALSE(info.mask & PIDFD_INFO_SUPPORTED_MASK);
	EXPECT_EQ(info.supported_mask, 0);

	/* Alive: no exit information even when asked for. */
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_FALSE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_EQ(info.exit_code, 0);

	close(pipefd[1]);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(pidfd);
}

TEST(all_six_credentials)
{
	struct pidfd_info info;
	int pipefd[2], ready[2], pidfd;
	pid_t pid;
	char c;

	if (!have_get_info())
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	if (geteuid())
		SKIP(return, "needs root to set distinct ids");
	ASSERT_EQ(pipe(pipefd), 0);
	ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(pipefd[1]);
		close(ready[0]);
		if (setresgid(2000, 2001, 2002) || setresuid(1000, 1001, 1002))
			_exit(1);
		close(ready[1]);
		read(pipefd[0], &c, 1);
		_exit(0);
	}
	close(pipefd[0]);
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 0); /* the ids are set */
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_CREDS, &info), 0);
	EXPECT_EQ(info.ruid, 1000);
	EXPECT_EQ(info.euid, 1001);
	EXPECT_EQ(info.suid, 1002);
	EXPECT_EQ(info.fsuid, 1001);
	EXPECT_EQ(info.rgid, 2000);
	EXPECT_EQ(info.egid, 2001);
	EXPECT_EQ(info.sgid, 2002);
	EXPECT_EQ(info.fsgid, 2001);
	close(pipefd[1]);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(pidfd);
}

/* A zombie has exited but is not reaped: no exit information yet. */
TEST(zombie_has_no_exit_yet)
{
	struct pidfd_info info;
	siginfo_t si;
	int pidfd;
	pid_t pid;

	if (!(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_GET_INFO with PIDFD_INFO_EXIT");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(7);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);

	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_FALSE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_TRUE(info.mask & PIDFD_INFO_CREDS);
	EXPECT_EQ(info.pid, pid);

	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(pidfd);
}

static void check_reaped(struct __test_metadata *_metadata, int pidfd,
			 int status)
{
	struct pidfd_info info;

	/* Without EXIT there is nothing left to tell. */
	EXPECT_EQ(get_info(pidfd, 0, &info), -1);
	EXPECT_EQ(errno, ESRCH);
	EXPECT_EQ(get_info(pidfd, PIDFD_INFO_CREDS, &info), -1);
	EXPECT_EQ(errno, ESRCH);

	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_FALSE(info.mask & PIDFD_INFO_PID);
	EXPECT_FALSE(info.mask & PIDFD_INFO_CREDS);
	EXPECT_EQ(info.exit_code, status) {
		TH_LOG("exit_code %#x, waitpid said %#x", info.exit_code,
		       status);
	}
	/* Twice the same: the record does not go away. */
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_EQ(info.exit_code, status);
}

TEST(exit_status_after_reap)
{
	int pidfd, status;
	pid_t pid;

	if (!(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_GET_INFO with PIDFD_INFO_EXIT");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(42);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 42);

	check_reaped(_metadata, pidfd, status);
	close(pidfd);
}

TEST(signal_death_after_reap)
{
	struct pidfd_info info;
	int pipefd[2], pidfd, status;
	pid_t pid;

	if (!(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_GET_INFO with PIDFD_INFO_EXIT");
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFSIGNALED(status));

	check_reaped(_metadata, pidfd, status);
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_TRUE(WIFSIGNALED(info.exit_code));
	EXPECT_EQ(WTERMSIG(info.exit_code), SIGKILL);
	close(pipefd[1]);
	close(pidfd);
}

static void *sleep_forever(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/*
 * The leader exits on its own (exit(2) of one thread), then the group is
 * killed: the process ended by SIGKILL, for wait(2) and for the pidfd.
 */
TEST(group_killed_after_leader_exit)
{
	struct pidfd_info info;
	int pidfd, status;
	pthread_t t;
	pid_t pid;

	if (!(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_GET_INFO with PIDFD_INFO_EXIT");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (pthread_create(&t, NULL, sleep_forever, NULL))
			_exit(1);
		syscall(SYS_exit, 0); /* this thread only */
		_exit(2);
	}
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	/* The leader alone is gone: the process is not reported yet. */
	usleep(100000);
	EXPECT_FALSE(pidfd_readable(pidfd, 0));
	ASSERT_EQ(sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFSIGNALED(status));

	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_EQ(info.exit_code, status);
	EXPECT_EQ(WTERMSIG(info.exit_code), SIGKILL);
	close(pidfd);
}

static int thread_tid_pipe[2];

static void *report_tid_then_exit(void *arg)
{
	pid_t tid = gettid();
	char c;

	write(thread_tid_pipe[1], &tid, sizeof(tid));
	/* Go when told, with a status of this thread's own. */
	read(thread_tid_pipe[0], &c, 1);
	syscall(SYS_exit, 5);
	return NULL;
}

/* A thread pidfd describes its thread, and gets the thread's own end. */
TEST(thread_pidfd)
{
	struct pidfd_info info;
	int to_child[2], pidfd, tfd, status;
	pid_t pid, tid;
	pthread_t t;

	if (!(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_GET_INFO with PIDFD_INFO_EXIT");
	ASSERT_EQ(pipe(thread_tid_pipe), 0);
	ASSERT_EQ(pipe(to_child), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char c;

		/* The thread reads its go from to_child[0]. */
		close(to_child[1]);
		thread_tid_pipe[0] = to_child[0];
		if (pthread_create(&t, NULL, report_tid_then_exit, NULL))
			_exit(1);
		pthread_join(t, NULL);
		/* The leader stays until the test closes the pipe. */
		read(to_child[0], &c, 1);
		_exit(0);
	}
	ASSERT_EQ(read(thread_tid_pipe[0], &tid, sizeof(tid)), sizeof(tid));
	ASSERT_NE(tid, pid);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	tfd = sys_pidfd_open(tid, PIDFD_THREAD);
	if (tfd < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP(return, "no PIDFD_THREAD");
	}

	ASSERT_EQ(get_info(tfd, 0, &info), 0);
	EXPECT_EQ(info.pid, tid);
	EXPECT_EQ(info.tgid, pid);
	EXPECT_EQ(info.ppid, getpid());
	ASSERT_EQ(get_info(pidfd, 0, &info), 0);
	EXPECT_EQ(info.pid, pid);
	EXPECT_EQ(info.tgid, pid);

	/* The thread ends with 5; a thread is released when it exits. */
	ASSERT_EQ(write(to_child[1], "g", 1), 1);
	ASSERT_TRUE(pidfd_reaped(tfd, 5000));
	ASSERT_EQ(get_info(tfd, PIDFD_INFO_EXIT, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_TRUE(WIFEXITED(info.exit_code));
	EXPECT_EQ(WEXITSTATUS(info.exit_code), 5);
	/* The process lives on: no exit for it. */
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_FALSE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_TRUE(info.mask & PIDFD_INFO_CREDS);

	close(to_child[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_EQ(info.exit_code, status);
	close(tfd);
	close(pidfd);
}

/*
 * Run as the program a thread execs in non_leader_exec: wait until the
 * test closes the pipe on stdin, then exit with 7.
 */
#define EXEC_HELPER_ENV "PIDFD_GET_INFO_EXEC_HELPER"

__attribute__((constructor)) static void exec_helper(void)
{
	char c;

	if (!getenv(EXEC_HELPER_ENV))
		return;
	while (read(STDIN_FILENO, &c, 1) < 0 && errno == EINTR)
		;
	_exit(7);
}

static int exec_tid_pipe[2];

static void *report_tid_then_exec(void *arg)
{
	pid_t tid = gettid();
	char c;

	write(exec_tid_pipe[1], &tid, sizeof(tid));
	read(exec_tid_pipe[0], &c, 1);
	setenv(EXEC_HELPER_ENV, "1", 1);
	execl("/proc/self/exe", "exec_helper", (char *)NULL);
	return NULL;
}

/*
 * A thread other than the leader execs: it becomes the leader under the
 * process's pid, and the old leader is released under the thread's old
 * pid. The thread pidfd of that old pid then reports a reaped task that
 * exited cleanly (status 0), the process pidfd a live process, as
 * upstream does since 6.15 (commits 4513522984a0 "pidfs: record exit
 * code and cgroupid at exit" and 0fb482728ba1 "pidfs: improve
 * multi-threaded exec and premature thread-group leader exit polling";
 * its selftest pidfd_info_test.c thread_group_exec_thread asserts the
 * same).
 */
TEST(non_leader_exec)
{
	struct pidfd_info info;
	int to_child[2], hold[2], pidfd, tfd, status;
	pid_t pid, tid;
	pthread_t t;

	if (!(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_GET_INFO with PIDFD_INFO_EXIT");
	ASSERT_EQ(pipe(exec_tid_pipe), 0);
	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(hold), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(to_child[1]);
		close(hold[1]);
		if (dup2(hold[0], STDIN_FILENO) != STDIN_FILENO)
			_exit(1);
		exec_tid_pipe[0] = to_child[0];
		if (pthread_create(&t, NULL, report_tid_then_exec, NULL))
			_exit(1);
		for (;;)
			pause();	/* until the exec kills this thread */
	}
	close(hold[0]);
	ASSERT_EQ(read(exec_tid_pipe[0], &tid, sizeof(tid)), sizeof(tid));
	ASSERT_NE(tid, pid);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	tfd = sys_pidfd_open(tid, PIDFD_THREAD);
	if (tfd < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP(return, "no PIDFD_THREAD");
	}

	ASSERT_EQ(write(to_child[1], "g", 1), 1);
	ASSERT_TRUE(pidfd_reaped(tfd, 5000));
	EXPECT_EQ(get_info(tfd, 0, &info), -1);
	EXPECT_EQ(errno, ESRCH);
	ASSERT_EQ(get_info(tfd, PIDFD_INFO_EXIT, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_FALSE(info.mask & PIDFD_INFO_CREDS);
	EXPECT_TRUE(WIFEXITED(info.exit_code));
	EXPECT_EQ(WEXITSTATUS(info.exit_code), 0);

	/* The process lives on, under its pid, running the new program. */
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_FALSE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_TRUE(info.mask & PIDFD_INFO_CREDS);
	EXPECT_EQ(info.pid, pid);
	EXPECT_FALSE(pidfd_readable(pidfd, 0));

	close(hold[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 7);
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	EXPECT_EQ(info.exit_code, status);
	close(to_child[1]);
	close(tfd);
	close(pidfd);
}

/* The size is part of the command: every version, and a larger one. */
TEST(struct_size_versions)
{
	static const unsigned int sizes[] = {
		PIDFD_INFO_SIZE_VER0, PIDFD_INFO_SIZE_VER1,
		PIDFD_INFO_SIZE_VER2, PIDFD_INFO_SIZE_VER3, 96, 128,
	};
	unsigned char buf[160];
	__u64 mask, supported;
	__u32 pid;
	unsigned int i, j;
	bool fits;
	int pidfd;

	if (!have_get_info())
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned int size = sizes[i];

		memset(buf, 0xaa, sizeof(buf));
		mask = PIDFD_INFO_SUPPORTED_MASK;
		memcpy(buf, &mask, sizeof(mask));
		ASSERT_EQ(ioctl(pidfd, GET_INFO_CMD(_IOC_READ | _IOC_WRITE,
						    size), buf), 0) {
			TH_LOG("size %u: errno %d", size, errno);
		}
		memcpy(&mask, buf, sizeof(mask));
		memcpy(&pid, buf + 16, sizeof(pid));
		EXPECT_TRUE(mask & PIDFD_INFO_PID);
		EXPECT_EQ(pid, getpid());
		/* Nothing beyond the size the caller named is written. */
		for (j = size; j < sizeof(buf); j++)
			ASSERT_EQ(buf[j], 0xaa) {
				TH_LOG("size %u: byte %u written", size, j);
			}
		/* supported_mask only when it fits. */
		memcpy(&supported, buf + 80, sizeof(supported));
		if (size >= PIDFD_INFO_SIZE_VER3)
			fits = supported & PIDFD_INFO_PID;
		else
			fits = supported == 0xaaaaaaaaaaaaaaaaULL;
		EXPECT_TRUE(fits) {
			TH_LOG("size %u: supported_mask %#llx", size,
			       (unsigned long long)supported);
		}
		/* Beyond what the kernel knows: zeroed. */
		for (j = PIDFD_INFO_SIZE_VER3; j < size; j++)
			ASSERT_EQ(buf[j], 0) {
				TH_LOG("size %u: byte %u not zeroed", size, j);
			}
	}
	close(pidfd);
}

TEST(bad_commands)
{
	struct pidfd_info info = { 0 };
	unsigned char small[64] = { 0 };
	int pidfd, pipefd[2];

	if (!have_get_info())
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);

	/* Below the first version: not this ioctl (upstream since 6.18). */
	EXPECT_EQ(ioctl(pidfd, GET_INFO_CMD(_IOC_READ | _IOC_WRITE, 4),
			small), -1);
	EXPECT_EQ(errno, ENOTTY);
	EXPECT_EQ(ioctl(pidfd, GET_INFO_CMD(_IOC_READ | _IOC_WRITE,
					    PIDFD_INFO_SIZE_VER0 - 8), small),
		  -1);
	EXPECT_EQ(errno, ENOTTY);
	/* The wrong direction. */
	EXPECT_EQ(ioctl(pidfd, GET_INFO_CMD(_IOC_READ, sizeof(info)), &info),
		  -1);
	EXPECT_EQ(errno, ENOTTY);
	EXPECT_EQ(ioctl(pidfd, GET_INFO_CMD(_IOC_NONE, 0), &info), -1);
	EXPECT_EQ(errno, ENOTTY);
	/* Another number on the magic. */
	EXPECT_EQ(ioctl(pidfd, _IOWR(PIDFS_IOCTL_MAGIC, 12, struct pidfd_info),
			&info), -1);
	EXPECT_EQ(errno, ENOTTY);
	/* No buffer. */
	EXPECT_EQ(ioctl(pidfd, PIDFD_GET_INFO, NULL), -1);
	EXPECT_EQ(errno, EINVAL);
	/* A bad one. */
	EXPECT_EQ(ioctl(pidfd, PIDFD_GET_INFO, (void *)8), -1);
	EXPECT_EQ(errno, EFAULT);
	/* Not a pidfd. */
	ASSERT_EQ(pipe(pipefd), 0);
	EXPECT_EQ(ioctl(pipefd[0], PIDFD_GET_INFO, &info), -1);
	EXPECT_EQ(errno, ENOTTY);
	close(pipefd[0]);
	close(pipefd[1]);
	close(pidfd);
}

TEST(mask_semantics)
{
	struct pidfd_info info;
	__u64 supported;
	int pidfd;

	if (!have_get_info())
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_SUPPORTED_MASK, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_SUPPORTED_MASK);
	supported = info.supported_mask;
	EXPECT_EQ(supported & (PIDFD_INFO_PID | PIDFD_INFO_CREDS |
			       PIDFD_INFO_SUPPORTED_MASK),
		  PIDFD_INFO_PID | PIDFD_INFO_CREDS |
		  PIDFD_INFO_SUPPORTED_MASK);
	/* The mask reports what was filled: always within supported. */
	EXPECT_EQ(info.mask & ~supported, 0);

	/* Unknown bits are ignored, not refused, and not echoed. */
	ASSERT_EQ(get_info(pidfd, (1ULL << 63) | PIDFD_INFO_PID, &info), 0);
	EXPECT_EQ(info.mask & (1ULL << 63), 0);
	EXPECT_TRUE(info.mask & PIDFD_INFO_PID);

	/* Whatever is asked for, nothing outside supported comes back. */
	ASSERT_EQ(get_info(pidfd, ~0ULL, &info), 0);
	EXPECT_EQ(info.mask & ~supported, 0) {
		TH_LOG("mask %#llx, supported %#llx",
		       (unsigned long long)info.mask,
		       (unsigned long long)supported);
	}
	/* A coredump bit never without its support. */
	if (!(supported & PIDFD_INFO_COREDUMP)) {
		EXPECT_FALSE(info.mask & (PIDFD_INFO_COREDUMP |
					  PIDFD_INFO_COREDUMP_SIGNAL |
					  PIDFD_INFO_COREDUMP_CODE));
		EXPECT_EQ(info.coredump_mask, 0);
	}
	close(pidfd);
}

/*
 * Seen from a pid namespace in which the process has no number: EREMOTE
 * (upstream since 7.0), while the caller's own view is in its namespace.
 */
TEST(other_pid_namespace)
{
	struct pidfd_info info;
	int pipefd[2], pidfd, status;
	pid_t pid, outer;

	if (!have_get_info())
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	outer = fork();
	ASSERT_GE(outer, 0);
	if (outer == 0) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(errno == EPERM ? 100 : 101);
		inner = fork();
		if (inner < 0)
			_exit(102);
		if (inner == 0) {
			int self;

			if (get_info(pidfd, 0, &info) != -1)
				_exit(1);
			if (errno != EREMOTE)
				_exit(2);
			/* EREMOTE also when asking for the exit. */
			if (get_info(pidfd, PIDFD_INFO_EXIT, &info) != -1 ||
			    errno != EREMOTE)
				_exit(3);
			self = sys_pidfd_open(getpid(), 0);
			if (self < 0 || get_info(self, 0, &info))
				_exit(4);
			/* We are 1 here; our parent is not in our ns. */
			if (info.pid != 1 || info.tgid != 1 || info.ppid != 0)
				_exit(5);
			_exit(0);
		}
		if (waitpid(inner, &status, 0) != inner)
			_exit(103);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 104);
	}
	ASSERT_EQ(waitpid(outer, &status, 0), outer);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 100) {
		close(pipefd[1]);
		waitpid(pid, NULL, 0);
		SKIP(return, "cannot create a pid namespace");
	}
	EXPECT_EQ(WEXITSTATUS(status), 0);

	close(pipefd[1]);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(pidfd);
}

TEST_HARNESS_MAIN
