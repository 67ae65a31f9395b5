// SPDX-License-Identifier: GPL-2.0
/* Covers: 32- and 64-bit tasks signaling each other: siginfo through pidfd_send_signal() with every scope flag and through the kill files, received by a receiver of either ABI; PIDFD_SELF_*; clone3(CLONE_PIDFD | CLONE_THREAD). */
/*
 * The same source is built twice, as /tests/conformance/compat_test and
 * /tests/conformance32/compat_test (-m32). Each copy is the sender in its
 * own tests and execs a receiver: itself, or the copy built for the other
 * ABI (its "peer", the sibling directory with or without the "32"
 * suffix; PIDFD_COMPAT_PEER overrides). A 32-bit sender goes through the
 * compat entry (copy_siginfo_from_user32()), a 32-bit receiver dequeues
 * through copy_siginfo_to_user32(); every pair is tried, every field
 * checked. The receiver reports in text, so no struct crosses the ABIs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_conformance.h"
#include "kselftest_harness.h"

#define ABI_BITS	((int)(sizeof(long) * 8))
#define WAIT_MS		10000

/* The value carried in si_value; a 64-bit sender also fills the high half. */
#define VALUE_LOW	0x5eed0000U
#define VALUE_HIGH	0xfeedfaceULL
#define SENT_ERRNO	7

/* The receiver's report line, up to the queue name (at most 7 characters). */
#define REPORT_FMT							\
	"bits=%d ret=%d signo=%d code=%d errno=%d pid=%d uid=%u "	\
	"value=%u ptr=%llu queue="

/* What the receiver dequeued, parsed from its report line. */
struct report {
	int bits;		/* the receiver's ABI */
	int ret;		/* rt_sigtimedwait() */
	int signo;
	int code;
	int err;		/* si_errno */
	int pid;
	unsigned int uid;
	unsigned int value;	/* si_value.sival_int */
	unsigned long long ptr;	/* si_value.sival_ptr, as wide as the receiver's */
	char queue[8];		/* "private" (SigPnd) or "shared" (ShdPnd) */
};

static int block_all(void)
{
	sigset_t all;

	sigfillset(&all);
	return sigprocmask(SIG_SETMASK, &all, NULL);
}

static uint64_t task_mask(pid_t pid, pid_t tid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	return pfc_status_file_mask(path, key);
}

/* The raw call: glibc rewrites a kernel SI_TKILL into SI_USER. */
static int raw_sigwaitinfo(int sig, siginfo_t *si)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sys_rt_sigtimedwait(&set, si, NULL);
}

/*
 * Receiver mode: "compat_test --receive SIG FD", exec'd with @sig blocked.
 * Says "ready", waits until @sig is pending in either queue, notes which,
 * dequeues it and writes one report line to @fd.
 */
static int receive(int sig, int fd)
{
	const char *queue = "none";
	uint64_t priv, shared;
	siginfo_t si;
	int i, ret;

	if (write(fd, "ready\n", 6) != 6)
		return 2;
	for (i = 0; i < WAIT_MS; i++) {
		priv = pfc_status_file_mask("/proc/self/status", "SigPnd");
		shared = pfc_status_file_mask("/proc/self/status", "ShdPnd");
		if (priv != ~0ULL && shared != ~0ULL &&
		    (priv | shared) & PFC_SIGBIT(sig)) {
			queue = (priv & PFC_SIGBIT(sig)) ? "private" : "shared";
			break;
		}
		usleep(1000);
	}
	if (i == WAIT_MS)
		return 3;	/* nothing arrived: the sender reports it */
	memset(&si, 0, sizeof(si));
	ret = raw_sigwaitinfo(sig, &si);
	dprintf(fd, REPORT_FMT "%s\n", ABI_BITS, ret, si.si_signo, si.si_code,
		si.si_errno, si.si_pid, si.si_uid, (unsigned int)si.si_value.sival_int,
		(unsigned long long)(uintptr_t)si.si_value.sival_ptr, queue);
	return 0;
}

static int parse_report(const char *line, struct report *r)
{
	memset(r, 0, sizeof(*r));
	return sscanf(line, REPORT_FMT "%7s", &r->bits, &r->ret, &r->signo,
		      &r->code, &r->err, &r->pid, &r->uid, &r->value, &r->ptr,
		      r->queue) == 10 ? 0 : -1;
}

