// SPDX-License-Identifier: GPL-2.0
/*
 * pidfs: a pidfd is a file of the pidfs pseudo-filesystem (upstream
 * v6.9), on one inode per struct pid whose number names the process for
 * the whole boot, and it opens the namespaces of its process
 * (PIDFD_GET_*_NAMESPACE, v6.11). Upstream 6.12 has all of it natively;
 * FS_IOC_GETVERSION (v6.14) and the ENOTTY of requests that are not
 * ours whatever their argument (upstream after 6.12), the VFS's requests
 * for regular files included (6.16), come with PIDFD_GET_INFO (v6.13)
 * in both series and are probed by it.
 */

#include "pidfd_handle.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>

#include "../kselftest_harness.h"

#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif
#ifndef PIDFD_GET_CGROUP_NAMESPACE
#define PIDFD_GET_CGROUP_NAMESPACE            _IO(PIDFS_IOCTL_MAGIC, 1)
#define PIDFD_GET_IPC_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 2)
#define PIDFD_GET_MNT_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 3)
#define PIDFD_GET_NET_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 4)
#define PIDFD_GET_PID_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 5)
#define PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE  _IO(PIDFS_IOCTL_MAGIC, 6)
#define PIDFD_GET_TIME_NAMESPACE              _IO(PIDFS_IOCTL_MAGIC, 7)
#define PIDFD_GET_TIME_FOR_CHILDREN_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 8)
#define PIDFD_GET_USER_NAMESPACE              _IO(PIDFS_IOCTL_MAGIC, 9)
#define PIDFD_GET_UTS_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 10)
#endif
#ifndef FS_IOC_GETVERSION
#define FS_IOC_GETVERSION _IOR('v', 1, long)
#endif
/* <fcntl.h> cannot come with <linux/pidfd.h>: see pidfd_handle.h. */
#define fd_flags(fd) syscall(__NR_fcntl, (fd), F_GETFD)

/* The unprivileged user guest/init.c creates. */
#define PIDFS_UNPRIV_ID 1000

static void end_waiter(int pipefd[2], pid_t pid)
{
	close(pipefd[1]);
	waitpid(pid, NULL, 0);
}

static int same_inode(int fd_a, int fd_b)
{
	struct stat a, b;

	if (fstat(fd_a, &a) || fstat(fd_b, &b))
		return -1;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static ino_t inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

TEST(every_kind_of_pidfd_is_a_pidfs_file)
{
	int fds[4], clone_fd, i;
	struct parked thread;
	struct statfs sfs;
	pid_t pid;

	pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &clone_fd);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	ASSERT_GT(pid, 0);
	ASSERT_EQ(park(&thread), 0);

	fds[0] = clone_fd;
	fds[1] = sys_pidfd_open(pid, 0);
	fds[2] = sys_pidfd_open(getpid(), PIDFD_THREAD);
	fds[3] = sys_pidfd_open(thread.tid, PIDFD_THREAD);
	for (i = 0; i < 4; i++) {
		ASSERT_GE(fds[i], 0) TH_LOG("pidfd %d: errno %d", i, errno);
		ASSERT_EQ(fstatfs(fds[i], &sfs), 0);
		EXPECT_EQ((unsigned long)sfs.f_type, PID_FS_MAGIC)
			TH_LOG("pidfd %d: f_type %#lx", i,
			       (unsigned long)sfs.f_type);
	}

	unpark(&thread);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 4; i++)
		close(fds[i]);
}

/*
 * One inode per struct pid: every pidfd of a process, however made, is
 * on the same inode; a thread is a struct pid of its own, and so is
 * another process.
 */
