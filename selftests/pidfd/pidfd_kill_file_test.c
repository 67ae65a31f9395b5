// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/kill and /proc/<pid>/task/<tid>/kill.
 *
 * Every delivery is checked on the receiving side: the target blocks all
 * signals and dequeues with the raw rt_sigtimedwait() syscall, so si_code
 * is what the kernel sent (glibc turns SI_TKILL into SI_USER). A refused
 * write is checked the other way round: the target is then sent a marker
 * signal with kill(2) and reports what else is pending, which must be
 * nothing.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/fsuid.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfd.h"
#include "pidfd_harness.h"

#define TESTER_UID	1000
#define TESTER_GID	1000
#define MARKER		SIGUSR1
#define DEPUTY_ARG	"--deputy"
#define HELPER_NO_SUID	42

struct report {
	int err;		/* errno of rt_sigtimedwait(), 0 if it worked */
	int signo;
	int code;
	pid_t pid;
	uid_t uid;
	uint64_t pending;	/* signals still pending afterwards */
};

/* A child process that blocks every signal and reports the first one. */
struct waiter {
	pid_t pid;
	int report_fd;
};

static bool have_kill_files(void)
{
	return access("/proc/self/kill", F_OK) == 0;
}

#define NO_KILL_FILES	"no /proc/<pid>/kill in this kernel"
#define NEEDS_ROOT	"needs root (changes uids)"

static int drop_to_tester(void)
{
	if (setgroups(0, NULL) ||
	    setresgid(TESTER_GID, TESTER_GID, TESTER_GID) ||
	    setresuid(TESTER_UID, TESTER_UID, TESTER_UID))
		return -1;
	return 0;
}

static void block_all_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
}

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Dequeue one of @sig and MARKER, then report it and what is pending. */
static void dequeue_and_report(int sig, int fd)
{
	struct timespec timeout = { .tv_sec = 5 };
	struct report rep = { 0 };
	siginfo_t info;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigaddset(&set, MARKER);
	memset(&info, 0, sizeof(info));
	if (sys_rt_sigtimedwait(&set, &info, &timeout) < 0) {
		rep.err = errno;
	} else {
		rep.signo = info.si_signo;
		rep.code = info.si_code;
		rep.pid = info.si_pid;
		rep.uid = info.si_uid;
	}
	sigpending(&set);
	memcpy(&rep.pending, &set, sizeof(rep.pending));
	if (write(fd, &rep, sizeof(rep)) != sizeof(rep))
		_exit(EXIT_FAILURE);
}

static int waiter_start(struct waiter *w, int sig, uid_t uid)
{
	int ready[2], report[2];
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(report, O_CLOEXEC))
		return -1;

	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		block_all_signals();
		if (uid && drop_to_tester())
			_exit(EXIT_FAILURE);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (write(ready[1], "r", 1) != 1)
			_exit(EXIT_FAILURE);
		dequeue_and_report(sig, report[1]);
		_exit(EXIT_SUCCESS);
	}

	close(ready[1]);
	close(report[1]);
	w->report_fd = report[0];
	if (read_full(ready[0], &c, 1)) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	return 0;
}

static int waiter_finish(struct waiter *w, struct report *rep)
{
	int ret = read_full(w->report_fd, rep, sizeof(*rep));

	close(w->report_fd);
	if (waitpid(w->pid, NULL, 0) != w->pid)
		return -1;
	return ret;
}

/* Poke the waiter with MARKER: it reports MARKER and nothing else pending. */
static int waiter_poke(struct waiter *w, struct report *rep)
{
	if (kill(w->pid, MARKER))
		return -1;
	return waiter_finish(w, rep);
}

#define EXPECT_UNTOUCHED(w)						\
	do {								\
		struct report __rep;					\
		ASSERT_EQ(0, waiter_poke(w, &__rep));			\
		EXPECT_EQ(0, __rep.err);				\
		EXPECT_EQ(MARKER, __rep.signo);				\
		EXPECT_EQ(0, __rep.pending) {				\
			TH_LOG("target has pending signals %#llx",	\
			       (unsigned long long)__rep.pending);	\
		}							\
	} while (0)

static int open_kill(pid_t pid, pid_t tid, int flags)
{
	char path[64];

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/kill", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/kill", pid);
	return open(path, flags | O_CLOEXEC);
}

/* Wait for a child that reports through its exit status; 0 is success. */
static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* In forked children, which cannot use ASSERT_*: exit with the line. */
#define CHILD_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "# child: %s:%d: %s (errno %d)\n", \
				__FILE__, __LINE__, #cond, errno);	\
			_exit(1);					\
		}							\
	} while (0)

TEST(mode)
{
	struct stat st;
	char path[64];

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);

	ASSERT_EQ(0, stat("/proc/self/kill", &st));
	EXPECT_EQ(S_IFREG | 0644, st.st_mode);

	snprintf(path, sizeof(path), "/proc/self/task/%d/kill", sys_gettid());
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(S_IFREG | 0644, st.st_mode);
}

TEST(process_file_delivers_si_user)
{
	struct waiter w;
	struct report rep;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));

	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(3, write(fd, "15\n", 3));
	close(fd);

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(0, rep.err);
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(SI_USER, rep.code);
	EXPECT_EQ(getpid(), rep.pid);
	EXPECT_EQ(0, rep.uid);
}

TEST(highest_signal_without_newline)
{
	struct waiter w;
	struct report rep;
	char buf[8];
	int fd, len;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGRTMAX, 0));

	len = snprintf(buf, sizeof(buf), "%d", SIGRTMAX);
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(len, write(fd, buf, len));
	close(fd);

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGRTMAX, rep.signo);
	EXPECT_EQ(SI_USER, rep.code);
}

TEST(zero_probes_and_delivers_nothing)
{
	struct waiter w;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));

	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(2, write(fd, "0\n", 2));
	close(fd);

	EXPECT_UNTOUCHED(&w);
}

/*
 * A process with a second thread that waits for "go" before dequeuing, so
 * the parent can see in /proc which queue the signal went to.
 */
struct two_threads {
	int info_fd;	/* child writes the tid, then a struct report */
	int go_fd;
};

static void *two_threads_worker(void *arg)
{
	struct two_threads *t = arg;
	pid_t tid = sys_gettid();
	char c;

	if (write(t->info_fd, &tid, sizeof(tid)) != sizeof(tid) ||
	    read_full(t->go_fd, &c, 1))
		_exit(EXIT_FAILURE);
	dequeue_and_report(SIGTERM, t->info_fd);
	return NULL;
}

static pid_t two_threads_start(int *info_fd, int *go_fd, pid_t *tid)
{
	int info[2], go[2];
	pid_t pid;

	if (pipe2(info, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		return -1;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct two_threads t = { .info_fd = info[1], .go_fd = go[0] };
		pthread_t thread;

		block_all_signals();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pthread_create(&thread, NULL, two_threads_worker, &t) ||
		    pthread_join(thread, NULL))
			_exit(EXIT_FAILURE);
		_exit(EXIT_SUCCESS);
	}

	close(info[1]);
	close(go[0]);
	*info_fd = info[0];
	*go_fd = go[1];
	return read_full(*info_fd, tid, sizeof(*tid)) ? -1 : pid;
}

