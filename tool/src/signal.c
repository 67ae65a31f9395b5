// SPDX-License-Identifier: GPL-2.0
/*
 * signal.c - the signal step: send signals through the handles the match
 * step opened, wait for those processes with pidfds that are checked
 * against the same handles, and probe what the running kernel supports.
 * There is deliberately no kill(2) anywhere in here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sys/pidfd.h>)
#include <sys/pidfd.h>
#define HAVE_SYS_PIDFD_H 1
#endif
#endif

#include <linux/magic.h>

#include "pfk.h"

#ifdef PID_FS_MAGIC
_Static_assert(PID_FS_MAGIC == PFK_PIDFS_MAGIC, "PID_FS_MAGIC");
#endif

#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif

/*
 * ioctl(PIDFD_GET_INFO) (Linux 6.13): the layout of upstream's struct
 * pidfd_info (include/uapi/linux/pidfd.h) as first published, under our
 * own names so that it cannot clash with a libc or kernel header that has
 * it.  exit_code (6.15) ends that first size (PIDFD_INFO_SIZE_VER0, 64
 * bytes, where 6.13 had a spare field), so every kernel with the ioctl
 * takes it: the kernel reads the size from the command and copies what
 * both sides know.  Later versions append fields we do not need.
 */
struct pfk_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid;
	uint32_t ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;		/* wait(2) status, with PFK_INFO_EXIT */
};

#define PFK_INFO_PID		(1ULL << 0)	/* PIDFD_INFO_PID */
#define PFK_INFO_CREDS		(1ULL << 1)	/* PIDFD_INFO_CREDS */
#define PFK_INFO_EXIT		(1ULL << 3)	/* PIDFD_INFO_EXIT, 6.15 */
#define PFK_PIDFD_GET_INFO	_IOWR(0xFF, 11, struct pfk_pidfd_info)

_Static_assert(offsetof(struct pfk_pidfd_info, exit_code) == 60 &&
	       sizeof(struct pfk_pidfd_info) == 64,
	       "struct pidfd_info: exit_code at 60, 64 bytes (VER0)");
#ifdef PIDFD_GET_INFO
_Static_assert(_IOC_TYPE(PIDFD_GET_INFO) == 0xFF &&
	       _IOC_NR(PIDFD_GET_INFO) == 11, "PIDFD_GET_INFO");
#endif
#ifdef PIDFD_INFO_EXIT
_Static_assert(PIDFD_INFO_EXIT == PFK_INFO_EXIT &&
	       offsetof(struct pidfd_info, exit_code) == 60, "PIDFD_INFO_EXIT");
#endif

#ifdef HAVE_SYS_PIDFD_H
#define sys_pidfd_open pidfd_open
#define sys_pidfd_send_signal pidfd_send_signal
#else
static int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

static int sys_pidfd_send_signal(int fd, int sig, siginfo_t *info,
				 unsigned int flags)
{
	return syscall(__NR_pidfd_send_signal, fd, sig, info, flags);
}
#endif

void pfk_probe_features(struct pfk_features *f)
{
	int fd;

	memset(f, 0, sizeof(*f));

	fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		f->procfd_signal = sys_pidfd_send_signal(fd, 0, NULL, 0) == 0;
		close(fd);
	} else {
		/*
		 * A /proc of a pid namespace we are not in has no "self":
		 * ask for the system call alone, which took /proc/<pid> fds
		 * from its first version on (EBADF: it looked at the fd).
		 */
		f->procfd_signal = sys_pidfd_send_signal(-1, 0, NULL, 0) < 0 &&
				   errno == EBADF;
	}

	fd = sys_pidfd_open(getpid(), 0);
	if (fd >= 0) {
		f->pidfd_open = true;
		close(fd);
	}

	fd = sys_pidfd_open(gettid(), PIDFD_THREAD);
	if (fd >= 0) {
		f->pidfd_thread = true;
		close(fd);
	}

	/* Flags are checked before the fd: EBADF means the flag is known. */
	if (sys_pidfd_send_signal(-1, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP) < 0 &&
	    errno == EBADF)
		f->signal_flags = true;

	/* Like the flags: a kernel that has it looks at the fd (EBADF). */
	if (syscall(__NR_process_mrelease, -1, 0) < 0 && errno == EBADF)
		f->mrelease = true;

	/*
	 * Without the ioctl: ENOTTY, or EINVAL on 6.11 and 6.12, whose pidfd
	 * ioctls (namespaces) refuse any argument.
	 */
	fd = sys_pidfd_open(getpid(), 0);
	if (fd >= 0) {
		struct pfk_pidfd_info info = { .mask = 0 };
		struct statfs sfs;

		f->pidfd_info = ioctl(fd, PFK_PIDFD_GET_INFO, &info) == 0;
		/*
		 * As util-linux's pfd_is_pidfs(): before pidfs (6.9) a pidfd
		 * is an anonymous inode, one inode number for all of them.
		 * A failing fstatfs() counts as no pidfs, as there.
		 */
		f->pidfs = fstatfs(fd, &sfs) == 0 &&
			   sfs.f_type == PFK_PIDFS_MAGIC;
		close(fd);
	}

	/* Old kernels refuse a task directory with EBADF. */
	fd = open("/proc/thread-self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		f->taskfd_signal = sys_pidfd_send_signal(fd, 0, NULL, 0) == 0;
		close(fd);
	}
}