TEST(one_inode_per_struct_pid)
{
	int clone_fd, open_fd, dup_fd, leader_fd, thread_fd, other_fd;
	struct parked thread;
	int other_pipe[2];
	pid_t pid, other;

	pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &clone_fd);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	ASSERT_GT(pid, 0);
	open_fd = sys_pidfd_open(pid, 0);
	ASSERT_GE(open_fd, 0);
	dup_fd = dup(open_fd);
	ASSERT_GE(dup_fd, 0);
	EXPECT_EQ(same_inode(clone_fd, open_fd), 1);
	EXPECT_EQ(same_inode(clone_fd, dup_fd), 1);

	/* A thread pidfd on the leader is the process's struct pid. */
	leader_fd = sys_pidfd_open(getpid(), PIDFD_THREAD);
	ASSERT_GE(leader_fd, 0);
	ASSERT_EQ(park(&thread), 0);
	thread_fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(thread_fd, 0);
	EXPECT_EQ(same_inode(leader_fd, thread_fd), 1);
	close(thread_fd);

	other = fork_waiter(other_pipe, 0);
	ASSERT_GT(other, 0);
	other_fd = sys_pidfd_open(other, 0);
	ASSERT_GE(other_fd, 0);
	EXPECT_EQ(same_inode(open_fd, other_fd), 0);
	EXPECT_EQ(same_inode(open_fd, leader_fd), 0);

	/* First: the waiter holds a copy of the thread's pipe too. */
	end_waiter(other_pipe, other);
	unpark(&thread);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(clone_fd);
	close(open_fd);
	close(dup_fd);
	close(leader_fd);
	close(other_fd);
}

/* A non-leader thread's pidfd names the thread, not its process. */
TEST(thread_has_an_inode_of_its_own)
{
	int process_fd, thread_fd;
	struct parked thread;

	ASSERT_EQ(park(&thread), 0);
	process_fd = sys_pidfd_open(getpid(), 0);
	thread_fd = sys_pidfd_open(thread.tid, PIDFD_THREAD);
	ASSERT_GE(process_fd, 0);
	ASSERT_GE(thread_fd, 0) TH_LOG("PIDFD_THREAD of %d: errno %d",
				       thread.tid, errno);
	EXPECT_EQ(same_inode(process_fd, thread_fd), 0);

	unpark(&thread);
	close(process_fd);
	close(thread_fd);
}

/*
 * The number is the process's for the whole boot: the same after every
 * pidfd was closed (the inode was freed and made again), the same after
 * the reap, and never given to a later process.
 */
TEST(inode_number_is_the_identity_for_the_boot)
{
	int pipefd[2], fd, again, later_fd;
	ino_t first, later;
	pid_t pid, newer;

	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	fd = sys_pidfd_open(pid, 0);
	ASSERT_GE(fd, 0);
	first = inode_of(fd);
	ASSERT_NE(first, 0);
	close(fd);

	again = sys_pidfd_open(pid, 0);
	ASSERT_GE(again, 0);
	EXPECT_EQ(inode_of(again), first);

	end_waiter(pipefd, pid);
	EXPECT_EQ(inode_of(again), first);

	/* A later process: a larger number, never the reaped one's. */
	newer = fork_waiter(pipefd, 0);
	ASSERT_GT(newer, 0);
	later_fd = sys_pidfd_open(newer, 0);
	ASSERT_GE(later_fd, 0);
	later = inode_of(later_fd);
	EXPECT_GT(later, first);
	end_waiter(pipefd, newer);
	close(later_fd);
	close(again);
}

/* Many processes, one at a time: no two ever share a number. */
TEST(no_two_processes_share_a_number)
{
	enum { ROUNDS = 200 };
	static ino_t seen[ROUNDS];
	int i, j, fd;
	pid_t pid;

	for (i = 0; i < ROUNDS; i++) {
		pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &fd);
		if (pid == 0)
			_exit(0);
		ASSERT_GT(pid, 0);
		seen[i] = inode_of(fd);
		ASSERT_EQ(waitpid(pid, NULL, 0), pid);
		close(fd);
		for (j = 0; j < i; j++)
			ASSERT_NE(seen[j], seen[i]) TH_LOG("round %d and %d", j, i);
	}
}

/* How many inodes the kernel has, from /proc/sys/fs/inode-nr. */
static long inodes_in_use(void)
{
	long nr, unused;
	FILE *f = fopen("/proc/sys/fs/inode-nr", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &nr, &unused) != 2)
		nr = -1;
	fclose(f);
	return nr;
}

/*
 * A process's pidfs inode goes once the process is reaped and its last
 * pidfd closed, whatever used it before: pidfds opened and closed while
 * it lived, a pidfd still open at the reap. So does the CLONE_PIDFD
 * pidfd of a fork that failed after making it (a pidfd address the
 * kernel cannot write: EFAULT). A leak would keep one inode per round.
 */