/* Only an x86_64 kernel runs programs of two ABIs here: 64 and 32 bits. */
static bool x86_64_kernel(void)
{
	struct utsname u;

	return !uname(&u) && !strcmp(u.machine, "x86_64");
}

/* The same test for the other ABI: ../conformance32/ from ../conformance/. */
static int peer_path(char *buf, size_t len)
{
	char self[PATH_MAX], *slash;
	const char *env = getenv("PIDFD_COMPAT_PEER");
	ssize_t n;
	size_t dlen;

	if (env)
		return snprintf(buf, len, "%s", env) < (int)len ? 0 : -1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	dlen = strlen(self);
	if (dlen > 2 && strcmp(self + dlen - 2, "32") == 0) {
		self[dlen - 2] = '\0';
		return snprintf(buf, len, "%s/%s", self, slash + 1) < (int)len ? 0 : -1;
	}
	return snprintf(buf, len, "%s32/%s", self, slash + 1) < (int)len ? 0 : -1;
}

enum method {
	BY_SYSCALL,		/* pidfd_send_signal() on a pidfd of the receiver */
	BY_KILL_FILE,		/* /proc/<pid>/kill */
	BY_TASK_KILL_FILE,	/* /proc/<pid>/task/<pid>/kill */
};

FIXTURE(xabi) {
	pid_t pid;		/* the receiver */
	int pidfd;
	FILE *report;		/* its report pipe */
	char exe[PATH_MAX];
};

FIXTURE_VARIANT(xabi) {
	enum method method;
	unsigned int flags;
	int with_info;
	int peer;		/* receiver built for the other ABI */
};

#define XABI(name, m, f, i, p)						\
	FIXTURE_VARIANT_ADD(xabi, name) {				\
		.method = m, .flags = f, .with_info = i, .peer = p,	\
	}

XABI(info_flags0_same, BY_SYSCALL, 0, 1, 0);
XABI(info_flags0_peer, BY_SYSCALL, 0, 1, 1);
XABI(info_thread_same, BY_SYSCALL, PIDFD_SIGNAL_THREAD, 1, 0);
XABI(info_thread_peer, BY_SYSCALL, PIDFD_SIGNAL_THREAD, 1, 1);
XABI(info_thread_group_same, BY_SYSCALL, PIDFD_SIGNAL_THREAD_GROUP, 1, 0);
XABI(info_thread_group_peer, BY_SYSCALL, PIDFD_SIGNAL_THREAD_GROUP, 1, 1);
XABI(info_process_group_same, BY_SYSCALL, PIDFD_SIGNAL_PROCESS_GROUP, 1, 0);
XABI(info_process_group_peer, BY_SYSCALL, PIDFD_SIGNAL_PROCESS_GROUP, 1, 1);
XABI(plain_flags0_same, BY_SYSCALL, 0, 0, 0);
XABI(plain_flags0_peer, BY_SYSCALL, 0, 0, 1);
XABI(plain_thread_same, BY_SYSCALL, PIDFD_SIGNAL_THREAD, 0, 0);
XABI(plain_thread_peer, BY_SYSCALL, PIDFD_SIGNAL_THREAD, 0, 1);
XABI(plain_thread_group_same, BY_SYSCALL, PIDFD_SIGNAL_THREAD_GROUP, 0, 0);
XABI(plain_thread_group_peer, BY_SYSCALL, PIDFD_SIGNAL_THREAD_GROUP, 0, 1);
XABI(plain_process_group_same, BY_SYSCALL, PIDFD_SIGNAL_PROCESS_GROUP, 0, 0);
XABI(plain_process_group_peer, BY_SYSCALL, PIDFD_SIGNAL_PROCESS_GROUP, 0, 1);
XABI(kill_file_same, BY_KILL_FILE, 0, 0, 0);
XABI(kill_file_peer, BY_KILL_FILE, 0, 0, 1);
XABI(task_kill_file_same, BY_TASK_KILL_FILE, 0, 0, 0);
XABI(task_kill_file_peer, BY_TASK_KILL_FILE, 0, 0, 1);

FIXTURE_SETUP(xabi)
{
	self->pid = -1;
	self->pidfd = -1;
	self->report = NULL;
	if (variant->peer) {
		ASSERT_EQ(0, peer_path(self->exe, sizeof(self->exe)));
	} else {
		ssize_t n = readlink("/proc/self/exe", self->exe,
				     sizeof(self->exe) - 1);

		ASSERT_GT(n, 0);
		self->exe[n] = '\0';
	}
	/*
	 * The plan builds a second ABI (-m32) for an x86_64 kernel only;
	 * arm64 and a 32-bit kernel (make test ARCH=i386) run one.
	 */
	if (variant->peer && !x86_64_kernel())
		SKIP(return, "no peer ABI on this kernel (%.200s)", self->exe);
	/* Where the plan installs both, a missing peer is a failure. */
	ASSERT_EQ(0, access(self->exe, X_OK)) {
		TH_LOG("receiver %s: %s", self->exe, strerror(errno));
	}
}

