/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests of PIDFD_GET_INFO and of the clone3() flags
 * CLONE_AUTOREAP, CLONE_NNP and CLONE_PIDFD_AUTOKILL: fallbacks for
 * headers without them (the tests must build against the stock 6.1
 * headers and upstream 6.12's, which have PIDFS_IOCTL_MAGIC and the
 * namespace ioctls but not PIDFD_GET_INFO; there they skip by probe),
 * wrappers and probes.
 *
 * Not built on pidfd.h: that includes glibc's <fcntl.h>, which cannot be
 * combined with <linux/pidfd.h> (its <linux/fcntl.h> defines struct flock
 * again), and the struct and the ioctl must come from the kernel's own
 * header when it has them, or the test would not check that header.
 */
#ifndef __PIDFD_HANDLE_H
#define __PIDFD_HANDLE_H

#define _GNU_SOURCE
/* <linux/pidfd.h> includes <linux/fcntl.h>: no glibc <fcntl.h> here. */
#include <linux/pidfd.h>
#include <linux/ioctl.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#ifndef CLONE_PIDFD
#define CLONE_PIDFD		0x00001000
#endif
/* Upstream 7.1, include/uapi/linux/sched.h. */
#ifndef CLONE_AUTOREAP
#define CLONE_AUTOREAP		0x400000000ULL
#endif
#ifndef CLONE_NNP
#define CLONE_NNP		0x800000000ULL
#endif
#ifndef CLONE_PIDFD_AUTOKILL
#define CLONE_PIDFD_AUTOKILL	0x1000000000ULL
#endif

/* Upstream 7.1, include/uapi/linux/pidfd.h: the VER3 layout. */
#ifndef PIDFS_IOCTL_MAGIC
#define PIDFS_IOCTL_MAGIC 0xFF
#endif
#ifndef PIDFD_GET_INFO
struct pidfd_info {
	__u64 mask;
	__u64 cgroupid;
	__u32 pid;
	__u32 tgid;
	__u32 ppid;
	__u32 ruid;
	__u32 rgid;
	__u32 euid;
	__u32 egid;
	__u32 suid;
	__u32 sgid;
	__u32 fsuid;
	__u32 fsgid;
	__s32 exit_code;
	struct {
		__u32 coredump_mask;
		__u32 coredump_signal;
		__u32 coredump_code;
		__u32 coredump_pad;
	};
	__u64 supported_mask;
};

#define PIDFD_GET_INFO _IOWR(PIDFS_IOCTL_MAGIC, 11, struct pidfd_info)
#endif
#ifndef PIDFD_INFO_PID
#define PIDFD_INFO_PID			0x01UL
#define PIDFD_INFO_CREDS		0x02UL
#define PIDFD_INFO_CGROUPID		0x04UL
#endif
#ifndef PIDFD_INFO_EXIT
#define PIDFD_INFO_EXIT			0x08UL
#endif
#ifndef PIDFD_INFO_COREDUMP
#define PIDFD_INFO_COREDUMP		0x10UL
#endif
#ifndef PIDFD_INFO_SUPPORTED_MASK
#define PIDFD_INFO_SUPPORTED_MASK	0x20UL
#endif
#ifndef PIDFD_INFO_COREDUMP_SIGNAL
#define PIDFD_INFO_COREDUMP_SIGNAL	0x40UL
#define PIDFD_INFO_COREDUMP_CODE	0x80UL
#endif
#ifndef PIDFD_INFO_SIZE_VER0
#define PIDFD_INFO_SIZE_VER0 64
#define PIDFD_INFO_SIZE_VER1 72
#define PIDFD_INFO_SIZE_VER2 80
#define PIDFD_INFO_SIZE_VER3 88
#endif

/* PIDFD_GET_INFO with another struct size (or direction) in the command. */
#define GET_INFO_CMD(dir, size) _IOC(dir, PIDFS_IOCTL_MAGIC, 11, size)

/* struct clone_args as of its first version (64 bytes). */
struct handle_clone_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
};

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

static inline int sys_pidfd_send_signal(int pidfd, int sig, siginfo_t *info,
					unsigned int flags)
{
	return syscall(__NR_pidfd_send_signal, pidfd, sig, info, flags);
}

/*
 * clone3() like fork(): 0 in the child, the child's pid in the parent,
 * -1 with errno on failure. *pidfd gets the CLONE_PIDFD fd (or -1).
 */
static inline pid_t clone3_fork(uint64_t flags, int exit_signal, int *pidfd)
{
	int fd = -1;
	struct handle_clone_args args = {
		.flags = flags,
		.pidfd = (uintptr_t)&fd,
		.exit_signal = exit_signal,
	};
	pid_t pid = syscall(__NR_clone3, &args, sizeof(args));

	if (pidfd)
		*pidfd = pid > 0 ? fd : -1;
	return pid;
}

