// SPDX-License-Identifier: GPL-2.0
/*
 * File handles for pidfds: name_to_handle_at() on a pidfd gives a handle
 * (the 64-bit pidfs inode number, FILEID_KERNFS) that open_by_handle_at()
 * turns back into a pidfd for the same process (upstream v6.14), for any
 * caller that can see the process in its pid namespace, with a pidfd or
 * FD_PIDFS_ROOT (v6.17) as mount_fd; a reopened thread pidfd stays one
 * (upstream fix in v7.2). A kernel without pidfs file handles (stock
 * 6.12: EOPNOTSUPP) skips every case, one without FD_PIDFS_ROOT (EBADF)
 * or AT_HANDLE_FID (EINVAL) the cases that need it.
 */

#include "pidfd_handle.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "../kselftest_harness.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif
#ifndef FS_IOC_GETVERSION
#define FS_IOC_GETVERSION _IOR('v', 1, long)
#endif
#ifndef FD_PIDFS_ROOT
#define FD_PIDFS_ROOT -10002
#endif
#ifndef __NR_name_to_handle_at
#define __NR_name_to_handle_at 303
#endif
#ifndef __NR_open_by_handle_at
#define __NR_open_by_handle_at 304
#endif
#ifndef O_PATH
#define O_PATH 010000000
#endif
/* include/linux/exportfs.h */
#define FILEID_INO32_GEN 1
#define FILEID_KERNFS 0xfe
#define MAX_HANDLE_SZ 128

/* The unprivileged user guest/init.c creates. */
#define HANDLE_UNPRIV_ID 1000

/* <fcntl.h> cannot come with <linux/pidfd.h>: see pidfd_handle.h. */
#define fd_getfl(fd) syscall(__NR_fcntl, (fd), F_GETFL)
#define fd_getfd(fd) syscall(__NR_fcntl, (fd), F_GETFD)

/* struct file_handle with room for any handle. */
struct fhandle {
	unsigned int handle_bytes;
	int handle_type;
	unsigned char f_handle[MAX_HANDLE_SZ];
};

static int name_to_handle(int fd, struct fhandle *fh, int flags)
{
	int mnt_id;

	memset(fh, 0, sizeof(*fh));
	fh->handle_bytes = MAX_HANDLE_SZ;
	return syscall(__NR_name_to_handle_at, fd, "", fh, &mnt_id,
		       AT_EMPTY_PATH | flags);
}

static int open_by_handle(int mount_fd, struct fhandle *fh, int flags)
{
	return syscall(__NR_open_by_handle_at, mount_fd, fh, flags);
}

static __u64 handle_ino(const struct fhandle *fh)
{
	__u64 ino;

	memcpy(&ino, fh->f_handle, sizeof(ino));
	return ino;
}

/* Whether the kernel (not this program) is 64-bit, as uname says. */
static bool kernel_is_64bit(void)
{
	struct utsname u;

	return !uname(&u) && (strstr(u.machine, "64") ||
			      !strcmp(u.machine, "s390x"));
}