FIXTURE_TEARDOWN(xabi)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	if (self->pidfd >= 0)
		close(self->pidfd);
	if (self->report)
		fclose(self->report);
}

/*
 * Start the receiver in its own process group (a PROCESS_GROUP signal
 * reaches it and nobody else) with SIGUSR1 blocked across the exec, and
 * wait for its "ready".
 */
static int start_receiver(const char *exe, pid_t *pidp, FILE **report)
{
	char line[64], fdarg[16], sigarg[16];
	int p[2];
	pid_t pid;

	if (block_all() || pipe2(p, 0))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		snprintf(sigarg, sizeof(sigarg), "%d", SIGUSR1);
		snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
		execl(exe, exe, "--receive", sigarg, fdarg, (char *)NULL);
		dprintf(p[1], "exec %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	*pidp = pid;
	*report = fdopen(p[0], "r");
	if (!*report)
		return -1;
	if (!fgets(line, sizeof(line), *report))
		return -1;
	if (strcmp(line, "ready\n") != 0) {
		fprintf(stderr, "# receiver: %s", line);
		return -1;
	}
	return 0;
}

static int write_kill_file(const char *path, int sig)
{
	char buf[16];
	int fd, len, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d\n", sig);
	ret = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

/* The siginfo a sender of this ABI puts in; the high half only fits in 64 bits. */
static void fill_info(siginfo_t *info, int sig)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_errno = SENT_ERRNO;
	info->si_code = SI_QUEUE;
	info->si_pid = getpid();
	info->si_uid = getuid();
#if __SIZEOF_POINTER__ == 8
	info->si_value.sival_ptr = (void *)((VALUE_HIGH << 32) | VALUE_LOW);
#else
	info->si_value.sival_ptr = (void *)(uintptr_t)VALUE_LOW;
#endif
}

TEST_F(xabi, delivers)
{
	int sig = SIGUSR1, want_code, scope_thread;
	unsigned long long want_ptr;
	struct report r;
	char line[256], path[64];
	siginfo_t info;

	/*
	 * 6.1's harness runs the body after a setup SKIP. Its skip flag is
	 * exit_code == KSFT_SKIP in the harness of 6.9 and later (6.12's
	 * tree), told apart by a macro only the newer one defines.
	 */
#ifdef FIXTURE_TEARDOWN_PARENT
	if (_metadata->exit_code == KSFT_SKIP)
#else
	if (_metadata->skip)
#endif
		return;
	ASSERT_EQ(0, start_receiver(self->exe, &self->pid, &self->report)) {
		TH_LOG("receiver %s did not start", self->exe);
	}

	switch (variant->method) {
	case BY_SYSCALL:
		self->pidfd = sys_pidfd_open(self->pid, 0);
		ASSERT_GE(self->pidfd, 0) {
			TH_LOG("pidfd_open(%d): %s", self->pid, strerror(errno));
		}
		if (variant->flags &&
		    sys_pidfd_send_signal(self->pidfd, 0, NULL, variant->flags) &&
		    errno == EINVAL)
			SKIP(return, "pidfd_send_signal() refuses flag %#x (EINVAL): no scope flags",
			     variant->flags);
		fill_info(&info, sig);
		ASSERT_EQ(0, sys_pidfd_send_signal(self->pidfd, sig,
						   variant->with_info ? &info : NULL,
						   variant->flags)) {
			TH_LOG("pidfd_send_signal(flags %#x): %s",
			       variant->flags, strerror(errno));
		}
		break;
	case BY_KILL_FILE:
	case BY_TASK_KILL_FILE:
		if (variant->method == BY_KILL_FILE)
			snprintf(path, sizeof(path), "/proc/%d/kill", self->pid);
		else
			snprintf(path, sizeof(path), "/proc/%d/task/%d/kill",
				 self->pid, self->pid);
		if (access(path, F_OK) && errno == ENOENT)
			SKIP(return, "%s does not exist: no kill files", path);
		ASSERT_EQ(0, write_kill_file(path, sig)) {
			TH_LOG("write %s: %s", path, strerror(errno));
		}
		break;
	}

	ASSERT_TRUE(fgets(line, sizeof(line), self->report) != NULL) {
		TH_LOG("no report from the receiver (nothing arrived?)");
	}
	ASSERT_EQ(0, parse_report(line, &r)) {
		TH_LOG("bad report: %s", line);
	}
	TH_LOG("%d-bit sender, report: %s", ABI_BITS, line);

	/* The receiver is the ABI asked for. */
	ASSERT_EQ(variant->peer ? 96 - ABI_BITS : ABI_BITS, r.bits);
	ASSERT_EQ(sig, r.ret);
	ASSERT_EQ(sig, r.signo);
	ASSERT_EQ(getpid(), r.pid);
	ASSERT_EQ(getuid(), r.uid);

	scope_thread = variant->flags == PIDFD_SIGNAL_THREAD ||
		       variant->method == BY_TASK_KILL_FILE;
	EXPECT_STREQ(scope_thread ? "private" : "shared", r.queue);

	if (variant->with_info) {
		/* Passed through as the sender wrote it, in the receiver's width. */
		EXPECT_EQ(SI_QUEUE, r.code);
		EXPECT_EQ(SENT_ERRNO, r.err);
		EXPECT_EQ(VALUE_LOW, r.value);
		want_ptr = VALUE_LOW;
		if (ABI_BITS == 64 && r.bits == 64)
			want_ptr |= VALUE_HIGH << 32;
		EXPECT_EQ(want_ptr, r.ptr);
	} else {
		/* Filled in by the kernel, as kill(2) or tgkill(2) would. */
		want_code = scope_thread ? SI_TKILL : SI_USER;
		EXPECT_EQ(want_code, r.code);
		EXPECT_EQ(0, r.err);
		EXPECT_EQ(0, r.value);
		EXPECT_EQ(0, r.ptr);
	}
}

/* One non-leader thread of ours that sends to a sentinel and reports. */
struct self_send {
	int fd;			/* PIDFD_SELF_THREAD or PIDFD_SELF_THREAD_GROUP */
	pid_t tid;
	int ret, err;
	uint64_t thread_pnd, leader_pnd, shared_pnd;	/* after the send */
	siginfo_t si;		/* PIDFD_SELF_THREAD: what the thread dequeued */
	int wait_ret;
};

static void *self_send_thread(void *arg)
{
	struct self_send *s = arg;
	pid_t pid = getpid();
	siginfo_t info;

	s->tid = sys_gettid();
	fill_info(&info, SIGUSR1);
	s->ret = sys_pidfd_send_signal(s->fd, SIGUSR1, &info, 0);
	s->err = errno;
	s->thread_pnd = task_mask(pid, s->tid, "SigPnd");
	s->leader_pnd = task_mask(pid, pid, "SigPnd");
	s->shared_pnd = task_mask(pid, pid, "ShdPnd");
	if (s->ret == 0 && s->fd == PIDFD_SELF_THREAD)
		s->wait_ret = raw_sigwaitinfo(SIGUSR1, &s->si);
	return NULL;
}

static void check_info(struct __test_metadata *_metadata, const siginfo_t *si)
{
	unsigned long long want_ptr = VALUE_LOW;

	if (ABI_BITS == 64)
		want_ptr |= VALUE_HIGH << 32;
	EXPECT_EQ(SIGUSR1, si->si_signo);
	EXPECT_EQ(SI_QUEUE, si->si_code);
	EXPECT_EQ(SENT_ERRNO, si->si_errno);
	EXPECT_EQ(getpid(), si->si_pid);
	EXPECT_EQ(getuid(), si->si_uid);
	EXPECT_EQ(VALUE_LOW, (unsigned int)si->si_value.sival_int);
	EXPECT_EQ(want_ptr, (unsigned long long)(uintptr_t)si->si_value.sival_ptr);
}

/*
 * Runs self_send_thread() for @s->fd (SIGUSR1 blocked everywhere) and
 * asserts that the send worked; *skip is set if the kernel has no
 * PIDFD_SELF_* (a probe's EBADF).
 */
static void self_send_from_thread(struct __test_metadata *_metadata,
				  struct self_send *s, int *skip)
{
	pthread_t th;

	*skip = 0;
	if (sys_pidfd_send_signal(PIDFD_SELF_THREAD, 0, NULL, 0) != 0 ||
	    sys_pidfd_send_signal(PIDFD_SELF_THREAD_GROUP, 0, NULL, 0) != 0) {
		ASSERT_EQ(EBADF, errno) {
			TH_LOG("probe of PIDFD_SELF_*: %s", strerror(errno));
		}
		*skip = 1;
		return;
	}
	ASSERT_EQ(0, block_all());
	ASSERT_EQ(0, pthread_create(&th, NULL, self_send_thread, s));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, s->ret) {
		TH_LOG("pidfd_send_signal(%d): %s", s->fd, strerror(s->err));
	}
}

