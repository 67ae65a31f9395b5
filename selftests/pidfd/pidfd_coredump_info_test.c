// SPDX-License-Identifier: GPL-2.0
/*
 * What a pidfd tells about a coredump, as upstream 7.1 has it:
 * PIDFD_INFO_COREDUMP with PIDFD_INFO_COREDUMP_SIGNAL and _CODE in
 * PIDFD_GET_INFO, recorded when core_pattern's %F hands the dump's helper
 * a pidfd of the dumping process and readable after the reap; how a live
 * process would dump; and supported_mask, all eight bits of 7.1.
 *
 * The cases that dump core set core_pattern to "|<this program>
 * --coredump-helper %F %P <dir>" (the guest is root in a throwaway VM),
 * restore it afterwards, and read what the helper, run by the kernel,
 * saw on the descriptor %F named. They skip without root, without a
 * writable core_pattern (no CONFIG_COREDUMP) and when the helper did not
 * get a pidfd (a kernel without %F). The PIDFD_GET_INFO cases skip on a
 * kernel whose supported_mask lacks what they test: upstream 6.12 has
 * no PIDFD_GET_INFO, 6.16 to 6.18 have PIDFD_INFO_COREDUMP without the
 * signal and code.
 */

#include "pidfd_handle.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "../kselftest_harness.h"

#ifndef PIDFD_COREDUMPED
#define PIDFD_COREDUMPED	0x1U
#define PIDFD_COREDUMP_SKIP	0x2U
#define PIDFD_COREDUMP_USER	0x4U
#define PIDFD_COREDUMP_ROOT	0x8U
#endif

/* <fcntl.h> cannot come with <linux/pidfd.h>: see pidfd_handle.h. */
#define sys_fcntl(fd, cmd) syscall(__NR_fcntl, (fd), (cmd))

#define CORE_PATTERN	"/proc/sys/kernel/core_pattern"
#define HELPER_ARG	"--coredump-helper"
/* CORENAME_MAX_SIZE: core_pattern's room, the terminating NUL included. */
#define PATTERN_MAX	128

#define ALL_INFO_BITS	(PIDFD_INFO_PID | PIDFD_INFO_CREDS | \
			 PIDFD_INFO_CGROUPID | PIDFD_INFO_EXIT | \
			 PIDFD_INFO_COREDUMP | PIDFD_INFO_SUPPORTED_MASK | \
			 PIDFD_INFO_COREDUMP_SIGNAL | PIDFD_INFO_COREDUMP_CODE)
#define COREDUMP_BITS	(PIDFD_INFO_COREDUMP | PIDFD_INFO_COREDUMP_SIGNAL | \
			 PIDFD_INFO_COREDUMP_CODE)

/* The helper's one line of report, written and read with this format. */
#define REPORT_FMT "F=%ld P=%d getfd=%ld getfl=%ld fdpid=%d ioctl=%d " \
		   "errno=%d mask=%llu pid=%u cmask=%u csig=%u ccode=%u " \
		   "core=%lld"

/*
 * The core_pattern helper, run by the kernel as root in the initial
 * namespaces, with the core on stdin: argv is HELPER_ARG, %F, %P and the
 * directory to report in. It writes one line, atomically (rename), on
 * what the %F argument named and what PIDFD_GET_INFO says through it
 * while the process is dumping, then reads the core to its end.
 */
static int coredump_helper(int argc, char **argv)
{
	char out[PATH_MAX], tmp[PATH_MAX], buf[4096];
	long long core = 0;
	long fd = -1, getfd = -1, getfl = -1;
	int fpid = -2, ret = -1, err = 0;
	struct pidfd_info info;
	char *end;
	ssize_t n;
	FILE *f;

	if (argc != 5)
		return 1;
	memset(&info, 0, sizeof(info));
	fd = strtol(argv[2], &end, 10);
	if (!*argv[2] || *end) {
		/* No %F on this kernel: it expanded to nothing. */
		fd = -1;
	} else {
		getfd = sys_fcntl(fd, F_GETFD);
		getfl = sys_fcntl(fd, F_GETFL);
		fpid = fdinfo_pid(fd);
		info.mask = PIDFD_INFO_EXIT | COREDUMP_BITS;
		ret = ioctl(fd, PIDFD_GET_INFO, &info);
		err = ret ? errno : 0;
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		core += n;

	snprintf(out, sizeof(out), "%s/helper", argv[4]);
	snprintf(tmp, sizeof(tmp), "%s/helper.tmp", argv[4]);
	f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, REPORT_FMT "\n",
		fd, atoi(argv[3]), getfd, getfl, fpid, ret, err,
		(unsigned long long)info.mask, info.pid, info.coredump_mask,
		info.coredump_signal, info.coredump_code, core);
	if (fclose(f))
		return 1;
	return rename(tmp, out) ? 1 : 0;
}