static int same_inode(int fd_a, int fd_b)
{
	struct stat a, b;

	if (fstat(fd_a, &a) || fstat(fd_b, &b))
		return -1;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Probe: does the kernel give pidfds file handles? 0, or the errno,
 * which is also left in errno.
 */
static int handles_missing(void)
{
	struct fhandle fh;
	int fd = sys_pidfd_open(getpid(), 0);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (name_to_handle(fd, &fh, 0))
		ret = errno;
	close(fd);
	errno = ret;
	return ret;
}

/* Probe: does open_by_handle_at() take FD_PIDFS_ROOT? */
static bool have_pidfs_root(const struct fhandle *fh)
{
	struct fhandle copy = *fh;
	int fd = open_by_handle(FD_PIDFS_ROOT, &copy, O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != EBADF;
}

static void end_waiter(int pipefd[2], pid_t pid)
{
	close(pipefd[1]);
	waitpid(pid, NULL, 0);
}

/*
 * The handle of a pidfd: 8 bytes, FILEID_KERNFS, the inode number; the
 * same for every pidfd of the process, another for another process. It
 * reopens as a pidfd on the same inode, for the same process.
 */
TEST(round_trip)
{
	struct fhandle fh, fh2, fh_other;
	int pipefd[2], other_pipe[2];
	__u32 gen;
	int pidfd, pidfd2, fd, other_fd;
	pid_t pid, other;
	struct stat st;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);
	EXPECT_EQ(fh.handle_bytes, 8U);
	EXPECT_EQ(fh.handle_type, FILEID_KERNFS);
	ASSERT_EQ(fstat(pidfd, &st), 0);
	/*
	 * The number is the inode number. A 32-bit kernel's inode number
	 * is its lower half and the generation its upper half (upstream
	 * v6.14); a 32-bit st_ino holds the lower half on any kernel.
	 */
	EXPECT_EQ((__u32)handle_ino(&fh), (__u32)st.st_ino);
	if (kernel_is_64bit() && sizeof(st.st_ino) == sizeof(__u64))
		EXPECT_EQ(handle_ino(&fh), (__u64)st.st_ino);
	if (!kernel_is_64bit()) {
		ASSERT_EQ(ioctl(pidfd, FS_IOC_GETVERSION, &gen), 0);
		EXPECT_EQ(handle_ino(&fh) >> 32, gen);
	}

	/* Another pidfd of the process: the same handle. */
	pidfd2 = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd2, 0);
	ASSERT_EQ(name_to_handle(pidfd2, &fh2, 0), 0);
	EXPECT_EQ(fh2.handle_bytes, fh.handle_bytes);
	EXPECT_EQ(memcmp(fh2.f_handle, fh.f_handle, 8), 0);

	/* Another process: another handle. */
	other = fork_waiter(other_pipe, 0);
	ASSERT_GT(other, 0);
	other_fd = sys_pidfd_open(other, 0);
	ASSERT_GE(other_fd, 0);
	ASSERT_EQ(name_to_handle(other_fd, &fh_other, 0), 0);
	EXPECT_NE(handle_ino(&fh_other), handle_ino(&fh));

	fd = open_by_handle(pidfd, &fh, 0);
	ASSERT_GE(fd, 0) TH_LOG("open_by_handle_at: errno %d", errno);
	EXPECT_EQ(same_inode(fd, pidfd), 1);
	EXPECT_EQ(fdinfo_pid(fd), pid);
	/* A pidfd in every respect: signals, and O_RDWR as all pidfds. */
	EXPECT_EQ(sys_pidfd_send_signal(fd, 0, NULL, 0), 0);
	EXPECT_EQ(fd_getfl(fd) & O_ACCMODE, O_RDWR);
	/* No O_CLOEXEC asked, none given. */
	EXPECT_EQ(fd_getfd(fd) & FD_CLOEXEC, 0);
	close(fd);

	/* Decoded against the other process's pidfd: still this one. */
	fd = open_by_handle(other_fd, &fh, O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fdinfo_pid(fd), pid);
	EXPECT_EQ(fd_getfd(fd) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);

	end_waiter(other_pipe, other);
	end_waiter(pipefd, pid);
	close(other_fd);
	close(pidfd2);
	close(pidfd);
}

/*
 * AT_HANDLE_FID asks for a handle that only tells objects apart: pidfs
 * handles can be decoded anyway, so it is the same handle.
 */
TEST(handle_fid)
{
	struct fhandle fh, fid;
	int pidfd, fd;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);
	if (name_to_handle(pidfd, &fid, AT_HANDLE_FID)) {
		ASSERT_EQ(errno, EINVAL);
		close(pidfd);
		SKIP(return, "no AT_HANDLE_FID");
	}
	EXPECT_EQ(fid.handle_type, FILEID_KERNFS);
	EXPECT_EQ(fid.handle_bytes, 8U);
	EXPECT_EQ(memcmp(fid.f_handle, fh.f_handle, 8), 0);

	fd = open_by_handle(pidfd, &fid, O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(same_inode(fd, pidfd), 1);
	close(fd);
	close(pidfd);
}

/* Too small a buffer: EOVERFLOW, and the size it takes. */
TEST(handle_buffer_too_small)
{
	struct fhandle fh;
	int pidfd, mnt_id;
	unsigned int sizes[] = { 0, 4, 7 };
	unsigned int i;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(&fh, 0, sizeof(fh));
		fh.handle_bytes = sizes[i];
		EXPECT_EQ(syscall(__NR_name_to_handle_at, pidfd, "", &fh,
				  &mnt_id, AT_EMPTY_PATH), -1);
		EXPECT_EQ(errno, EOVERFLOW);
		EXPECT_EQ(fh.handle_bytes, 8U) TH_LOG("buffer %u", sizes[i]);
	}
	close(pidfd);
}

