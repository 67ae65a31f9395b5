// SPDX-License-Identifier: GPL-2.0
/* Covers: a handle across the target's life: zombie, reaped (ESRCH), and execve (from the leader and from a thread). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_conformance.h"
#include "kselftest_harness.h"

#define HELPER_ENV "PFC_LIFETIME_HELPER"

/*
 * Helper mode: after execve() of /proc/self/exe the new image finds
 * HELPER_ENV=<sig>:<fd>, says "E" on fd (the exec is done), then acts as a
 * receiver for <sig>, which is still blocked across the exec.  It runs
 * before main() and, by its priority, before pfc_clean_signal_state()
 * could unblock <sig>.
 */
static void __attribute__((constructor(101))) lifetime_helper(void)
{
	const char *env = getenv(HELPER_ENV);
	int sig, fd;

	if (!env)
		return;
	if (sscanf(env, "%d:%d", &sig, &fd) != 2)
		_exit(100);
	pfc_child_setup();
	if (write(fd, "E", 1) != 1)
		_exit(101);
	pfc_receiver_main(sig, fd);
}

/* Child side: exec ourselves in helper mode, reporting to @wfd. */
static void exec_helper(int sig, int wfd)
{
	char env[64];
	char *argv[] = { "pfc-exec-helper", NULL };
	char *envp[] = { env, NULL };

	snprintf(env, sizeof(env), HELPER_ENV "=%d:%d", sig, wfd);
	/* The pipe end must survive this one exec. */
	fcntl(wfd, F_SETFD, 0);
	execve("/proc/self/exe", argv, envp);
	_exit(102);
}

/* A zombie still has its struct pid: it can be signaled, sig 0 included. */
TEST(zombie_can_be_signaled)
{
	int pidfd, procfd, status;
	siginfo_t info;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(7);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	procfd = pfc_open_proc_dir(pid, O_RDONLY);
	ASSERT_GE(procfd, 0);

	/* Wait until it is a zombie, but leave it unreaped. */
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PID, pid, &info, WEXITED | WNOWAIT));
	ASSERT_EQ(pid, info.si_pid);
	ASSERT_EQ(CLD_EXITED, info.si_code);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, 0, NULL, 0)) {
		TH_LOG("sig 0 to a zombie: %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_pidfd_send_signal(procfd, 0, NULL, 0));
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0));
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));

	/* None of it changed how it ended. */
	status = pfc_reap(pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(7, WEXITSTATUS(status));
	close(procfd);
	close(pidfd);
}

/* Once reaped, every handle type says ESRCH, for sig 0 and real signals. */
TEST(reaped_gives_esrch)
{
	int pidfd, procfd, clonefd = -1;
	struct pfc_clone_args args = {
		.flags = CLONE_PIDFD,
		.pidfd = (uintptr_t)&clonefd,
		.exit_signal = SIGCHLD,
	};
	pid_t pid;

	pid = sys_clone3(&args);
	if (pid < 0 && errno == ENOSYS)
		SKIP(return, "clone3() not supported");
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	procfd = pfc_open_proc_dir(pid, O_RDONLY);
	ASSERT_GE(procfd, 0);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));

	ASSERT_ERRNO(ESRCH, sys_pidfd_send_signal(pidfd, 0, NULL, 0));
	ASSERT_ERRNO(ESRCH, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));
	ASSERT_ERRNO(ESRCH, sys_pidfd_send_signal(procfd, 0, NULL, 0));
	ASSERT_ERRNO(ESRCH, sys_pidfd_send_signal(procfd, SIGKILL, NULL, 0));
	ASSERT_ERRNO(ESRCH, sys_pidfd_send_signal(clonefd, 0, NULL, 0));
	ASSERT_ERRNO(ESRCH, sys_pidfd_send_signal(clonefd, SIGKILL, NULL, 0));
	close(clonefd);
	close(procfd);
	close(pidfd);
}

/*
 * Start a child that execs the helper (from the leader, or from a second
 * thread when @from_thread), wait for the new image, signal it through the
 * handle taken before the exec and check it arrived.
 */
struct exec_thread_arg {
	int sig;
	int wfd;
};

static void *exec_thread(void *data)
{
	struct exec_thread_arg *arg = data;

	exec_helper(arg->sig, arg->wfd);
	return NULL;
}

static void exec_keeps_handle(struct __test_metadata *_metadata,
			      int from_thread)
{
	struct exec_thread_arg arg = { .sig = SIGUSR1 };
	struct pfc_report r;
	int p[2], pidfd, procfd, status;
	pid_t pid;
	char c = 0;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pthread_t th;

		close(p[0]);
		pfc_child_setup();
		if (!from_thread)
			exec_helper(SIGUSR1, p[1]);
		arg.wfd = p[1];
		CHILD_ASSERT(pthread_create(&th, NULL, exec_thread, &arg) == 0);
		/* The exec in the thread kills this one. */
		for (;;)
			pause();
	}
	close(p[1]);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	procfd = pfc_open_proc_dir(pid, O_RDONLY);
	ASSERT_GE(procfd, 0);

	ASSERT_EQ(1, read(p[0], &c, 1)) {
		TH_LOG("the helper never ran (exec failed?)");
		pfc_kill_reap(pid);
	}
	ASSERT_EQ('E', c);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, 0, NULL, 0));
	ASSERT_EQ(0, sys_pidfd_send_signal(procfd, 0, NULL, 0));
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0)) {
		TH_LOG("signal after exec: %s", strerror(errno));
	}
	ASSERT_EQ(0, pfc_read_report(p[0], &r));
	ASSERT_EQ(SIGUSR1, r.ret) {
		TH_LOG("helper dequeued %d (errno %d)", r.ret, r.err);
	}
	ASSERT_EQ(SI_USER, r.code);
	ASSERT_EQ(getpid(), r.pid);
	/* The exec'd image is the same process. */
	ASSERT_EQ(pid, r.self);

	status = pfc_reap(pid);
	ASSERT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("helper status %#x", status);
	}
	close(procfd);
	close(pidfd);
}

TEST(execve_keeps_handle)
{
	exec_keeps_handle(_metadata, 0);
}

/*
 * A non-leader thread that execs takes over the leader's pid; the handle
 * follows the process, not the task that was the leader.
 */
TEST(execve_from_thread_keeps_handle)
{
	exec_keeps_handle(_metadata, 1);
}

TEST_HARNESS_MAIN
