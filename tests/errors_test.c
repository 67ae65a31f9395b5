// SPDX-License-Identifier: GPL-2.0
/* Covers: the EBADF, EINVAL and EPERM cases of pidfd_send_signal() and pidfd_open(). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_conformance.h"
#include "kselftest_harness.h"

TEST(ebadf_regular_file)
{
	char path[] = "/tmp/pfc-regular-XXXXXX";
	int fd;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0) {
		TH_LOG("mkstemp in /tmp: %s", strerror(errno));
	}
	unlink(path);
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, 0, NULL, 0));
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, SIGUSR1, NULL, 0));
	close(fd);
}

/* An O_PATH fd of a live process's /proc directory is no handle. */
TEST(ebadf_opath_proc_dir)
{
	int fd, procfd;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	fd = pfc_open_proc_dir(getpid(), O_PATH);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, 0, NULL, 0));
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, SIGUSR1, NULL, 0));
	ASSERT_EQ(0, pfc_pending_mask());
	/* The same directory opened for reading is a handle. */
	procfd = pfc_open_proc_dir(getpid(), O_RDONLY);
	ASSERT_GE(procfd, 0);
	ASSERT_EQ(0, sys_pidfd_send_signal(procfd, 0, NULL, 0));
	close(procfd);
	close(fd);
}

TEST(ebadf_closed_fd)
{
	int fd;

	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, close(fd));
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, 0, NULL, 0));
}

TEST(ebadf_minus_one)
{
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(-1, 0, NULL, 0));
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(-1, SIGKILL, NULL, 0));
}

/* Directories and files of /proc that are not /proc/<pid> are not handles. */
TEST(ebadf_other_proc_and_pipe_fds)
{
	int fd, p[2];

	fd = open("/proc", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, 0, NULL, 0));
	close(fd);

	fd = open("/proc/self/fd", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, 0, NULL, 0));
	close(fd);

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(fd, 0, NULL, 0));
	close(fd);

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	ASSERT_ERRNO(EBADF, sys_pidfd_send_signal(p[0], 0, NULL, 0));
	close(p[0]);
	close(p[1]);
}

/*
 * Bits outside 0x7 are unknown on every kernel (our series gives 1, 2 and
 * 4 a meaning).  Flags are checked before the fd.
 */
TEST(einval_unknown_flags)
{
	int pidfd;

	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(pidfd, 0, NULL,
						   PFC_BAD_SEND_FLAG));
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(pidfd, 0, NULL,
						   PFC_BAD_SEND_FLAG_HIGH));
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(pidfd, 0, NULL, ~7U));
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(-1, 0, NULL,
						   PFC_BAD_SEND_FLAG));
	close(pidfd);
}

TEST(einval_signal_65)
{
	int pidfd;

	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(pidfd, 65, NULL, 0));
	close(pidfd);
}

TEST(einval_signal_minus_1)
{
	int pidfd;

	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(pidfd, -1, NULL, 0));
	close(pidfd);
}

TEST(einval_signo_mismatch)
{
	siginfo_t info;
	int pidfd;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	ASSERT_EQ(0, pfc_block(SIGUSR2));
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	pfc_queue_info(&info, SIGUSR2, SI_QUEUE, getpid(), 1);
	ASSERT_ERRNO(EINVAL, sys_pidfd_send_signal(pidfd, SIGUSR1, &info, 0));
	ASSERT_EQ(0, pfc_pending_mask()) {
		TH_LOG("a rejected signal was queued anyway");
	}
	close(pidfd);
}

/*
 * Try to forge @code to a receiver child: EPERM.  Then a plain signal
 * proves the receiver got exactly that one, with kernel-made siginfo.
 */
static void forge_to_child(struct __test_metadata *_metadata, int code)
{
	struct pfc_report r;
	siginfo_t info;
	int rfd, pidfd;
	pid_t pid;

	pid = pfc_fork_receiver(SIGUSR1, &rfd);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	pfc_queue_info(&info, SIGUSR1, code, 4242, 7);
	ASSERT_ERRNO(EPERM, sys_pidfd_send_signal(pidfd, SIGUSR1, &info, 0));

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_EQ(SIGUSR1, r.ret);
	ASSERT_EQ(SI_USER, r.code);
	ASSERT_EQ(getpid(), r.pid) {
		TH_LOG("receiver saw the forged siginfo (si_pid %d)", r.pid);
	}
	ASSERT_EQ(0, r.pending);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(pidfd);
}

TEST(eperm_si_user_to_other)
{
	forge_to_child(_metadata, SI_USER);
}

/* Any si_code >= 0 is the kernel's to set, SI_KERNEL included. */
TEST(eperm_si_kernel_to_other)
{
	forge_to_child(_metadata, SI_KERNEL);
}

TEST(eperm_si_tkill_to_other)
{
	forge_to_child(_metadata, SI_TKILL);
}

/*
 * An unprivileged child holding (inherited) handles to a root process
 * gets EPERM for real signals and for the sig 0 probe: the handle carries
 * no privilege, the caller's credentials decide.
 */