/* The private (SigPnd) or shared (ShdPnd) pending set of a thread. */
static uint64_t pending_set(pid_t pid, pid_t tid, const char *which)
{
	char path[64], line[256];
	uint64_t set = UINT64_MAX;
	size_t len = strlen(which);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, which, len) && line[len] == ':') {
			set = strtoull(line + len + 1, NULL, 16);
			break;
		}
	}
	fclose(f);
	return set;
}

/* Which kill file of a two-threaded process check_scope() writes. */
enum kill_file {
	PROCESS_FILE,		/* /proc/<pid>/kill */
	THREAD_FILE,		/* /proc/<pid>/task/<tid>/kill */
	TID_DIR_FILE,		/* /proc/<tid>/kill: the process's scope */
};

static void check_scope(struct __test_metadata *_metadata,
			enum kill_file file)
{
	bool thread = file == THREAD_FILE;
	uint64_t bit = 1ULL << (SIGTERM - 1);
	int info_fd, go_fd, fd;
	struct report rep;
	pid_t pid, tid;

	pid = two_threads_start(&info_fd, &go_fd, &tid);
	ASSERT_GT(pid, 0);
	ASSERT_NE(pid, tid);

	if (file == TID_DIR_FILE)
		fd = open_kill(tid, 0, O_WRONLY);
	else
		fd = open_kill(pid, thread ? tid : 0, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(3, write(fd, "15\n", 3));
	close(fd);

	if (thread) {
		EXPECT_EQ(bit, pending_set(pid, tid, "SigPnd"));
		EXPECT_EQ(0, pending_set(pid, tid, "ShdPnd"));
		EXPECT_EQ(0, pending_set(pid, pid, "SigPnd"));
	} else {
		EXPECT_EQ(bit, pending_set(pid, tid, "ShdPnd"));
		EXPECT_EQ(0, pending_set(pid, tid, "SigPnd"));
		EXPECT_EQ(0, pending_set(pid, pid, "SigPnd"));
	}

	ASSERT_EQ(1, write(go_fd, "g", 1));
	ASSERT_EQ(0, read_full(info_fd, &rep, sizeof(rep)));
	EXPECT_EQ(0, rep.err);
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(thread ? SI_TKILL : SI_USER, rep.code);
	EXPECT_EQ(getpid(), rep.pid);
	EXPECT_EQ(0, rep.uid);

	close(info_fd);
	close(go_fd);
	EXPECT_EQ(0, child_status(pid));
}

TEST(process_file_queues_to_thread_group)
{
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	check_scope(_metadata, PROCESS_FILE);
}

TEST(thread_file_queues_to_thread_si_tkill)
{
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	check_scope(_metadata, THREAD_FILE);
}

/*
 * The directory of a thread other than the leader, /proc/<tid>, is the
 * process's, as for pidfd_send_signal() on it: its kill file signals the
 * thread group.
 */
TEST(tid_directory_file_queues_to_thread_group)
{
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	check_scope(_metadata, TID_DIR_FILE);
}

TEST(busybox_sh_echo)
{
	struct waiter w;
	struct report rep;
	char pidstr[16];
	pid_t sh;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (access("/bin/sh", X_OK))
		SKIP(return, "no /bin/sh");
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	snprintf(pidstr, sizeof(pidstr), "%d", w.pid);

	sh = fork();
	ASSERT_GE(sh, 0);
	if (sh == 0) {
		execl("/bin/sh", "sh", "-c",
		      "exec 3</proc/$1 && echo 15 > /proc/self/fd/3/kill",
		      "sh", pidstr, (char *)NULL);
		_exit(127);
	}
	EXPECT_EQ(0, child_status(sh));

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(SI_USER, rep.code);
	EXPECT_EQ(sh, rep.pid);
	EXPECT_EQ(0, rep.uid);
}

TEST(zombie_then_reaped)
{
	int before, after;
	siginfo_t info;
	pid_t pid;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);

	before = open_kill(pid, 0, O_WRONLY);
	ASSERT_GE(before, 0);
	after = open_kill(pid, 0, O_WRONLY);
	ASSERT_GE(after, 0);

	/* A zombie can still be signalled, as with pidfd_send_signal(). */
	ASSERT_EQ(0, waitid(P_PID, pid, &info, WEXITED | WNOWAIT));
	EXPECT_EQ(3, write(before, "15\n", 3));

	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_EQ(-1, write(after, "15\n", 3));
	EXPECT_EQ(ESRCH, errno);

	close(before);
	close(after);
}

/*
 * In a new pid namespace (so ns_last_pid is ours): open a victim's kill
 * file, reap the victim, fork a newcomer that gets the same pid. The old
 * kill file must say ESRCH and the newcomer must get nothing.
 */
static void pid_reuse_init(void)
{
	struct waiter victim, newcomer;
	struct report rep;
	int fd, dirfd;
	char path[64];
	FILE *f;

	CHILD_CHECK(mount("proc", "/proc", "proc", 0, NULL) == 0);

	CHILD_CHECK(waiter_start(&victim, SIGTERM, 0) == 0);
	snprintf(path, sizeof(path), "/proc/%d", victim.pid);
	dirfd = open(path, O_DIRECTORY | O_CLOEXEC);
	CHILD_CHECK(dirfd >= 0);
	fd = openat(dirfd, "kill", O_WRONLY | O_CLOEXEC);
	CHILD_CHECK(fd >= 0);

	CHILD_CHECK(kill(victim.pid, SIGKILL) == 0);
	CHILD_CHECK(waiter_finish(&victim, &rep) == -1);

	f = fopen("/proc/sys/kernel/ns_last_pid", "we");
	CHILD_CHECK(f);
	CHILD_CHECK(fprintf(f, "%d", victim.pid - 1) > 0);
	CHILD_CHECK(fclose(f) == 0);
	CHILD_CHECK(waiter_start(&newcomer, SIGTERM, 0) == 0);
	if (newcomer.pid != victim.pid) {
		fprintf(stderr, "# child: newcomer is %d, not %d\n",
			newcomer.pid, victim.pid);
		_exit(1);
	}

	errno = 0;
	CHILD_CHECK(write(fd, "15\n", 3) == -1 && errno == ESRCH);
	/* The syscall on the old directory agrees. */
	CHILD_CHECK(sys_pidfd_send_signal(dirfd, SIGTERM, NULL, 0) == -1 &&
		    errno == ESRCH);
	/* And the dead directory refuses to open its kill file. */
	CHILD_CHECK(openat(dirfd, "kill", O_WRONLY) == -1 && errno == ESRCH);

	CHILD_CHECK(waiter_poke(&newcomer, &rep) == 0);
	CHILD_CHECK(rep.signo == MARKER && rep.pending == 0);
	_exit(0);
}

