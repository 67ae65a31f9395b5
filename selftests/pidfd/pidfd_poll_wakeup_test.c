// SPDX-License-Identifier: GPL-2.0
/*
 * Waiters that are already asleep in poll(2) or epoll_wait(2) on a pidfd
 * must be woken by every change that makes the pidfd report something new:
 * a process exit, a reap (EPOLLHUP), the exit of a thread other than the
 * leader, an exec by such a thread (its struct pid is released by
 * de_thread()) and the last thread of a group whose leader exited first.
 * Every wait is bounded, so a missed wake-up fails within seconds instead
 * of hanging. Also: pidfd_open() errnos as upstream 6.16 and the
 * PIDFD_SELF_* sentinels as upstream 6.17.
 */

#define _GNU_SOURCE

/*
 * <linux/fcntl.h> first and alone: upstream 6.17 defines PIDFD_SELF_* in
 * it, and we want to know whether it, rather than <linux/pidfd.h> read
 * afterwards, is where they come from. glibc's <fcntl.h> stays out: it
 * cannot be combined with <linux/fcntl.h> (both define struct flock), and
 * <linux/pidfd.h> includes the latter anyway.
 */
#include <linux/fcntl.h>
#if defined(PIDFD_SELF_THREAD) || defined(PIDFD_SELF_THREAD_GROUP)
#define SELF_IN_FCNTL_H 1
#else
#define SELF_IN_FCNTL_H 0
#endif
#include <linux/pidfd.h>

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/*
 * The sentinels as upstream 6.17 numbers them. The run-time tests use
 * these, not the header's, so that a wrong header cannot hide a wrong
 * kernel; the header is checked on its own below.
 */
#define SELF_THREAD		-10000
#define SELF_THREAD_GROUP	-10001
/* 6.15/6.16's group sentinel; 6.17 reserves it, it names no fd. */
#define SELF_GROUP_615		-20000

/*
 * Values are checked at compile time; a header that puts them elsewhere
 * than <linux/fcntl.h> fails the uapi_self_in_fcntl_h case instead, so
 * that the rest of the plan still builds and runs.
 */
#ifdef PIDFD_SELF_THREAD
static_assert(PIDFD_SELF_THREAD == -10000, "PIDFD_SELF_THREAD != -10000");
#endif
#ifdef PIDFD_SELF_THREAD_GROUP
static_assert(PIDFD_SELF_THREAD_GROUP == -10001,
	      "PIDFD_SELF_THREAD_GROUP != -10001 (the 6.15/6.16 value?)");
#endif
#if defined(PIDFD_SELF) && defined(PIDFD_SELF_THREAD)
static_assert(PIDFD_SELF == PIDFD_SELF_THREAD, "PIDFD_SELF alias");
#endif
#if defined(PIDFD_SELF_PROCESS) && defined(PIDFD_SELF_THREAD_GROUP)
static_assert(PIDFD_SELF_PROCESS == PIDFD_SELF_THREAD_GROUP,
	      "PIDFD_SELF_PROCESS alias");
#endif

/* Upper bound of every wait: far beyond any event, short enough to fail. */
#define WAIT_MS		5000
/* The event comes this long after the waiter was seen asleep. */
#define EVENT_DELAY_MS	250
/* Time given to a wrong wake-up to show itself before we look. */
#define SETTLE_MS	100

#define EXEC_ENV	"POLL_WAKEUP_TEST_EXEC"

static int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

static int sys_pidfd_send_signal(int pidfd, int sig, siginfo_t *info,
				 unsigned int flags)
{
	return syscall(__NR_pidfd_send_signal, pidfd, sig, info, flags);
}

static pid_t sys_gettid(void)
{
	return syscall(__NR_gettid);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * After a thread other than the leader has exec'd this binary (see
 * run_exec()): say "E" on the inherited report pipe, wait for EOF on the
 * hold pipe, exit. Runs before main(), so the harness never starts here.
 */
static void __attribute__((constructor)) exec_helper(void)
{
	const char *env = getenv(EXEC_ENV);
	int rep, hold;
	char c;

	if (!env)
		return;
	if (sscanf(env, "%d,%d", &rep, &hold) != 2)
		_exit(1);
	if (write(rep, "E", 1) != 1)
		_exit(1);
	while (read(hold, &c, 1) > 0)
		;
	_exit(0);
}

/* The state letter in /proc/<pid>/task/<tid>/stat, 0 if unreadable. */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: the state follows the last. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	return p[2];
}

