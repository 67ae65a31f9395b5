// SPDX-License-Identifier: GPL-2.0
/*
 * aa_signal: every way to send a signal, tried from inside an AppArmor
 * profile against an unconfined target (system plan, case 4).
 *
 *   aa_signal PROFILE deny|allow
 *
 * The program forks the target T (a process group of its own, two
 * threads, counting each SIGUSR1 per thread in shared memory) and a
 * checker C that moves itself into PROFILE with change_profile and
 * tries: kill(2), tgkill(2), pidfd_send_signal() on a pidfd, a
 * PIDFD_THREAD pidfd, /proc/<pid> and /proc/<pid>/task/<tid> fds (each
 * with no flag and with each scope flag), on PIDFD_SELF_THREAD(_GROUP),
 * and writes to /proc/<pid>/kill and /proc/<pid>/task/<tid>/kill.
 *
 * "deny": each path must fail with the errno kill(2) got, leave the
 * receiver untouched and produce an AppArmor DENIED audit record for C
 * (read from the audit multicast socket). "allow": each path succeeds
 * and the receiver (the right thread for thread-directed paths) gets the
 * signal, with no DENIED record. Paths the kernel lacks skip. KTAP lines
 * on stdout; exit 0 when nothing failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfd_sys.h"

#define SIG SIGUSR1

struct shared {
	pid_t t2;		/* the target's second thread */
	int ready;
	int got[2];		/* SIGUSR1 taken by the leader, by t2 */
	int code[2];		/* last si_code seen by each */
};

static struct shared *sh;
static pid_t target, me;
static int deny, audit_fd = -1, tests, failed, err_kill;
static const char *profile;

static void handler(int sig, siginfo_t *si, void *uc)
{
	int i = syscall(SYS_gettid) == getpid() ? 0 : 1;

	(void)sig; (void)uc;
	__atomic_store_n(&sh->code[i], si->si_code, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&sh->got[i], 1, __ATOMIC_SEQ_CST);
}

static void *idle_thread(void *arg)
{
	(void)arg;
	__atomic_store_n(&sh->t2, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* The receiver: counts until its pipe closes. */
static void run_target(int rfd)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	pthread_t th;
	char c;

	setpgid(0, 0);
	sigaction(SIG, &sa, NULL);
	pthread_create(&th, NULL, idle_thread, NULL);
	while (!__atomic_load_n(&sh->t2, __ATOMIC_SEQ_CST))
		usleep(1000);
	__atomic_store_n(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void result(int ok, const char *name, const char *fmt, ...)
{
	char why[512] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	printf("%sok %d %s%s%s\n", ok ? "" : "not ", ++tests, name,
	       why[0] ? " # " : "", why);
	fflush(stdout);
	if (!ok)
		failed++;
}

static void skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++tests, name, why);
	fflush(stdout);
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The audit multicast socket: every record the kernel emits. */
static int audit_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = 1 << (AUDIT_NLGRP_READLOG - 1) };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_AUDIT);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Wait up to ms for an AppArmor DENIED signal record whose subject is
 * this process; keep its text in rec. With ms 0: just drain.
 */
static int audit_denied(int ms, char *rec, size_t len)
{
	char buf[8192], pidstr[32];
	int found = 0;

	snprintf(pidstr, sizeof(pidstr), " pid=%d ", me);
	for (;;) {
		struct pollfd p = { .fd = audit_fd, .events = POLLIN };
		ssize_t n;

		if (!found && ms > 0) {
			if (poll(&p, 1, ms) <= 0)
				return found;
		}
		n = recv(audit_fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			return found;
		if ((size_t)n > NLMSG_HDRLEN) {
			struct nlmsghdr *h = (struct nlmsghdr *)buf;
			char *text = buf + NLMSG_HDRLEN;

			buf[n] = '\0';
			if (ms > 0 && h->nlmsg_type == AUDIT_AVC &&
			    strstr(text, "apparmor=\"DENIED\"") &&
			    strstr(text, "operation=\"signal\"") &&
			    strstr(text, pidstr)) {
				snprintf(rec, len, "%.900s", text);
				found = 1;
			}
		}
	}
}

static int total(void)
{
	return __atomic_load_n(&sh->got[0], __ATOMIC_SEQ_CST) +
	       __atomic_load_n(&sh->got[1], __ATOMIC_SEQ_CST);
}

/* Is SIG pending for this thread (its own or the shared set)? Take it. */
static int self_pending(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIG);
	return sigtimedwait(&set, NULL, &zero) == SIG;
}