TEST(pid_reuse_gives_esrch)
{
	pid_t runner;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (access("/proc/sys/kernel/ns_last_pid", W_OK))
		SKIP(return, "no writable ns_last_pid (CONFIG_CHECKPOINT_RESTORE)");

	runner = fork();
	ASSERT_GE(runner, 0);
	if (runner == 0) {
		pid_t init;

		CHILD_CHECK(unshare(CLONE_NEWNS | CLONE_NEWPID) == 0);
		CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE,
				  NULL) == 0);
		init = fork();
		CHILD_CHECK(init >= 0);
		if (init == 0)
			pid_reuse_init();
		_exit(child_status(init));
	}
	EXPECT_EQ(0, child_status(runner));
}

TEST(unprivileged_user_gets_eacces_for_root_target)
{
	struct waiter w;
	pid_t child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int fd;

		CHILD_CHECK(drop_to_tester() == 0);
		/*
		 * The kill(2) rules are the file's write permission, so
		 * open() refuses and no description exists to hand to a
		 * deputy.
		 */
		errno = 0;
		fd = open_kill(w.pid, 0, O_WRONLY);
		CHILD_CHECK(fd == -1 && errno == EACCES);
		errno = 0;
		fd = open_kill(w.pid, w.pid, O_WRONLY);
		CHILD_CHECK(fd == -1 && errno == EACCES);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	EXPECT_UNTOUCHED(&w);
}

static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

TEST(fd_passed_to_privileged_process)
{
	struct waiter w;
	int sk[2], fd;
	pid_t child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sk));
	/* A target the tester may signal, or it could not open the file. */
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, TESTER_UID));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		CHILD_CHECK(drop_to_tester() == 0);
		fd = open_kill(w.pid, 0, O_WRONLY);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(send_fd(sk[1], fd) == 0);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));

	/* We are root and may signal the target, but not with this file. */
	fd = recv_fd(sk[0]);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, write(fd, "15\n", 3));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	close(sk[0]);
	close(sk[1]);

	EXPECT_UNTOUCHED(&w);
}

/*
 * The opener may change its credentials between the open and the write, as
 * a program that restores its ids does; the write then needs both: the
 * credentials of the open still allowed, and the writer's own allowed by
 * kill(2). Root opens, becomes the tester, and may then signal the
 * tester's process but no longer root's.
 */
TEST(credentials_changed_after_open)
{
	struct waiter mine, roots;
	struct report rep;
	pid_t child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, waiter_start(&mine, SIGTERM, TESTER_UID));
	ASSERT_EQ(0, waiter_start(&roots, SIGTERM, 0));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int fd_mine = open_kill(mine.pid, 0, O_WRONLY);
		int fd_roots = open_kill(roots.pid, 0, O_WRONLY);

		CHILD_CHECK(fd_mine >= 0 && fd_roots >= 0);
		CHILD_CHECK(drop_to_tester() == 0);
		errno = 0;
		CHILD_CHECK(write(fd_roots, "15\n", 3) == -1 && errno == EPERM);
		CHILD_CHECK(write(fd_mine, "15\n", 3) == 3);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	ASSERT_EQ(0, waiter_finish(&mine, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_UNTOUCHED(&roots);
}

/*
 * The child of a fork() is another process, so another writer, even though
 * it could signal the target itself. Threads are the opener.
 */
TEST(forked_child_of_opener_gets_eperm)
{
	struct waiter w;
	pid_t child;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		errno = 0;
		CHILD_CHECK(write(fd, "15\n", 3) == -1 && errno == EPERM);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	close(fd);
	EXPECT_UNTOUCHED(&w);
}

static void *write_15(void *arg)
{
	int fd = *(int *)arg;

	return (void *)(intptr_t)(write(fd, "15\n", 3) == 3 ? 0 : errno);
}

TEST(other_thread_of_opener_may_write)
{
	struct waiter w;
	struct report rep;
	pthread_t thread;
	void *err;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);

	ASSERT_EQ(0, pthread_create(&thread, NULL, write_15, &fd));
	ASSERT_EQ(0, pthread_join(thread, &err));
	EXPECT_EQ(0, (intptr_t)err);
	close(fd);

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(getpid(), rep.pid);
}

TEST(ancestor_pidns_target_through_leaked_proc_fd)
{
	struct waiter w;
	pid_t runner;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));

	runner = fork();
	ASSERT_GE(runner, 0);
	if (runner == 0) {
		int proc = open("/proc", O_DIRECTORY | O_CLOEXEC);
		pid_t child;

		CHILD_CHECK(proc >= 0);
		CHILD_CHECK(unshare(CLONE_NEWPID) == 0);
		child = fork();
		CHILD_CHECK(child >= 0);
		if (child == 0) {
			char name[32];
			int fd;

			snprintf(name, sizeof(name), "%d/kill", w.pid);
			errno = 0;
			fd = openat(proc, name, O_WRONLY | O_CLOEXEC);
			CHILD_CHECK(fd == -1 && errno == EACCES);
			/*
			 * Refused as the syscall on the directory refuses it,
			 * with the errno of a file permission.
			 */
			snprintf(name, sizeof(name), "%d", w.pid);
			fd = openat(proc, name, O_DIRECTORY | O_CLOEXEC);
			CHILD_CHECK(fd >= 0);
			errno = 0;
			CHILD_CHECK(sys_pidfd_send_signal(fd, SIGTERM, NULL,
							  0) == -1 &&
				    errno == EINVAL);
			_exit(0);
		}
		_exit(child_status(child));
	}
	EXPECT_EQ(0, child_status(runner));
	EXPECT_UNTOUCHED(&w);
}

/* Bad text: EINVAL, and nothing at all is delivered. */
FIXTURE(bad_input) {
	struct waiter w;
	int fd;
};

FIXTURE_VARIANT(bad_input) {
	const char *text;
	size_t len;
};

FIXTURE_VARIANT_ADD(bad_input, newline_only) {
	.text = "\n",
	.len = sizeof("\n") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, letters) {
	.text = "abc",
	.len = sizeof("abc") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, plus_sign) {
	.text = "+15",
	.len = sizeof("+15") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, minus_sign) {
	.text = "-15",
	.len = sizeof("-15") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, leading_space) {
	.text = " 15",
	.len = sizeof(" 15") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, trailing_space) {
	.text = "15 ",
	.len = sizeof("15 ") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, two_newlines) {
	.text = "15\n\n",
	.len = sizeof("15\n\n") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, leading_zero) {
	.text = "015",
	.len = sizeof("015") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, nul_byte) {
	.text = "15\0",
	.len = sizeof("15\0") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, too_long) {
	.text = "99999999999999999999",
	.len = sizeof("99999999999999999999") - 1,
};

FIXTURE_VARIANT_ADD(bad_input, newline_inside) {
	.text = "1\n5",
	.len = sizeof("1\n5") - 1,
};

FIXTURE_SETUP(bad_input)
{
	self->fd = -1;
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&self->w, SIGTERM, 0));
	self->fd = open_kill(self->w.pid, 0, O_WRONLY);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(bad_input)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(bad_input, einval)
{
	if (self->fd < 0)
		return;
	EXPECT_EQ(-1, write(self->fd, variant->text, variant->len));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_UNTOUCHED(&self->w);
}