TEST(eperm_unprivileged_to_root)
{
	int pidfd, procfd, status;
	siginfo_t info;
	pid_t victim, child;

	if (getuid() != 0)
		SKIP(return, "needs root");
	victim = pfc_fork_sleeper();
	ASSERT_GT(victim, 0);
	pidfd = sys_pidfd_open(victim, 0);
	ASSERT_GE(pidfd, 0);
	procfd = pfc_open_proc_dir(victim, O_RDONLY);
	ASSERT_GE(procfd, 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		CHILD_ASSERT(pfc_drop_to_unprivileged() == 0);
		CHILD_ASSERT(geteuid() == PFC_UNPRIV_ID);
		errno = 0;
		CHILD_ASSERT(sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == -1 &&
			     errno == EPERM);
		errno = 0;
		CHILD_ASSERT(sys_pidfd_send_signal(pidfd, 0, NULL, 0) == -1 &&
			     errno == EPERM);
		errno = 0;
		CHILD_ASSERT(sys_pidfd_send_signal(procfd, SIGKILL, NULL, 0) == -1 &&
			     errno == EPERM);
		_exit(0);
	}
	status = pfc_reap(child);
	EXPECT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("unprivileged child: status %#x", status);
	}

	/* The victim is untouched. */
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PIDFD, pidfd, &info, WEXITED | WNOHANG));
	ASSERT_EQ(0, info.si_pid) {
		TH_LOG("root victim died");
	}
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));
	ASSERT_NE(-1, pfc_reap(victim));
	close(procfd);
	close(pidfd);
}

/* The control for the test above: same uid may signal. */
TEST(unprivileged_to_same_uid_allowed)
{
	int pidfd, status, ready[2];
	pid_t victim, child;
	char c;

	if (getuid() != 0)
		SKIP(return, "needs root");
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	victim = fork();
	ASSERT_GE(victim, 0);
	if (victim == 0) {
		CHILD_ASSERT(pfc_drop_to_unprivileged() == 0);
		CHILD_ASSERT(write(ready[1], "u", 1) == 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	/* Only signal it once it runs as uid 1000. */
	ASSERT_EQ(1, read(ready[0], &c, 1)) {
		pfc_kill_reap(victim);
	}
	close(ready[0]);
	pidfd = sys_pidfd_open(victim, 0);
	ASSERT_GE(pidfd, 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		CHILD_ASSERT(pfc_drop_to_unprivileged() == 0);
		CHILD_ASSERT(sys_pidfd_send_signal(pidfd, 0, NULL, 0) == 0);
		CHILD_ASSERT(sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == 0);
		_exit(0);
	}
	status = pfc_reap(child);
	ASSERT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("unprivileged child: status %#x", status);
		pfc_kill_reap(victim);
	}
	status = pfc_reap(victim);
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	close(pidfd);
}

TEST(pidfd_open_invalid_arguments)
{
	ASSERT_ERRNO(EINVAL, sys_pidfd_open(getpid(), 1));
	ASSERT_ERRNO(EINVAL, sys_pidfd_open(getpid(), 1U << 31));
	ASSERT_ERRNO(EINVAL, sys_pidfd_open(0, 0));
	ASSERT_ERRNO(EINVAL, sys_pidfd_open(-1, 0));
	/* Above PID_MAX_LIMIT: can never exist. */
	ASSERT_ERRNO(ESRCH, sys_pidfd_open(INT_MAX, 0));
}

/* Every pidfd_open() fd is close-on-exec, and so the handle never leaks. */
TEST(pidfd_open_is_cloexec)
{
	int pidfd, flags;

	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	flags = fcntl(pidfd, F_GETFD);
	ASSERT_GE(flags, 0);
	ASSERT_TRUE(flags & FD_CLOEXEC);
	close(pidfd);
}

/*
 * Upstream 6.16 answers ENOENT where older kernels said EINVAL. Probe a
 * feature of that generation instead of reading a version number: the
 * PIDFD_SELF_* sentinels (6.15 on, and our series). A 6.15 kernel has
 * them but still says EINVAL, and would fail here; no plan boots one.
 */
static int has_pidfd_self_sentinels(void)
{
	return syscall(SYS_pidfd_send_signal, -10000, 0, NULL, 0) == 0 &&
	       syscall(SYS_pidfd_send_signal, -10001, 0, NULL, 0) == 0;
}

static int ready_pipe[2], release_pipe[2];

static void *idle_thread(void *arg)
{
	pid_t *tid = arg;
	char c;

	*tid = syscall(SYS_gettid);
	if (write(ready_pipe[1], "r", 1) != 1)
		return NULL;
	/* Park until the main thread closes the release pipe. */
	while (read(release_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

/* Without flags, pidfd_open() wants a thread-group leader. */
TEST(pidfd_open_non_leader_refused)
{
	pid_t tid = 0;
	pthread_t th;
	char c;

	ASSERT_EQ(0, pipe2(ready_pipe, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(release_pipe, O_CLOEXEC));
	ASSERT_EQ(0, pthread_create(&th, NULL, idle_thread, &tid));
	ASSERT_EQ(1, read(ready_pipe[0], &c, 1));
	ASSERT_GT(tid, 0);
	ASSERT_NE(getpid(), tid);

	/* 5.3 to 6.15 say EINVAL; 6.16 (and our series) ENOENT, as a hint. */
	ASSERT_ERRNO(has_pidfd_self_sentinels() ? ENOENT : EINVAL,
		     sys_pidfd_open(tid, 0));

	close(release_pipe[1]);
	ASSERT_EQ(0, pthread_join(th, NULL));
}

TEST_HARNESS_MAIN