/* What the helper reported. */
struct helper_report {
	long fd, getfd, getfl;
	int dumper, fdpid, ioctl_ret, ioctl_errno;
	unsigned long long mask;
	unsigned int pid, cmask, csig, ccode;
	long long core;
};

/* core_pattern as it was, and the helper's directory. */
struct core_pattern {
	char saved[PATTERN_MAX + 1];
	char dir[64];
	bool changed;
};

FIXTURE(coredump) {
	struct core_pattern cp;
};

FIXTURE_SETUP(coredump)
{
	self->cp.changed = false;
	self->cp.dir[0] = '\0';
}

static void restore_pattern(struct core_pattern *cp)
{
	FILE *f;

	if (!cp->changed)
		return;
	f = fopen(CORE_PATTERN, "w");
	if (f) {
		/* The newline ends it: an empty pattern is restored too. */
		fprintf(f, "%s\n", cp->saved);
		if (!fclose(f))
			cp->changed = false;
	}
}

FIXTURE_TEARDOWN(coredump)
{
	char path[128];

	restore_pattern(&self->cp);
	if (self->cp.dir[0]) {
		snprintf(path, sizeof(path), "%s/helper", self->cp.dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/helper.tmp", self->cp.dir);
		unlink(path);
		rmdir(self->cp.dir);
	}
}

/*
 * Point core_pattern at this program as helper. 0 when done; otherwise
 * why not, for SKIP: not root, or no writable core_pattern.
 */
static const char *install_helper(struct core_pattern *cp)
{
	char exe[PATH_MAX], pattern[2 * PATH_MAX];
	size_t len;
	ssize_t n;
	FILE *f;

	if (geteuid())
		return "needs root to set core_pattern";
	f = fopen(CORE_PATTERN, "r+");
	if (!f)
		return "no writable core_pattern (CONFIG_COREDUMP)";
	len = fread(cp->saved, 1, PATTERN_MAX, f);
	fclose(f);
	cp->saved[len] = '\0';
	if (len && cp->saved[len - 1] == '\n')
		cp->saved[len - 1] = '\0';

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return "cannot read /proc/self/exe";
	exe[n] = '\0';
	snprintf(cp->dir, sizeof(cp->dir), "/tmp/pidfd_coredump.XXXXXX");
	if (!mkdtemp(cp->dir)) {
		cp->dir[0] = '\0';
		return "cannot make a directory in /tmp";
	}
	snprintf(pattern, sizeof(pattern), "|%s %s %%F %%P %s", exe,
		 HELPER_ARG, cp->dir);
	if (strlen(pattern) >= PATTERN_MAX)
		return "this program's path is too long for core_pattern";

	f = fopen(CORE_PATTERN, "w");
	if (!f)
		return "core_pattern not writable";
	cp->changed = true;
	fputs(pattern, f);
	if (fclose(f))
		return "core_pattern refused the helper";
	return NULL;
}

/* Wait up to 10 s for the helper's report and read it. */
static bool read_report(const char *dir, struct helper_report *r)
{
	char path[128];
	int i, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/helper", dir);
	for (i = 0; i < 1000; i++) {
		f = fopen(path, "r");
		if (f)
			break;
		usleep(10000);
	}
	if (!f)
		return false;
	n = fscanf(f, REPORT_FMT, &r->fd, &r->dumper, &r->getfd, &r->getfl,
		   &r->fdpid, &r->ioctl_ret, &r->ioctl_errno, &r->mask, &r->pid,
		   &r->cmask, &r->csig, &r->ccode, &r->core);
	fclose(f);
	return n == 13;
}

/*
 * NULL, but not static: the compiler cannot know it, so it emits the
 * store (a fault, SEGV_MAPERR) rather than a trap instruction of its own.
 */
int *crash_address;

static void *crash_thread(void *arg)
{
	*crash_address = 1;
	return NULL;
}

enum crash_how {
	CRASH_SEGV,		/* a NULL write: SIGSEGV, SEGV_MAPERR */
	CRASH_ABRT,		/* raise(SIGABRT): tgkill(), SI_TKILL */
	CRASH_THREAD_SEGV,	/* a NULL write in a second thread */
};

/* A child that dumps core as @how says; its pidfd in *pidfd. */
static pid_t spawn_crasher(enum crash_how how, int *pidfd)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	pid_t pid = clone3_fork(CLONE_PIDFD, SIGCHLD, pidfd);
	pthread_t thread;

	if (pid)
		return pid;
	/* A pipe ignores the limit, but 1 would abort the dump. */
	setrlimit(RLIMIT_CORE, &unlimited);
	switch (how) {
	case CRASH_SEGV:
		*crash_address = 1;
		break;
	case CRASH_ABRT:
		raise(SIGABRT);
		break;
	case CRASH_THREAD_SEGV:
		if (!pthread_create(&thread, NULL, crash_thread, NULL))
			pthread_join(thread, NULL);
		break;
	}
	_exit(100);
}