TEST(second_write_on_same_fd)
{
	struct waiter w;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);

	EXPECT_EQ(2, write(fd, "0\n", 2));
	EXPECT_EQ(-1, write(fd, "15\n", 3));
	EXPECT_EQ(EINVAL, errno);
	/* Not even at offset 0: one write per open file. */
	EXPECT_EQ(-1, pwrite(fd, "15\n", 3, 0));
	EXPECT_EQ(EINVAL, errno);
	close(fd);

	EXPECT_UNTOUCHED(&w);
}

TEST(pwrite_at_offset_one)
{
	struct waiter w;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);

	EXPECT_EQ(-1, pwrite(fd, "15\n", 3, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, lseek(fd, 1, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);

	EXPECT_UNTOUCHED(&w);
}

TEST(reads_as_empty)
{
	struct waiter w;
	char buf[8];
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	/* grep -r and tar over /proc read it: an empty file, no error. */
	fd = open_kill(w.pid, 0, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);
	fd = open_kill(w.pid, w.pid, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);

	EXPECT_UNTOUCHED(&w);
}

TEST(reader_needs_no_signal_permission)
{
	struct waiter w;
	pid_t child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		char buf[8];
		int fd;

		CHILD_CHECK(drop_to_tester() == 0);
		/* Reading another user's kill file: empty, not an error. */
		fd = open_kill(w.pid, 0, O_RDONLY);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(read(fd, buf, sizeof(buf)) == 0);
		/* The descriptor cannot signal: it was not opened to write. */
		errno = 0;
		CHILD_CHECK(write(fd, "15", 2) == -1 && errno == EBADF);
		close(fd);
		fd = open_kill(w.pid, w.pid, O_RDONLY);
		CHILD_CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 0);
		close(fd);
		/* Opening it to write is still refused at open(). */
		errno = 0;
		fd = open_kill(w.pid, 0, O_RDWR);
		CHILD_CHECK(fd == -1 && errno == EACCES);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	EXPECT_UNTOUCHED(&w);
}

TEST(writev_is_one_write)
{
	struct iovec iov[2] = {
		{ .iov_base = "1", .iov_len = 1 },
		{ .iov_base = "5\n", .iov_len = 2 },
	};
	struct waiter w;
	struct report rep;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(3, writev(fd, iov, 2));
	close(fd);

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(0, rep.pending);
}

TEST(signal_above_nsig)
{
	struct waiter w;
	char buf[16];
	int fd, len;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	len = snprintf(buf, sizeof(buf), "%d", _NSIG + 1);
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, write(fd, buf, len));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_UNTOUCHED(&w);
}

/*
 * Only a write that sends a signal uses the file up: a zero-length write,
 * a bad buffer or bad text leave it as it was.
 */
TEST(failed_writes_do_not_use_up_the_file)
{
	struct waiter w;
	struct report rep;
	char *unmapped;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	ASSERT_TRUE(unmapped != MAP_FAILED);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);

	EXPECT_EQ(0, write(fd, "", 0));
	EXPECT_EQ(-1, write(fd, unmapped, 3));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, write(fd, "x\n", 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(3, write(fd, "15\n", 3));
	close(fd);

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(0, rep.pending);
}

/* Deny the kill family of syscalls with EPERM, allow everything else. */
static int deny_kill_syscalls(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tkill, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigqueueinfo, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_send_signal, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * A sandbox that is denied the kill syscalls must not signal through the
 * file instead: a writer whose filter denies kill(2) is refused, whether it
 * opened the file before or after its filter was installed.
 */
TEST(writer_under_seccomp_is_refused)
{
	struct waiter w;
	pid_t child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int before = open_kill(w.pid, 0, O_WRONLY), after;

		CHILD_CHECK(before >= 0);
		CHILD_CHECK(deny_kill_syscalls() == 0);
		errno = 0;
		CHILD_CHECK(kill(w.pid, SIGTERM) == -1 && errno == EPERM);
		errno = 0;
		CHILD_CHECK(write(before, "15\n", 3) == -1 && errno == EPERM);
		after = open_kill(w.pid, 0, O_WRONLY);
		CHILD_CHECK(after >= 0);
		errno = 0;
		CHILD_CHECK(write(after, "15\n", 3) == -1 && errno == EPERM);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	EXPECT_UNTOUCHED(&w);
}

/*
 * A kill file is opened by its name only: even its opener cannot open it
 * again through a magic link. stat() and O_PATH through the link work.
 */
TEST(no_open_through_a_magic_link)
{
	struct waiter w;
	char link[64];
	struct stat st;
	int fd, again;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_PATH);
	ASSERT_GE(fd, 0);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);

	EXPECT_EQ(-1, open(link, O_WRONLY | O_CLOEXEC));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, stat(link, &st));
	EXPECT_EQ(S_IFREG | 0644, st.st_mode);
	again = open(link, O_PATH | O_CLOEXEC);
	EXPECT_GE(again, 0);
	close(again);
	close(fd);

	EXPECT_UNTOUCHED(&w);
}

/*
 * The confused deputy. A setuid-root copy of this program (the deputy) is
 * handed a kill file, or an O_PATH fd of one, by an unprivileged user (the
 * tester), and tries every way there is to turn it into a signal with its
 * own authority. The target is one the tester could signal when it opened
 * the file and can no longer: it runs with ruid tester, euid root, as a
 * setuid program would, and calls setresuid(0, 0, 0) once the tester holds
 * the file. Every way must end in EPERM, and the target must receive
 * nothing.
 *
 * The deputy and two links live in a private directory (mode 0700, owned
 * by the tester) that the fixture removes: "stdout" -> /proc/self/fd/1 and
 * "fd" -> /proc/self/fd, as /dev/stdout and /dev/fd are on a normal system
 * (this test's guest has no such links in /dev).
 */
enum {
	DEPUTY_SIGNALED = 0,	/* a write went through: the attack worked */
	DEPUTY_REFUSED = 10,	/* every attempt ended in EPERM */
	DEPUTY_OTHER = 11,	/* an attempt failed with another errno */
	DEPUTY_SETUP = 12,	/* the deputy could not set itself up */
};

#define DEPUTY_FD	3	/* the handed file; for "scm" the socket */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail;
	unsigned int *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	bool sqpoll;	/* the kernel's SQ thread submits */
};

static int ring_init_flags(struct ring *r, unsigned int flags)
{
	struct io_uring_params p = { .flags = flags, .sq_thread_idle = 100 };
	size_t sq_len, cq_len;
	char *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, 1, &p);
	if (r->fd < 0)
		return -1;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		  r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	r->sqpoll = flags & IORING_SETUP_SQPOLL;
	return 0;
}

static int ring_init(struct ring *r)
{
	return ring_init_flags(r, 0);
}