enum who { ANY, LEADER, THREAD2, SELF };

/*
 * Judge one path: ret is its result (0 or -errno of the first failing
 * step), who the receiver it aims at.
 */
static void judge(const char *name, int ret, enum who who, int before[2])
{
	char rec[1024] = "";
	int i, delivered = 0, audit;

	if (deny) {
		msleep(100);
		audit = audit_fd >= 0 && audit_denied(1000, rec, sizeof(rec));
		delivered = who == SELF ? self_pending() :
			    total() != before[0] + before[1];
		if (ret == 0)
			result(0, name, "succeeded, kill(2) failed with %s",
			       strerror(err_kill));
		else if (-ret != err_kill)
			result(0, name, "%s, kill(2) gave %s", strerror(-ret),
			       strerror(err_kill));
		else if (delivered)
			result(0, name, "failed as kill(2) but the signal arrived");
		else if (!audit)
			result(0, name, "denied (%s) but no AppArmor audit record",
			       strerror(-ret));
		else
			result(1, name, "denied: %s, audit record present",
			       strerror(-ret));
		return;
	}

	for (i = 0; i < 200 && !delivered; i++) {
		switch (who) {
		case SELF: delivered = self_pending(); break;
		case ANY: delivered = total() > before[0] + before[1]; break;
		case LEADER: delivered = sh->got[0] > before[0]; break;
		case THREAD2: delivered = sh->got[1] > before[1]; break;
		}
		if (!delivered)
			msleep(10);
	}
	audit = audit_fd >= 0 && audit_denied(50, rec, sizeof(rec));
	if (ret)
		result(0, name, "failed with %s, allowed expected", strerror(-ret));
	else if (!delivered)
		result(0, name, "returned 0 but the %s did not get the signal",
		       who == THREAD2 ? "target thread" : "target");
	else if (audit)
		result(0, name, "delivered, but a DENIED record: %s", rec);
	else
		result(1, name, "delivered");
}

#define TRY(expr) ((expr) < 0 ? -errno : 0)