TEST(reaped_processes_leave_no_inode)
{
	enum { ROUNDS = 1000 };
	struct handle_clone_args args = {
		.flags = CLONE_PIDFD,
		.pidfd = 8,
		.exit_signal = SIGCHLD,
	};
	int i, fd, again, pipefd[2];
	long before;
	pid_t pid;

	before = inodes_in_use();
	ASSERT_GT(before, 0);
	for (i = 0; i < ROUNDS; i++) {
		pid = fork_waiter(pipefd, 0);
		ASSERT_GT(pid, 0);
		fd = sys_pidfd_open(pid, 0);
		ASSERT_GE(fd, 0);
		close(fd);
		again = sys_pidfd_open(pid, 0);
		ASSERT_GE(again, 0);
		if (i % 2)
			close(again);
		end_waiter(pipefd, pid);
		if (!(i % 2))
			close(again);
	}
	EXPECT_LT(inodes_in_use() - before, ROUNDS / 2);

	before = inodes_in_use();
	for (i = 0; i < ROUNDS; i++) {
		pid = syscall(__NR_clone3, &args, sizeof(args));
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(pid, -1);
		ASSERT_EQ(errno, EFAULT);
	}
	EXPECT_LT(inodes_in_use() - before, ROUNDS / 2);
}

/*
 * What stat() shows: no file type (as the anonymous inode before pidfs:
 * lsof tells pidfds by it), owner-only permission bits, one link.
 */
TEST(stat_shows_no_file_type)
{
	struct stat st;
	int fd;

	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode & S_IFMT, 0) TH_LOG("st_mode %#o", st.st_mode);
	EXPECT_EQ(st.st_mode & 07077, 0) TH_LOG("st_mode %#o", st.st_mode);
	EXPECT_EQ(st.st_nlink, 1);
	close(fd);
}

/* chmod, chown and utimes change nothing on a pidfd. */
TEST(attributes_cannot_be_changed)
{
	struct stat before, after;
	struct timespec times[2] = { { 0, 0 }, { 0, 0 } };
	int fd;

	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &before), 0);
	EXPECT_EQ(fchmod(fd, 0777), -1);
	EXPECT_EQ(fchown(fd, PIDFS_UNPRIV_ID, PIDFS_UNPRIV_ID), -1);
	EXPECT_EQ(futimens(fd, times), -1);
	ASSERT_EQ(fstat(fd, &after), 0);
	EXPECT_EQ(after.st_mode, before.st_mode);
	EXPECT_EQ(after.st_uid, before.st_uid);
	EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	close(fd);
}

/* The link text and fdinfo lsof and others parse stay what they were. */
TEST(link_text_and_fdinfo)
{
	char path[64], buf[512];
	unsigned long long ino = 0;
	int fd, pid_line = -1;
	ssize_t n;
	FILE *f;

	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	EXPECT_STREQ(buf, "anon_inode:[pidfd]");

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	ASSERT_TRUE(!!f);
	while (fgets(buf, sizeof(buf), f)) {
		if (sscanf(buf, "ino: %llu", &ino) == 1)
			continue;
		if (sscanf(buf, "Pid: %d", &pid_line) == 1)
			continue;
	}
	fclose(f);
	EXPECT_EQ(ino, (unsigned long long)inode_of(fd));
	EXPECT_EQ(pid_line, getpid());
	close(fd);
}

/*
 * FS_IOC_GETVERSION (v6.14): the upper half of the number where ino_t
 * is 32 bits wide, 0 on a 64-bit kernel.
 */
TEST(getversion)
{
	struct utsname u;
	__u32 gen = 1;
	int fd;

	/*
	 * Unpatched 6.12 has neither, and answers EINVAL to any request
	 * with an argument it does not know.
	 */
	if (!have_get_info())
		SKIP(return, "6.12 or older: no FS_IOC_GETVERSION (6.14)");
	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	if (ioctl(fd, FS_IOC_GETVERSION, &gen) < 0) {
		close(fd);
		/* Compat passes the 32-bit request, whose size differs. */
		if (errno == ENOTTY && sizeof(long) == 4)
			SKIP(return, "FS_IOC_GETVERSION of a 32-bit caller");
		ASSERT_TRUE(false) TH_LOG("FS_IOC_GETVERSION: errno %d", errno);
	}
	ASSERT_EQ(uname(&u), 0);
	if (strstr(u.machine, "64"))
		EXPECT_EQ(gen, 0);
	EXPECT_EQ(ioctl(fd, FS_IOC_GETVERSION, NULL), -1);
	EXPECT_EQ(errno, EINVAL);
	close(fd);
}