/*
 * The open flags of pidfd_open() and an access mode are accepted,
 * anything else is EINVAL; the pidfd is O_RDWR whatever the mode.
 */
TEST(open_flags)
{
	static const int good[] = {
		O_RDONLY, O_WRONLY, O_RDWR, O_NONBLOCK, O_CLOEXEC,
		PIDFD_THREAD, O_RDONLY | O_NONBLOCK | O_CLOEXEC,
	};
	static const int bad[] = {
		O_CREAT, O_TRUNC, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_PATH,
		O_NOCTTY, O_DSYNC, O_SYNC, O_NOATIME, O_DIRECT, FASYNC,
		O_RDWR | O_CREAT,
	};
	struct fhandle fh;
	int pidfd, fd;
	unsigned int i;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		fd = open_by_handle(pidfd, &fh, good[i]);
		EXPECT_GE(fd, 0) TH_LOG("flags %#o: errno %d", good[i], errno);
		if (fd < 0)
			continue;
		EXPECT_EQ(same_inode(fd, pidfd), 1);
		if ((good[i] & O_ACCMODE) != O_WRONLY)
			EXPECT_EQ(fd_getfl(fd) & O_ACCMODE, O_RDWR);
		EXPECT_EQ(!!(fd_getfl(fd) & O_NONBLOCK),
			  !!(good[i] & O_NONBLOCK));
		EXPECT_EQ(!!(fd_getfd(fd) & FD_CLOEXEC),
			  !!(good[i] & O_CLOEXEC));
		close(fd);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		fd = open_by_handle(pidfd, &fh, bad[i]);
		EXPECT_EQ(fd, -1) TH_LOG("flags %#o accepted", bad[i]);
		EXPECT_EQ(errno, EINVAL) TH_LOG("flags %#o", bad[i]);
		if (fd >= 0)
			close(fd);
	}
	close(pidfd);
}

/* O_NONBLOCK is PIDFD_NONBLOCK: waitid() on a running child: EAGAIN. */
TEST(nonblock)
{
	int pipefd[2], pidfd, fd;
	siginfo_t si = { 0 };
	struct fhandle fh;
	pid_t pid;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pid = fork_waiter(pipefd, 7);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);
	fd = open_by_handle(pidfd, &fh, O_NONBLOCK);
	ASSERT_GE(fd, 0);

	EXPECT_EQ(waitid(P_PIDFD, fd, &si, WEXITED), -1);
	EXPECT_EQ(errno, EAGAIN);

	close(pipefd[1]);
	EXPECT_EQ(waitid(P_PIDFD, pidfd, &si, WEXITED), 0);
	EXPECT_EQ(si.si_pid, pid);
	EXPECT_EQ(si.si_status, 7);
	close(fd);
	close(pidfd);
}

/*
 * A thread's pidfd reopens as a thread pidfd with PIDFD_THREAD, and
 * keeps the flag: do_dentry_open() drops O_EXCL, which carries it
 * (upstream fixed that in v7.2). It then reports the thread's exit
 * while the process lives on.
 */
TEST(thread_pidfd)
{
	struct parked thread;
	int thread_fd, fd, plain;
	struct fhandle fh;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	ASSERT_EQ(park(&thread), 0);
	thread_fd = sys_pidfd_open(thread.tid, PIDFD_THREAD);
	if (thread_fd < 0) {
		unpark(&thread);
		SKIP(return, "no PIDFD_THREAD (errno %d)", errno);
	}
	ASSERT_EQ(name_to_handle(thread_fd, &fh, 0), 0);

	fd = open_by_handle(thread_fd, &fh, PIDFD_THREAD | O_CLOEXEC);
	ASSERT_GE(fd, 0) TH_LOG("errno %d", errno);
	EXPECT_EQ(same_inode(fd, thread_fd), 1);
	EXPECT_EQ(fd_getfl(fd) & PIDFD_THREAD, PIDFD_THREAD);

	plain = open_by_handle(thread_fd, &fh, O_CLOEXEC);
	ASSERT_GE(plain, 0);
	EXPECT_EQ(fd_getfl(plain) & PIDFD_THREAD, 0);

	EXPECT_FALSE(pidfd_readable(fd, 0));
	unpark(&thread);
	EXPECT_TRUE(pidfd_readable(fd, 5000));
	close(plain);
	close(fd);
	close(thread_fd);
}

