// SPDX-License-Identifier: GPL-2.0
/*
 * PIDFD_SELF_THREAD and PIDFD_SELF_THREAD_GROUP wherever upstream takes
 * them: pidfd_send_signal() (tested elsewhere) and the calls that find
 * their task through pidfd_get_task(), process_madvise() and
 * process_mrelease() (upstream 6.15), with process_madvise() taking any
 * advice on the caller's own mm (6.13); and bind mounts of pidfds
 * (open_tree(OPEN_TREE_CLONE) + move_mount(), upstream 6.14) reopened
 * through their path, with the access modes upstream 6.17 allows.
 *
 * Upstream 6.12 has none of it: every case probes first and skips there.
 * The mount cases run in a private mount namespace of their own, on a
 * tmpfs mounted over /tmp in it, so nothing is left behind.
 */

#include "pidfd_handle.h"

#include <linux/mount.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"

#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif
#ifndef FS_IOC_GETVERSION
#define FS_IOC_GETVERSION _IOR('v', 1, long)
#endif

/*
 * The sentinels as upstream 6.17 numbers them, used rather than the
 * header's (pidfd_poll_wakeup_test checks the header).
 */
#define SELF_THREAD		-10000
#define SELF_THREAD_GROUP	-10001
/* 6.15/6.16's group sentinel, reserved since 6.17: it names no fd. */
#define SELF_GROUP_615		-20000

/* The unprivileged user guest/init.c creates. */
#define UNPRIV_ID 1000

/* <fcntl.h> cannot come with <linux/pidfd.h>: see pidfd_handle.h. */
static int path_open(const char *path, int flags)
{
	return syscall(__NR_openat, AT_FDCWD, path, flags, 0600);
}

static int file_flags(int fd)
{
	return syscall(__NR_fcntl, fd, F_GETFL);
}