/*
 * A child that waits until the write end of @pipefd is closed, then
 * exits with @code.
 */
static inline pid_t fork_waiter(int pipefd[2], int code)
{
	pid_t pid;
	char c;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(code);
	}
	close(pipefd[0]);
	return pid;
}

/* A field of /proc/self/fdinfo/@fd as a number, base 0; -2 if absent. */
static inline long fdinfo_field(int fd, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long val = -2;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen)) {
			val = strtol(line + klen, NULL, 0);
			break;
		}
	}
	fclose(f);
	return val;
}

/* The pid a pidfd names, as fdinfo shows it (-1: reaped, -2: none). */
static inline pid_t fdinfo_pid(int fd)
{
	return fdinfo_field(fd, "Pid:");
}

/* A second thread of this process, blocked until unpark(). */
struct parked {
	int pipefd[2];
	pid_t tid;
	pthread_t thread;
};

static inline void *parked_thread(void *arg)
{
	struct parked *p = arg;
	char c;

	__atomic_store_n(&p->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(p->pipefd[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static inline int park(struct parked *p)
{
	p->tid = 0;
	if (pipe(p->pipefd) ||
	    pthread_create(&p->thread, NULL, parked_thread, p))
		return -1;
	while (!__atomic_load_n(&p->tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	return 0;
}

static inline void unpark(struct parked *p)
{
	close(p->pipefd[1]);
	pthread_join(p->thread, NULL);
	close(p->pipefd[0]);
}

/* PIDFD_GET_INFO asking for @mask; the result in @info. */
static inline int get_info(int pidfd, __u64 mask, struct pidfd_info *info)
{
	memset(info, 0, sizeof(*info));
	info->mask = mask;
	return ioctl(pidfd, PIDFD_GET_INFO, info);
}

/* Wait up to @ms for the pidfd to report the exit; true if it did. */
static inline bool pidfd_readable(int pidfd, int ms)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, ms);
	} while (n < 0 && errno == EINTR);
	return n == 1 && (pfd.revents & POLLIN);
}

/*
 * Wait up to @ms until the task is reaped (POLLHUP). Exit information is
 * written when the task is released, a moment after the exit that wakes
 * POLLIN; an autoreaped child or a thread is released right after it.
 */
static inline bool pidfd_reaped(int pidfd, int ms)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	for (; ms > 0; ms -= 10) {
		pfd.revents = 0;
		if (poll(&pfd, 1, 10) < 0 && errno != EINTR)
			return false;
		if (pfd.revents & POLLHUP)
			return true;
	}
	return false;
}

/* Is @pid, reaped or not, still waitable by us? 0: no (ECHILD). */
static inline int still_waitable(pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0)
		return 1;
	return errno == ECHILD ? 0 : -errno;
}

/* Probe: does this kernel have PIDFD_GET_INFO at all? */
static inline bool have_get_info(void)
{
	struct pidfd_info info;
	int fd = sys_pidfd_open(getpid(), 0);
	int ret;

	if (fd < 0)
		return false;
	ret = get_info(fd, 0, &info);
	close(fd);
	return ret == 0;
}

/* Probe: the bits that PIDFD_INFO_SUPPORTED_MASK reports (0: none). */
static inline __u64 supported_info(void)
{
	struct pidfd_info info;
	int fd = sys_pidfd_open(getpid(), 0);
	int ret;

	if (fd < 0)
		return 0;
	ret = get_info(fd, PIDFD_INFO_SUPPORTED_MASK, &info);
	close(fd);
	if (ret || !(info.mask & PIDFD_INFO_SUPPORTED_MASK))
		return 0;
	return info.supported_mask;
}

/*
 * Probe a clone3() flag combination with a child that exits at once: an
 * old kernel refuses unknown flags with EINVAL before creating anything.
 * The probe's own child is gone when it returns, waited for or, when
 * autoreaped, seen reaped through its pidfd: a test that counts its
 * children (waitpid(-1, ...)) must not find it.
 */
static inline bool have_clone_flags(uint64_t flags)
{
	int fd = -1;
	pid_t pid = clone3_fork(flags, 0, &fd);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return false;
	if (!(flags & CLONE_AUTOREAP))
		waitpid(pid, NULL, __WALL);
	else if (fd >= 0)
		pidfd_reaped(fd, 10000);
	if (fd >= 0)
		close(fd);
	return true;
}

#endif /* __PIDFD_HANDLE_H */