const char *pfk_result_name(enum pfk_result r)
{
	switch (r) {
	case PFK_MATCHED:	return "matched";
	case PFK_SIGNALED:	return "signaled";
	case PFK_GONE:		return "gone";
	case PFK_DENIED:	return "denied";
	case PFK_FAILED:	return "failed";
	case PFK_EXITED:	return "exited";
	case PFK_ESCALATED:	return "escalated";
	case PFK_ALIVE:		return "alive";
	}
	return "?";
}

/*
 * Is the process behind p's directory still the one we matched?  Its stat
 * must still be readable through the fd (the kernel refuses once the task
 * is reaped, even if the number went to someone else) and unchanged.
 * 1 yes, 0 no, -1 (errno) when we had no fd or memory to read it with:
 * that is no sign that it has gone.
 */
static int still_same(const struct pfk_proc *p, int dirfd)
{
	struct pfk_proc now = { .x = NULL };

	if (pfk_read_stat(dirfd, &now, NULL, NULL, NULL) < 0) {
		pfk_proc_free_extra(&now);
		return pfk_resource_error(errno) ? -1 : 0;
	}
	pfk_proc_free_extra(&now);
	return now.starttime == p->starttime;
}

/*
 * Get a pidfd for p without a window: open by number first, then check
 * through the directory fd that p had not been reaped at that point, so
 * the number still belonged to p when pidfd_open() looked it up.
 */
static int open_pidfd(struct pfk_proc *p, bool thread)
{
	int fd, same;

	if (p->pidfd >= 0)
		return 0;
	/* A -w entry in kill mode stands for its whole process. */
	fd = sys_pidfd_open(thread || p->tgid_fd < 0 ? p->pid : p->tgid,
			    thread ? PIDFD_THREAD : 0);
	if (fd < 0)
		return -1;
	same = still_same(p, p->dirfd);
	if (same <= 0) {
		int e = same < 0 ? errno : ESRCH;

		close(fd);
		errno = e;
		return -1;
	}
	p->pidfd = fd;
	return 0;
}

/* Read stat: 0, or -1 with errno ESRCH unless we lacked fds or memory. */
static int read_stat_or_gone(int dirfd, struct pfk_proc *q)
{
	if (pfk_read_stat(dirfd, q, NULL, NULL, NULL) == 0)
		return 0;
	if (!pfk_resource_error(errno))
		errno = ESRCH;
	return -1;
}

/*
 * --pgroup: the kernel signals the group whose id is the target's pid, so
 * we need a handle on the group leader.  Open /proc/<pgrp>, check it leads
 * that group, then check through p's own fd that p is alive and still in
 * it: the group then existed while we held the leader's fd, so the number
 * cannot have moved to a stranger.  /proc/<pgrp> is looked up from p's
 * own /proc/<pid> (never a task directory: --pgroup excludes -w), whose
 * parent is the procfs root the scan walked.
 */
static int open_group_leader(struct pfk_proc *p)
{
	struct pfk_proc_extra *x = pfk_proc_extra(p);
	char name[24];
	int fd;

	if (!x)
		return -1;
	if (x->group_fd >= 0)
		return 0;
	if (p->pgrp == p->pid) {
		x->group_fd = dup(p->dirfd);
		return x->group_fd < 0 ? -1 : 0;
	}
	snprintf(name, sizeof(name), "../%d", (int)p->pgrp);
	fd = openat(p->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		/* No leader is a group gone; no fd for it is not. */
		if (!pfk_resource_error(errno))
			errno = ESRCH;
		return -1;
	}
	errno = 0;	/* a mismatch below leaves no error of its own */
	struct pfk_proc leader = { .x = NULL };
	struct pfk_proc now = { .x = NULL };
	bool same = read_stat_or_gone(fd, &leader) == 0 &&
		    leader.pgrp == p->pgrp &&
		    read_stat_or_gone(p->dirfd, &now) == 0 &&
		    now.starttime == p->starttime && now.pgrp == p->pgrp;
	int e = errno;

	pfk_proc_free_extra(&leader);
	pfk_proc_free_extra(&now);
	if (!same) {
		close(fd);
		errno = pfk_resource_error(e) ? e : ESRCH;
		return -1;
	}
	x->group_fd = fd;
	return 0;
}

