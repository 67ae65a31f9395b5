/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared fallbacks, raw syscall wrappers and child-process helpers for the
 * base pidfd_send_signal() conformance suite.
 */
#ifndef PIDFD_CONFORMANCE_H
#define PIDFD_CONFORMANCE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* sys_pidfd_open(), sys_pidfd_send_signal(), the series' UAPI values. */
#include "pidfd_sys.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK O_NONBLOCK
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef SI_TKILL
#define SI_TKILL (-6)
#endif

/* Flag bits no kernel (stock or with our series) accepts. */
#define PFC_BAD_SEND_FLAG	8U
#define PFC_BAD_SEND_FLAG_HIGH	(1U << 31)

/* How long a receiving child waits before reporting "nothing arrived". */
#define PFC_WAIT_SEC		10

/* The unprivileged test user (guest/init.c creates "tester"). */
#define PFC_UNPRIV_ID		1000

/* A pid above RESERVED_PIDS (300) so the forced reuse looks like real life. */
#define PFC_RECYCLE_PID		1000

#define PFC_SIGBIT(sig)		(1ULL << ((sig) - 1))

/* clone_args, version 0 layout (Linux 5.3); our own name avoids header clashes. */
struct pfc_clone_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
};

static inline pid_t sys_clone3(struct pfc_clone_args *args)
{
	return syscall(SYS_clone3, args, sizeof(*args));
}

/*
 * The raw syscall: glibc's sigtimedwait() turns a kernel SI_TKILL into
 * SI_USER, and we want to see exactly what the kernel queued.
 */
static inline int sys_rt_sigtimedwait(const sigset_t *set, siginfo_t *info,
				      const struct timespec *ts)
{
	return syscall(__NR_rt_sigtimedwait, set, info, ts, _NSIG / 8);
}

/*
 * Assert that @expr fails with errno @err.  Only for TEST() bodies (it
 * needs _metadata); children use CHILD_ASSERT().
 */
#define ASSERT_ERRNO(err, expr) do {					\
	long __pfc_ret;							\
	int __pfc_err;							\
	errno = 0;							\
	__pfc_ret = (expr);						\
	__pfc_err = errno;						\
	ASSERT_EQ(-1, __pfc_ret) {					\
		TH_LOG("%s returned %ld, expected -1/%s",		\
		       #expr, __pfc_ret, #err);				\
	}								\
	ASSERT_EQ(err, __pfc_err) {					\
		TH_LOG("%s: errno %d (%s), expected %s",		\
		       #expr, __pfc_err, strerror(__pfc_err), #err);	\
	}								\
} while (0)

/*
 * Children must not use ASSERT_*(): it would longjmp into a copy of the
 * harness.  They print why and exit non-zero; the test asserts the status.
 */
#define CHILD_ASSERT(cond) do {						\
	if (!(cond)) {							\
		int __pfc_err = errno;					\
		fprintf(stderr, "# child %d: %s:%d: failed: %s (errno %d %s)\n", \
			getpid(), __FILE__, __LINE__, #cond,		\
			__pfc_err, strerror(__pfc_err));		\
		fflush(stderr);						\
		_exit(1);						\
	}								\
} while (0)

/* What a receiving child dequeued, sent back through a pipe. */
struct pfc_report {
	int ret;		/* rt_sigtimedwait(): signal number or -1 */
	int err;		/* its errno when ret == -1 */
	int signo;
	int code;
	pid_t pid;		/* si_pid */
	uid_t uid;		/* si_uid */
	int value;		/* si_value.sival_int */
	pid_t self;		/* getpid() of the receiver */
	uint64_t pending;	/* signals (bit sig-1) still pending after */
};

/*
 * Start from a known signal state whatever the runner left us: nothing
 * blocked, and SIGCHLD not ignored (that would auto-reap our zombies).
 */