/*
 * The handle names the process until it is reaped: a zombie still
 * reopens, then ESTALE, with a pidfd or FD_PIDFS_ROOT as mount_fd.
 */
TEST(reaped)
{
	int pipefd[2], pidfd, fd;
	struct fhandle fh;
	pid_t pid;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);

	close(pipefd[1]);
	ASSERT_TRUE(pidfd_readable(pidfd, 5000));
	fd = open_by_handle(pidfd, &fh, O_CLOEXEC);
	EXPECT_GE(fd, 0) TH_LOG("zombie: errno %d", errno);
	if (fd >= 0) {
		EXPECT_EQ(same_inode(fd, pidfd), 1);
		close(fd);
	}

	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	EXPECT_EQ(open_by_handle(pidfd, &fh, O_CLOEXEC), -1);
	EXPECT_EQ(errno, ESTALE);
	if (have_pidfs_root(&fh)) {
		EXPECT_EQ(open_by_handle(FD_PIDFS_ROOT, &fh, O_CLOEXEC), -1);
		EXPECT_EQ(errno, ESTALE);
	}
	close(pidfd);
}

/*
 * More unreaped processes than the kernel's index by inode number has
 * chains (4096 in these series): by the pigeonhole principle some share
 * one, and every handle must still open its own process and, once they
 * are all reaped, none. Zombies keep their pids indexed and cost no
 * memory map; each pidfd is closed once its handle and st_ino are
 * taken, as a handle does not need one. A small kernel's pid_max
 * (CONFIG_BASE_SMALL: 4096) is raised for the test.
 */
#define MANY_PROCESSES 4500
#define PID_MAX_PATH "/proc/sys/kernel/pid_max"

static int pid_max(int set)
{
	FILE *f = fopen(PID_MAX_PATH, set ? "w" : "r");
	int ret = set, ok;

	if (!f)
		return -1;
	ok = set ? fprintf(f, "%d\n", set) > 0 : fscanf(f, "%d", &ret) == 1;
	if (fclose(f) || !ok)
		return -1;
	return ret;
}

/* Forking thousands takes seconds under emulation: more than 30. */
FIXTURE(many) {};
FIXTURE_SETUP(many) {}
FIXTURE_TEARDOWN(many) {}

TEST_F_TIMEOUT(many, processes, 120)
{
	static struct fhandle fh[MANY_PROCESSES];
	static ino_t ino[MANY_PROCESSES];
	static pid_t pid[MANY_PROCESSES];
	int i, n, fd, pidfd, mount_fd, old_max;
	int opened = 0, wrong = 0, stale = 0;
	struct stat st;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	old_max = pid_max(0);
	ASSERT_GT(old_max, 0);
	if (old_max < 2 * MANY_PROCESSES && pid_max(2 * MANY_PROCESSES) < 0)
		SKIP(return, "cannot raise pid_max to %d", 2 * MANY_PROCESSES);
	/* Any pidfd names the pidfs mount to open_by_handle_at(). */
	mount_fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(mount_fd, 0);

	for (n = 0; n < MANY_PROCESSES; n++) {
		pid[n] = fork();
		if (pid[n] == 0)
			_exit(0);
		if (pid[n] < 0)
			break;
		pidfd = sys_pidfd_open(pid[n], 0);
		if (pidfd < 0)
			break;
		if (name_to_handle(pidfd, &fh[n], 0) || fstat(pidfd, &st)) {
			close(pidfd);
			break;
		}
		ino[n] = st.st_ino;
		close(pidfd);
	}
	EXPECT_EQ(n, MANY_PROCESSES) TH_LOG("process %d: errno %d", n, errno);

	for (i = 0; i < n; i++) {
		fd = open_by_handle(mount_fd, &fh[i], O_CLOEXEC);
		if (fd < 0)
			continue;
		opened++;
		if (fstat(fd, &st) || st.st_ino != ino[i])
			wrong++;
		close(fd);
	}
	EXPECT_EQ(opened, n);
	EXPECT_EQ(wrong, 0);

	/* Every child, the one whose handle failed too. */
	for (i = 0; i < MANY_PROCESSES && i <= n; i++)
		if (pid[i] > 0)
			EXPECT_EQ(waitpid(pid[i], NULL, 0), pid[i]);
	for (i = 0; i < n; i++)
		if (open_by_handle(mount_fd, &fh[i], O_CLOEXEC) == -1 &&
		    errno == ESTALE)
			stale++;
	EXPECT_EQ(stale, n);
	close(mount_fd);
	if (old_max < 2 * MANY_PROCESSES)
		EXPECT_EQ(pid_max(old_max), old_max);
}