static int sys_open_tree(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

static int sys_move_mount(int from_dfd, const char *from, int to_dfd,
			  const char *to, unsigned int flags)
{
	return syscall(__NR_move_mount, from_dfd, from, to_dfd, to, flags);
}

static long sys_madvise(int pidfd, const struct iovec *iov, size_t n,
			int advice, unsigned int flags)
{
	return syscall(__NR_process_madvise, pidfd, iov, n, advice, flags);
}

static int sys_mrelease(int pidfd, unsigned int flags)
{
	return syscall(__NR_process_mrelease, pidfd, flags);
}

/*
 * The state of the process_madvise() probe: 1 the sentinels are taken, 0
 * they are not (EBADF: upstream 6.14 and older), -1 no process_madvise().
 */
static int self_probe(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct iovec iov;
	char *p;
	long ret;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	p[0] = 1;
	iov.iov_base = p;
	iov.iov_len = page;
	ret = sys_madvise(SELF_THREAD, &iov, 1, MADV_COLD, 0);
	munmap(p, page);
	if (ret == page)
		return 1;
	return ret < 0 && errno == EBADF ? 0 : -1;
}

/* NULL if process_madvise() takes the sentinels here, else why not. */
static const char *need_self(void)
{
	switch (self_probe()) {
	case 1:
		return NULL;
	case 0:
		return "6.14 or older: no PIDFD_SELF_* in process_madvise() (6.15)";
	default:
		return "no process_madvise()";
	}
}

/* @pages private anonymous pages, each filled with its index + 1. */
static char *filled(int pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;
	int i;

	p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (i = 0; i < pages; i++)
		memset(p + i * page, i + 1, page);
	return p;
}

TEST(madvise_hints_on_self)
{
	const char *skip;
	long page = sysconf(_SC_PAGESIZE);
	struct iovec iov[2];
	char *p;

	skip = need_self();
	if (skip)
		SKIP(return, "%s", skip);
	p = filled(4);
	ASSERT_TRUE(!!p);
	iov[0].iov_base = p;
	iov[0].iov_len = page;
	iov[1].iov_base = p + 2 * page;
	iov[1].iov_len = 2 * page;

	EXPECT_EQ(sys_madvise(SELF_THREAD, iov, 2, MADV_COLD, 0), 3 * page);
	EXPECT_EQ(sys_madvise(SELF_THREAD_GROUP, iov, 2, MADV_COLD, 0),
		  3 * page);
	EXPECT_EQ(sys_madvise(SELF_THREAD, iov, 1, MADV_PAGEOUT, 0), page);
	/* Not MADV_WILLNEED: on anonymous memory it is EBADF without swap. */
	EXPECT_EQ(sys_madvise(SELF_THREAD_GROUP, &iov[1], 1, MADV_PAGEOUT, 0),
		  2 * page);
	/* Hints change nothing that can be read. */
	EXPECT_EQ(p[0], 1);
	EXPECT_EQ(p[2 * page], 3);
	EXPECT_EQ(p[3 * page], 4);
	munmap(p, 4 * page);
}

/*
 * On one's own mm any madvise(2) advice is taken (upstream 6.13, so any
 * kernel with the sentinels): MADV_DONTNEED empties the pages.
 */
TEST(madvise_any_advice_on_own_mm)
{
	const char *skip;
	long page = sysconf(_SC_PAGESIZE);
	struct iovec iov;
	int pidfd;
	char *p;

	skip = need_self();
	if (skip)
		SKIP(return, "%s", skip);
	p = filled(3);
	ASSERT_TRUE(!!p);

	iov.iov_base = p;
	iov.iov_len = page;
	EXPECT_EQ(sys_madvise(SELF_THREAD_GROUP, &iov, 1, MADV_DONTNEED, 0),
		  page);
	EXPECT_EQ(p[0], 0);
	EXPECT_EQ(p[page], 2);

	/* So does a pidfd that refers to the caller's own process. */
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	iov.iov_base = p + page;
	EXPECT_EQ(sys_madvise(pidfd, &iov, 1, MADV_DONTNEED, 0), page);
	EXPECT_EQ(p[page], 0);
	EXPECT_EQ(p[2 * page], 3);
	close(pidfd);
	munmap(p, 3 * page);
}

TEST(madvise_refusals)
{
	const char *skip;
	long page = sysconf(_SC_PAGESIZE);
	struct iovec iov;
	char *p;

	skip = need_self();
	if (skip)
		SKIP(return, "%s", skip);
	p = filled(1);
	ASSERT_TRUE(!!p);
	iov.iov_base = p;
	iov.iov_len = page;

	/* flags first, then the handle, then the advice. */
	errno = 0;
	EXPECT_EQ(sys_madvise(SELF_THREAD, &iov, 1, MADV_COLD, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(sys_madvise(SELF_GROUP_615, &iov, 1, MADV_COLD, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(sys_madvise(SELF_THREAD - 2, &iov, 1, MADV_COLD, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(sys_madvise(SELF_THREAD, &iov, 1, 12345, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(sys_madvise(SELF_THREAD_GROUP, &iov, 1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* An unmapped range, as madvise(2). */
	munmap(p, page);
	errno = 0;
	EXPECT_EQ(sys_madvise(SELF_THREAD, &iov, 1, MADV_COLD, 0), -1);
	EXPECT_EQ(errno, ENOMEM);
}

struct thread_result {
	long cold_thread;
	int cold_thread_errno;
	long cold_group;
	int cold_group_errno;
	int mrelease_errno;
	int tid_pidfd_errno;
	pid_t tid;
};

static void *non_leader(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	struct thread_result *r = arg;
	struct iovec iov;
	char *p = filled(1);
	int fd;

	r->tid = syscall(SYS_gettid);
	if (!p)
		return NULL;
	iov.iov_base = p;
	iov.iov_len = page;
	errno = 0;
	r->cold_thread = sys_madvise(SELF_THREAD, &iov, 1, MADV_COLD, 0);
	r->cold_thread_errno = errno;
	errno = 0;
	r->cold_group = sys_madvise(SELF_THREAD_GROUP, &iov, 1, MADV_COLD, 0);
	r->cold_group_errno = errno;
	errno = 0;
	sys_mrelease(SELF_THREAD, 0);
	r->mrelease_errno = errno;
	/* A thread pidfd of a non-leader is looked up as a leader: ESRCH. */
	fd = sys_pidfd_open(r->tid, PIDFD_THREAD);
	errno = 0;
	if (fd >= 0)
		sys_madvise(fd, &iov, 1, MADV_COLD, 0);
	r->tid_pidfd_errno = fd >= 0 ? errno : -1;
	if (fd >= 0)
		close(fd);
	munmap(p, page);
	return NULL;
}

/*
 * PIDFD_SELF_THREAD in a thread other than the leader names that thread
 * (PIDTYPE_PID), PIDFD_SELF_THREAD_GROUP the leader.
 */
TEST(self_from_a_non_leader_thread)
{
	const char *skip;
	long page = sysconf(_SC_PAGESIZE);
	struct thread_result r = { 0 };
	pthread_t t;

	skip = need_self();
	if (skip)
		SKIP(return, "%s", skip);
	ASSERT_EQ(pthread_create(&t, NULL, non_leader, &r), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT_NE(r.tid, getpid());
	EXPECT_EQ(r.cold_thread, page) TH_LOG("errno %d", r.cold_thread_errno);
	EXPECT_EQ(r.cold_group, page) TH_LOG("errno %d", r.cold_group_errno);
	EXPECT_EQ(r.mrelease_errno, EINVAL);
	EXPECT_EQ(r.tid_pidfd_errno, ESRCH);
}

/*
 * process_mrelease() on oneself: the task is found, but a live process's
 * mm is not being freed: EINVAL, as for a pidfd on oneself.
 */
TEST(mrelease_on_self)
{
	const char *skip;
	int pidfd;

	skip = need_self();
	if (skip)
		SKIP(return, "%s", skip);
	errno = 0;
	EXPECT_EQ(sys_mrelease(SELF_THREAD, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(sys_mrelease(SELF_THREAD_GROUP, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	errno = 0;
	EXPECT_EQ(sys_mrelease(pidfd, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(pidfd);

	errno = 0;
	EXPECT_EQ(sys_mrelease(SELF_THREAD, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(sys_mrelease(SELF_GROUP_615, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(sys_mrelease(SELF_THREAD - 2, 0), -1);
	EXPECT_EQ(errno, EBADF);
}

/*
 * Upstream takes the sentinels only where pidfd_get_task() is used:
 * waitid(P_PIDFD) refuses a negative id, pidfd_getfd() and setns() want a
 * file. True of every kernel.
 */
TEST(sentinels_refused_elsewhere)
{
	siginfo_t si;

	errno = 0;
	EXPECT_EQ(syscall(__NR_waitid, P_PIDFD, SELF_THREAD, &si, WEXITED,
			  NULL), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(syscall(__NR_waitid, P_PIDFD, SELF_THREAD_GROUP, &si,
			  WEXITED, NULL), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(syscall(__NR_pidfd_getfd, SELF_THREAD, 0, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(syscall(__NR_pidfd_getfd, SELF_THREAD_GROUP, 0, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(setns(SELF_THREAD, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(setns(SELF_THREAD_GROUP, 0), -1);
	EXPECT_EQ(errno, EBADF);
}

/* In a forked child: fail with the number of the check that failed. */
#define CHILD_CHECK(n, cond)						\
	do {								\
		int _n = (n);						\
									\
		if (!(cond)) {						\
			fprintf(stderr, "check %d: %s (errno %d)\n",	\
				_n, #cond, errno);			\
			_exit(_n);					\
		}							\
	} while (0)

static void become_unprivileged(void)
{
	CHILD_CHECK(100, setresgid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) == 0);
	CHILD_CHECK(101, setresuid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) == 0);
}

/*
 * Without CAP_SYS_NICE: anything on one's own mm; on another process's
 * (same user, dumpable) EINVAL for a destructive advice, which is checked
 * first, and EPERM for a hint.
 */
TEST(madvise_unprivileged)
{
	const char *skip;
	int status, pipefd[2];
	pid_t pid;

	skip = need_self();
	if (skip)
		SKIP(return, "%s", skip);
	if (geteuid())
		SKIP(return, "needs root to become user %d", UNPRIV_ID);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		long page = sysconf(_SC_PAGESIZE);
		struct iovec iov;
		pid_t other;
		int fd;
		char *p;
		long r;

		become_unprivileged();
		CHILD_CHECK(1, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0);
		p = filled(2);
		CHILD_CHECK(2, !!p);
		iov.iov_base = p;
		iov.iov_len = page;
		r = sys_madvise(SELF_THREAD, &iov, 1, MADV_COLD, 0);
		CHILD_CHECK(3, r == page);
		r = sys_madvise(SELF_THREAD_GROUP, &iov, 1, MADV_DONTNEED, 0);
		CHILD_CHECK(4, r == page);
		CHILD_CHECK(5, p[0] == 0 && p[page] == 2);

		other = fork_waiter(pipefd, 0);
		CHILD_CHECK(6, other > 0);
		fd = sys_pidfd_open(other, 0);
		CHILD_CHECK(7, fd >= 0);
		errno = 0;
		r = sys_madvise(fd, &iov, 1, MADV_DONTNEED, 0);
		CHILD_CHECK(8, r == -1 && errno == EINVAL);
		errno = 0;
		r = sys_madvise(fd, &iov, 1, MADV_COLD, 0);
		CHILD_CHECK(9, r == -1 && errno == EPERM);
		close(pipefd[1]);
		waitpid(other, NULL, 0);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

/* Bind mounts. */

#define MNT_FILE "/tmp/pidfd"

static int sys_mount(const char *src, const char *dst, const char *type,
		     unsigned long flags, const void *data)
{
	return syscall(__NR_mount, src, dst, type, flags, data);
}

static int sys_umount(const char *path)
{
	return syscall(__NR_umount2, path, 0);
}

/*
 * A private mount namespace with a tmpfs of its own on /tmp holding an
 * empty MNT_FILE: 0, or -errno of the step that failed.
 */
static int private_tmp(void)
{
	int fd;

	if (unshare(CLONE_NEWNS))
		return -errno;
	if (sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (sys_mount("pidfd_self_bind", "/tmp", "tmpfs", 0, "mode=0755"))
		return -errno;
	fd = path_open(MNT_FILE, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * A detached bind mount of @pidfd, or -1 with errno: EINVAL where pidfds
 * cannot be bind-mounted (upstream 6.13 and older).
 */
static int clone_pidfd(int pidfd)
{
	return sys_open_tree(pidfd, "",
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
}

/*
 * As root, in a private mount namespace with a private /tmp: NULL if
 * pidfds can be bind-mounted here, else why not.
 */
static const char *need_bind(void)
{
	int fd, tree;

	if (geteuid())
		return "needs root to mount";
	if (private_tmp())
		return "no private mount namespace and /tmp";
	fd = sys_pidfd_open(getpid(), 0);
	if (fd < 0)
		return NULL;	/* the test's own pidfd_open() fails */
	tree = clone_pidfd(fd);
	close(fd);
	if (tree < 0 && errno == EINVAL)
		return "6.13 or older: pidfds cannot be bind-mounted (6.14)";
	if (tree >= 0)
		close(tree);
	return NULL;
}

/* Bind-mount @pidfd on MNT_FILE: 0 or -1 with errno. */
static int mount_pidfd(int pidfd)
{
	int tree = clone_pidfd(pidfd);
	int ret;

	if (tree < 0)
		return -1;
	ret = sys_move_mount(tree, "", AT_FDCWD, MNT_FILE,
			     MOVE_MOUNT_F_EMPTY_PATH);
	close(tree);
	return ret;
}

static bool on_pidfs(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == PID_FS_MAGIC;
}

/* Do two pidfds refer to one struct pid (one pidfs inode)? */
static bool same_pid(int fd_a, int fd_b)
{
	struct stat a, b;

	return !fstat(fd_a, &a) && !fstat(fd_b, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

TEST(bind_mount_and_reopen)
{
	const char *skip;
	struct stat st1, st2;
	__u32 gen1, gen2;
	int pidfd, tree, fd;

	skip = need_bind();
	if (skip)
		SKIP(return, "%s", skip);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(fstat(pidfd, &st1), 0);

	/* As upstream's selftest: onto the file by an fd on it. */
	tree = clone_pidfd(pidfd);
	ASSERT_GE(tree, 0);
	fd = path_open(MNT_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_move_mount(tree, "", fd, "",
				 MOVE_MOUNT_F_EMPTY_PATH |
				 MOVE_MOUNT_T_EMPTY_PATH), 0);
	close(fd);
	close(tree);

	fd = path_open(MNT_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(on_pidfs(fd));
	ASSERT_EQ(fstat(fd, &st2), 0);
	EXPECT_EQ(st1.st_dev, st2.st_dev);
	EXPECT_EQ(st1.st_ino, st2.st_ino);
	/* stat() of the mount point is the pidfd's, no file type. */
	ASSERT_EQ(stat(MNT_FILE, &st2), 0);
	EXPECT_EQ(st1.st_ino, st2.st_ino);
	EXPECT_EQ(st2.st_mode & S_IFMT, 0);
	if (!ioctl(pidfd, FS_IOC_GETVERSION, &gen1)) {
		ASSERT_EQ(ioctl(fd, FS_IOC_GETVERSION, &gen2), 0);
		EXPECT_EQ(gen1, gen2);
	}
	/* A working pidfd for this process. */
	EXPECT_EQ(sys_pidfd_send_signal(fd, 0, NULL, 0), 0);
	if (have_get_info()) {
		struct pidfd_info info;

		ASSERT_EQ(get_info(fd, PIDFD_INFO_PID, &info), 0);
		EXPECT_EQ(info.pid, getpid());
	}
	close(fd);

	/* Unmounted, the path is the tmpfs file again. */
	ASSERT_EQ(sys_umount(MNT_FILE), 0);
	fd = path_open(MNT_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_FALSE(on_pidfs(fd));
	close(fd);
	close(pidfd);
}

/* open_tree() of /proc/self/fd/<pidfd>, and with AT_RECURSIVE. */
TEST(bind_mount_by_path_and_recursive)
{
	const char *skip;
	char path[64];
	int pidfd, tree, fd;

	skip = need_bind();
	if (skip)
		SKIP(return, "%s", skip);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pidfd);

	tree = sys_open_tree(AT_FDCWD, path,
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_GE(tree, 0);
	ASSERT_EQ(sys_move_mount(tree, "", AT_FDCWD, MNT_FILE,
				 MOVE_MOUNT_F_EMPTY_PATH), 0);
	close(tree);
	fd = path_open(MNT_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(on_pidfs(fd));
	EXPECT_EQ(sys_pidfd_send_signal(fd, 0, NULL, 0), 0);
	close(fd);
	ASSERT_EQ(sys_umount(MNT_FILE), 0);

	tree = sys_open_tree(pidfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			     AT_RECURSIVE | AT_EMPTY_PATH);
	ASSERT_GE(tree, 0);
	ASSERT_EQ(sys_move_mount(tree, "", AT_FDCWD, MNT_FILE,
				 MOVE_MOUNT_F_EMPTY_PATH), 0);
	close(tree);
	fd = path_open(MNT_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(on_pidfs(fd));
	close(fd);
	ASSERT_EQ(sys_umount(MNT_FILE), 0);
	close(pidfd);
}

/*
 * The file a path open gives: the access mode asked for (upstream 6.17:
 * pidfs inodes are not immutable), O_NONBLOCK kept, O_EXCL, that is
 * PIDFD_THREAD, dropped; O_TRUNC refused.
 */
TEST(reopen_flags)
{
	const char *skip;
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	int pidfd, tfd, fd, fl, pipefd[2];
	pid_t pid;
	unsigned int i;

	skip = need_bind();
	if (skip)
		SKIP(return, "%s", skip);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(mount_pidfd(pidfd), 0);

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fd = path_open(MNT_FILE, modes[i] | O_CLOEXEC);
		ASSERT_GE(fd, 0) TH_LOG("mode %d: %s",
					modes[i], strerror(errno));
		fl = file_flags(fd);
		EXPECT_EQ(fl & O_ACCMODE, modes[i]);
		EXPECT_EQ(fl & (O_NONBLOCK | O_EXCL | O_TRUNC), 0);
		EXPECT_EQ(sys_pidfd_send_signal(fd, 0, NULL, 0), 0);
		if (modes[i] != O_RDONLY) {
			errno = 0;
			EXPECT_EQ(write(fd, "x", 1), -1);
			EXPECT_EQ(errno, EINVAL);
		}
		close(fd);
	}

	fd = path_open(MNT_FILE, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(file_flags(fd) & O_NONBLOCK, O_NONBLOCK);
	close(fd);

	/* The CLONE_PIDFD_AUTOKILL mark cannot be set through a path. */
	errno = 0;
	EXPECT_EQ(path_open(MNT_FILE, O_RDWR | O_TRUNC | O_CLOEXEC), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	errno = 0;
	EXPECT_EQ(path_open(MNT_FILE, O_RDONLY | O_DIRECTORY | O_CLOEXEC), -1);
	EXPECT_EQ(errno, ENOTDIR);
	ASSERT_EQ(sys_umount(MNT_FILE), 0);

	/* A thread pidfd reopened is a process pidfd: PIDFD_THREAD lost. */
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	tfd = sys_pidfd_open(pid, PIDFD_THREAD);
	ASSERT_GE(tfd, 0);
	EXPECT_EQ(file_flags(tfd) & O_EXCL, O_EXCL);
	ASSERT_EQ(mount_pidfd(tfd), 0);
	fd = path_open(MNT_FILE, O_RDONLY | O_EXCL | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(file_flags(fd) & O_EXCL, 0);
	EXPECT_TRUE(same_pid(fd, tfd));
	close(fd);
	ASSERT_EQ(sys_umount(MNT_FILE), 0);
	close(pipefd[1]);
	waitpid(pid, NULL, 0);
	close(tfd);
	close(pidfd);
}

/*
 * The mount pins the struct pid: after the process exited and was reaped
 * it still opens, as a pidfd of a reaped process.
 */
TEST(reopen_after_reap)
{
	const char *skip;
	struct pollfd pfd;
	int pipefd[2], pidfd, fd, status;
	pid_t pid;

	skip = need_bind();
	if (skip)
		SKIP(return, "%s", skip);
	pid = fork_waiter(pipefd, 42);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(mount_pidfd(pidfd), 0);
	close(pidfd);

	close(pipefd[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 42);

	fd = path_open(MNT_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(on_pidfs(fd));
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_TRUE(pfd.revents & POLLHUP);
	errno = 0;
	EXPECT_EQ(sys_pidfd_send_signal(fd, 0, NULL, 0), -1);
	EXPECT_EQ(errno, ESRCH);
	/*
	 * Exit information (upstream 6.15): required where the kernel says
	 * it has it, checked wherever it comes, also where the kernel does
	 * not report what it supports.
	 */
	if (have_get_info()) {
		struct pidfd_info info;
		int ret = get_info(fd, PIDFD_INFO_EXIT, &info);

		if (supported_info() & PIDFD_INFO_EXIT)
			ASSERT_EQ(ret, 0);
		if (ret == 0) {
			EXPECT_TRUE(info.mask & PIDFD_INFO_EXIT);
			EXPECT_EQ(info.exit_code, 42 << 8);
			errno = 0;
			EXPECT_EQ(get_info(fd, PIDFD_INFO_PID, &info), -1);
			EXPECT_EQ(errno, ESRCH);
		}
	}
	close(fd);
	ASSERT_EQ(sys_umount(MNT_FILE), 0);
}

TEST(bind_mount_refusals)
{
	const char *skip;
	char path[64];
	int pidfd, tree, status;
	pid_t pid;

	skip = need_bind();
	if (skip)
		SKIP(return, "%s", skip);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);

	/* Not onto a directory. */
	tree = clone_pidfd(pidfd);
	ASSERT_GE(tree, 0);
	errno = 0;
	EXPECT_EQ(sys_move_mount(tree, "", AT_FDCWD, "/tmp",
				 MOVE_MOUNT_F_EMPTY_PATH), -1);
	EXPECT_EQ(errno, EINVAL);
	close(tree);

	/* Not by mount(2): pidfs is SB_NOUSER, as upstream's. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pidfd);
	errno = 0;
	EXPECT_EQ(sys_mount(path, MNT_FILE, NULL, MS_BIND, NULL), -1);
	EXPECT_EQ(errno, EINVAL);

	/*
	 * Not without CAP_SYS_ADMIN; and the pidfs inode is root's with
	 * mode 0700: the mount cannot be opened by another user, nor one's
	 * own pidfd reopened through /proc.
	 */
	ASSERT_EQ(mount_pidfd(pidfd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int fd, r;

		become_unprivileged();
		fd = sys_pidfd_open(getpid(), 0);
		CHILD_CHECK(1, fd >= 0);
		errno = 0;
		r = clone_pidfd(fd);
		CHILD_CHECK(2, r == -1 && errno == EPERM);
		errno = 0;
		r = path_open(MNT_FILE, O_RDONLY);
		CHILD_CHECK(3, r == -1 && errno == EACCES);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		errno = 0;
		r = path_open(path, O_RDONLY);
		CHILD_CHECK(4, r == -1 && errno == EACCES);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(sys_umount(MNT_FILE), 0);
	close(pidfd);
}

TEST_HARNESS_MAIN