/* From a non-leader thread: the signal is queued for that thread alone. */
TEST(self_thread_siginfo)
{
	struct self_send s = { .fd = PIDFD_SELF_THREAD };
	int skip;

	self_send_from_thread(_metadata, &s, &skip);
	if (skip)
		SKIP(return, "PIDFD_SELF_THREAD is not a pidfd here (EBADF): no PIDFD_SELF_*");
	EXPECT_EQ(PFC_SIGBIT(SIGUSR1), s.thread_pnd & PFC_SIGBIT(SIGUSR1));
	EXPECT_EQ(0, s.leader_pnd & PFC_SIGBIT(SIGUSR1));
	EXPECT_EQ(0, s.shared_pnd & PFC_SIGBIT(SIGUSR1));
	ASSERT_EQ(SIGUSR1, s.wait_ret);
	check_info(_metadata, &s.si);
}

/* From a non-leader thread: the signal is queued for the whole group. */
TEST(self_thread_group_siginfo)
{
	struct self_send s = { .fd = PIDFD_SELF_THREAD_GROUP };
	siginfo_t si;
	int skip;

	self_send_from_thread(_metadata, &s, &skip);
	if (skip)
		SKIP(return, "PIDFD_SELF_THREAD_GROUP is not a pidfd here (EBADF): no PIDFD_SELF_*");
	EXPECT_EQ(0, s.thread_pnd & PFC_SIGBIT(SIGUSR1));
	EXPECT_EQ(0, s.leader_pnd & PFC_SIGBIT(SIGUSR1));
	EXPECT_EQ(PFC_SIGBIT(SIGUSR1), s.shared_pnd & PFC_SIGBIT(SIGUSR1));
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(SIGUSR1, raw_sigwaitinfo(SIGUSR1, &si));
	check_info(_metadata, &si);
}