/* Probe: are PIDFD_INFO_COREDUMP_SIGNAL and _CODE there (7.1)? */
static bool have_coredump_code(void)
{
	return supported_info() & PIDFD_INFO_COREDUMP_CODE;
}

/*
 * Dump core through the helper as @how says, reap, and check what the
 * helper and, after the reap, the pidfd saw: @signo and @code recorded.
 */
static void dump_and_check(struct __test_metadata *_metadata,
			   struct core_pattern *cp, enum crash_how how,
			   int signo, int code)
{
	struct helper_report r;
	struct pidfd_info info;
	const char *why;
	int pidfd, status;
	pid_t pid;

	if (!have_coredump_code())
		SKIP(return, "no PIDFD_INFO_COREDUMP_CODE in supported_mask");
	why = install_helper(cp);
	if (why)
		SKIP(return, "%s", why);

	pid = spawn_crasher(how, &pidfd);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(read_report(cp->dir, &r));
	restore_pattern(cp);
	if (r.fd < 0)
		SKIP(return, "the helper got no %%F (kernel without it)");

	/* The dump went to the helper, which read it all. */
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), signo);
	EXPECT_TRUE(WCOREDUMP(status));
	EXPECT_GT(r.core, 0);

	/*
	 * %F: fd 3, a pidfd of the process (its leader, %P), not
	 * O_CLOEXEC. The helper sees pids of the initial namespace.
	 */
	EXPECT_EQ(r.fd, 3);
	EXPECT_EQ(r.getfd, 0);
	EXPECT_EQ(r.getfl & 3, 2 /* O_RDWR */);
	EXPECT_EQ(r.fdpid, r.dumper);

	/* Seen while dumping: recorded before the helper ran. */
	EXPECT_EQ(r.ioctl_ret, 0);
	EXPECT_EQ(r.mask & PIDFD_INFO_EXIT, 0);
	EXPECT_EQ(r.mask & COREDUMP_BITS, COREDUMP_BITS);
	EXPECT_EQ(r.pid, r.dumper);
	EXPECT_EQ(r.cmask, PIDFD_COREDUMPED | PIDFD_COREDUMP_USER);
	EXPECT_EQ(r.csig, signo);
	EXPECT_EQ((int)r.ccode, code);

	/* After the reap, with the exit status, through our own pidfd. */
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT | COREDUMP_BITS, &info), 0);
	EXPECT_EQ(info.mask & (PIDFD_INFO_EXIT | COREDUMP_BITS),
		  PIDFD_INFO_EXIT | COREDUMP_BITS);
	EXPECT_EQ(info.mask & (PIDFD_INFO_PID | PIDFD_INFO_CREDS), 0);
	/*
	 * The leader's code. When another thread dumped, the group exit
	 * killed the leader during the dump, with the signal alone; 7.3's
	 * release_task() gives it the group's code (wait(2)'s, with the
	 * core bit) only if the leader is a zombie when the dumping thread
	 * is released, so 7.3 reports either (seen: 11 under TCG). The
	 * series records the group's code always.
	 */
	if (how == CRASH_THREAD_SEGV && info.exit_code == WTERMSIG(status))
		TH_LOG("exit_code %d: the leader's own (7.3: dumper released first)",
		       info.exit_code);
	else
		EXPECT_EQ(info.exit_code, status);
	EXPECT_EQ(info.coredump_mask, PIDFD_COREDUMPED | PIDFD_COREDUMP_USER);
	EXPECT_EQ(info.coredump_signal, signo);
	EXPECT_EQ((int)info.coredump_code, code);
	EXPECT_EQ(info.coredump_pad, 0);

	/* Asking for the coredump only, without the exit: reaped, ESRCH. */
	EXPECT_EQ(get_info(pidfd, COREDUMP_BITS, &info), -1);
	EXPECT_EQ(errno, ESRCH);

	/* A struct that ends before coredump_code still gets the rest. */
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT | COREDUMP_BITS;
	ASSERT_EQ(ioctl(pidfd, GET_INFO_CMD(_IOC_READ | _IOC_WRITE,
					    PIDFD_INFO_SIZE_VER1), &info), 0);
	EXPECT_EQ(info.coredump_mask, PIDFD_COREDUMPED | PIDFD_COREDUMP_USER);
	EXPECT_EQ(info.coredump_signal, signo);
	EXPECT_EQ(info.coredump_code, 0);
	close(pidfd);
}