static void __attribute__((constructor)) pfc_clean_signal_state(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

static inline int pfc_block(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

static inline uint64_t pfc_pending_mask(void)
{
	uint64_t mask = 0;
	sigset_t set;
	int sig;

	if (sigpending(&set))
		return ~0ULL;
	for (sig = 1; sig <= 64; sig++)
		if (sigismember(&set, sig) == 1)
			mask |= PFC_SIGBIT(sig);
	return mask;
}

/* Children die with the test process, so a failed ASSERT leaks nothing. */
static inline void pfc_child_setup(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/*
 * Become uid/gid PFC_UNPRIV_ID with no supplementary groups; 0 on success.
 * For children: it re-arms pfc_child_setup(), which the credential change
 * cleared.
 */
static inline int pfc_drop_to_unprivileged(void)
{
	if (setgroups(0, NULL) ||
	    setresgid(PFC_UNPRIV_ID, PFC_UNPRIV_ID, PFC_UNPRIV_ID) ||
	    setresuid(PFC_UNPRIV_ID, PFC_UNPRIV_ID, PFC_UNPRIV_ID))
		return -1;
	pfc_child_setup();
	return 0;
}

/*
 * Receiver body: wait (the signal is blocked, inherited from the parent)
 * for @sig, write a pfc_report to @wfd, exit.  Never returns.
 */
static inline void __attribute__((noreturn))
pfc_receiver_main(int sig, int wfd)
{
	struct timespec ts = { .tv_sec = PFC_WAIT_SEC };
	struct pfc_report r;
	siginfo_t si;
	sigset_t set;

	memset(&r, 0, sizeof(r));
	memset(&si, 0, sizeof(si));
	sigemptyset(&set);
	sigaddset(&set, sig);
	r.ret = sys_rt_sigtimedwait(&set, &si, &ts);
	r.err = errno;
	r.signo = si.si_signo;
	r.code = si.si_code;
	r.pid = si.si_pid;
	r.uid = si.si_uid;
	r.value = si.si_value.sival_int;
	r.self = getpid();
	r.pending = pfc_pending_mask();
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

/*
 * Fork a receiver for @sig; its report arrives on *rfd.  @sig stays
 * blocked in the caller from here on, so the child inherits the blocked
 * mask and cannot lose a signal sent before it starts waiting.
 */
static inline pid_t pfc_fork_receiver(int sig, int *rfd)
{
	int p[2];
	pid_t pid;

	if (pfc_block(sig) || pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		pfc_child_setup();
		pfc_receiver_main(sig, p[1]);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*rfd = p[0];
	return pid;
}

/* Same, via clone3(CLONE_PIDFD | @extra); the pidfd lands in *pidfd. */
static inline pid_t pfc_clone3_receiver(int sig, uint64_t extra, int *rfd,
					int *pidfd)
{
	struct pfc_clone_args args = {
		.flags = CLONE_PIDFD | extra,
		.pidfd = (uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};
	int p[2], err;
	pid_t pid;

	if (pfc_block(sig) || pipe2(p, O_CLOEXEC))
		return -1;
	pid = sys_clone3(&args);
	if (pid == 0) {
		close(p[0]);
		pfc_child_setup();
		pfc_receiver_main(sig, p[1]);
	}
	err = errno;
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		errno = err;
		return -1;
	}
	*rfd = p[0];
	return pid;
}

/* Read a whole report and close @rfd; 0 on success. */
static inline int pfc_read_report(int rfd, struct pfc_report *r)
{
	size_t done = 0;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	while (done < sizeof(*r)) {
		n = read(rfd, (char *)r + done, sizeof(*r) - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	close(rfd);
	return done == sizeof(*r) ? 0 : -1;
}

/* A child that does nothing until killed (the caller's mask is inherited). */
static inline pid_t pfc_fork_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pfc_child_setup();
		for (;;)
			pause();
	}
	return pid;
}

/* waitpid() that survives EINTR; returns the wait status or -1. */
static inline int pfc_reap(pid_t pid)
{
	int status;
	pid_t ret;

	do {
		ret = waitpid(pid, &status, 0);
	} while (ret < 0 && errno == EINTR);
	return ret == pid ? status : -1;
}

/* True if @status says the child exited with code 0. */
static inline int pfc_exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static inline int pfc_kill_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	return pfc_reap(pid);
}

static inline int pfc_open_proc_dir(pid_t pid, int extra_flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return open(path, O_DIRECTORY | O_CLOEXEC | extra_flags);
}

/*
 * A hex mask line ("SigPnd", "ShdPnd", ...) of a status file
 * (/proc/<pid>/status, /proc/<pid>/task/<tid>/status), or ~0 if it
 * cannot be read.
 */
static inline uint64_t pfc_status_file_mask(const char *path, const char *key)
{
	unsigned long long mask = ~0ULL;
	size_t klen = strlen(key);
	char line[256];
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			if (sscanf(line + klen + 1, "%llx", &mask) != 1)
				mask = ~0ULL;
			break;
		}
	}
	fclose(f);
	return mask;
}

static inline uint64_t pfc_status_mask(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return pfc_status_file_mask(path, key);
}

static inline void pfc_queue_info(siginfo_t *info, int sig, int code,
				  pid_t pid, int value)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->si_pid = pid;
	info->si_uid = getuid();
	info->si_value.sival_int = value;
}

#endif /* PIDFD_CONFORMANCE_H */