/* Submit one request and return its result (a negative errno). */
static int ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, head;
	int res;

	r->sqes[0] = *sqe;
	r->sq_array[tail & *r->sq_mask] = 0;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS |
		    (r->sqpoll ? IORING_ENTER_SQ_WAKEUP : 0), NULL, 0) != 1)
		return -errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EIO;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/* Outcome of one attempt: its result, as a DEPUTY_* code. */
static int deputy_outcome(ssize_t ret, int err)
{
	if (ret >= 0)
		return DEPUTY_SIGNALED;
	return err == EPERM ? DEPUTY_REFUSED : DEPUTY_OTHER;
}

static int deputy_write(int fd)
{
	ssize_t ret = write(fd, "15\n", 3);

	return deputy_outcome(ret, errno);
}

/* Open @path again as the deputy and write to what that gives. */
static int deputy_reopen(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return deputy_outcome(-1, errno);
	return deputy_write(fd);
}

static int deputy_uring(bool reopen, int fd)
{
	struct io_uring_sqe sqe = { 0 };
	char path[32];
	struct ring r;
	int res;

	if (ring_init(&r))
		return DEPUTY_SETUP;
	if (reopen) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		sqe.opcode = IORING_OP_OPENAT;
		sqe.fd = AT_FDCWD;
		sqe.addr = (unsigned long)path;
		sqe.open_flags = O_WRONLY | O_CLOEXEC;
		res = ring_run(&r, &sqe);
		if (res < 0)
			return deputy_outcome(-1, -res);
		fd = res;
		memset(&sqe, 0, sizeof(sqe));
	}
	sqe.opcode = IORING_OP_WRITE;
	sqe.fd = fd;
	sqe.addr = (unsigned long)"15\n";
	sqe.len = 3;
	res = ring_run(&r, &sqe);
	return deputy_outcome(res < 0 ? -1 : res, -res);
}

static int deputy(const char *self, const char *how)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int fd = DEPUTY_FD, a, b;

	if (geteuid() != 0)
		return HELPER_NO_SUID;
	snprintf(dir, sizeof(dir), "%s", self);
	*strrchr(dir, '/') = '\0';

	if (!strcmp(how, "write"))
		return deputy_write(fd);
	if (!strcmp(how, "proc-self-fd")) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		return deputy_reopen(path);
	}
	if (!strcmp(how, "stdout-link")) {
		if (dup2(fd, STDOUT_FILENO) != STDOUT_FILENO)
			return DEPUTY_SETUP;
		snprintf(path, sizeof(path), "%s/stdout", dir);
		return deputy_reopen(path);
	}
	if (!strcmp(how, "fd-link")) {
		snprintf(path, sizeof(path), "%s/fd/%d", dir, fd);
		return deputy_reopen(path);
	}
	if (!strcmp(how, "scm")) {
		fd = recv_fd(DEPUTY_FD);
		if (fd < 0)
			return DEPUTY_SETUP;
		a = deputy_write(fd);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		b = deputy_reopen(path);
		return a == DEPUTY_REFUSED ? b : a;
	}
	if (!strcmp(how, "uring-write"))
		return deputy_uring(false, fd);
	if (!strcmp(how, "uring-reopen"))
		return deputy_uring(true, fd);
	return DEPUTY_SETUP;
}

/* Cue the reader of @go and wait until it answers on @done. */
static int cue(int go, int done)
{
	char c;

	if (write(go, "g", 1) != 1)
		return -1;
	return read_full(done, &c, 1);
}

FIXTURE(deputy) {
	char dir[64];
	char helper[96];
	struct waiter target;
	int raise[2], raised[2];
};

FIXTURE_VARIANT(deputy) {
	const char *how;
	bool o_path;	/* hand an O_PATH fd instead of an open file */
};

FIXTURE_VARIANT_ADD(deputy, inherited_file) { .how = "write" };
FIXTURE_VARIANT_ADD(deputy, proc_self_fd) { .how = "proc-self-fd" };
FIXTURE_VARIANT_ADD(deputy, dev_stdout) { .how = "stdout-link" };
FIXTURE_VARIANT_ADD(deputy, dev_fd) { .how = "fd-link" };
FIXTURE_VARIANT_ADD(deputy, o_path_proc_self_fd) {
	.how = "proc-self-fd", .o_path = true };
FIXTURE_VARIANT_ADD(deputy, o_path_dev_stdout) {
	.how = "stdout-link", .o_path = true };
FIXTURE_VARIANT_ADD(deputy, scm_rights_then_reopen) { .how = "scm" };
FIXTURE_VARIANT_ADD(deputy, io_uring_write) { .how = "uring-write" };
FIXTURE_VARIANT_ADD(deputy, io_uring_reopen) { .how = "uring-reopen" };
FIXTURE_VARIANT_ADD(deputy, o_path_io_uring_reopen) {
	.how = "uring-reopen", .o_path = true };

/* Copy this program to @dst, setuid root. */
static int make_setuid_copy(const char *dst)
{
	char buf[65536];
	int src, out;
	ssize_t n;

	src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (src < 0 || out < 0)
		return -1;
	while ((n = read(src, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return -1;
	close(src);
	if (n || fchown(out, 0, 0) || fchmod(out, 04755))
		return -1;
	return close(out);
}

/* The target: signalable by the tester until cued, then root alone. */
static int rising_target_start(struct waiter *w, int raise, int raised)
{
	int ready[2], report[2];
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(report, O_CLOEXEC))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		block_all_signals();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setresuid(TESTER_UID, 0, 0) || write(ready[1], "r", 1) != 1)
			_exit(EXIT_FAILURE);
		if (read_full(raise, &c, 1) || setresuid(0, 0, 0) ||
		    write(raised, "r", 1) != 1)
			_exit(EXIT_FAILURE);
		dequeue_and_report(SIGTERM, report[1]);
		_exit(EXIT_SUCCESS);
	}
	close(ready[1]);
	close(report[1]);
	w->report_fd = report[0];
	if (read_full(ready[0], &c, 1))
		return -1;
	close(ready[0]);
	return 0;
}

/*
 * A private directory of the tester's (mode 0700) holding "deputy", a
 * setuid-root copy of this program; remove_helper_dir() removes it.
 */