/*
 * FD_PIDFS_ROOT as mount_fd: no pidfd needed, even once all pidfds of
 * the process are closed. Other negative values stay EBADF.
 */
TEST(pidfs_root)
{
	int pipefd[2], pidfd, fd;
	struct fhandle fh;
	ino_t ino;
	pid_t pid;
	struct stat st;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);
	ASSERT_EQ(fstat(pidfd, &st), 0);
	ino = st.st_ino;
	close(pidfd);

	if (!have_pidfs_root(&fh)) {
		end_waiter(pipefd, pid);
		SKIP(return, "no FD_PIDFS_ROOT");
	}
	fd = open_by_handle(FD_PIDFS_ROOT, &fh, O_CLOEXEC);
	ASSERT_GE(fd, 0) TH_LOG("errno %d", errno);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_ino, ino);
	EXPECT_EQ(fdinfo_pid(fd), pid);
	EXPECT_EQ(sys_pidfd_send_signal(fd, 0, NULL, 0), 0);

	EXPECT_EQ(open_by_handle(-10009, &fh, O_CLOEXEC), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(open_by_handle(-1, &fh, O_CLOEXEC), -1);
	EXPECT_EQ(errno, EBADF);

	end_waiter(pipefd, pid);
	close(fd);
}

/* Handles that are not those of a live pid: ESTALE; malformed: EINVAL. */
TEST(bad_handles)
{
	struct fhandle fh, bad;
	int pidfd;
	__u64 ino;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);

	/* Another handle type. */
	bad = fh;
	bad.handle_type = FILEID_INO32_GEN;
	EXPECT_EQ(open_by_handle(pidfd, &bad, O_CLOEXEC), -1);
	EXPECT_EQ(errno, ESTALE);

	/* Shorter than the inode number. */
	bad = fh;
	bad.handle_bytes = 4;
	EXPECT_EQ(open_by_handle(pidfd, &bad, O_CLOEXEC), -1);
	EXPECT_EQ(errno, ESTALE);

	/* No inode has these numbers. */
	bad = fh;
	ino = 0;
	memcpy(bad.f_handle, &ino, sizeof(ino));
	EXPECT_EQ(open_by_handle(pidfd, &bad, O_CLOEXEC), -1);
	EXPECT_EQ(errno, ESTALE);
	ino = ~0ULL;
	memcpy(bad.f_handle, &ino, sizeof(ino));
	EXPECT_EQ(open_by_handle(pidfd, &bad, O_CLOEXEC), -1);
	EXPECT_EQ(errno, ESTALE);

	/* Empty or larger than any handle. */
	bad = fh;
	bad.handle_bytes = 0;
	EXPECT_EQ(open_by_handle(pidfd, &bad, O_CLOEXEC), -1);
	EXPECT_EQ(errno, EINVAL);
	bad.handle_bytes = MAX_HANDLE_SZ + 1;
	EXPECT_EQ(open_by_handle(pidfd, &bad, O_CLOEXEC), -1);
	EXPECT_EQ(errno, EINVAL);
	close(pidfd);
}

/*
 * A caller without privileges reopens the pidfd of a process of another
 * user (here: root's test process) from its handle, as pidfd_open() lets
 * it. Decoding against another filesystem's mount takes
 * CAP_DAC_READ_SEARCH: EPERM.
 */