TEST_F(coredump, segv_recorded_and_kept_after_reap)
{
	dump_and_check(_metadata, &self->cp, CRASH_SEGV, SIGSEGV, SEGV_MAPERR);
}

TEST_F(coredump, abort_recorded_with_its_si_code)
{
	dump_and_check(_metadata, &self->cp, CRASH_ABRT, SIGABRT, SI_TKILL);
}

/* A second thread faults: %F and the record are the process's. */
TEST_F(coredump, thread_fault_recorded_for_the_process)
{
	dump_and_check(_metadata, &self->cp, CRASH_THREAD_SEGV, SIGSEGV,
		       SEGV_MAPERR);
}

/*
 * %F alone, with whatever PIDFD_GET_INFO the kernel has: fd 3 in the
 * helper is a pidfd for the dumping process (upstream 6.16).
 */
TEST_F(coredump, pattern_F_is_a_pidfd)
{
	struct helper_report r;
	const char *why;
	int pidfd, status;
	pid_t pid;

	why = install_helper(&self->cp);
	if (why)
		SKIP(return, "%s", why);
	pid = spawn_crasher(CRASH_SEGV, &pidfd);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(read_report(self->cp.dir, &r));
	restore_pattern(&self->cp);
	if (r.fd < 0)
		SKIP(return, "the helper got no %%F (kernel without it)");
	EXPECT_EQ(r.fd, 3);
	EXPECT_EQ(r.fdpid, r.dumper);
	EXPECT_GT(r.dumper, 0);
	EXPECT_EQ(r.getfd, 0);
	EXPECT_TRUE(WCOREDUMP(status));
	close(pidfd);
}

/*
 * No dump, no record: a process that exits, one killed by a signal that
 * does not dump, and one that may not dump killed by one that would.
 * After the reap none has PIDFD_INFO_COREDUMP, only the exit status.
 */