static const struct {
	unsigned int cmd;
	const char *name;
} namespaces[] = {
	{ PIDFD_GET_CGROUP_NAMESPACE, "cgroup" },
	{ PIDFD_GET_IPC_NAMESPACE, "ipc" },
	{ PIDFD_GET_MNT_NAMESPACE, "mnt" },
	{ PIDFD_GET_NET_NAMESPACE, "net" },
	{ PIDFD_GET_PID_NAMESPACE, "pid" },
	{ PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE, "pid_for_children" },
	{ PIDFD_GET_TIME_NAMESPACE, "time" },
	{ PIDFD_GET_TIME_FOR_CHILDREN_NAMESPACE, "time_for_children" },
	{ PIDFD_GET_USER_NAMESPACE, "user" },
	{ PIDFD_GET_UTS_NAMESPACE, "uts" },
};

/*
 * A child in namespaces of its own (uts, ipc, net, pid and time for its
 * children); it reports on @ready and waits for @pipefd to close.
 */
static pid_t spawn_in_namespaces(int pipefd[2])
{
	int ready[2];
	pid_t pid;
	char c = 0;

	if (pipe(ready) || pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		close(ready[0]);
		unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET |
			CLONE_NEWPID);
		write(ready[1], &c, 1);
		while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(pipefd[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		pid = -1;
	close(ready[0]);
	return pid;
}

/* Each ioctl opens the file /proc/<pid>/ns/<type> names, O_CLOEXEC. */
TEST(namespace_ioctls_open_the_proc_ns_files)
{
	int pipefd[2], pidfd, nsfd, err, i, opened = 0;
	struct stat want, got, pid_ns;
	char path[64];
	pid_t pid;

	pid = spawn_in_namespaces(pipefd);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	for (i = 0; i < ARRAY_SIZE(namespaces); i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid,
			 namespaces[i].name);
		nsfd = ioctl(pidfd, namespaces[i].cmd, 0);
		err = errno;
		if (stat(path, &want) && errno == ENOENT &&
		    namespaces[i].cmd == PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE) {
			/*
			 * The link hides a pid namespace without an init
			 * yet; upstream's ioctl opens it all the same: not
			 * the namespace the child itself is in.
			 */
			ASSERT_GE(nsfd, 0) TH_LOG("errno %d", err);
			snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
			ASSERT_EQ(stat(path, &pid_ns), 0);
			ASSERT_EQ(fstat(nsfd, &got), 0);
			EXPECT_NE(got.st_ino, pid_ns.st_ino);
			close(nsfd);
			opened++;
			continue;
		}
		if (stat(path, &want)) {
			/* A namespace type this kernel lacks. */
			EXPECT_EQ(nsfd, -1) TH_LOG("%s", namespaces[i].name);
			EXPECT_EQ(err, EOPNOTSUPP);
			continue;
		}
		ASSERT_GE(nsfd, 0) TH_LOG("%s: errno %d", namespaces[i].name,
					  err);
		ASSERT_EQ(fstat(nsfd, &got), 0);
		EXPECT_EQ(got.st_ino, want.st_ino)
			TH_LOG("%s", namespaces[i].name);
		EXPECT_EQ(got.st_dev, want.st_dev);
		EXPECT_TRUE(fd_flags(nsfd) & FD_CLOEXEC);
		close(nsfd);
		opened++;
	}
	/* This suite's kernels have every type: none may be missing. */
	EXPECT_EQ(opened, 10);

	end_waiter(pipefd, pid);
	close(pidfd);
}

TEST(namespace_ioctl_refusals)
{
	int pipefd[2], pidfd, zombie_fd;
	pid_t pid;

	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	/* The namespace ioctls take no argument. */
	EXPECT_EQ(ioctl(pidfd, PIDFD_GET_UTS_NAMESPACE, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	/* Not a pidfd ioctl: ENOTTY, whatever the argument. */
	EXPECT_EQ(ioctl(pidfd, _IO(PIDFS_IOCTL_MAGIC, 12), 0), -1);
	EXPECT_EQ(errno, ENOTTY);
	/* Also with an argument, after 6.12; 6.12 said EINVAL then. */
	if (have_get_info()) {
		EXPECT_EQ(ioctl(pidfd, _IO(PIDFS_IOCTL_MAGIC, 0), 1), -1);
		EXPECT_EQ(errno, ENOTTY);
	}

	/* Exited, not reaped: its namespaces are gone already. */
	zombie_fd = dup(pidfd);
	close(pipefd[1]);
	ASSERT_TRUE(pidfd_readable(pidfd, 10000));
	EXPECT_EQ(ioctl(zombie_fd, PIDFD_GET_UTS_NAMESPACE, 0), -1);
	EXPECT_EQ(errno, ESRCH);

	/* Reaped. */
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	EXPECT_EQ(ioctl(pidfd, PIDFD_GET_UTS_NAMESPACE, 0), -1);
	EXPECT_EQ(errno, ESRCH);
	close(zombie_fd);
	close(pidfd);
}

#ifndef FIBMAP
#define FIBMAP _IO(0x00, 1)
#endif

/*
 * The VFS's own requests for regular files are not a pidfd's either,
 * though a pidfs inode is S_IFREG inside the kernel: since upstream 6.16
 * (S_ANON_INODE) they reach the pidfd's ioctl, which refuses them with
 * ENOTTY. Upstream 6.12 answers them as for a file of size 0.
 */
TEST(generic_file_ioctls_are_enotty)
{
	static const struct {
		unsigned long req;
		const char *name;
	} reqs[] = {
		{ FIONREAD, "FIONREAD" },
		{ FIOQSIZE, "FIOQSIZE" },
		{ FIBMAP, "FIBMAP" },
	};
	long long arg;
	unsigned int i;
	int pidfd;

	if (!have_get_info())
		SKIP(return, "upstream 6.12: answered as for a regular file");
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	for (i = 0; i < ARRAY_SIZE(reqs); i++) {
		arg = 0;
		errno = 0;
		EXPECT_EQ(ioctl(pidfd, reqs[i].req, &arg), -1)
			TH_LOG("%s succeeded", reqs[i].name);
		EXPECT_EQ(errno, ENOTTY) TH_LOG("%s: errno %d", reqs[i].name, errno);
	}
	close(pidfd);
}

/*
 * The rule of /proc/<pid>/ns/: a ptrace read check. An unprivileged
 * caller opens the namespaces of its own user's process, not root's.
 */
TEST(namespace_ioctl_permission)
{
	int root_pipe[2], peer_pipe[2], status;
	pid_t root_proc, caller;

	if (geteuid() != 0)
		SKIP(return, "needs root to set up both users");
	root_proc = fork_waiter(root_pipe, 0);
	ASSERT_GT(root_proc, 0);

	caller = fork();
	if (caller == 0) {
		int root_fd, peer_fd, nsfd;
		pid_t peer;

		root_fd = sys_pidfd_open(root_proc, 0);
		if (root_fd < 0 ||
		    setresgid(PIDFS_UNPRIV_ID, PIDFS_UNPRIV_ID,
			      PIDFS_UNPRIV_ID) ||
		    setresuid(PIDFS_UNPRIV_ID, PIDFS_UNPRIV_ID,
			      PIDFS_UNPRIV_ID))
			_exit(10);
		/* setresuid() made us undumpable, and our child with us. */
		prctl(PR_SET_DUMPABLE, 1);
		/* A process of our own user. */
		peer = fork_waiter(peer_pipe, 0);
		peer_fd = sys_pidfd_open(peer, 0);
		if (peer < 0 || peer_fd < 0)
			_exit(11);
		nsfd = ioctl(root_fd, PIDFD_GET_UTS_NAMESPACE, 0);
		if (nsfd >= 0 || errno != EACCES)
			_exit(12);
		nsfd = ioctl(peer_fd, PIDFD_GET_UTS_NAMESPACE, 0);
		if (nsfd < 0)
			_exit(13);
		end_waiter(peer_pipe, peer);
		_exit(0);
	}
	ASSERT_GT(caller, 0);
	ASSERT_EQ(waitpid(caller, &status, 0), caller);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0)
		TH_LOG("10 setup, 11 peer, 12 root's not EACCES, 13 own refused");
	end_waiter(root_pipe, root_proc);
}

TEST_HARNESS_MAIN
