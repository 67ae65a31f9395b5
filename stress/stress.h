/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the stress/ programs (guest, debug kernel): syscall wrappers
 * with fallbacks for headers without the series, run-time feature probes,
 * parameters from the kernel command line and the result rows.
 *
 * Every scenario prints one machine-readable line per table row:
 *   # ROW scenario|attempts|failures|leaks|note
 * where failures counts wrong deliveries (or, for the fuzzer, calls that
 * broke an invariant) and "n/a" stands for a feature the kernel lacks.
 * scripts/stress.sh adds the splat count of each program (from the
 * console) and prints the table. A program exits non-zero when a row that
 * must be zero is not.
 */
#ifndef STRESS_H
#define STRESS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfd_sys.h"
#include <sys/ioctl.h>
#include <stdint.h>

/* Upstream 7.1's PIDFD_GET_INFO and clone3() flags (patches 14-18). */
#ifndef PIDFD_GET_INFO
struct pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid;
	uint32_t fsuid, fsgid;
	int32_t exit_code;
	uint32_t coredump_mask, coredump_signal, coredump_code, coredump_pad;
	uint64_t supported_mask;
};
#define PIDFD_GET_INFO _IOWR(0xFF, 11, struct pidfd_info)
#endif
#ifndef PIDFD_INFO_EXIT
#define PIDFD_INFO_EXIT (1UL << 3)
#endif
#ifndef PIDFD_INFO_SUPPORTED_MASK
#define PIDFD_INFO_SUPPORTED_MASK (1UL << 5)
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000ULL
#endif
#ifndef CLONE_AUTOREAP
#define CLONE_AUTOREAP (1ULL << 34)
#endif
#ifndef CLONE_NNP
#define CLONE_NNP (1ULL << 35)
#endif
#ifndef CLONE_PIDFD_AUTOKILL
#define CLONE_PIDFD_AUTOKILL (1ULL << 36)
#endif

/* clone3() like fork(), with the CLONE_PIDFD fd in *pidfd. */
static inline pid_t stress_clone3(uint64_t flags, int exit_signal, int *pidfd)
{
	uint64_t args[8] = { flags, (uintptr_t)pidfd, 0, 0,
			     (uint64_t)exit_signal, 0, 0, 0 };

	return syscall(SYS_clone3, args, sizeof(args));
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A small, fast, per-thread random generator (xorshift64*): 64 bits
 * wide in 32-bit programs too.
 */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline uint64_t rnd_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
		((uint64_t)sys_gettid() << 16)) | 1;
}

/*
 * PIDFD_STRESS_<KEY> in the environment (the smoke form that `make test`
 * runs, scripts/smoke.sh), else "pidfd.stress_<key>=N" on the kernel
 * command line (scripts/qemu.sh passes extra arguments through), else
 * the default.
 */
static inline long param(const char *key, long def)
{
	char pat[128], value[64];
	int i;

	snprintf(pat, sizeof(pat), "PIDFD_STRESS_%s", key);
	for (i = 13; pat[i]; i++)
		if (pat[i] >= 'a' && pat[i] <= 'z')
			pat[i] += 'A' - 'a';
	if (getenv(pat) && *getenv(pat))
		return strtol(getenv(pat), NULL, 0);
	snprintf(pat, sizeof(pat), "pidfd.stress_%s", key);
	if (!pidfd_cmdline_value(pat, value, sizeof(value)))
		return def;
	return strtol(value, NULL, 0);
}

/* Anonymous shared memory, inherited across fork. */
static inline void *shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static inline int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static inline long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Feature probes: each on a child of ours that we have not reaped. */
struct features {
	int thread_pidfd;	/* pidfd_open(tid, PIDFD_THREAD) */
	int scopes;		/* PIDFD_SIGNAL_* flags */
	int taskfd;		/* /proc/<pid>/task/<tid> fds as handles */
	int self;		/* PIDFD_SELF_* */
	int killfile;		/* /proc/<pid>/kill */
	int taskkill;		/* /proc/<pid>/task/<tid>/kill */
	int getinfo;		/* ioctl(PIDFD_GET_INFO) */
	int autokill;		/* clone3(CLONE_AUTOREAP|..._AUTOKILL) */
};