static int make_helper_dir(char *dir, size_t dir_len, char *helper,
			   size_t helper_len)
{
	snprintf(dir, dir_len, "/tmp/pidfd_deputy.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	snprintf(helper, helper_len, "%s/deputy", dir);
	if (chown(dir, TESTER_UID, TESTER_GID))
		return -1;
	return make_setuid_copy(helper);
}

static void remove_helper_dir(const char *dir)
{
	static const char * const names[] = { "deputy", "stdout", "fd" };
	char path[128];
	size_t i;

	if (!dir[0])
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

FIXTURE_SETUP(deputy)
{
	char path[128];

	self->dir[0] = '\0';
	self->target.pid = 0;
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);

	ASSERT_EQ(0, make_helper_dir(self->dir, sizeof(self->dir),
				     self->helper, sizeof(self->helper)));
	snprintf(path, sizeof(path), "%s/stdout", self->dir);
	ASSERT_EQ(0, symlink("/proc/self/fd/1", path));
	snprintf(path, sizeof(path), "%s/fd", self->dir);
	ASSERT_EQ(0, symlink("/proc/self/fd", path));

	ASSERT_EQ(0, pipe2(self->raise, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(self->raised, O_CLOEXEC));
	ASSERT_EQ(0, rising_target_start(&self->target, self->raise[0],
					 self->raised[1]));
}

FIXTURE_TEARDOWN(deputy)
{
	if (self->target.pid > 0) {
		kill(self->target.pid, SIGKILL);
		waitpid(self->target.pid, NULL, 0);
	}
	remove_helper_dir(self->dir);
}

TEST_F(deputy, refused)
{
	bool scm = !strcmp(variant->how, "scm");
	int status, sk[2];
	pid_t child;

	/* A SKIP() in the setup does not end the test in this harness. */
	if (setup_skipped())
		return;
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sk));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int flags = variant->o_path ? O_PATH : O_WRONLY, fd;

		CHILD_CHECK(drop_to_tester() == 0);
		fd = open_kill(self->target.pid, 0, flags);
		CHILD_CHECK(fd >= 0);
		/* Now the tester can no longer signal the target itself. */
		CHILD_CHECK(cue(self->raise[1], self->raised[0]) == 0);
		errno = 0;
		CHILD_CHECK(kill(self->target.pid, 0) == -1 && errno == EPERM);

		if (scm) {
			CHILD_CHECK(send_fd(sk[0], fd) == 0);
			fd = sk[1];
		}
		CHILD_CHECK(dup2(fd, DEPUTY_FD) == DEPUTY_FD);
		execl(self->helper, self->helper, DEPUTY_ARG, variant->how,
		      (char *)NULL);
		_exit(DEPUTY_SETUP);
	}
	close(sk[0]);
	close(sk[1]);
	status = child_status(child);
	if (status == HELPER_NO_SUID)
		SKIP(return, "setuid bit not honoured in %s", self->dir);
	EXPECT_EQ(DEPUTY_REFUSED, status) {
		TH_LOG("deputy: 0 signaled, 10 EPERM, 11 other errno, 12 setup, 1 tester step");
	}
	EXPECT_UNTOUCHED(&self->target);
	self->target.pid = 0;
}

/*
 * Write permission is a file permission, and the invariant is tested as a
 * matrix: the ways (idioms) in which setuid programs write a file for their
 * caller, times a target the caller may signal (it runs as the tester) and
 * one the caller may not (it runs as root).
 *
 * The tester runs the setuid-root deputy, which writes "15" to the target's
 * kill file in one idiom and exits with the errno that stopped it (0: it
 * wrote). An idiom that asks the kernel on its caller's behalf (access(2),
 * setfsuid(2), faccessat(2), dropping its ids) must get the caller's
 * answer, as it would for any file; one that asks nothing (plain) has
 * root's authority, as it would for /etc/shadow; and some ways are refused
 * whatever the target: a re-open through a magic link, an io_uring thread,
 * a program exec()ed with the file, a filter that denies kill(2). Every
 * cell is checked on the receiving side: the signal arrived, or nothing is
 * pending.
 */
#define ZOO_ARG		"--zoo"
#define ZOO_WRITE_ARG	"--zoo-write"
#define ZOO_FD		3	/* dirfd: the target's /proc/<pid>; exec: the file */
#define ZOO_SETUP	250	/* the deputy could not set itself up */

static int zoo_write(int fd)
{
	if (fd < 0)
		return errno;
	return write(fd, "15\n", 3) == 3 ? 0 : errno;
}

/* seccomp: return SECCOMP_RET_ERRNO | EPERM for each of @nrs, else allow. */
static int install_filter(const int *nrs, int n)
{
	struct sock_filter filter[16];
	struct sock_fprog prog = { .filter = filter };
	int i;

	filter[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, nr));
	for (i = 0; i < n; i++)
		filter[1 + i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
				BPF_K, nrs[i], n - i, 0);
	filter[1 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_ALLOW);
	filter[2 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_ERRNO | EPERM);
	prog.len = n + 3;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int zoo_setfsuid_write(const char *path)
{
	setfsuid(getuid());
	if (setfsuid(-1) != (int)getuid())
		return ZOO_SETUP;
	return zoo_write(open(path, O_WRONLY | O_CLOEXEC));
}

static int zoo_deputy(const char *self, const char *idiom, pid_t pid)
{
	uid_t caller = getuid();
	char path[64], link[64];
	int fd, ret, err;

	if (geteuid() != 0)
		return HELPER_NO_SUID;
	snprintf(path, sizeof(path), "/proc/%d/kill", pid);

	if (!strcmp(idiom, "plain"))
		return zoo_write(open(path, O_WRONLY | O_CLOEXEC));
	if (!strcmp(idiom, "access")) {
		if (access(path, W_OK))
			return errno;
		return zoo_write(open(path, O_WRONLY | O_CLOEXEC));
	}
	if (!strcmp(idiom, "setfsuid"))
		return zoo_setfsuid_write(path);
	if (!strcmp(idiom, "eaccess")) {
		if (seteuid(caller))
			return ZOO_SETUP;
		ret = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
		err = errno;
		if (seteuid(0))
			return ZOO_SETUP;
		if (ret)
			return err;
		return zoo_write(open(path, O_WRONLY | O_CLOEXEC));
	}
	if (!strcmp(idiom, "drop")) {
		if (setresuid(caller, caller, caller))
			return ZOO_SETUP;
		return zoo_write(open(path, O_WRONLY | O_CLOEXEC));
	}
	if (!strcmp(idiom, "dirfd")) {
		if (faccessat(ZOO_FD, "kill", W_OK, 0))
			return errno;
		return zoo_write(openat(ZOO_FD, "kill", O_WRONLY | O_CLOEXEC));
	}
	if (!strcmp(idiom, "o-path")) {
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return ZOO_SETUP;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		if (access(link, W_OK))
			return errno;
		return zoo_write(open(link, O_WRONLY | O_CLOEXEC));
	}
	if (!strcmp(idiom, "io-uring")) {
		struct io_uring_sqe sqe = { 0 };
		struct ring r;

		setfsuid(caller);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
		if (ring_init(&r))
			return ZOO_SETUP;
		sqe.opcode = IORING_OP_WRITE;
		sqe.fd = fd;
		sqe.addr = (unsigned long)"15\n";
		sqe.len = 3;
		ret = ring_run(&r, &sqe);
		return ret < 0 ? -ret : 0;
	}
	if (!strcmp(idiom, "exec")) {
		if (access(path, W_OK))
			return errno;
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return errno;
		if (dup2(fd, ZOO_FD) != ZOO_FD)
			return ZOO_SETUP;
		execl(self, self, ZOO_WRITE_ARG, (char *)NULL);
		return ZOO_SETUP;
	}
	if (!strcmp(idiom, "seccomp-deny")) {
		static const int nrs[] = {
			__NR_kill, __NR_tkill, __NR_tgkill, __NR_rt_sigqueueinfo,
			__NR_rt_tgsigqueueinfo, __NR_pidfd_send_signal,
		};

		if (install_filter(nrs, ARRAY_SIZE(nrs)))
			return ZOO_SETUP;
		return zoo_setfsuid_write(path);
	}
	if (!strcmp(idiom, "seccomp-allow")) {
		if (install_filter(NULL, 0))
			return ZOO_SETUP;
		return zoo_setfsuid_write(path);
	}
	return ZOO_SETUP;
}

