// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the test guest.
 *
 * Mounts what the tests need, creates the unprivileged test user, runs
 * the programs listed in a plan file one by one with a timeout each, and
 * relays their output as KTAP subtests: indented four spaces, followed by
 * one "ok N name" / "not ok N name" line per program. The same lines go to
 * the console (shown live, mixed with kernel messages) and to the result
 * port (read by scripts/ktap.sh), then the end marker and a reboot, which
 * QEMU (-no-reboot) turns into its exit.
 *
 * Kernel command line:
 *   pidfd.plan=FILE    the plan to run (default /plans/test)
 *   pidfd.results=DEV  the result port (default /dev/ttyS1; arm64's -M virt
 *                      has one UART, scripts/qemu.sh gives /dev/hvc0)
 *   pidfd.shell=1      after the plan, start /bin/sh on the terminal that
 *                      console= names (ttyS0, ttyAMA0)
 *   pidfd.only=GLOBS   run only the plan entries whose name matches one of
 *                      these comma-separated fnmatch(3) patterns
 *                      (make test ONLY=...); the others are left out of
 *                      the plan, not reported as skipped. ENTRY:CASE
 *                      (CASE after the last colon) runs only that case of
 *                      the entries ENTRY matches: see {case}
 *
 * Plan lines: "name timeout-seconds /path/to/program [args...]". An
 * argument "{case}" marks a program whose kselftest harness takes a case
 * filter: it becomes "-r CASE" (fixture.test, fixture.variant.test) or
 * "-t CASE" (a test name alone) for each case pidfd.only selected, or
 * nothing when the entry was selected whole. A case for an entry without
 * it, or a case the program then reports no result for ("1..0", exit 0),
 * is "not ok".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfd_sys.h"

/* END_MARKER of scripts/common.sh; scripts/guest.sh passes it. */
#ifndef END_MARKER
#error "END_MARKER is not defined (build with -DEND_MARKER=...)"
#endif
#define KSFT_SKIP	4
#define MAX_ARGS	32
#define MAX_CASES	8

static FILE *results;	/* pidfd.results, or NULL when there is none */

/* The cases pidfd.only selected of an entry, and which of them reported. */
static char cases[MAX_CASES][256];
static int ncases, case_seen[MAX_CASES];

/*
 * A result line of the running program ("ok 1 global.x # SKIP"): mark
 * the cases it is, by the full name (-r) or the test name (-t).
 */
static void see_case(const char *line)
{
	size_t len, clen;
	int i;

	if (strncmp(line, "ok ", 3) && strncmp(line, "not ok ", 7))
		return;
	line += strcspn(line, "0123456789");
	line += strspn(line, "0123456789 ");
	len = strcspn(line, " #");
	for (i = 0; i < ncases; i++) {
		clen = strlen(cases[i]);
		if (len == clen ? !strncmp(line, cases[i], len) :
		    len > clen && line[len - clen - 1] == '.' &&
		    !strncmp(line + len - clen, cases[i], clen))
			case_seen[i] = 1;
	}
}

/* Write one line to the console and to the result port. */
static void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (!results)
		return;
	va_start(ap, fmt);
	vfprintf(results, fmt, ap);
	va_end(ap);
	fflush(results);
}

static void mount_or_warn(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		emit("# init: mount %s on %s: %s\n", type, dst, strerror(errno));
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		emit("# init: cannot write %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static char *cmdline_value(const char *key);

static void prepare(void)
{
	mount_or_warn("proc", "/proc", "proc");
	mount_or_warn("sysfs", "/sys", "sysfs");
	mount_or_warn("devtmpfs", "/dev", "devtmpfs");
	mount_or_warn("devpts", "/dev/pts", "devpts");
	mount_or_warn("tmpfs", "/tmp", "tmpfs");
	chmod("/tmp", 01777);

	mkdir("/etc", 0755);
	write_file("/etc/passwd",
		   "root:x:0:0:root:/root:/bin/sh\n"
		   "tester:x:1000:1000:unprivileged test user:/tmp:/bin/sh\n");
	write_file("/etc/group", "root:x:0:\ntester:x:1000:\n");
	mkdir("/root", 0700);

	setenv("PATH", "/bin:/sbin:/usr/bin:/tests", 1);
	setenv("HOME", "/root", 1);
	setenv("TMPDIR", "/tmp", 1);

	results = fopen(cmdline_value("pidfd.results") ?: "/dev/ttyS1", "w");
}

/* Value of "key=" on the kernel command line (a copy of its own), or NULL. */
static char *cmdline_value(const char *key)
{
	char buf[4096];

	return pidfd_cmdline_value(key, buf, sizeof(buf)) ? strdup(buf) : NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Relay the program's output line by line, indented as a KTAP subtest. */
static void relay(char *buf, size_t *len, int flush_all)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', buf + *len - start))) {
		*nl = '\0';
		see_case(start);
		emit("    %s\n", start);
		start = nl + 1;
	}
	*len -= start - buf;
	memmove(buf, start, *len);
	if (flush_all && *len) {
		buf[*len] = '\0';
		emit("    %s\n", buf);
		*len = 0;
	}
}

/* Reap every child we have; return @child's wait status if it was one. */
static void reap_all(pid_t child, int *status)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, 0)) > 0)
		if (pid == child)
			*status = st;
}

