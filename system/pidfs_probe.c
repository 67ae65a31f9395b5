// SPDX-License-Identifier: GPL-2.0
/*
 * pidfs_probe: what the kernel says of a pidfd, for the system plan's
 * pidfs case (system/plan.sh, case_pidfs), which holds the programs of
 * the release (systemd, lsfd, nsenter) against it.
 *
 *   pidfs_probe facts PID   one "key value" line each, of pidfd_open(PID):
 *                           magic (fstatfs f_type, hex), ino (fstat st_ino),
 *                           uts_ioctl (PIDFD_GET_UTS_NAMESPACE: "ino N" of
 *                           the namespace fd it gives, or "err ERRNAME"),
 *                           proc_uts (st_ino of /proc/PID/ns/uts),
 *                           supported (PIDFD_GET_INFO's supported_mask,
 *                           hex; 0 without it), peer_pidfd (SO_PEERPIDFD
 *                           on a socketpair of its own: "ino N" of the
 *                           pidfd it gives, or "err ERRNAME")
 *   pidfs_probe hold PID    opens a pidfd of PID, prints "fd N" and
 *                           "ino N", then waits until it is killed: a
 *                           process holding a pidfd, for lsfd to list
 *
 * The plan compares what the release's programs report with these
 * numbers; nothing here decides pass or fail. Exit 0, or 1 when the pidfd
 * cannot be opened (the message on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "pidfd_sys.h"

/* Upstream's values (linux/magic.h, linux/pidfd.h of 6.11 and later), for
 * the headers of a kernel without pidfs (stock 6.1). */
#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef PIDFD_GET_UTS_NAMESPACE
#define PIDFD_GET_UTS_NAMESPACE _IO(0xFF, 10)
#endif

static int open_pidfd(const char *arg)
{
	int fd = sys_pidfd_open(atoi(arg), 0);

	if (fd < 0) {
		fprintf(stderr, "pidfd_open(%s): %s\n", arg, strerror(errno));
		exit(1);
	}
	return fd;
}

static int facts(const char *pid)
{
	int fd = open_pidfd(pid), nsfd;
	/*
	 * PIDFD_GET_INFO (upstream 6.13) for PIDFD_INFO_SUPPORTED_MASK (0x20,
	 * 6.17): 7.1's 88-byte struct pidfd_info, supported_mask its last
	 * field; spelled out for the headers of kernels without it.
	 */
	unsigned long long info[11] = { 0x20 };
	int pair[2], peer_fd;
	socklen_t len = sizeof(peer_fd);
	struct statfs sfs;
	struct stat st;
	char path[64];

	if (fstatfs(fd, &sfs) == 0)
		printf("magic 0x%lx\n", (unsigned long)sfs.f_type);
	else
		printf("magic err %s\n", strerrorname_np(errno));
	if (fstat(fd, &st) == 0)
		printf("ino %llu\n", (unsigned long long)st.st_ino);
	else
		printf("ino err %s\n", strerrorname_np(errno));

	nsfd = ioctl(fd, PIDFD_GET_UTS_NAMESPACE, 0);
	if (nsfd >= 0 && fstat(nsfd, &st) == 0)
		printf("uts_ioctl ino %llu\n", (unsigned long long)st.st_ino);
	else
		printf("uts_ioctl err %s\n", strerrorname_np(errno));

	snprintf(path, sizeof(path), "/proc/%s/ns/uts", pid);
	if (stat(path, &st) == 0)
		printf("proc_uts %llu\n", (unsigned long long)st.st_ino);
	else
		printf("proc_uts err %s\n", strerrorname_np(errno));
	if (ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 0xFF, 11, sizeof(info)), info) == 0 &&
	    (info[0] & 0x20))
		printf("supported 0x%llx\n", info[10]);
	else
		printf("supported 0\n");

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 &&
	    getsockopt(pair[0], SOL_SOCKET, SO_PEERPIDFD, &peer_fd, &len) == 0 &&
	    fstat(peer_fd, &st) == 0)
		printf("peer_pidfd ino %llu\n", (unsigned long long)st.st_ino);
	else
		printf("peer_pidfd err %s\n", strerrorname_np(errno));
	return 0;
}

static int hold(const char *pid)
{
	int fd = open_pidfd(pid);
	struct stat st;

	if (fstat(fd, &st) < 0) {
		perror("fstat");
		return 1;
	}
	printf("fd %d\nino %llu\n", fd, (unsigned long long)st.st_ino);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "facts"))
		return facts(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	fprintf(stderr, "usage: pidfs_probe facts|hold PID\n");
	return 2;
}