FIXTURE(zoo) {
	char dir[64];
	char helper[96];
	struct waiter target;
};

FIXTURE_VARIANT(zoo) {
	const char *idiom;
	bool root_target;	/* the tester may not signal it */
	int err;		/* the deputy's errno; 0: the signal arrives */
};

/* The deputy's own authority, unasked: root's, as for any file. */
FIXTURE_VARIANT_ADD(zoo, plain_open_may) {
	.idiom = "plain", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, plain_open_may_not) {
	.idiom = "plain", .root_target = true, .err = 0 };
/* The caller's answer, as for any file. */
FIXTURE_VARIANT_ADD(zoo, access_then_open_may) {
	.idiom = "access", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, access_then_open_may_not) {
	.idiom = "access", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, setfsuid_then_open_may) {
	.idiom = "setfsuid", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, setfsuid_then_open_may_not) {
	.idiom = "setfsuid", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, seteuid_faccessat_eaccess_may) {
	.idiom = "eaccess", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, seteuid_faccessat_eaccess_may_not) {
	.idiom = "eaccess", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, setresuid_drop_then_open_may) {
	.idiom = "drop", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, setresuid_drop_then_open_may_not) {
	.idiom = "drop", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, callers_dirfd_may) {
	.idiom = "dirfd", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, callers_dirfd_may_not) {
	.idiom = "dirfd", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, seccomp_allow_all_may) {
	.idiom = "seccomp-allow", .err = 0 };
FIXTURE_VARIANT_ADD(zoo, seccomp_allow_all_may_not) {
	.idiom = "seccomp-allow", .root_target = true, .err = EACCES };
/* Refused whatever the target, once the caller's answer let them by. */
FIXTURE_VARIANT_ADD(zoo, o_path_reopen_may) {
	.idiom = "o-path", .err = EPERM };
FIXTURE_VARIANT_ADD(zoo, o_path_reopen_may_not) {
	.idiom = "o-path", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, io_uring_write_may) {
	.idiom = "io-uring", .err = EPERM };
FIXTURE_VARIANT_ADD(zoo, io_uring_write_may_not) {
	.idiom = "io-uring", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, exec_with_the_file_may) {
	.idiom = "exec", .err = EPERM };
FIXTURE_VARIANT_ADD(zoo, exec_with_the_file_may_not) {
	.idiom = "exec", .root_target = true, .err = EACCES };
FIXTURE_VARIANT_ADD(zoo, seccomp_deny_kill_may) {
	.idiom = "seccomp-deny", .err = EPERM };
FIXTURE_VARIANT_ADD(zoo, seccomp_deny_kill_may_not) {
	.idiom = "seccomp-deny", .root_target = true, .err = EACCES };

FIXTURE_SETUP(zoo)
{
	self->dir[0] = '\0';
	self->target.pid = 0;
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, make_helper_dir(self->dir, sizeof(self->dir),
				     self->helper, sizeof(self->helper)));
	ASSERT_EQ(0, waiter_start(&self->target, SIGTERM,
				  variant->root_target ? 0 : TESTER_UID));
}

FIXTURE_TEARDOWN(zoo)
{
	if (self->target.pid > 0) {
		kill(self->target.pid, SIGKILL);
		waitpid(self->target.pid, NULL, 0);
	}
	remove_helper_dir(self->dir);
}

TEST_F(zoo, signals_as_the_caller_would)
{
	struct report rep;
	char pid[16];
	pid_t child;
	int status;

	if (setup_skipped())
		return;
	snprintf(pid, sizeof(pid), "%d", self->target.pid);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		char dir[32];
		int fd;

		CHILD_CHECK(drop_to_tester() == 0);
		snprintf(dir, sizeof(dir), "/proc/%s", pid);
		fd = open(dir, O_RDONLY | O_DIRECTORY);
		CHILD_CHECK(fd >= 0 && dup2(fd, ZOO_FD) == ZOO_FD);
		execl(self->helper, self->helper, ZOO_ARG, variant->idiom, pid,
		      (char *)NULL);
		_exit(ZOO_SETUP);
	}
	status = child_status(child);
	if (status == HELPER_NO_SUID)
		SKIP(return, "setuid bit not honoured in %s", self->dir);
	EXPECT_EQ(variant->err, status) {
		TH_LOG("deputy \"%s\" on a target the tester %s signal: %s",
		       variant->idiom, variant->root_target ? "may not" : "may",
		       status ? strerror(status) : "signaled");
	}
	if (variant->err) {
		EXPECT_UNTOUCHED(&self->target);
	} else {
		ASSERT_EQ(0, waiter_finish(&self->target, &rep));
		EXPECT_EQ(SIGTERM, rep.signo);
		EXPECT_EQ(SI_USER, rep.code);
	}
	self->target.pid = 0;
}

/*
 * access(2) and faccessat(2) tell the truth: a kill file is writable for
 * exactly the processes one may signal, and readable for everyone.
 */
TEST(access_is_the_write_permission)
{
	struct waiter mine, roots;
	pid_t child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, waiter_start(&mine, SIGTERM, TESTER_UID));
	ASSERT_EQ(0, waiter_start(&roots, SIGTERM, 0));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		char path[64];
		int flags;

		CHILD_CHECK(drop_to_tester() == 0);
		for (flags = 0; flags <= AT_EACCESS; flags += AT_EACCESS) {
			snprintf(path, sizeof(path), "/proc/%d/kill", mine.pid);
			CHILD_CHECK(faccessat(AT_FDCWD, path, W_OK, flags) == 0);
			snprintf(path, sizeof(path), "/proc/%d/task/%d/kill",
				 mine.pid, mine.pid);
			CHILD_CHECK(faccessat(AT_FDCWD, path, W_OK, flags) == 0);
			snprintf(path, sizeof(path), "/proc/%d/kill", roots.pid);
			CHILD_CHECK(faccessat(AT_FDCWD, path, R_OK, flags) == 0);
			errno = 0;
			CHILD_CHECK(faccessat(AT_FDCWD, path, W_OK, flags) == -1 &&
				    errno == EACCES);
			snprintf(path, sizeof(path), "/proc/%d/task/%d/kill",
				 roots.pid, roots.pid);
			errno = 0;
			CHILD_CHECK(faccessat(AT_FDCWD, path, W_OK, flags) == -1 &&
				    errno == EACCES);
		}
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	EXPECT_UNTOUCHED(&mine);
	EXPECT_UNTOUCHED(&roots);
}

/*
 * io_uring threads run no system call of their own for seccomp to judge:
 * a write through a ring is refused, from an io-wq worker and from the
 * SQPOLL thread, and does not use the file up.
 */