static bool wait_task_state(pid_t pid, pid_t tid, char state)
{
	int i;

	for (i = 0; i < WAIT_MS; i++) {
		if (task_state(pid, tid) == state)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* One hex mask line ("SigPnd", "ShdPnd") of a thread's status file. */
static unsigned long long task_sigmask(pid_t pid, pid_t tid, const char *key)
{
	unsigned long long mask = ~0ULL;
	size_t klen = strlen(key);
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			if (sscanf(line + klen + 1, "%llx", &mask) != 1)
				mask = ~0ULL;
			break;
		}
	}
	fclose(f);
	return mask;
}

#define SIGBIT(sig)	(1ULL << ((sig) - 1))

/* revents of a poll(POLLIN) that does not wait, -1 on error. */
static int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, 0);

	return ret < 0 ? -1 : ret == 0 ? 0 : p.revents;
}

/* read() of exactly @len bytes, giving up after WAIT_MS. */
static bool read_timeout(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		if (poll(&p, 1, WAIT_MS) != 1)
			return false;
		n = read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

static int reap(pid_t pid)
{
	int status;
	pid_t ret;

	do {
		ret = waitpid(pid, &status, 0);
	} while (ret < 0 && errno == EINTR);
	return ret == pid ? status : -1;
}

/* Wait for @pid to exit, but leave the zombie in place. */
static bool wait_zombie(pid_t pid)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	return !waitid(P_PID, pid, &info, WEXITED | WNOWAIT) &&
	       info.si_pid == pid;
}

static void drain_until_eof(int fd)
{
	char c;

	while (read(fd, &c, 1) > 0)
		;
}