static inline void probe_features(struct features *f)
{
	char path[96];
	pid_t child;
	int fd;

	memset(f, 0, sizeof(*f));
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	fd = sys_pidfd_open(child, PIDFD_THREAD);
	if (fd >= 0) {
		f->thread_pidfd = 1;
		close(fd);
	}
	fd = sys_pidfd_open(child, 0);
	if (fd >= 0) {
		f->scopes = sys_pidfd_send_signal(fd, 0, NULL,
						  PIDFD_SIGNAL_THREAD) == 0;
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d", child, child);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		f->taskfd = sys_pidfd_send_signal(fd, 0, NULL, 0) == 0;
		close(fd);
	}
	f->self = sys_pidfd_send_signal(PIDFD_SELF_THREAD_GROUP, 0, NULL, 0) == 0;
	snprintf(path, sizeof(path), "/proc/%d/kill", child);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		f->killfile = write(fd, "0", 1) == 1;
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/kill", child, child);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		f->taskkill = write(fd, "0", 1) == 1;
		close(fd);
	}
	fd = sys_pidfd_open(child, 0);
	if (fd >= 0) {
		struct pidfd_info info = { .mask = PIDFD_INFO_EXIT };

		f->getinfo = ioctl(fd, PIDFD_GET_INFO, &info) == 0;
		close(fd);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	fd = -1;
	child = stress_clone3(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_NNP |
			      CLONE_PIDFD_AUTOKILL, 0, &fd);
	if (child == 0)
		_exit(0);
	if (child > 0) {
		f->autokill = 1;
		close(fd);
	}
	printf("# features: thread_pidfd=%d scopes=%d taskfd=%d self=%d killfile=%d taskkill=%d getinfo=%d autokill=%d\n",
	       f->thread_pidfd, f->scopes, f->taskfd, f->self, f->killfile,
	       f->taskkill, f->getinfo, f->autokill);
}

/* Write a signal number to a kill file: one write at offset 0. */
static inline int killfile_send(int fd, int sig)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d\n", sig);

	if (pwrite(fd, buf, n, 0) == n)
		return 0;
	if (errno == ESPIPE && lseek(fd, 0, SEEK_SET) == 0 &&
	    write(fd, buf, n) == n)
		return 0;
	return -1;
}

/*
 * Signal through the kill file of a held /proc/<pid> (or task) directory
 * fd. An open kill file takes one write, so each send opens it anew,
 * relative to the directory fd: that pins the process, a path would not.
 * A directory whose process is gone has no kill file: ESRCH.
 */
static inline int killat_send(int dirfd, int sig)
{
	int fd = openat(dirfd, "kill", O_WRONLY | O_CLOEXEC), r;

	if (fd < 0) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	r = killfile_send(fd, sig);
	if (r) {
		int e = errno;

		close(fd);
		errno = e;
		return r;
	}
	close(fd);
	return 0;
}

/*
 * The smoke form (PIDFD_SMOKE=strict or lenient in the environment):
 * every row is also a KTAP case. It passes when something was attempted
 * and nothing failed (kill(2) rows may fail: that is the race), and
 * fails when nothing was attempted. Leaks are the program's own verdict
 * (its exit status), not judged here. An n/a row fails when strict (the
 * patched kernel has every feature) and is a SKIP when lenient; a row
 * whose program is not in the image (ROW_ABSENT) is a SKIP.
 */
#define ROW_ABSENT	(-2)

static inline void smoke_case(const char *scenario, long attempts,
			      long failures)
{
	static int n;
	const char *mode = getenv("PIDFD_SMOKE");
	int expected_race = strstr(scenario, "kill(2)") != NULL;

	if (!mode)
		return;
	n++;
	if (attempts == ROW_ABSENT)
		printf("ok %d %s # SKIP not in this image\n", n, scenario);
	else if (attempts < 0)
		printf("%sok %d %s # %sn/a\n", strcmp(mode, "strict") ? "" : "not ",
		       n, scenario, strcmp(mode, "strict") ? "SKIP " : "");
	else if (attempts == 0)
		printf("not ok %d %s # nothing attempted\n", n, scenario);
	else if (failures && !expected_race)
		printf("not ok %d %s # %ld failures\n", n, scenario, failures);
	else
		printf("ok %d %s # %ld attempts\n", n, scenario, attempts);
	fflush(stdout);
}

/*
 * A table row; "n/a" rows carry attempts < 0: -1 when the kernel lacks
 * the feature (a failure on the patched kernel in make test's smoke run),
 * ROW_ABSENT when the program that would run it is not built for this
 * image (a skip).
 */
static inline void row(const char *scenario, long attempts, long failures,
		       const char *leaks, const char *fmt, ...)
{
	char note[512] = "";
	va_list ap;

	smoke_case(scenario, attempts, failures);

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	if (attempts < 0)
		printf("# ROW %s|n/a|n/a|%s|%s\n", scenario, leaks, note);
	else
		printf("# ROW %s|%ld|%ld|%s|%s\n", scenario, attempts,
		       failures, leaks, note);
	fflush(stdout);
}

#define STRESS_SKIP 4	/* kselftest's KSFT_SKIP */

#endif /* STRESS_H */