TEST(io_uring_threads_are_refused)
{
	struct io_uring_sqe sqe = { 0 };
	struct ring wq, sqpoll;
	struct report rep;
	struct waiter w;
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (ring_init(&wq))
		SKIP(return, "no io_uring: %s", strerror(errno));
	ASSERT_EQ(0, ring_init_flags(&sqpoll, IORING_SETUP_SQPOLL));
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	fd = open_kill(w.pid, 0, O_WRONLY);
	ASSERT_GE(fd, 0);

	sqe.opcode = IORING_OP_WRITE;
	sqe.fd = fd;
	sqe.addr = (unsigned long)"15\n";
	sqe.len = 3;
	EXPECT_EQ(-EPERM, ring_run(&wq, &sqe));
	EXPECT_EQ(-EPERM, ring_run(&sqpoll, &sqe));

	EXPECT_EQ(3, write(fd, "15\n", 3));
	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
	EXPECT_EQ(0, rep.pending);
}

/*
 * The writer's filter is asked about the kill(2) or tgkill(2) the write
 * stands for: the filter decides the file as it decides the system call.
 */
FIXTURE(filtered) {
	struct waiter process, thread;
};

FIXTURE_VARIANT(filtered) {
	int deny[2];		/* system calls the filter refuses */
	int ndeny;
	bool strict;		/* SECCOMP_MODE_STRICT instead */
	int process_err;	/* write() to /proc/<pid>/kill */
	int thread_err;		/* write() to /proc/<pid>/task/<tid>/kill */
};

FIXTURE_VARIANT_ADD(filtered, allow_all) { .ndeny = 0 };
FIXTURE_VARIANT_ADD(filtered, deny_kill) {
	.deny = { __NR_kill }, .ndeny = 1, .process_err = EPERM };
FIXTURE_VARIANT_ADD(filtered, deny_tgkill) {
	.deny = { __NR_tgkill }, .ndeny = 1, .thread_err = EPERM };
FIXTURE_VARIANT_ADD(filtered, deny_pidfd_send_signal_only) {
	.deny = { __NR_pidfd_send_signal }, .ndeny = 1 };
FIXTURE_VARIANT_ADD(filtered, strict_mode) {
	.strict = true, .process_err = EPERM, .thread_err = EPERM };

FIXTURE_SETUP(filtered)
{
	self->process.pid = 0;
	self->thread.pid = 0;
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&self->process, SIGTERM, 0));
	ASSERT_EQ(0, waiter_start(&self->thread, SIGTERM, 0));
}

FIXTURE_TEARDOWN(filtered)
{
	if (self->process.pid > 0) {
		kill(self->process.pid, SIGKILL);
		waitpid(self->process.pid, NULL, 0);
	}
	if (self->thread.pid > 0) {
		kill(self->thread.pid, SIGKILL);
		waitpid(self->thread.pid, NULL, 0);
	}
}

static void check_delivery(struct __test_metadata *_metadata,
			   struct waiter *w, int err)
{
	struct report rep;

	if (err) {
		EXPECT_UNTOUCHED(w);
		return;
	}
	ASSERT_EQ(0, waiter_finish(w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
}

TEST_F(filtered, write_as_the_filter_decides_kill)
{
	unsigned char errs[2];
	int report[2];
	pid_t child;

	if (setup_skipped())
		return;
	ASSERT_EQ(0, pipe(report));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int process = open_kill(self->process.pid, 0, O_WRONLY);
		int thread = open_kill(self->thread.pid, self->thread.pid,
				       O_WRONLY);

		if (process < 0 || thread < 0)
			_exit(1);
		if (variant->strict ?
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) :
		    install_filter(variant->deny, variant->ndeny))
			_exit(1);
		errs[0] = write(process, "15\n", 3) == 3 ? 0 : errno;
		errs[1] = write(thread, "15\n", 3) == 3 ? 0 : errno;
		write(report[1], errs, sizeof(errs));
		/* Strict mode allows exit(2), not exit_group(2). */
		syscall(__NR_exit, 0);
	}
	close(report[1]);
	ASSERT_EQ(sizeof(errs), read(report[0], errs, sizeof(errs)));
	close(report[0]);
	EXPECT_EQ(0, child_status(child));
	EXPECT_EQ(variant->process_err, errs[0]);
	EXPECT_EQ(variant->thread_err, errs[1]);
	check_delivery(_metadata, &self->process, variant->process_err);
	check_delivery(_metadata, &self->thread, variant->thread_err);
	self->process.pid = 0;
	self->thread.pid = 0;
}

/*
 * The target's owner may not stall or see the signals sent to it: no lease
 * on a kill file, and no inotify event for its open, write and close.
 */
TEST(no_lease)
{
	int fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	fd = open("/proc/self/kill", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(-1, fcntl(fd, F_SETLEASE, F_RDLCK));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(no_inotify_events)
{
	/* Aligned for the struct inotify_event records read into it. */
	union {
		struct inotify_event ev;
		char bytes[4096];
	} buf;
	char dir[32], path[64];
	struct inotify_event *ev;
	struct report rep;
	struct waiter w;
	ssize_t n, off;
	int in, fd;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	ASSERT_EQ(0, waiter_start(&w, SIGTERM, 0));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_GE(in, 0);
	snprintf(dir, sizeof(dir), "/proc/%d", w.pid);
	snprintf(path, sizeof(path), "%s/kill", dir);
	ASSERT_GE(inotify_add_watch(in, dir, IN_ALL_EVENTS), 0);
	ASSERT_GE(inotify_add_watch(in, path, IN_ALL_EVENTS), 0);

	fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(3, write(fd, "15\n", 3));
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, read(fd, buf.bytes, sizeof(buf)));
	close(fd);
	errno = 0;
	EXPECT_EQ(-1, read(in, buf.bytes, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);

	/*
	 * The truncation of an O_TRUNC open ("echo 15 > kill") is a setattr
	 * of the inode, which the VFS reports for every file: IN_MODIFY,
	 * and still no open or close.
	 */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	close(fd);
	n = read(in, buf.bytes, sizeof(buf));
	for (off = 0; n > 0 && off < n; off += sizeof(*ev) + ev->len) {
		ev = (struct inotify_event *)(buf.bytes + off);
		EXPECT_EQ(IN_MODIFY, ev->mask);
	}

	/* The watch works: another file of the directory reports its open. */
	snprintf(path, sizeof(path), "%s/status", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_LT(0, read(in, buf.bytes, sizeof(buf)));
	close(in);

	ASSERT_EQ(0, waiter_finish(&w, &rep));
	EXPECT_EQ(SIGTERM, rep.signo);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], DEPUTY_ARG))
		return deputy(argv[0], argv[2]);
	if (argc == 4 && !strcmp(argv[1], ZOO_ARG))
		return zoo_deputy(argv[0], argv[2], atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], ZOO_WRITE_ARG))
		return zoo_write(ZOO_FD);
	return test_harness_run(argc, argv);
}