static bool have_thread_pidfd(void)
{
	int fd = sys_pidfd_open(getpid(), PIDFD_THREAD);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Both sentinels, always: a kernel with only one of them is wrong. */
static bool have_self_sentinels(void)
{
	return !sys_pidfd_send_signal(SELF_THREAD, 0, NULL, 0) &&
	       !sys_pidfd_send_signal(SELF_THREAD_GROUP, 0, NULL, 0);
}

/*
 * A reaped child's pidfd reports POLLHUP since upstream 6.9 (and with
 * our series). Without it there is no hangup to wait for: the reap tests
 * skip on such a kernel (stock 6.1).
 */
static bool have_reap_hup(void)
{
	pid_t pid = fork();
	int fd, ret;

	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(0);
	fd = sys_pidfd_open(pid, 0);
	reap(pid);
	if (fd < 0)
		return false;
	ret = poll_now(fd);
	close(fd);
	return ret > 0 && (ret & POLLHUP);
}

/*
 * One waiter: a thread that blocks in poll() or epoll_wait() on a pidfd
 * for at most timeout_ms and records what it got, and how long it took:
 * poll() looks at the fd once more when its timeout expires, so a
 * POLLHUP-only poll that was never woken still returns POLLHUP if the
 * reap happened meanwhile. Only a return before the timeout is a wake-up.
 */
enum wkind {
	W_POLL_IN,	/* poll(), events = POLLIN */
	W_POLL_HUP,	/* poll(), events = 0: POLLHUP is always reported */
	W_EPOLL_LT,	/* epoll, level-triggered, EPOLLIN */
	W_EPOLL_LT_HUP,	/* epoll, level-triggered, events = 0 */
	W_EPOLL_ET,	/* epoll, EPOLLIN | EPOLLET */
};

static const char *const wkind_name[] = {
	[W_POLL_IN] = "poll(POLLIN)",
	[W_POLL_HUP] = "poll(0: POLLHUP only)",
	[W_EPOLL_LT] = "epoll LT EPOLLIN",
	[W_EPOLL_LT_HUP] = "epoll LT (EPOLLHUP only)",
	[W_EPOLL_ET] = "epoll EPOLLET|EPOLLIN",
};

struct waiter {
	enum wkind kind;
	int fd;
	int epfd;
	pthread_t thread;
	pid_t tid;
	int timeout_ms;
	int entering;	/* set right before the thread blocks */
	int done;	/* set once poll/epoll_wait returned */
	int ret;
	int err;
	unsigned int revents;
	long elapsed_ms;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct pollfd p = { .fd = w->fd };
	struct epoll_event ev = { 0 };
	long start;

	w->tid = sys_gettid();
	if (w->kind == W_POLL_IN)
		p.events = POLLIN;
	__atomic_store_n(&w->entering, 1, __ATOMIC_RELEASE);
	/* Taken before the kernel starts its timer: never too short. */
	start = now_ms();
	if (w->kind == W_POLL_IN || w->kind == W_POLL_HUP) {
		w->ret = poll(&p, 1, w->timeout_ms);
		w->err = errno;
		w->revents = p.revents;
	} else {
		w->ret = epoll_wait(w->epfd, &ev, 1, w->timeout_ms);
		w->err = errno;
		w->revents = ev.events;
	}
	w->elapsed_ms = now_ms() - start;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The epoll instance is set up here, so that it can be used before. */
static int waiter_init(struct waiter *w, enum wkind kind, int fd)
{
	struct epoll_event ev = { 0 };

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->fd = fd;
	w->epfd = -1;
	w->timeout_ms = WAIT_MS;
	if (kind == W_POLL_IN || kind == W_POLL_HUP)
		return 0;
	if (kind == W_EPOLL_LT)
		ev.events = EPOLLIN;
	else if (kind == W_EPOLL_ET)
		ev.events = EPOLLIN | EPOLLET;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		return -1;
	return epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int waiter_start(struct waiter *w)
{
	return pthread_create(&w->thread, NULL, waiter_main, w);
}

static bool waiter_done(struct waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/*
 * True once the waiter has passed its marker and sleeps ('S'): past the
 * marker it does nothing but the one poll/epoll_wait, so it is asleep in
 * it, registered on the pidfd's wait queue.
 */
static bool waiter_asleep(struct waiter *w)
{
	int i;

	for (i = 0; i < WAIT_MS; i++) {
		if (waiter_done(w))
			return false;
		if (__atomic_load_n(&w->entering, __ATOMIC_ACQUIRE) &&
		    task_state(getpid(), w->tid) == 'S')
			return true;
		sleep_ms(1);
	}
	return false;
}

/* Bounded: the waiter itself gives up after its timeout. */
static int waiter_join(struct waiter *w)
{
	int ret = pthread_join(w->thread, NULL);

	if (w->epfd >= 0)
		close(w->epfd);
	w->epfd = -1;
	return ret;
}

/*
 * The waiter must have been woken with an event: returned 1, before its
 * timeout (not a speed: the event came seconds earlier), with
 * (revents & ~maybe) == want. EPOLL* and POLL* bits have the same values.
 */
#define EXPECT_WOKEN(wp, want_events, maybe_events) do {		\
	struct waiter *__w = (wp);					\
	unsigned int __want = (want_events);				\
	unsigned int __maybe = (maybe_events);				\
									\
	ASSERT_EQ(0, waiter_join(__w));					\
	EXPECT_EQ(1, __w->ret) {					\
		TH_LOG("%s waiter returned %d: %s",			\
		       wkind_name[__w->kind], __w->ret,			\
		       __w->ret ? strerror(__w->err) :			\
		       "timed out, the wake-up was missed");		\
	}								\
	EXPECT_LT(__w->elapsed_ms, (long)__w->timeout_ms) {		\
		TH_LOG("%s waiter returned at its %d ms timeout, "	\
		       "not woken: the wake-up was missed",		\
		       wkind_name[__w->kind], __w->timeout_ms);		\
	}								\
	EXPECT_EQ(__want, __w->revents & ~__maybe) {			\
		TH_LOG("%s waiter: revents %#x, want %#x",		\
		       wkind_name[__w->kind], __w->revents, __want);	\
	}								\
} while (0)

/* A child that exits once @*hold_w, the write end of its pipe, is closed. */
static pid_t fork_holder(int *hold_w)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		drain_until_eof(p[0]);
		_exit(0);
	}
	close(p[0]);
	*hold_w = p[1];
	return pid;
}

/*
 * A child process of two threads: the leader and one other, each exiting
 * on its own (SYS_exit, not the group) when its pipe's write end closes.
 */
struct tgroup {
	pid_t pid;
	pid_t tid;	/* the thread other than the leader */
	int lead_w;
	int thr_w;
};

static int tgroup_thr_r;

static void *tgroup_thread(void *arg)
{
	int rep = *(int *)arg;
	pid_t tid = sys_gettid();

	if (write(rep, &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	drain_until_eof(tgroup_thr_r);
	syscall(__NR_exit, 0);
	return NULL;
}

static int tgroup_start(struct tgroup *g)
{
	int lead[2], thr[2], rep[2];

	if (pipe2(lead, O_CLOEXEC) || pipe2(thr, O_CLOEXEC) ||
	    pipe2(rep, O_CLOEXEC))
		return -1;
	g->pid = fork();
	if (g->pid < 0)
		return -1;
	if (g->pid == 0) {
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(lead[1]);
		close(thr[1]);
		close(rep[0]);
		tgroup_thr_r = thr[0];
		if (pthread_create(&t, NULL, tgroup_thread, &rep[1]))
			_exit(1);
		drain_until_eof(lead[0]);
		/* Only the leader thread leaves; the process lives on. */
		syscall(__NR_exit, 0);
	}
	close(lead[0]);
	close(thr[0]);
	close(rep[1]);
	g->lead_w = lead[1];
	g->thr_w = thr[1];
	if (!read_timeout(rep[0], &g->tid, sizeof(g->tid)))
		return -1;
	close(rep[0]);
	return 0;
}

/* 1(a'): a process exits (not reaped): a POLLIN waiter wakes. */
static void run_exit(struct __test_metadata *_metadata, enum wkind kind)
{
	struct waiter w;
	int pidfd, hold;
	pid_t pid;

	pid = fork_holder(&hold);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(0, waiter_init(&w, kind, pidfd));
	ASSERT_EQ(0, waiter_start(&w));
	ASSERT_TRUE(waiter_asleep(&w));

	sleep_ms(EVENT_DELAY_MS);
	close(hold);
	/* A zombie: readable, no hangup yet. */
	EXPECT_WOKEN(&w, POLLIN, 0);
	EXPECT_GE(reap(pid), 0);
	close(pidfd);
}

TEST(exit_wakes_poll_in)
{
	run_exit(_metadata, W_POLL_IN);
}

TEST(exit_wakes_epoll_lt)
{
	run_exit(_metadata, W_EPOLL_LT);
}

TEST(exit_wakes_epoll_et)
{
	run_exit(_metadata, W_EPOLL_ET);
}

/*
 * 1(a): the reap. A waiter that asked for no POLLIN sleeps through the
 * exit (the zombie's POLLIN is not for it); an edge-triggered waiter has
 * taken the zombie's EPOLLIN already. Only the reap has something new for
 * them, EPOLLHUP, and it must wake them: upstream wakes pid->wait_pidfd
 * when the task leaves its struct pid (__change_pid() since 6.9,
 * __unhash_process() since 6.16).
 */
static void run_reap(struct __test_metadata *_metadata, enum wkind kind)
{
	struct epoll_event ev;
	unsigned int want;
	struct waiter w;
	int pidfd, hold;
	pid_t pid;

	if (!have_reap_hup())
		SKIP(return, "no POLLHUP on a reaped child's pidfd (before 6.9)");

	pid = fork_holder(&hold);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(0, waiter_init(&w, kind, pidfd));

	if (kind == W_EPOLL_ET) {
		close(hold);
		ASSERT_TRUE(wait_zombie(pid));
		/* Take the zombie's edge, so that only the reap is left. */
		memset(&ev, 0, sizeof(ev));
		ASSERT_EQ(1, epoll_wait(w.epfd, &ev, 1, WAIT_MS));
		ASSERT_EQ(EPOLLIN, ev.events);
		ASSERT_EQ(0, epoll_wait(w.epfd, &ev, 1, 0));
		ASSERT_EQ(0, waiter_start(&w));
		ASSERT_TRUE(waiter_asleep(&w));
		want = POLLIN | POLLHUP;
	} else {
		ASSERT_EQ(0, waiter_start(&w));
		ASSERT_TRUE(waiter_asleep(&w));
		close(hold);
		ASSERT_TRUE(wait_zombie(pid));
		sleep_ms(SETTLE_MS);
		ASSERT_FALSE(waiter_done(&w)) {
			TH_LOG("%s returned on the exit: revents %#x",
			       wkind_name[kind], w.revents);
		}
		ASSERT_TRUE(waiter_asleep(&w));
		want = POLLHUP;
	}

	sleep_ms(EVENT_DELAY_MS);
	EXPECT_GE(reap(pid), 0);
	EXPECT_WOKEN(&w, want, 0);
	close(pidfd);
}

TEST(reap_wakes_poll_hup_only)
{
	run_reap(_metadata, W_POLL_HUP);
}

TEST(reap_wakes_epoll_hup_only)
{
	run_reap(_metadata, W_EPOLL_LT_HUP);
}

TEST(reap_wakes_epoll_et)
{
	run_reap(_metadata, W_EPOLL_ET);
}

/*
 * 1(b): a thread other than the leader exits: a waiter on its thread
 * pidfd wakes with POLLIN (POLLHUP too if it looks after the thread was
 * released, which for such a thread follows at once). A POLLHUP-only
 * waiter needs the release's wake-up, as for a reap.
 */
static void run_thread_exit(struct __test_metadata *_metadata,
			    enum wkind kind)
{
	struct waiter w;
	struct tgroup g;
	int tfd, pfd;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	ASSERT_EQ(0, tgroup_start(&g));
	tfd = sys_pidfd_open(g.tid, PIDFD_THREAD);
	ASSERT_GE(tfd, 0);
	pfd = sys_pidfd_open(g.pid, 0);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(0, poll_now(tfd));
	ASSERT_EQ(0, waiter_init(&w, kind, tfd));
	ASSERT_EQ(0, waiter_start(&w));
	ASSERT_TRUE(waiter_asleep(&w));

	sleep_ms(EVENT_DELAY_MS);
	close(g.thr_w);
	if (kind == W_POLL_HUP)
		EXPECT_WOKEN(&w, POLLHUP, 0);
	else
		EXPECT_WOKEN(&w, POLLIN, POLLHUP);
	/* The leader lives: the process is not done. */
	EXPECT_EQ(0, poll_now(pfd));

	close(g.lead_w);
	EXPECT_GE(reap(g.pid), 0);
	close(tfd);
	close(pfd);
}

TEST(thread_exit_wakes_poll_in)
{
	run_thread_exit(_metadata, W_POLL_IN);
}

TEST(thread_exit_wakes_poll_hup_only)
{
	run_thread_exit(_metadata, W_POLL_HUP);
}

TEST(thread_exit_wakes_epoll_lt)
{
	run_thread_exit(_metadata, W_EPOLL_LT);
}

TEST(thread_exit_wakes_epoll_et)
{
	run_thread_exit(_metadata, W_EPOLL_ET);
}

/*
 * 1(c): a thread other than the leader execs. de_thread() gives it the
 * leader's struct pid and releases the old leader, which by then holds
 * the exec'ing thread's old struct pid: a waiter on that thread's own
 * thread pidfd must be woken, and sees EPOLLIN | EPOLLHUP (upstream 6.12
 * does this through the wake-up in __change_pid()). A waiter on the
 * process pidfd sleeps on: the process is alive, led by the exec'd thread.
 */
static int execer_fds[3];	/* report (w), go (r), hold (r) */

static void *execer_main(void *arg)
{
	char *argv[2] = { (char *)"/proc/self/exe", NULL };
	char env[64], *envp[2] = { env, NULL };
	pid_t tid = sys_gettid();
	int rep, hold;
	char c;

	if (write(execer_fds[0], &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	if (read(execer_fds[1], &c, 1) != 1)
		_exit(1);
	/* dup() drops O_CLOEXEC: these two, and only these, pass the exec. */
	rep = dup(execer_fds[0]);
	hold = dup(execer_fds[2]);
	if (rep < 0 || hold < 0)
		_exit(1);
	snprintf(env, sizeof(env), EXEC_ENV "=%d,%d", rep, hold);
	execve(argv[0], argv, envp);
	_exit(1);
}

static void run_exec(struct __test_metadata *_metadata, enum wkind kind)
{
	int rep[2], go[2], hold[2], tfd, pfd;
	struct waiter wt, wp;
	pid_t pid, tid;
	char c;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	ASSERT_EQ(0, pipe2(rep, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(rep[0]);
		close(go[1]);
		close(hold[1]);
		execer_fds[0] = rep[1];
		execer_fds[1] = go[0];
		execer_fds[2] = hold[0];
		if (pthread_create(&t, NULL, execer_main, NULL))
			_exit(1);
		/* The leader waits to be killed by the exec. */
		for (;;)
			pause();
	}
	close(rep[1]);
	close(go[0]);
	close(hold[0]);
	ASSERT_TRUE(read_timeout(rep[0], &tid, sizeof(tid)));
	ASSERT_NE(pid, tid);

	tfd = sys_pidfd_open(tid, PIDFD_THREAD);
	ASSERT_GE(tfd, 0);
	pfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(0, waiter_init(&wt, kind, tfd));
	ASSERT_EQ(0, waiter_init(&wp, W_POLL_IN, pfd));
	/* Outlasts wt's timeout, so that wt missing its wake-up shows alone. */
	wp.timeout_ms = 3 * WAIT_MS;
	ASSERT_EQ(0, waiter_start(&wt));
	ASSERT_EQ(0, waiter_start(&wp));
	ASSERT_TRUE(waiter_asleep(&wt));
	ASSERT_TRUE(waiter_asleep(&wp));

	sleep_ms(EVENT_DELAY_MS);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_TRUE(read_timeout(rep[0], &c, 1)) {
		TH_LOG("the exec'd image did not report");
	}
	ASSERT_EQ('E', c);

	if (kind == W_POLL_HUP || kind == W_EPOLL_LT_HUP)
		EXPECT_WOKEN(&wt, POLLHUP, 0);
	else
		EXPECT_WOKEN(&wt, POLLIN | POLLHUP, 0);

	/* The process lives on: its waiter sleeps, its pidfd is quiet. */
	sleep_ms(SETTLE_MS);
	EXPECT_FALSE(waiter_done(&wp)) {
		TH_LOG("process pidfd waiter returned on the exec: %#x",
		       wp.revents);
	}
	EXPECT_EQ(0, poll_now(pfd));
	EXPECT_EQ(0, sys_pidfd_send_signal(pfd, 0, NULL, 0));

	/* Now the process ends, and its waiter must wake. */
	close(hold[1]);
	EXPECT_WOKEN(&wp, POLLIN, 0);
	EXPECT_GE(reap(pid), 0);
	close(go[1]);
	close(rep[0]);
	close(tfd);
	close(pfd);
}

TEST(exec_wakes_thread_poll_in)
{
	run_exec(_metadata, W_POLL_IN);
}

TEST(exec_wakes_thread_poll_hup_only)
{
	run_exec(_metadata, W_POLL_HUP);
}

TEST(exec_wakes_thread_epoll_lt)
{
	run_exec(_metadata, W_EPOLL_LT);
}

TEST(exec_wakes_thread_epoll_et)
{
	run_exec(_metadata, W_EPOLL_ET);
}

/*
 * 1(d): the leader exits first while another thread lives. The leader
 * is a zombie (checked, so that "not readable" means something), the
 * process pidfd stays quiet and its waiter asleep; the last thread's exit
 * ends the process and must wake the waiter.
 */
static void run_leader_first(struct __test_metadata *_metadata,
			     enum wkind kind)
{
	struct waiter w;
	struct tgroup g;
	int pfd;

	ASSERT_EQ(0, tgroup_start(&g));
	pfd = sys_pidfd_open(g.pid, 0);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(0, waiter_init(&w, kind, pfd));
	ASSERT_EQ(0, waiter_start(&w));
	ASSERT_TRUE(waiter_asleep(&w));

	close(g.lead_w);
	ASSERT_TRUE(wait_task_state(g.pid, g.pid, 'Z')) {
		TH_LOG("the leader did not become a zombie");
	}
	EXPECT_EQ(0, poll_now(pfd));
	sleep_ms(SETTLE_MS);
	EXPECT_FALSE(waiter_done(&w)) {
		TH_LOG("%s returned on the leader's exit: %#x",
		       wkind_name[kind], w.revents);
	}

	sleep_ms(EVENT_DELAY_MS);
	close(g.thr_w);
	EXPECT_WOKEN(&w, POLLIN, 0);
	EXPECT_GE(reap(g.pid), 0);
	close(pfd);
}

TEST(leader_first_poll_in)
{
	run_leader_first(_metadata, W_POLL_IN);
}

TEST(leader_first_epoll_lt)
{
	run_leader_first(_metadata, W_EPOLL_LT);
}

TEST(leader_first_epoll_et)
{
	run_leader_first(_metadata, W_EPOLL_ET);
}

/*
 * 1(d), the leader's own thread pidfd: quiet while the group lives, as
 * upstream since 6.15 ("pidfs: improve multi-threaded exec and premature
 * thread-group leader exit polling": EPOLLIN only when
 * !delay_group_leader()), which the series follows and which stable
 * carries back (Debian's 6.12.118 has it and passes). 6.9 to 6.14 as
 * first released reported a thread pidfd readable once its task was a
 * zombie, the leader included: the older upstream rule, not a bug to
 * flag. We skip only when the kernel shows exactly that older answer and
 * also lacks the PIDFD_SELF_* sentinels of 6.15 (a feature probe, never a
 * version number); a kernel with the sentinels claims the newer pidfs
 * semantics and must get this right.
 */
TEST(leader_first_thread_pidfd)
{
	struct waiter w;
	struct tgroup g;
	int lfd, pfd, r;

	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");

	ASSERT_EQ(0, tgroup_start(&g));
	lfd = sys_pidfd_open(g.pid, PIDFD_THREAD);
	ASSERT_GE(lfd, 0);
	pfd = sys_pidfd_open(g.pid, 0);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(0, waiter_init(&w, W_POLL_IN, lfd));
	ASSERT_EQ(0, waiter_start(&w));
	ASSERT_TRUE(waiter_asleep(&w));

	close(g.lead_w);
	ASSERT_TRUE(wait_task_state(g.pid, g.pid, 'Z')) {
		TH_LOG("the leader did not become a zombie");
	}
	r = poll_now(lfd);
	if (r == POLLIN && !have_self_sentinels()) {
		close(g.thr_w);
		waiter_join(&w);
		reap(g.pid);
		SKIP(return,
		     "zombie leader's thread pidfd readable: pre-6.15 rule");
	}
	EXPECT_EQ(0, r) {
		TH_LOG("leader's thread pidfd readable while a thread lives");
	}
	EXPECT_EQ(0, poll_now(pfd));
	sleep_ms(SETTLE_MS);
	EXPECT_FALSE(waiter_done(&w)) {
		TH_LOG("thread pidfd waiter returned on the leader's exit: %#x",
		       w.revents);
	}

	sleep_ms(EVENT_DELAY_MS);
	close(g.thr_w);
	EXPECT_WOKEN(&w, POLLIN, 0);
	EXPECT_GE(reap(g.pid), 0);
	close(lfd);
	close(pfd);
}

/*
 * 2: pidfd_open() errnos as upstream 6.16 ("pidfd: improve uapi when task
 * isn't found", "pidfs: ensure consistent ENOENT/ESRCH reporting"): a
 * thread that is not a leader, opened without PIDFD_THREAD, is ENOENT; a
 * struct pid whose task has been reaped is ESRCH, with or without
 * PIDFD_THREAD. Before, both were EINVAL.
 *
 * Upstream 6.12 answers EINVAL, and must not fail for it. A version
 * check would be wrong for a backport, so we skip only when the answer is
 * EINVAL and the kernel also lacks the PIDFD_SELF_* sentinels: a kernel
 * that has them (upstream since 6.15, and our series) claims the current
 * pidfd ABI and must give the current errnos.
 */
static bool old_errno_abi(int err)
{
	return err == EINVAL && !have_self_sentinels();
}

static int open_thread_tid;
static int open_thread_hold_r;

static void *open_thread_main(void *arg)
{
	__atomic_store_n(&open_thread_tid, sys_gettid(), __ATOMIC_RELEASE);
	drain_until_eof(open_thread_hold_r);
	return NULL;
}

TEST(open_non_leader_enoent)
{
	int hold[2], fd, err;
	pthread_t t;
	pid_t tid = 0;
	int i;

	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	open_thread_hold_r = hold[0];
	ASSERT_EQ(0, pthread_create(&t, NULL, open_thread_main, NULL));
	for (i = 0; i < WAIT_MS && !tid; i++) {
		tid = __atomic_load_n(&open_thread_tid, __ATOMIC_ACQUIRE);
		if (!tid)
			sleep_ms(1);
	}
	ASSERT_NE(0, tid);
	ASSERT_NE(getpid(), tid);

	errno = 0;
	fd = sys_pidfd_open(tid, 0);
	err = errno;
	close(hold[1]);
	pthread_join(t, NULL);
	close(hold[0]);

	if (fd < 0 && old_errno_abi(err))
		SKIP(return, "EINVAL for a non-leader: pre-6.16 pidfd_open()");
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOENT, err) {
		TH_LOG("pidfd_open(non-leader tid, 0): errno %d (%s)",
		       err, strerror(err));
	}
	if (fd >= 0)
		close(fd);
}

/*
 * A reaped task whose struct pid lives on, made deterministic: child A
 * leads a new process group and forks B into it, then exits and is
 * reaped. B keeps A's struct pid alive as its PGID, so pidfd_open(A)
 * finds the struct pid (and nobody can reuse the number), with no task.
 */
static void run_open_reaped(struct __test_metadata *_metadata,
			    unsigned int flags)
{
	int rep[2], hold[2], fd, err;
	pid_t a, b;

	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe2(rep, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	a = fork();
	ASSERT_GE(a, 0);
	if (a == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(rep[0]);
		close(hold[1]);
		if (setpgid(0, 0))
			_exit(1);
		b = fork();
		if (b < 0)
			_exit(1);
		if (b == 0) {
			drain_until_eof(hold[0]);
			_exit(0);
		}
		if (write(rep[1], &b, sizeof(b)) != sizeof(b))
			_exit(1);
		_exit(0);
	}
	close(rep[1]);
	close(hold[0]);
	ASSERT_TRUE(read_timeout(rep[0], &b, sizeof(b)));
	close(rep[0]);
	ASSERT_EQ(0, WEXITSTATUS(reap(a)));

	/* The premise: no task has pid A, a process group still has it. */
	EXPECT_EQ(-1, kill(a, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(0, kill(-a, 0));

	errno = 0;
	fd = sys_pidfd_open(a, flags);
	err = errno;
	/* B was reparented to us, the subreaper. */
	close(hold[1]);
	reap(b);

	if (fd < 0 && old_errno_abi(err))
		SKIP(return, "EINVAL for a reaped pid: pre-6.16 pidfd_open()");
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ESRCH, err) {
		TH_LOG("pidfd_open(reaped pid, %#x): errno %d (%s)",
		       flags, err, strerror(err));
	}
	if (fd >= 0)
		close(fd);
}

TEST(open_reaped_pgid_esrch)
{
	run_open_reaped(_metadata, 0);
}

TEST(open_reaped_pgid_thread_esrch)
{
	if (!have_thread_pidfd())
		SKIP(return, "no PIDFD_THREAD");
	run_open_reaped(_metadata, PIDFD_THREAD);
}

/*
 * 3: where the UAPI headers define PIDFD_SELF_*: <linux/fcntl.h>, which
 * reserves [-10000, -40000] for such values since 6.17; the aliases
 * PIDFD_SELF and PIDFD_SELF_PROCESS stay in <linux/pidfd.h>. The values
 * are checked by the static_asserts above.
 */
TEST(uapi_self_in_fcntl_h)
{
#if defined(PIDFD_SELF_THREAD) || defined(PIDFD_SELF_THREAD_GROUP)
	bool both = false;

#if defined(PIDFD_SELF_THREAD) && defined(PIDFD_SELF_THREAD_GROUP)
	both = true;
#endif
	EXPECT_TRUE(both) {
		TH_LOG("only one of the two sentinels is defined");
	}
	EXPECT_EQ(1, SELF_IN_FCNTL_H) {
		TH_LOG("PIDFD_SELF_* not in <linux/fcntl.h> (6.17's place)");
	}
#else
	SKIP(return, "the UAPI headers define no PIDFD_SELF_*");
#endif
}

/* What a thread other than the leader saw when it signaled itself. */
struct self_report {
	pid_t tid;
	int ret_thread, err_thread;
	unsigned long long own_pnd_thread, shd_pnd_thread, lead_pnd_thread;
	int ret_group, err_group;
	unsigned long long own_pnd_group, shd_pnd_group;
};

static void take_pending(int sig)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	while (sigtimedwait(&set, NULL, &zero) == sig)
		;
}

static void *self_main(void *arg)
{
	struct self_report *r = arg;
	pid_t pid = getpid();

	r->tid = sys_gettid();
	r->ret_thread = sys_pidfd_send_signal(SELF_THREAD, SIGUSR1, NULL, 0);
	r->err_thread = errno;
	r->own_pnd_thread = task_sigmask(pid, r->tid, "SigPnd");
	r->shd_pnd_thread = task_sigmask(pid, r->tid, "ShdPnd");
	r->lead_pnd_thread = task_sigmask(pid, pid, "SigPnd");
	take_pending(SIGUSR1);

	r->ret_group = sys_pidfd_send_signal(SELF_THREAD_GROUP, SIGUSR1,
					     NULL, 0);
	r->err_group = errno;
	r->own_pnd_group = task_sigmask(pid, r->tid, "SigPnd");
	r->shd_pnd_group = task_sigmask(pid, r->tid, "ShdPnd");
	take_pending(SIGUSR1);
	return NULL;
}

/*
 * 3, at run time: signal 0 through both sentinels succeeds; SIGUSR1
 * (blocked, so that it stays pending) through PIDFD_SELF_THREAD lands on
 * the calling thread's own pending set, through PIDFD_SELF_THREAD_GROUP
 * on the shared one. The caller is a thread other than the leader, so
 * that "this thread" and "the group's leader" differ. -20000, 6.15/6.16's
 * group value, is now only a reserved number: EBADF.
 */
TEST(self_sentinels_signal)
{
	struct self_report r;
	int t, g, terr, gerr;
	pthread_t th;
	sigset_t set;

	errno = 0;
	EXPECT_EQ(-1, sys_pidfd_send_signal(SELF_GROUP_615, 0, NULL, 0));
	EXPECT_EQ(EBADF, errno);

	errno = 0;
	t = sys_pidfd_send_signal(SELF_THREAD, 0, NULL, 0);
	terr = errno;
	errno = 0;
	g = sys_pidfd_send_signal(SELF_THREAD_GROUP, 0, NULL, 0);
	gerr = errno;
	if (t && g && terr == EBADF && gerr == EBADF)
		SKIP(return, "no PIDFD_SELF_* sentinels (before 6.15)");
	ASSERT_EQ(0, t) {
		TH_LOG("PIDFD_SELF_THREAD (-10000): %s", strerror(terr));
	}
	ASSERT_EQ(0, g) {
		TH_LOG("PIDFD_SELF_THREAD_GROUP (-10001): %s", strerror(gerr));
	}

	/* Blocked in every thread: the new thread inherits the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	take_pending(SIGUSR1);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, pthread_create(&th, NULL, self_main, &r));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_NE(getpid(), r.tid);

	EXPECT_EQ(0, r.ret_thread) {
		TH_LOG("SIGUSR1 to PIDFD_SELF_THREAD: %s",
		       strerror(r.err_thread));
	}
	EXPECT_EQ(SIGBIT(SIGUSR1), r.own_pnd_thread & SIGBIT(SIGUSR1));
	EXPECT_EQ(0, r.shd_pnd_thread & SIGBIT(SIGUSR1));
	EXPECT_EQ(0, r.lead_pnd_thread & SIGBIT(SIGUSR1));

	EXPECT_EQ(0, r.ret_group) {
		TH_LOG("SIGUSR1 to PIDFD_SELF_THREAD_GROUP: %s",
		       strerror(r.err_group));
	}
	EXPECT_EQ(SIGBIT(SIGUSR1), r.shd_pnd_group & SIGBIT(SIGUSR1));
	EXPECT_EQ(0, r.own_pnd_group & SIGBIT(SIGUSR1));
}

TEST_HARNESS_MAIN
