// SPDX-License-Identifier: GPL-2.0
/*
 * thread_poll: an epoll event loop watching a thread pidfd (system plan,
 * case 2; the plan starts it with systemd-run).
 *
 * A second thread waits for SIGUSR1 with rt_sigtimedwait(); the main thread
 * opens pidfd_open(tid, PIDFD_THREAD), adds it to an epoll set and checks
 * that it is not readable while the thread lives, signals the thread
 * through it (flags 0: thread-directed), that the thread (and not the
 * main thread) took it with the si_code tgkill(2) gives (SI_TKILL), and that the pidfd becomes
 * readable (EPOLLIN) when the thread exits while the process lives on.
 * KTAP lines on stdout; exit 0 passed, 1 failed, 4 (skip) no PIDFD_THREAD.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "pidfd_sys.h"

static pid_t t2;
static siginfo_t by_tgkill, got;
static int first_taken;
static int failed, n;

/*
 * The raw syscall: glibc's sigwaitinfo() folds SI_TKILL into SI_USER
 * (for raise()), which would hide what the kernel reported.
 */
static int take(const sigset_t *set, siginfo_t *si)
{
	return syscall(SYS_rt_sigtimedwait, set, si, NULL, _NSIG / 8);
}

static void *waiter(void *arg)
{
	sigset_t set;

	(void)arg;
	__atomic_store_n(&t2, sys_gettid(), __ATOMIC_SEQ_CST);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (take(&set, &by_tgkill) < 0 && errno == EINTR)
		;
	__atomic_store_n(&first_taken, 1, __ATOMIC_SEQ_CST);
	while (take(&set, &got) < 0 && errno == EINTR)
		;
	return NULL;	/* the thread exits: its pidfd becomes readable */
}

static void check(int ok, const char *name, const char *why)
{
	printf("%sok %d %s%s%s\n", ok ? "" : "not ", ++n, name,
	       ok || !why ? "" : " # ", ok || !why ? "" : why);
	failed += !ok;
}

int main(void)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct timespec zero = { 0, 0 };
	sigset_t set;
	pthread_t th;
	int tfd, ep, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* both threads block it */
	pthread_create(&th, NULL, waiter, NULL);
	while (!__atomic_load_n(&t2, __ATOMIC_SEQ_CST))
		usleep(1000);

	tfd = sys_pidfd_open(t2, PIDFD_THREAD);
	if (tfd < 0) {
		printf("ok 1 thread pidfd # SKIP pidfd_open(tid, PIDFD_THREAD): %s\n",
		       strerror(errno));
		return 4;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = tfd;
	check(epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) == 0, "epoll_ctl add", strerror(errno));
	r = epoll_wait(ep, &out, 1, 300);
	check(r == 0, "not readable while the thread runs", "readable too early");

	/* The reference: what tgkill(2) gives the same thread. */
	r = syscall(SYS_tgkill, getpid(), t2, SIGUSR1);
	check(r == 0, "tgkill(2) first, for the reference siginfo", strerror(errno));
	while (r == 0 && !__atomic_load_n(&first_taken, __ATOMIC_SEQ_CST))
		usleep(1000);	/* one SIGUSR1 at a time: they do not queue */
	r = sys_pidfd_send_signal(tfd, SIGUSR1, NULL, 0);
	check(r == 0, "signal through the thread pidfd", strerror(errno));

	r = epoll_wait(ep, &out, 1, 10000);
	check(r == 1 && out.data.fd == tfd && (out.events & EPOLLIN),
	      "EPOLLIN when the thread exits", r == 0 ? "no event in 10 s" : "wrong event");
	pthread_join(th, NULL);
	printf("# siginfo: tgkill code %d pid %d; pidfd code %d pid %d (ours %d)\n",
	       by_tgkill.si_code, by_tgkill.si_pid, got.si_code, got.si_pid, getpid());
	check(got.si_signo == SIGUSR1 && got.si_code == by_tgkill.si_code &&
	      got.si_pid == getpid(),
	      "the thread took it: SIGUSR1, si_code as from tgkill(2), our pid", NULL);
	check(got.si_code == SI_TKILL, "si_code SI_TKILL (upstream 6.9)", NULL);
	check(sigtimedwait(&set, NULL, &zero) < 0 && errno == EAGAIN,
	      "nothing for the main thread", "main thread has SIGUSR1 pending");
	check(kill(getpid(), 0) == 0, "process alive after the thread's exit", NULL);
	return failed ? 1 : 0;
}