/*
 * clone3() for a thread that runs no C code: it shares our TLS, so it
 * only reads one byte from @fd on its own stack and exits. Returns the
 * tid, or -errno.
 */
static long clone3_asm_thread(struct pfc_clone_args *args, int fd)
{
	long ret;

#if defined(__x86_64__)
	register long child_fd asm("r12") = fd;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov $0, %%eax\n\t"	/* read(fd, sp - 16, 1) */
		     "mov %%r12, %%rdi\n\t"
		     "lea -16(%%rsp), %%rsi\n\t"
		     "mov $1, %%edx\n\t"
		     "syscall\n\t"
		     "mov $60, %%eax\n\t"	/* exit(0): this thread only */
		     "xor %%edi, %%edi\n\t"
		     "syscall\n\t"
		     "hlt\n\t"
		     "1:\n\t"
		     : "=a" (ret)
		     : "0" ((long)SYS_clone3), "D" (args), "S" (sizeof(*args)),
		       "r" (child_fd)
		     : "rcx", "r11", "rdx", "memory");
#elif defined(__i386__)
	asm volatile("push %%ebx\n\t"
		     "mov %%esi, %%ebx\n\t"
		     "int $0x80\n\t"
		     "test %%eax, %%eax\n\t"
		     "jnz 1f\n\t"
		     "mov $3, %%eax\n\t"	/* read(fd, sp - 16, 1) */
		     "mov %%edi, %%ebx\n\t"
		     "lea -16(%%esp), %%ecx\n\t"
		     "mov $1, %%edx\n\t"
		     "int $0x80\n\t"
		     "mov $1, %%eax\n\t"	/* exit(0): this thread only */
		     "xor %%ebx, %%ebx\n\t"
		     "int $0x80\n\t"
		     "hlt\n\t"
		     "1:\n\t"
		     "pop %%ebx\n\t"
		     : "=a" (ret)
		     : "0" ((long)SYS_clone3), "S" (args), "c" (sizeof(*args)),
		       "D" (fd)
		     : "edx", "memory");
