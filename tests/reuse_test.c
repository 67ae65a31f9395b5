// SPDX-License-Identifier: GPL-2.0
/* Covers: a PID forced to be reused via ns_last_pid is never reached through the old handle, while kill(2) on the number hits the newcomer. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_conformance.h"
#include "kselftest_harness.h"

#define NS_LAST_PID "/proc/sys/kernel/ns_last_pid"

enum old_handle {
	HANDLE_PIDFD_OPEN,
	HANDLE_PROC_DIR,
	HANDLE_CLONE3,
};

/* The next fork in our pid namespace gets @pid (if it is free). */
static int set_next_pid(pid_t pid)
{
	char buf[32];
	int fd, len, ret;

	fd = open(NS_LAST_PID, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d", pid - 1);
	ret = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

/* Start A and take the kind of handle under test to it. */
static pid_t start_old(enum old_handle kind, int *oldfd)
{
	struct pfc_clone_args args = {
		.flags = CLONE_PIDFD,
		.pidfd = (uintptr_t)oldfd,
		.exit_signal = SIGCHLD,
	};
	pid_t pid;

	if (kind == HANDLE_CLONE3) {
		pid = sys_clone3(&args);
		if (pid == 0)
			_exit(0);
		return pid;
	}
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return pid;
	/* A may be a zombie already: both handles can still be taken. */
	if (kind == HANDLE_PROC_DIR)
		*oldfd = pfc_open_proc_dir(pid, O_RDONLY);
	else
		*oldfd = sys_pidfd_open(pid, 0);
	return pid;
}

/*
 * Runs as PID 1 of a fresh pid namespace (and mount namespace, with its
 * own /proc), so nothing else allocates pids under us.
 */
static void __attribute__((noreturn)) reuse_scenario(enum old_handle kind)
{
	struct pfc_report r;
	int oldfd = -1, newfd, rfd, status;
	pid_t a, b;

	CHILD_ASSERT(getpid() == 1);
	CHILD_ASSERT(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	CHILD_ASSERT(mount("proc", "/proc", "proc", 0, NULL) == 0);

	CHILD_ASSERT(set_next_pid(PFC_RECYCLE_PID) == 0);
	a = start_old(kind, &oldfd);
	CHILD_ASSERT(a == PFC_RECYCLE_PID);
	CHILD_ASSERT(oldfd >= 0);
	status = pfc_reap(a);
	CHILD_ASSERT(pfc_exited_ok(status));
	errno = 0;
	CHILD_ASSERT(sys_pidfd_send_signal(oldfd, 0, NULL, 0) == -1 &&
		     errno == ESRCH);

	/*
	 * B takes A's number.  It waits for SIGUSR2; a SIGUSR1 wrongly
	 * delivered through the old handle would stay pending (blocked).
	 */
	CHILD_ASSERT(pfc_block(SIGUSR1) == 0);
	CHILD_ASSERT(set_next_pid(a) == 0);
	b = pfc_fork_receiver(SIGUSR2, &rfd);
	CHILD_ASSERT(b == a);

	errno = 0;
	CHILD_ASSERT(sys_pidfd_send_signal(oldfd, SIGUSR1, NULL, 0) == -1 &&
		     errno == ESRCH);
	errno = 0;
	CHILD_ASSERT(sys_pidfd_send_signal(oldfd, 0, NULL, 0) == -1 &&
		     errno == ESRCH);
	errno = 0;
	CHILD_ASSERT(sys_pidfd_send_signal(oldfd, SIGKILL, NULL, 0) == -1 &&
		     errno == ESRCH);

	/* The number itself now names B: kill(2) reaches it. */
	CHILD_ASSERT(kill(a, SIGUSR2) == 0);
	CHILD_ASSERT(pfc_read_report(rfd, &r) == 0);
	CHILD_ASSERT(r.ret == SIGUSR2);
	CHILD_ASSERT(r.code == SI_USER);
	CHILD_ASSERT(r.pid == 1);
	CHILD_ASSERT(r.self == a);
	CHILD_ASSERT((r.pending & PFC_SIGBIT(SIGUSR1)) == 0);
	CHILD_ASSERT(r.pending == 0);
	CHILD_ASSERT(pfc_exited_ok(pfc_reap(b)));

	/* A fresh handle to the number works while B lives (control). */
	b = pfc_fork_sleeper();
	CHILD_ASSERT(b > 0);
	newfd = sys_pidfd_open(b, 0);
	CHILD_ASSERT(newfd >= 0);
	CHILD_ASSERT(sys_pidfd_send_signal(newfd, SIGKILL, NULL, 0) == 0);
	status = pfc_reap(b);
	CHILD_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	_exit(0);
}

static void run_reuse(struct __test_metadata *_metadata,
		      enum old_handle kind)
{
	int status;
	pid_t init;

	if (access(NS_LAST_PID, W_OK))
		SKIP(return, NS_LAST_PID " missing (needs CONFIG_CHECKPOINT_RESTORE)");
	if (unshare(CLONE_NEWPID) == -1)
		SKIP(return, "unshare(CLONE_NEWPID): %s", strerror(errno));

	init = fork();
	ASSERT_GE(init, 0);
	if (init == 0) {
		pfc_child_setup();
		CHILD_ASSERT(unshare(CLONE_NEWNS) == 0);
		reuse_scenario(kind);
	}
	status = pfc_reap(init);
	ASSERT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("namespace init: status %#x (see its messages above)",
		       status);
	}
}

TEST(reuse_pidfd_open_handle)
{
	run_reuse(_metadata, HANDLE_PIDFD_OPEN);
}

TEST(reuse_proc_dir_handle)
{
	run_reuse(_metadata, HANDLE_PROC_DIR);
}

TEST(reuse_clone3_handle)
{
	run_reuse(_metadata, HANDLE_CLONE3);
}

TEST_HARNESS_MAIN
