// SPDX-License-Identifier: GPL-2.0
/*
 * sd_inode_id PID: what the release's own libsystemd says a pidfd of PID
 * is, through sd_pidfd_get_inode_id() (system plan, case pidfs).
 *
 * The library is the guest's, found at run time with dlopen(): this
 * program is therefore the one system program that is linked dynamically
 * (scripts/system.sh). The symbol came after the releases we boot:
 * Debian 13's libsystemd 257 does not export it (systemd 258 added it);
 * then it prints "missing: <dlerror>" and exits 4 (skip), and the plan
 * skips with that reason.
 *
 * Otherwise prints "ret R" (0, or the negative errno libsystemd returned:
 * -EOPNOTSUPP when the pidfd is not a pidfs file) and, on success,
 * "ino N"; the plan compares N with fstat() of its own pidfd. Exit 0,
 * 1 when the pidfd or the library cannot be had.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int (*get_inode_id)(int, uint64_t *);
	uint64_t ino = 0;
	void *lib;
	int fd, r;

	if (argc != 2) {
		fprintf(stderr, "usage: sd_inode_id PID\n");
		return 2;
	}
	lib = dlopen("libsystemd.so.0", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	get_inode_id = (int (*)(int, uint64_t *))dlsym(lib, "sd_pidfd_get_inode_id");
	if (!get_inode_id) {
		printf("missing: %s\n", dlerror());
		return 4;
	}
	fd = syscall(SYS_pidfd_open, atoi(argv[1]), 0);
	if (fd < 0) {
		fprintf(stderr, "pidfd_open(%s): %s\n", argv[1], strerror(errno));
		return 1;
	}
	r = get_inode_id(fd, &ino);
	printf("ret %d\n", r);
	if (r == 0)
		printf("ino %" PRIu64 "\n", ino);
	return 0;
}