int pfk_pidfd_open(pid_t pid)
{
	return sys_pidfd_open(pid, 0);
}

/* PIDFD_GET_INFO asking for @want; ENODATA when the answer lacks some. */
static int pidfd_info(int pidfd, struct pfk_pidfd_info *info, uint64_t want)
{
	memset(info, 0, sizeof(*info));
	info->mask = want;
	if (ioctl(pidfd, PFK_PIDFD_GET_INFO, info) < 0)
		return -1;
	if ((info->mask & want) != want) {
		errno = ENODATA;
		return -1;
	}
	return 0;
}

int pfk_pidfd_cred(int pidfd, struct pfk_cred *c)
{
	struct pfk_pidfd_info info;

	if (pidfd_info(pidfd, &info, PFK_INFO_CREDS | PFK_INFO_PID) < 0)
		return -1;
	c->ruid = info.ruid;
	c->euid = info.euid;
	c->rgid = info.rgid;
	c->ppid = info.ppid;
	return 0;
}

int pfk_open_pidfd(struct pfk_proc *p, enum pfk_scope scope)
{
	return open_pidfd(p, scope == PFK_SCOPE_THREAD);
}

int pfk_open_ident(struct pfk_proc *p)
{
	struct statx stx;

	if (!pfk_proc_extra(p) || open_pidfd(p, false) < 0)
		return -1;
	/* statx, not fstat: a 32-bit fstat fails on an inode above 2^32. */
	if (statx(p->pidfd, "", AT_EMPTY_PATH, STATX_INO, &stx) < 0)
		return -1;
	if (!(stx.stx_mask & STATX_INO) || !stx.stx_ino) {
		errno = ENOTSUP;
		return -1;
	}
	p->x->ino = stx.stx_ino;
	return 0;
}

int pfk_mrelease(struct pfk_proc *p)
{
	if (open_pidfd(p, false) < 0)
		return -1;
	return syscall(__NR_process_mrelease, p->pidfd, 0);
}

static enum pfk_result set_result(struct pfk_proc *p, int r)
{
	if (r == 0) {
		p->result = p->result == PFK_MATCHED ? PFK_SIGNALED
						     : PFK_ESCALATED;
		return p->result;
	}
	p->err = errno;
	if (errno == ESRCH)
		p->result = p->result == PFK_MATCHED ? PFK_GONE : PFK_EXITED;
	else if (errno == EPERM)
		p->result = PFK_DENIED;
	else
		p->result = PFK_FAILED;
	return p->result;
}

enum pfk_result pfk_signal(struct pfk_proc *p, int sig, enum pfk_scope scope,
			   const struct pfk_features *feat)
{
	return pfk_signal_info(p, sig, NULL, scope, feat);
}

enum pfk_result pfk_signal_info(struct pfk_proc *p, int sig, siginfo_t *info,
				enum pfk_scope scope,
				const struct pfk_features *feat)
{
	int r;

	switch (scope) {
	case PFK_SCOPE_PROCESS:
		/*
		 * A pidfd we hold is one whose inode may have been checked
		 * (pfk_open_ident()): signal through that very handle.  It
		 * names the same process as the directory fd, whichever.
		 * -w in kill mode: a thread's entry signals its process.
		 */
		r = sys_pidfd_send_signal(p->pidfd >= 0 ? p->pidfd :
					  p->tgid_fd >= 0 ? p->tgid_fd : p->dirfd,
					  sig, info, 0);
		break;
	case PFK_SCOPE_THREAD:
		if (feat->taskfd_signal) {
			/* A task directory fd is a thread handle. */
			r = sys_pidfd_send_signal(p->dirfd, sig, info, 0);
		} else if (feat->pidfd_thread) {
			r = open_pidfd(p, true);
			if (r == 0)
				r = sys_pidfd_send_signal(p->pidfd, sig, info,
					feat->signal_flags ? PIDFD_SIGNAL_THREAD : 0);
		} else {
			errno = ENOSYS;
			r = -1;
		}
		break;
	case PFK_SCOPE_PGROUP:
		r = open_group_leader(p);
		if (r == 0)
			r = sys_pidfd_send_signal(p->x->group_fd, sig, info,
						  PIDFD_SIGNAL_PROCESS_GROUP);
		break;
	default:
		errno = EINVAL;
		r = -1;
	}
	return set_result(p, r);
}