#elif defined(__aarch64__)
	register long x0 asm("x0") = (long)args;
	register long x1 asm("x1") = sizeof(*args);
	register long x8 asm("x8") = SYS_clone3;
	register long child_fd asm("x9") = fd;

	asm volatile("svc #0\n\t"
		     "cbnz x0, 1f\n\t"
		     "mov x0, x9\n\t"		/* read(fd, sp - 16, 1) */
		     "sub x1, sp, #16\n\t"
		     "mov x2, #1\n\t"
		     "mov x8, #63\n\t"
		     "svc #0\n\t"
		     "mov x0, #0\n\t"		/* exit(0): this thread only */
		     "mov x8, #93\n\t"
		     "svc #0\n\t"
		     "brk #0\n\t"
		     "1:\n\t"
		     : "+r" (x0), "+r" (x1), "+r" (x8)
		     : "r" (child_fd)
		     : "x2", "memory");
	ret = x0;
#else
#error "clone3_asm_thread: x86_64, i386 and aarch64 only"
#endif
	return ret;
}

TEST(clone3_thread_pidfd)
{
	const size_t stack_size = 64 * 1024;
	struct pfc_clone_args args;
	int pidfd = -1, go[2], sig = SIGUSR1, i;
	pid_t ptid = 0, pid = getpid();
	struct pollfd pfd;
	siginfo_t info;
	char *stack;
	long tid;

	/* Never freed: the thread may still be leaving when we return. */
	stack = malloc(stack_size);
	ASSERT_TRUE(stack != NULL);
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	/* The thread inherits the mask: SIGUSR1 stays pending on it. */
	ASSERT_EQ(0, block_all());

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		     CLONE_THREAD | CLONE_SYSVSEM | CLONE_PIDFD |
		     CLONE_PARENT_SETTID;
	args.pidfd = (uintptr_t)&pidfd;
	args.parent_tid = (uintptr_t)&ptid;
	args.stack = (uintptr_t)stack;
	args.stack_size = stack_size;
	tid = clone3_asm_thread(&args, go[0]);
	if (tid == -ENOSYS)
		SKIP(return, "clone3() is not supported (ENOSYS)");
	if (tid == -EINVAL)
		SKIP(return, "clone3(CLONE_PIDFD | CLONE_THREAD) is refused (EINVAL)");
	ASSERT_GT(tid, 0) {
		TH_LOG("clone3: %s", strerror(-tid));
	}

	/* Both pointers were written through the u64 fields. */
	EXPECT_EQ(tid, ptid);
	ASSERT_GE(pidfd, 0);
	EXPECT_EQ(PIDFD_THREAD, fcntl(pidfd, F_GETFL) & PIDFD_THREAD);
	EXPECT_EQ(pid, getpid());
	EXPECT_NE(~0ULL, task_mask(pid, tid, "SigPnd")) {
		TH_LOG("/proc/%d/task/%ld is not there", pid, tid);
	}

	/* A thread handle: siginfo lands on that thread, nowhere else. */
	fill_info(&info, sig);
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, sig, &info, 0)) {
		TH_LOG("pidfd_send_signal(thread pidfd): %s", strerror(errno));
	}
	EXPECT_EQ(PFC_SIGBIT(sig), task_mask(pid, tid, "SigPnd") & PFC_SIGBIT(sig));
	EXPECT_EQ(0, task_mask(pid, pid, "SigPnd") & PFC_SIGBIT(sig));
	EXPECT_EQ(0, task_mask(pid, pid, "ShdPnd") & PFC_SIGBIT(sig));

	/* Let it go: the handle becomes readable, then dead. */
	ASSERT_EQ(1, write(go[1], "x", 1));
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_MS));
	EXPECT_TRUE(pfd.revents & POLLIN);
	for (i = 0; i < WAIT_MS; i++) {
		if (sys_pidfd_send_signal(pidfd, 0, NULL, 0))
			break;
		usleep(1000);
	}
	EXPECT_EQ(ESRCH, errno);
	close(pidfd);
	close(go[0]);
	close(go[1]);
}

/*
 * Receiver mode is chosen before the harness starts: glibc passes argc and
 * argv to constructors. Priority 101 runs it before the default-priority
 * pfc_clean_signal_state(), which would unblock the inherited SIGUSR1 and
 * let an early signal kill the receiver.
 */
static void __attribute__((constructor(101))) receiver_mode(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--receive") == 0)
		_exit(receive(atoi(argv[2]), atoi(argv[3])));
}

TEST_HARNESS_MAIN