TEST(no_dump_no_coredump_info)
{
	struct pidfd_info info;
	int pidfd, status, i;
	pid_t pid;

	if (!have_coredump_code())
		SKIP(return, "no PIDFD_INFO_COREDUMP_CODE in supported_mask");
	for (i = 0; i < 3; i++) {
		pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &pidfd);
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			if (i == 0)
				_exit(7);
			if (i == 2 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
				_exit(1);
			pause();
			_exit(1);
		}
		if (i == 1)
			ASSERT_EQ(sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0), 0);
		if (i == 2) {
			/* Non-dumpable, seen alive: SKIP, and no signal. */
			do {
				ASSERT_EQ(get_info(pidfd, COREDUMP_BITS, &info), 0);
			} while (info.coredump_mask == PIDFD_COREDUMP_USER);
			EXPECT_EQ(info.mask & COREDUMP_BITS,
				  PIDFD_INFO_COREDUMP);
			EXPECT_EQ(info.coredump_mask, PIDFD_COREDUMP_SKIP);
			ASSERT_EQ(sys_pidfd_send_signal(pidfd, SIGSEGV, NULL, 0), 0);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_FALSE(WIFSIGNALED(status) && WCOREDUMP(status));

		ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT | COREDUMP_BITS,
				   &info), 0);
		EXPECT_EQ(info.mask & (PIDFD_INFO_EXIT | COREDUMP_BITS),
			  PIDFD_INFO_EXIT) {
			TH_LOG("case %d: mask %#llx", i,
			       (unsigned long long)info.mask);
		}
		EXPECT_EQ(info.exit_code, status);
		EXPECT_EQ(info.coredump_mask, 0);
		EXPECT_EQ(info.coredump_signal, 0);
		EXPECT_EQ(info.coredump_code, 0);
		close(pidfd);
	}
}

/*
 * A live process that has not dumped: PIDFD_INFO_COREDUMP alone, with
 * how it would dump (upstream 6.16), only when asked for.
 */
TEST(live_process_dumpability)
{
	struct pidfd_info info;
	int pipefd[2], pidfd, status;
	pid_t pid;

	/* Probe: does a live process get the bit (6.16 and later)? */
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	if (get_info(pidfd, PIDFD_INFO_COREDUMP, &info) ||
	    !(info.mask & PIDFD_INFO_COREDUMP))
		SKIP(return, "no PIDFD_INFO_COREDUMP");
	close(pidfd);

	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(get_info(pidfd, 0, &info), 0);
	EXPECT_EQ(info.mask & COREDUMP_BITS, 0);
	EXPECT_EQ(info.coredump_mask, 0);

	ASSERT_EQ(get_info(pidfd, COREDUMP_BITS, &info), 0);
	EXPECT_EQ(info.mask & COREDUMP_BITS, PIDFD_INFO_COREDUMP);
	EXPECT_EQ(info.coredump_mask, PIDFD_COREDUMP_USER);
	EXPECT_EQ(info.coredump_signal, 0);
	EXPECT_EQ(info.coredump_code, 0);

	/* Ourselves, after PR_SET_DUMPABLE 0: SKIP. */
	close(pipefd[1]);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	close(pidfd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int self;

		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
			_exit(1);
		self = sys_pidfd_open(getpid(), 0);
		if (self < 0 || get_info(self, PIDFD_INFO_COREDUMP, &info))
			_exit(2);
		if (!(info.mask & PIDFD_INFO_COREDUMP))
			_exit(3);
		_exit(info.coredump_mask == PIDFD_COREDUMP_SKIP ? 0 : 4);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

/* supported_mask: all of upstream 7.1's bits, 0xff, alive or reaped. */
TEST(supported_mask_is_7_1s)
{
	struct pidfd_info info;
	int pidfd;
	pid_t pid;

	if (!have_coredump_code())
		SKIP(return, "no PIDFD_INFO_COREDUMP_CODE in supported_mask");
	EXPECT_EQ(supported_info(), ALL_INFO_BITS);
	EXPECT_EQ(ALL_INFO_BITS, 0xff);

	pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &pidfd);
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT | PIDFD_INFO_SUPPORTED_MASK,
			   &info), 0);
	EXPECT_TRUE(info.mask & PIDFD_INFO_SUPPORTED_MASK);
	EXPECT_EQ(info.supported_mask, ALL_INFO_BITS);
	close(pidfd);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], HELPER_ARG))
		return coredump_helper(argc, argv);
	return test_harness_run(argc, argv);
}
