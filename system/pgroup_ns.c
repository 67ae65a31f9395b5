// SPDX-License-Identifier: GPL-2.0
/*
 * pgroup_ns: process-group scope signals from inside a pid namespace
 * (system plan, case 5; started by the plan with systemd-run).
 *
 *   pgroup_ns            outside: starts L, a process-group leader in the
 *                        unit's namespace, opens a pidfd for it and runs
 *                        "unshare --pid --fork --mount-proc pgroup_ns
 *                        inner 3" with that pidfd as fd 3; afterwards L
 *                        must have received nothing.
 *   pgroup_ns inner FD   pid 1 of the new namespace: a group of two
 *                        members (M1 leads, M2 joins) is signaled with
 *                        PIDFD_SIGNAL_PROCESS_GROUP through M1's pidfd:
 *                        both get it, si_pid 1 (the sender as seen in the
 *                        namespace), as kill(-M1) delivers; the pidfd of
 *                        L, outside the namespace, gives EINVAL with and
 *                        without the scope flag (the pid namespace rule).
 * KTAP lines on stdout; exit 0 passed, 1 failed, 4 (skip) no scope flags.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfd_sys.h"

struct counts {
	int got[3];
	pid_t from[3];
	int ready[3];
};

static struct counts *c;
static int slot, failed, n;

static void handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	__atomic_store_n(&c->from[slot], si->si_pid, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&c->got[slot], 1, __ATOMIC_SEQ_CST);
}

static void check(int ok, const char *name, const char *fmt, int a, int b)
{
	printf("%sok %d %s", ok ? "" : "not ", ++n, name);
	if (!ok && fmt) {
		printf(" # ");
		printf(fmt, a, b);
	}
	printf("\n");
	fflush(stdout);
	failed += !ok;
}

/* A child that counts SIGUSR1 in slot s, in process group pgid (0: own). */
static pid_t receiver(int s, pid_t pgid)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	pid_t pid = fork();

	if (pid == 0) {
		slot = s;
		sigaction(SIGUSR1, &sa, NULL);
		setpgid(0, pgid);
		__atomic_store_n(&c->ready[s], 1, __ATOMIC_SEQ_CST);
		for (;;)
			pause();
	}
	setpgid(pid, pgid ? pgid : pid);
	/* Not before its handler is set: SIGUSR1 would kill it. */
	while (!__atomic_load_n(&c->ready[s], __ATOMIC_SEQ_CST))
		usleep(1000);
	return pid;
}

static int wait_count(int s, int want)
{
	int i;

	for (i = 0; i < 300 && __atomic_load_n(&c->got[s], __ATOMIC_SEQ_CST) < want; i++)
		usleep(10000);
	usleep(50000);	/* and no more than want */
	return __atomic_load_n(&c->got[s], __ATOMIC_SEQ_CST);
}

static int inner(int lfd)
{
	pid_t m1, m2;
	int pfd, r, e;

	check(getpid() == 1, "pid 1 of a new pid namespace", "getpid() = %d%.0d", getpid(), 0);
	m1 = receiver(0, 0);
	m2 = receiver(1, m1);
	pfd = sys_pidfd_open(m1, 0);

	r = sys_pidfd_send_signal(pfd, SIGUSR1, NULL, PIDFD_SIGNAL_PROCESS_GROUP);
	e = errno;
	check(r == 0, "PIDFD_SIGNAL_PROCESS_GROUP inside the namespace", "errno %d%.0d", e, 0);
	check(wait_count(0, 1) == 1 && wait_count(1, 1) == 1,
	      "both members got it once", "leader %d, member %d", c->got[0], c->got[1]);
	check(c->from[0] == 1 && c->from[1] == 1, "si_pid is the sender's pid in the namespace (1)",
	      "si_pid %d and %d", c->from[0], c->from[1]);

	r = kill(-m1, SIGUSR1);
	check(r == 0 && wait_count(0, 2) == 2 && wait_count(1, 2) == 2,
	      "kill(-pgid) reaches the same members", "leader %d, member %d",
	      c->got[0], c->got[1]);

	r = sys_pidfd_send_signal(lfd, SIGUSR1, NULL, PIDFD_SIGNAL_PROCESS_GROUP);
	e = errno;
	check(r < 0 && e == EINVAL, "group outside the namespace: EINVAL",
	      "returned %d errno %d", r, e);
	r = sys_pidfd_send_signal(lfd, SIGUSR1, NULL, 0);
	e = errno;
	check(r < 0 && e == EINVAL, "process outside the namespace, flags 0: EINVAL (as before)",
	      "returned %d errno %d", r, e);
	kill(m1, SIGKILL);
	kill(m2, SIGKILL);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	char self[4096];
	pid_t l, x;
	int lfd, status;
	ssize_t len;

	setvbuf(stdout, NULL, _IOLBF, 0);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return 1;
	if (argc == 3 && !strcmp(argv[1], "inner"))
		return inner(atoi(argv[2]));

	l = receiver(2, 0);
	lfd = sys_pidfd_open(l, 0);
	if (sys_pidfd_send_signal(lfd, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP) < 0) {
		printf("ok 1 pgroup scope in a pid namespace # SKIP no PIDFD_SIGNAL_PROCESS_GROUP: %s\n",
		       strerror(errno));
		kill(l, SIGKILL);
		return 4;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return 1;
	self[len] = '\0';
	x = fork();
	if (x == 0) {
		/* fd 3 without FD_CLOEXEC (pidfds are opened with it) */
		if (lfd != 3)
			dup2(lfd, 3);
		fcntl(3, F_SETFD, 0);
		execlp("unshare", "unshare", "--pid", "--fork", "--mount-proc", "--",
		       self, "inner", "3", (char *)NULL);
		perror("exec unshare");
		_exit(127);
	}
	waitpid(x, &status, 0);
	n = 100;
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "inside: all passed",
	      "unshare status %d%.0d", status, 0);
	check(wait_count(2, 0) == 0, "the leader outside got nothing", "it got %d%.0d",
	      c->got[2], 0);
	kill(l, SIGKILL);
	return failed ? 1 : 0;
}