/*
 * Run one program in its own process group with stdout and stderr on a
 * pipe. Returns its wait status, or -1 after a timeout. The program's end
 * is seen through a pidfd, not the pipe: a grandchild it leaves behind
 * may hold the pipe open forever.
 */
static int run_program(char **argv, int timeout)
{
	struct pollfd pfd[2];	/* the program's output, its exit */
	char buf[8192];
	size_t len = 0;
	int pipefd[2], pidfd, status = 0, timed_out = 0;
	double deadline = now() + timeout;
	pid_t child;

	if (pipe2(pipefd, O_CLOEXEC))
		return 1 << 8;
	child = fork();
	if (child < 0)
		return 1 << 8;
	if (child == 0) {
		setpgid(0, 0);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		if (chdir("/tmp"))
			_exit(127);
		execv(argv[0], argv);
		printf("# init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	pidfd = sys_pidfd_open(child, 0);
	pfd[0] = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };

	for (;;) {
		int left_ms = (deadline - now()) * 1000;
		ssize_t n;

		if (left_ms <= 0) {
			timed_out = 1;
			break;
		}
		if (poll(pfd, 2, left_ms > 1000 ? 1000 : left_ms) < 0)
			continue;
		if (pfd[0].revents & (POLLIN | POLLHUP)) {
			n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);
			if (n > 0) {
				len += n;
				relay(buf, &len, len == sizeof(buf) - 1);
			} else {
				pfd[0].fd = -1;	/* EOF: poll ignores it now */
			}
		}
		if (pfd[1].revents & POLLIN)
			break;
	}

	/* The test is over: nothing it started may run on into the next. */
	kill(-1, SIGKILL);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	while (pfd[0].fd >= 0) {
		ssize_t n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);

		if (n <= 0)
			break;
		len += n;
		relay(buf, &len, len == sizeof(buf) - 1);
	}
	relay(buf, &len, 1);
	close(pipefd[0]);
	close(pidfd);
	reap_all(child, &status);
	return timed_out ? -1 : status;
}

/*
 * Is the plan entry @name selected by @only, a comma-separated list of
 * fnmatch(3) patterns (pidfd.only=)? Everything is when there is none.
 * A pattern ENTRY:CASE whose ENTRY (up to its last colon) matches @name
 * selects case CASE of it: cases[] holds every such CASE (ncases), none
 * when a pattern matches @name itself (the whole entry), as only_case in
 * scripts/common.sh.
 */
static int selected(const char *name, const char *only)
{
	char pattern[256], *colon;
	size_t len;

	ncases = 0;
	if (!only || !*only)
		return 1;
	while (*only) {
		len = strcspn(only, ",");
		if (len > 0 && len < sizeof(pattern)) {
			memcpy(pattern, only, len);
			pattern[len] = '\0';
			if (!fnmatch(pattern, name, 0)) {
				ncases = 0;
				return 1;
			}
			colon = strrchr(pattern, ':');
			if (colon && ncases < MAX_CASES) {
				*colon = '\0';
				if (!fnmatch(pattern, name, 0))
					strcpy(cases[ncases++], colon + 1);
			}
		}
		only += len;
		if (*only == ',')
			only++;
	}
	return ncases > 0;
}

/* The name of a plan line (its first word), or NULL for a comment. */
static const char *plan_name(const char *line, char *name, size_t size)
{
	size_t len;

	if (line[0] == '#' || line[0] == '\n')
		return NULL;
	len = strcspn(line, " \t\n");
	if (len >= size)
		len = size - 1;
	memcpy(name, line, len);
	name[len] = '\0';
	return name;
}

static int count_plan(FILE *plan, const char *only)
{
	char line[1024], name[256];
	int n = 0;

	while (fgets(line, sizeof(line), plan))
		if (plan_name(line, name, sizeof(name)) && selected(name, only))
			n++;
	rewind(plan);
	return n;
}

