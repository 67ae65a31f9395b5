// SPDX-License-Identifier: GPL-2.0
/*
 * sd_listen OUT: a socket-activated service's view of what systemd passed
 * it (system plan, case pidfs). systemd 258 and later add LISTEN_PIDFDID=,
 * the pidfs inode of the service's pidfd, to LISTEN_PID= where pidfds are
 * pidfs files; libsystemd's sd_listen_fds() then ignores the fds unless it
 * matches the caller's own pidfd. A kernel whose pidfd identity differed
 * between PID 1's child before exec and the service after it would lose
 * every socket-activated service's sockets here.
 *
 * Writes to OUT: "listen_pidfdid X" (or "-" when unset), "self_ino N"
 * (fstat() of a pidfd of itself, "-" when that fails) and "sd_listen_fds
 * R" (libsystemd's answer, found at run time with dlopen() like
 * sd_inode_id, or "missing"). Exit 0, 1 when OUT cannot be written.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *id = getenv("LISTEN_PIDFDID");
	int (*listen_fds)(int);
	struct stat st;
	void *lib;
	FILE *out;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: sd_listen OUT\n");
		return 2;
	}
	/* Before libsystemd looks: sd_listen_fds(0) leaves the variables. */
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	fprintf(out, "listen_pidfdid %s\n", id ? id : "-");
	fd = syscall(SYS_pidfd_open, getpid(), 0);
	if (fd >= 0 && !fstat(fd, &st))
		fprintf(out, "self_ino %llu\n", (unsigned long long)st.st_ino);
	else
		fprintf(out, "self_ino -\n");
	lib = dlopen("libsystemd.so.0", RTLD_NOW);
	listen_fds = lib ? (int (*)(int))dlsym(lib, "sd_listen_fds") : NULL;
	if (listen_fds)
		fprintf(out, "sd_listen_fds %d\n", listen_fds(0));
	else
		fprintf(out, "sd_listen_fds missing\n");
	return fclose(out) ? 1 : 0;
}