int pfk_pidfd_status(int pidfd, int *status)
{
	struct pfk_pidfd_info info;

	if (pidfd_info(pidfd, &info, PFK_INFO_EXIT) < 0)
		return -1;
	*status = info.exit_code;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Signaled by us, or (pfwait) only matched. */
static bool waiting_for(const struct pfk_proc *p)
{
	return p->result == PFK_MATCHED || p->result == PFK_SIGNALED ||
	       p->result == PFK_ESCALATED;
}

/*
 * The exit status of each process in pfd[0..n) (their pidfds, indexes
 * into procs[] in idx[]), all seen to exit.  The kernel records it when
 * the parent reaps the zombie, which then reports POLLHUP (asked for with
 * events 0): wait for that, at most PFK_STATUS_GRACE_MS, and ask again.
 */
static void read_statuses(struct pfk_proc *procs, struct pollfd *pfd,
			  size_t *idx, size_t n)
{
	long deadline = now_ms() + PFK_STATUS_GRACE_MS;
	size_t left = 0;

	for (size_t k = 0; k < n; k++) {
		struct pfk_proc *p = &procs[idx[k]];

		if (pfk_pidfd_status(p->pidfd, &p->exit_status) == 0) {
			p->has_status = true;
		} else if (errno == ENODATA) {
			/* a zombie still: k >= left, so this only moves back */
			pfd[left].fd = p->pidfd;
			pfd[left].events = 0;
			idx[left++] = idx[k];
		}
	}
	while (left > 0) {
		long wait_ms = deadline - now_ms();
		bool last = wait_ms <= 0;
		int r;

		r = last ? 0 : poll(pfd, left, (int)wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		for (size_t k = 0; k < left; ) {
			struct pfk_proc *p = &procs[idx[k]];

			if (!last && r >= 0 && !pfd[k].revents) {
				k++;
				continue;
			}
			/* reaped (or the last look): whatever it says now */
			if (pfk_pidfd_status(p->pidfd, &p->exit_status) == 0)
				p->has_status = true;
			pfd[k] = pfd[--left];
			idx[k] = idx[left];
		}
		if (last || r < 0)
			break;
	}
}

size_t pfk_wait(struct pfk_proc *procs, size_t n, long timeout_ms,
		enum pfk_scope scope, const struct pfk_features *feat)
{
	bool thread = scope == PFK_SCOPE_THREAD;
	long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct pollfd *pfd;
	size_t *idx, alive = 0, exited = 0;

	pfd = calloc(n ? n : 1, sizeof(*pfd));
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!pfd || !idx) {
		free(pfd);
		free(idx);
		errno = ENOMEM;
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		struct pfk_proc *p = &procs[i];

		if (!waiting_for(p))
			continue;
		/* --pgroup waits for the matched processes themselves. */
		if (open_pidfd(p, thread) < 0) {
			if (errno == ESRCH) {
				p->result = p->result == PFK_MATCHED ?
					    PFK_GONE : PFK_EXITED;
				continue;
			}
			p->err = errno;
			p->result = PFK_FAILED;
			p->wait_failed = true;
			continue;
		}
		pfd[alive].fd = p->pidfd;
		pfd[alive].events = POLLIN;
		idx[alive++] = i;
	}

	size_t left = alive;

	while (left > 0) {
		long wait_ms = -1;
		int r;

		if (deadline >= 0) {
			wait_ms = deadline - now_ms();
			if (wait_ms < 0)
				wait_ms = 0;
			if (wait_ms > 0x7fffffff)
				wait_ms = 0x7fffffff;
		}
		r = poll(pfd, alive, (int)wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (size_t k = 0; k < alive; k++) {
			if (pfd[k].fd < 0 || !pfd[k].revents)
				continue;
			procs[idx[k]].result = PFK_EXITED;
			pfd[k].fd = -1;		/* poll() skips negative fds */
			left--;
		}
		if (r == 0 && wait_ms == 0)
			break;
	}
	/*
	 * How they ended, read through the pidfds we hold: processes only,
	 * a thread's own exit code says little about what happened to it.
	 */
	if (feat->pidfd_info && !thread) {
		for (size_t k = 0; k < alive; k++)
			if (procs[idx[k]].result == PFK_EXITED)
				idx[exited++] = idx[k];
		read_statuses(procs, pfd, idx, exited);
	}
	free(pfd);
	free(idx);
	return left;
}