static int run_plan(const char *path, const char *only)
{
	char line[1024], *argv[MAX_ARGS + 2 * MAX_CASES], *name, *save, *arg;
	int number = 0, failed = 0;
	FILE *plan = fopen(path, "r");

	if (!plan) {
		emit("# init: cannot open plan %s: %s\n", path, strerror(errno));
		return 1;
	}
	emit("KTAP version 1\n1..%d\n", count_plan(plan, only));
	if (only)
		emit("# init: only the entries that match %s\n", only);
	while (fgets(line, sizeof(line), plan)) {
		int argc = 0, timeout, status, slot = 0, i, unseen = -1;
		char first[256];
		double start;

		if (!plan_name(line, first, sizeof(first)) ||
		    !selected(first, only))
			continue;
		name = strtok_r(line, " \t\n", &save);
		timeout = atoi(strtok_r(NULL, " \t\n", &save) ?: "0");
		while (argc < MAX_ARGS && (arg = strtok_r(NULL, " \t\n", &save))) {
			if (strcmp(arg, "{case}")) {
				argv[argc++] = arg;
				continue;
			}
			slot = 1;	/* -r CASE, -t CASE per case, or nothing */
			for (i = 0; i < ncases; i++) {
				argv[argc++] = strchr(cases[i], '.') ? "-r" : "-t";
				argv[argc++] = cases[i];
			}
		}
		argv[argc] = NULL;
		number++;
		if (!argc || timeout <= 0) {
			emit("not ok %d %s # bad plan line\n", number, name);
			failed++;
			continue;
		}
		if (ncases && !slot) {
			emit("not ok %d %s # case %s: its program takes no case filter (no kselftest harness with -r/-t: 6.1's ignores them)\n",
			     number, name, cases[0]);
			failed++;
			continue;
		}

		emit("# running %s (timeout %d s)\n", name, timeout);
		for (i = 0; i < ncases; i++) {
			emit("# init: only case %s\n", cases[i]);
			case_seen[i] = 0;
		}
		start = now();
		status = run_program(argv, timeout);
		for (i = ncases - 1; i >= 0; i--)
			if (!case_seen[i])
				unseen = i;
		if (status == -1) {
			emit("not ok %d %s # TIMEOUT after %d s\n", number, name,
			     timeout);
			failed++;
		} else if (WIFSIGNALED(status)) {
			emit("not ok %d %s # killed by signal %d\n", number, name,
			     WTERMSIG(status));
			failed++;
		} else if (unseen >= 0) {
			emit("not ok %d %s # no case %s (exit status %d)\n",
			     number, name, cases[unseen], WEXITSTATUS(status));
			failed++;
		} else if (WEXITSTATUS(status) == KSFT_SKIP) {
			emit("ok %d %s # SKIP\n", number, name);
		} else if (WEXITSTATUS(status)) {
			emit("not ok %d %s # exit status %d\n", number, name,
			     WEXITSTATUS(status));
			failed++;
		} else {
			emit("ok %d %s # %.1f s\n", number, name, now() - start);
		}
	}
	fclose(plan);
	return failed != 0;
}

static void shell(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		/* A controlling terminal, so that job control and ^C work. */
		const char *console = cmdline_value("console") ?: "ttyS0";
		char path[64];
		int tty;

		/* "ttyS0,115200": the device is the part before the comma. */
		snprintf(path, sizeof(path), "/dev/%.*s",
			 (int)strcspn(console, ","), console);
		setsid();
		tty = open(path, O_RDWR);
		if (tty >= 0) {
			ioctl(tty, TIOCSCTTY, 0);
			dup2(tty, STDIN_FILENO);
			dup2(tty, STDOUT_FILENO);
			dup2(tty, STDERR_FILENO);
		}
		execl("/bin/sh", "sh", "-l", NULL);
		_exit(127);
	}
	reap_all(pid, &status);
}

int main(void)
{
	const char *plan, *want_shell;
	int failed;

	if (getpid() != 1) {
		fprintf(stderr, "init: must run as PID 1\n");
		return 1;
	}
	prepare();
	plan = cmdline_value("pidfd.plan") ?: "/plans/test";
	want_shell = cmdline_value("pidfd.shell");
	failed = run_plan(plan, cmdline_value("pidfd.only"));
	emit("%s plan=%s failed=%d\n", END_MARKER, plan, failed);
	if (want_shell && !strcmp(want_shell, "1")) {
		printf("# init: interactive shell; exit it to power off\n");
		shell();
	}
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