TEST(unprivileged)
{
	struct fhandle fh;
	int pidfd, status;
	pid_t parent = getpid(), pid;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	if (getuid() != 0)
		SKIP(return, "needs root to switch to uid %d",
		     HANDLE_UNPRIV_ID);
	pidfd = sys_pidfd_open(parent, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &fh, 0), 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct fhandle mine;
		int fd;

		if (setresgid(HANDLE_UNPRIV_ID, HANDLE_UNPRIV_ID,
			      HANDLE_UNPRIV_ID) ||
		    setresuid(HANDLE_UNPRIV_ID, HANDLE_UNPRIV_ID,
			      HANDLE_UNPRIV_ID))
			_exit(10);
		fd = open_by_handle(pidfd, &fh, O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		if (fdinfo_pid(fd) != parent)
			_exit(2);
		/* Its handle, made by us, is the same. */
		if (name_to_handle(fd, &mine, 0) ||
		    memcmp(mine.f_handle, fh.f_handle, 8))
			_exit(3);
		close(fd);
		if (have_pidfs_root(&fh)) {
			fd = open_by_handle(FD_PIDFS_ROOT, &fh, O_CLOEXEC);
			if (fd < 0)
				_exit(4);
			close(fd);
		}
		/* The working directory is not on pidfs. */
		if (open_by_handle(AT_FDCWD, &fh, O_CLOEXEC) != -1)
			_exit(5);
		if (errno != EPERM)
			_exit(6);
		/* Bad flags are refused before anything else. */
		if (open_by_handle(pidfd, &fh, O_CREAT) != -1 ||
		    errno != EINVAL)
			_exit(7);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(pidfd);
}

/* What the process inside the new pid namespace reports. */
struct ns_report {
	int code;
	struct fhandle fh;
};

/*
 * Only processes the caller sees in its pid namespace decode: a process
 * of a child pid namespace does, from the parent namespace; the parent
 * namespace's process does not from inside: ESTALE.
 */
TEST(pid_namespaces)
{
	int pidfd, status, report[2], release[2];
	struct fhandle outer_fh;
	struct ns_report rep;
	pid_t helper;

	if (handles_missing())
		SKIP(return, "no pidfs file handles (errno %d)", errno);
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(name_to_handle(pidfd, &outer_fh, 0), 0);
	ASSERT_EQ(pipe(report), 0);
	ASSERT_EQ(pipe(release), 0);

	helper = fork();
	ASSERT_GE(helper, 0);
	if (helper == 0) {
		pid_t inner;

		close(report[0]);
		close(release[1]);
		if (unshare(CLONE_NEWPID))
			_exit(errno == EPERM ? 100 : 101);
		inner = fork();
		if (inner < 0)
			_exit(102);
		if (inner == 0) {
			int self, fd;
			char c;

			memset(&rep, 0, sizeof(rep));
			/* Our parent namespace's process: not ours. */
			fd = open_by_handle(pidfd, &outer_fh, O_CLOEXEC);
			if (fd != -1)
				rep.code = 1;
			else if (errno != ESTALE)
				rep.code = 2;
			/* Our own: fine (/proc is the parent namespace's). */
			self = sys_pidfd_open(getpid(), 0);
			if (!rep.code && (self < 0 ||
					  name_to_handle(self, &rep.fh, 0)))
				rep.code = 3;
			if (!rep.code) {
				fd = open_by_handle(pidfd, &rep.fh, O_CLOEXEC);
				if (fd < 0 || same_inode(fd, self) != 1)
					rep.code = 4;
			}
			if (write(report[1], &rep, sizeof(rep)) != sizeof(rep))
				_exit(5);
			/* Live until the parent has used our handle. */
			while (read(release[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(report[1]);
		if (waitpid(inner, &status, 0) != inner)
			_exit(103);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 104);
	}
	close(report[1]);
	close(release[0]);

	if (read(report[0], &rep, sizeof(rep)) == sizeof(rep)) {
		EXPECT_EQ(rep.code, 0);
		if (!rep.code) {
			int fd = open_by_handle(pidfd, &rep.fh, O_CLOEXEC);

			/* The child namespace's init, from above. */
			EXPECT_GE(fd, 0) TH_LOG("errno %d", errno);
			if (fd >= 0) {
				EXPECT_GT(fdinfo_pid(fd), 1);
				close(fd);
			}
		}
	}
	close(report[0]);
	close(release[1]);
	ASSERT_EQ(waitpid(helper, &status, 0), helper);
	ASSERT_TRUE(WIFEXITED(status));
	close(pidfd);
	if (WEXITSTATUS(status) == 100)
		SKIP(return, "cannot create a pid namespace");
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_HARNESS_MAIN