static int write_kill_file(const char *path)
{
	char text[8];
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	snprintf(text, sizeof(text), "%d\n", SIG);
	ret = write(fd, text, strlen(text)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int change_profile(void)
{
	char cmd[256], cur[256] = "";
	const char *paths[] = { "/proc/self/attr/apparmor/current",
				"/proc/self/attr/current" };
	int i, fd, n;

	snprintf(cmd, sizeof(cmd), "changeprofile %s", profile);
	for (i = 0; i < 2; i++) {
		fd = open(paths[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = write(fd, cmd, strlen(cmd));
		close(fd);
		if (n < 0) {
			result(0, "confined", "change_profile %s: %s", profile,
			       strerror(errno));
			return -1;
		}
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, cur, sizeof(cur) - 1);
		if (fd >= 0)
			close(fd);
		cur[n > 0 ? n : 0] = '\0';
		cur[strcspn(cur, "\n")] = '\0';
		if (strncmp(cur, profile, strlen(profile)) || !strstr(cur, "(enforce)")) {
			result(0, "confined", "label is '%s'", cur);
			return -1;
		}
		result(1, "confined", "%s", cur);
		return 0;
	}
	result(0, "confined", "no AppArmor attr file");
	return -1;
}

/* One path, unless the kernel lacks it: @expr is evaluated here. */
#define PATH(name, cond, why, expr, who) do {				\
		int path_before[2], path_ret;				\
		if (!(cond)) { skip(name, why); break; }		\
		path_before[0] = sh->got[0];				\
		path_before[1] = sh->got[1];				\
		if (audit_fd >= 0) audit_denied(0, NULL, 0);		\
		path_ret = (expr);					\
		judge(name, path_ret, who, path_before);		\
	} while (0)

static const struct scope {
	const char *name;
	unsigned int flag;
} scopes[] = {
	{ "flags=0", 0 },
	{ "PIDFD_SIGNAL_THREAD", PIDFD_SIGNAL_THREAD },
	{ "PIDFD_SIGNAL_THREAD_GROUP", PIDFD_SIGNAL_THREAD_GROUP },
	{ "PIDFD_SIGNAL_PROCESS_GROUP", PIDFD_SIGNAL_PROCESS_GROUP },
};

/*
 * pidfd_send_signal() on one handle with no flag and with each scope
 * flag. @named is the thread the handle names: flags=0 and
 * PIDFD_SIGNAL_THREAD aim at it on a thread handle, only
 * PIDFD_SIGNAL_THREAD does on a process handle. A thread handle has no
 * PIDFD_SIGNAL_PROCESS_GROUP case: as upstream, the group is the one
 * whose id is the handle's pid, and a non-leader's tid leads none, so
 * the kernel finds nobody (ESRCH, as kill(-tid)) before the LSM is asked.
 */
static void handle_paths(const char *handle, int fd, int usable,
			 const char *missing, int has_scope, enum who named)
{
	char name[96];
	enum who who;
	size_t i;

	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		const struct scope *sc = &scopes[i];

		if (named == THREAD2 && sc->flag == PIDFD_SIGNAL_PROCESS_GROUP)
			continue;
		if (sc->flag == PIDFD_SIGNAL_THREAD ||
		    (sc->flag == 0 && named == THREAD2))
			who = named;
		else
			who = ANY;
		snprintf(name, sizeof(name), "%s %s", handle, sc->name);
		PATH(name, usable && (sc->flag == 0 || has_scope),
		     !usable ? missing : "no scope flags (upstream 6.9)",
		     TRY(sys_pidfd_send_signal(fd, SIG, NULL, sc->flag)), who);
	}
}

static void checker(void)
{
	char path[128], dir[64], taskdir[96];
	int before[2], pfd, tfd, procfd, taskfd, ret;
	int has_scope, has_thread, has_taskfd, has_self, has_killfile;
	pid_t t2 = sh->t2;
	sigset_t set;

	me = getpid();
	sigemptyset(&set);
	sigaddset(&set, SIG);
	sigprocmask(SIG_BLOCK, &set, NULL);	/* self paths: stays pending */

	audit_fd = audit_open();
	result(audit_fd >= 0, "audit socket", audit_fd < 0 ? "%s" : NULL,
	       strerror(errno));

	/* What this kernel has, asked before confinement. */
	snprintf(dir, sizeof(dir), "/proc/%d", target);
	snprintf(taskdir, sizeof(taskdir), "/proc/%d/task/%d", target, t2);
	pfd = sys_pidfd_open(target, 0);
	has_scope = sys_pidfd_send_signal(pfd, 0, NULL, PIDFD_SIGNAL_THREAD_GROUP) == 0;
	close(pfd);
	tfd = sys_pidfd_open(t2, PIDFD_THREAD);
	has_thread = tfd >= 0;
	if (tfd >= 0)
		close(tfd);
	taskfd = open(taskdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	has_taskfd = sys_pidfd_send_signal(taskfd, 0, NULL, 0) == 0;
	close(taskfd);
	has_self = sys_pidfd_send_signal(PIDFD_SELF_THREAD_GROUP, 0, NULL, 0) == 0;
	snprintf(path, sizeof(path), "%s/kill", dir);
	has_killfile = access(path, F_OK) == 0;

	if (change_profile())
		return;

	before[0] = sh->got[0]; before[1] = sh->got[1];
	ret = TRY(kill(target, SIG));
	err_kill = ret ? -ret : 0;
	if (deny && !err_kill) {
		result(0, "kill", "kill(2) succeeded under the deny profile");
		return;
	}
	judge("kill", ret, ANY, before);

	PATH("tgkill", 1, "", TRY(syscall(SYS_tgkill, target, t2, SIG)), THREAD2);

	pfd = sys_pidfd_open(target, 0);
	handle_paths("pidfd", pfd, pfd >= 0, "no pidfd", has_scope, LEADER);
	tfd = has_thread ? sys_pidfd_open(t2, PIDFD_THREAD) : -1;
	handle_paths("thread pidfd", tfd, has_thread, "no PIDFD_THREAD",
		     has_scope, THREAD2);
	procfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	handle_paths("/proc/<pid> fd", procfd, procfd >= 0,
		     "cannot open /proc/<pid>", has_scope, LEADER);
	taskfd = open(taskdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	handle_paths("/proc/<pid>/task/<tid> fd", taskfd, has_taskfd,
		     "/proc/<pid>/task/<tid> fds are no handles here",
		     has_scope, THREAD2);

	PATH("PIDFD_SELF_THREAD", has_self, "no PIDFD_SELF_* (upstream 6.17)",
	     TRY(sys_pidfd_send_signal(PIDFD_SELF_THREAD, SIG, NULL, 0)), SELF);
	PATH("PIDFD_SELF_THREAD_GROUP", has_self, "no PIDFD_SELF_* (upstream 6.17)",
	     TRY(sys_pidfd_send_signal(PIDFD_SELF_THREAD_GROUP, SIG, NULL, 0)), SELF);

	/*
	 * A reader of the kill files (grep -r, tar over /proc) sends
	 * nothing: its open is not a signal, so no denial and no record.
	 */
	if (has_killfile) {
		char buf[8], rec[1024];
		int fd, nread = -1, audit;

		snprintf(path, sizeof(path), "%s/kill", dir);
		if (audit_fd >= 0)
			audit_denied(0, NULL, 0);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = fd < 0 ? -errno : 0;
		if (fd >= 0) {
			nread = read(fd, buf, sizeof(buf));
			close(fd);
		}
		audit = audit_fd >= 0 && audit_denied(300, rec, sizeof(rec));
		if (ret)
			result(0, "reading /proc/<pid>/kill", "open: %s", strerror(-ret));
		else if (nread != 0)
			result(0, "reading /proc/<pid>/kill", "read gave %d (%s)", nread,
			       nread < 0 ? strerror(errno) : "data");
		else if (audit)
			result(0, "reading /proc/<pid>/kill", "a signal audit record: %s", rec);
		else
			result(1, "reading /proc/<pid>/kill", "empty, no audit record");
	} else {
		skip("reading /proc/<pid>/kill", "no kill files");
	}

	snprintf(path, sizeof(path), "%s/kill", dir);
	PATH("/proc/<pid>/kill", has_killfile, "no kill files",
	     write_kill_file(path), ANY);
	snprintf(path, sizeof(path), "%s/kill", taskdir);
	PATH("/proc/<pid>/task/<tid>/kill", has_killfile, "no kill files",
	     write_kill_file(path), THREAD2);
}

int main(int argc, char **argv)
{
	int pipefd[2], status, got[2];
	pid_t c;

	if (argc != 3 || (strcmp(argv[2], "deny") && strcmp(argv[2], "allow"))) {
		fprintf(stderr, "usage: aa_signal PROFILE deny|allow\n");
		return 2;
	}
	profile = argv[1];
	deny = !strcmp(argv[2], "deny");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe2(pipefd, O_CLOEXEC)) {
		perror("aa_signal: setup");
		return 1;
	}
	target = fork();
	if (target == 0) {
		close(pipefd[1]);
		run_target(pipefd[0]);
	}
	close(pipefd[0]);
	while (!__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST))
		usleep(1000);

	c = fork();
	if (c == 0) {
		checker();
		printf("# checker done: %d failed\n", failed);
		_exit(failed ? 1 : 0);
	}
	waitpid(c, &status, 0);

	/*
	 * From outside the profile, once the target had time to run: over the
	 * whole deny run it must have taken nothing.
	 */
	msleep(200);
	got[0] = sh->got[0];
	got[1] = sh->got[1];
	if (deny && got[0] + got[1] != 0) {
		printf("not ok 100 receiver untouched # the target took %d signals\n",
		       got[0] + got[1]);
		status = 1 << 8;
	} else if (deny) {
		printf("ok 100 receiver untouched # 0 signals over the run\n");
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
