// SPDX-License-Identifier: GPL-2.0
/*
 * Library tests: the match step (pfk_scan_*) and the signal step
 * (pfk_signal(), pfk_wait()) called directly, with a PID reused between
 * them where the kernel lets a test steer PID allocation.
 */
#include "pfkill-tests.h"

/* Scan with a filter; return the number of matches, their pids in pids[]. */
static ssize_t scan_pids(struct pfk_filter *flt, pid_t *pids, size_t max)
{
	struct pfk_proc procs[64];
	struct pfk_scan *scan = pfk_scan_open(flt);
	ssize_t n, total = 0;

	if (!scan)
		return -1;
	while ((n = pfk_scan_next(scan, procs, 64)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if ((size_t)total < max)
				pids[total] = procs[i].pid;
			total++;
			pfk_proc_release(&procs[i]);
		}
	}
	pfk_scan_close(scan);
	return n < 0 ? -1 : total;
}

static int set_pattern(struct pfk_filter *flt, const char *re)
{
	flt->has_pattern = true;
	return regcomp(&flt->pattern, re, REG_EXTENDED | REG_NOSUB);
}

int t_lib_match_name(void)
{
	char name[16], re[40];
	struct pfk_filter flt;
	pid_t a, b, pids[8];
	int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY);
	ssize_t n;

	unique_name(name, "lm");
	a = spawn_simple(name);
	b = spawn_simple("pk_other_lm");
	CHECK(a > 0 && b > 0);
	pfk_filter_init(&flt, proc_fd);
	snprintf(re, sizeof(re), "^%s$", name);
	CHECK(set_pattern(&flt, re) == 0);
	n = scan_pids(&flt, pids, 8);
	CHECK(n == 1 && pids[0] == a);

	/* Filters combine: our child, and the other name. */
	pfk_filter_free(&flt);
	pfk_filter_init(&flt, proc_fd);
	CHECK(set_pattern(&flt, "^pk_other_lm$") == 0);
	pfk_ids_add(&flt.ppid, getpid());
	n = scan_pids(&flt, pids, 8);
	CHECK(n == 1 && pids[0] == b);
	pfk_filter_free(&flt);
	reap(a);
	reap(b);
	return PASS;
}

int t_lib_stat_odd_name(void)
{
	struct pfk_proc p = { 0 };
	const char *odd = "a) (b ) 1 2";
	pid_t pids[2];
	int fd;
	pid_t h = spawn_simple(odd);
	char path[32];
	struct pfk_filter flt;

	CHECK(h > 0);
	snprintf(path, sizeof(path), "/proc/%d", h);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK(pfk_read_stat(fd, &p, NULL, NULL, NULL) == 0);
	CHECK(strcmp(p.name, odd) == 0);
	CHECK(p.pgrp == getpgrp());
	close(fd);

	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	CHECK(set_pattern(&flt, "^a\\) \\(b \\) 1 2$") == 0);
	pfk_ids_add(&flt.ppid, getpid());
	CHECK(scan_pids(&flt, pids, 2) == 1 && pids[0] == h);
	reap(h);
	return PASS;
}

/*
 * A name of 16 bytes or more (a kernel thread's) is kept in p->x, and a
 * short one read into the same record drops it.  Read from stat files
 * written here: no process has such a name but a kernel thread.
 */
static int write_stat(int dirfd, const char *name, unsigned long long start)
{
	char buf[256];
	int fd, len;

	len = snprintf(buf, sizeof(buf), "7 (%s) S 2 0 0 0 -1 69238880 0 0 0 "
		       "0 0 0 0 0 0 -20 1 0 %llu 0 0\n", name, start);
	fd = openat(dirfd, "stat", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, buf, len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int t_lib_stat_long_name(void)
{
	const char *lng = "kworker/0:1H-kblockd";
	struct pfk_proc p = { .dirfd = -1, .pidfd = -1, .tgid_fd = -1 };
	char dir[] = "/tmp/pfk-statXXXXXX";
	int fd;

	CHECK(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK(write_stat(fd, lng, 12345) == 0);
	CHECK(pfk_read_stat(fd, &p, NULL, NULL, NULL) == 0);
	CHECK(p.x && strcmp(pfk_proc_name(&p), lng) == 0);
	CHECK(p.name[0] == '\0' && p.starttime == 12345 && p.state == 'S');
	CHECK(!pfk_proc_cmdline(&p) && !pfk_proc_ino(&p));
	CHECK(write_stat(fd, "short", 678) == 0);
	CHECK(pfk_read_stat(fd, &p, NULL, NULL, NULL) == 0);
	CHECK(strcmp(pfk_proc_name(&p), "short") == 0 && p.starttime == 678);
	pfk_proc_release(&p);
	CHECK(!p.x);
	unlinkat(fd, "stat", 0);
	close(fd);
	CHECK(rmdir(dir) == 0);
	return PASS;
}

int t_lib_newest_oldest(void)
{
	char name[16], re[40];
	struct pfk_filter flt;
	pid_t h[3], pids[4];
	struct timespec gap = { 0, 30 * 1000 * 1000 };

	unique_name(name, "no");
	for (int i = 0; i < 3; i++) {
		h[i] = spawn_simple(name);
		CHECK(h[i] > 0);
		nanosleep(&gap, NULL);	/* distinct start times */
	}
	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	snprintf(re, sizeof(re), "^%s$", name);
	CHECK(set_pattern(&flt, re) == 0);
	flt.pick = PFK_PICK_NEWEST;
	CHECK(scan_pids(&flt, pids, 4) == 1 && pids[0] == h[2]);
	flt.pick = PFK_PICK_OLDEST;
	CHECK(scan_pids(&flt, pids, 4) == 1 && pids[0] == h[0]);
	for (int i = 0; i < 3; i++)
		reap(h[i]);
	return PASS;
}

/* The match step then the signal step, the library way. */
int t_lib_signal_step(void)
{
	char name[16], re[40];
	struct pfk_filter flt;
	struct pfk_features feat;
	struct pfk_proc procs[4];
	struct pfk_scan *scan;
	pid_t h;
	ssize_t n;

	pfk_probe_features(&feat);
	unique_name(name, "ss");
	h = spawn_simple(name);
	CHECK(h > 0);
	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	snprintf(re, sizeof(re), "^%s$", name);
	CHECK(set_pattern(&flt, re) == 0);
	scan = pfk_scan_open(&flt);
	CHECK(scan);
	n = pfk_scan_next(scan, procs, 4);
	CHECK(n == 1 && procs[0].pid == h);
	CHECK(!pending(h, SIGUSR1));
	CHECK(pfk_signal(&procs[0], SIGUSR1, PFK_SCOPE_PROCESS, &feat) ==
	      PFK_SIGNALED);
	CHECK(pending(h, SIGUSR1));
	pfk_proc_release(&procs[0]);
	CHECK(pfk_scan_next(scan, procs, 4) == 0);
	pfk_scan_close(scan);
	reap(h);
	return PASS;
}

/*
 * A caller that keeps the handles of earlier batches (plain kill mode)
 * says so with pfk_scan_hold(): out of fds, the scan hands back even an
 * empty batch, not done, so that the caller can release them, and then
 * examines that candidate again.  Without it the candidate would be
 * retried once and given up (unexamined).
 */
int t_lib_scan_hold(void)
{
	char name[16], re[40];
	struct pfk_filter flt;
	struct pfk_proc kept, more;
	struct pfk_scan *scan;
	struct rlimit rl, none;
	size_t found = 1;
	pid_t a, b, first;
	ssize_t n;
	int lowest, why;

	unique_name(name, "sh");
	a = spawn_simple(name);
	b = spawn_simple(name);
	CHECK(a > 0 && b > 0);
	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	snprintf(re, sizeof(re), "^%s$", name);
	CHECK(set_pattern(&flt, re) == 0);
	pfk_ids_add(&flt.ppid, getpid());
	scan = pfk_scan_open(&flt);
	CHECK(scan);
	CHECK(pfk_scan_next(scan, &kept, 1) == 1);
	pfk_scan_hold(scan, 1);

	/* No fd to be had: the next one would be the lowest free. */
	lowest = dup(0);
	CHECK(lowest >= 0 && close(lowest) == 0);
	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	none = rl;
	none.rlim_cur = lowest;
	CHECK(setrlimit(RLIMIT_NOFILE, &none) == 0);
	n = pfk_scan_next(scan, &more, 1);
	setrlimit(RLIMIT_NOFILE, &rl);
	CHECK(n == 0 && !pfk_scan_done(scan));
	CHECK(pfk_scan_unexamined(scan, &why) == 0);

	/* Released: the rest, the other helper among them, is found. */
	first = kept.pid;
	pfk_proc_release(&kept);
	pfk_scan_hold(scan, 0);
	while ((n = pfk_scan_next(scan, &more, 1)) > 0) {
		CHECK(more.pid == (first == a ? b : a));
		found++;
		pfk_proc_release(&more);
	}
	CHECK(n == 0 && pfk_scan_done(scan) && found == 2);
	CHECK(pfk_scan_unexamined(scan, &why) == 0);
	pfk_scan_close(scan);
	pfk_filter_free(&flt);
	reap(a);
	reap(b);
	return PASS;
}

/* A matched process that exits before the signal step is "gone". */
int t_lib_gone(void)
{
	char name[16], re[40];
	struct pfk_filter flt;
	struct pfk_features feat;
	struct pfk_proc procs[2];
	struct pfk_scan *scan;
	pid_t h;

	pfk_probe_features(&feat);
	unique_name(name, "gn");
	h = spawn_simple(name);
	CHECK(h > 0);
	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	snprintf(re, sizeof(re), "^%s$", name);
	CHECK(set_pattern(&flt, re) == 0);
	scan = pfk_scan_open(&flt);
	CHECK(scan && pfk_scan_next(scan, procs, 2) == 1);
	reap(h);
	CHECK(pfk_signal(&procs[0], SIGUSR1, PFK_SCOPE_PROCESS, &feat) ==
	      PFK_GONE);
	pfk_proc_release(&procs[0]);
	pfk_scan_close(scan);
	return PASS;
}

/*
 * The race made deterministic: match a process, kill and reap it, hand
 * its PID to a newcomer through ns_last_pid, then run the signal step.
 */
static int race_in_ns(void)
{
	char name[16] = "pk_race_victim", re[40];
	struct pfk_filter flt;
	struct pfk_features feat;
	struct pfk_proc stale[2], fresh[2];
	struct pfk_scan *scan;
	pid_t victim, newcomer;
	int fd, len;
	char buf[32];

	pfk_probe_features(&feat);
	victim = spawn_simple(name);
	CHECK(victim > 0);

	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	snprintf(re, sizeof(re), "^%s$", name);
	CHECK(set_pattern(&flt, re) == 0);
	scan = pfk_scan_open(&flt);
	CHECK(scan && pfk_scan_next(scan, stale, 2) == 1);
	pfk_scan_close(scan);
	CHECK(stale[0].pid == victim);

	reap(victim);
	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	SKIP_IF(fd < 0, "ns_last_pid: %s (needs CONFIG_CHECKPOINT_RESTORE)",
		strerror(errno));
	len = snprintf(buf, sizeof(buf), "%d", victim - 1);
	SKIP_IF(write(fd, buf, len) != len, "write ns_last_pid: %s",
		strerror(errno));
	close(fd);
	newcomer = spawn_simple(name);
	CHECK(newcomer > 0);
	SKIP_IF(newcomer != victim, "PID %d not reused (got %d)", victim,
		newcomer);

	/* The stale handle must not reach the newcomer. */
	CHECK(pfk_signal(&stale[0], SIGUSR1, PFK_SCOPE_PROCESS, &feat) ==
	      PFK_GONE);
	CHECK(nothing_pending(newcomer));
	/* Nor may waiting on it wait for the newcomer. */
	stale[0].result = PFK_SIGNALED;
	if (feat.pidfd_open) {
		CHECK(pfk_wait(stale, 1, 10000, PFK_SCOPE_PROCESS, &feat) == 0);
		CHECK(stale[0].result == PFK_EXITED);
		CHECK(stale[0].pidfd < 0);
	}
	pfk_proc_release(&stale[0]);

	/* Control: a fresh match does reach it, so the check above can fail. */
	scan = pfk_scan_open(&flt);
	CHECK(scan && pfk_scan_next(scan, fresh, 2) == 1);
	CHECK(fresh[0].pid == newcomer);
	CHECK(pfk_signal(&fresh[0], SIGUSR1, PFK_SCOPE_PROCESS, &feat) ==
	      PFK_SIGNALED);
	CHECK(pending(newcomer, SIGUSR1));
	pfk_proc_release(&fresh[0]);
	pfk_scan_close(scan);
	reap(newcomer);
	return PASS;
}

int t_lib_pid_reuse_race(void)
{
	return in_new_pidns(race_in_ns);
}

/* Same race for a thread handle (the --thread path). */
static int race_thread_in_ns(void)
{
	char name[16] = "pk_race_thr", re[40];
	struct helper_opts o = { .threads = 1, .ruid = -1, .euid = -1,
				 .rgid = -1 };
	struct pfk_filter flt;
	struct pfk_features feat;
	struct pfk_proc stale[2];
	struct pfk_scan *scan;
	pid_t victim, newcomer;
	int fd, len;
	char buf[32];

	pfk_probe_features(&feat);
	SKIP_IF(!feat.pidfd_thread && !feat.taskfd_signal,
		"kernel has no thread handles");
	victim = spawn(name, &o);
	CHECK(victim > 0);
	pfk_filter_init(&flt, open("/proc", O_RDONLY | O_DIRECTORY));
	snprintf(re, sizeof(re), "^%s$", name);	/* the main thread only */
	CHECK(set_pattern(&flt, re) == 0);
	flt.threads = true;
	scan = pfk_scan_open(&flt);
	CHECK(scan && pfk_scan_next(scan, stale, 2) == 1);
	pfk_scan_close(scan);
	CHECK(stale[0].pid == victim);
	reap(victim);

	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	SKIP_IF(fd < 0, "ns_last_pid: %s (needs CONFIG_CHECKPOINT_RESTORE)",
		strerror(errno));
	len = snprintf(buf, sizeof(buf), "%d", victim - 1);
	SKIP_IF(write(fd, buf, len) != len, "write ns_last_pid: %s",
		strerror(errno));
	close(fd);
	newcomer = spawn_simple(name);
	SKIP_IF(newcomer != victim, "PID not reused");
	CHECK(pfk_signal(&stale[0], SIGUSR1, PFK_SCOPE_THREAD, &feat) ==
	      PFK_GONE);
	CHECK(nothing_pending(newcomer));
	pfk_proc_release(&stale[0]);
	reap(newcomer);
	return PASS;
}

int t_lib_thread_reuse_race(void)
{
	return in_new_pidns(race_thread_in_ns);
}

/* pfk_pidfd_status(): nothing before the reap, then exit code or signal. */
int t_lib_exit_status(void)
{
	struct pfk_features f;
	pid_t c, k;
	int fd, kfd, st;

	pfk_probe_features(&f);
	SKIP_IF(!f.pidfd_info, "no PIDFD_GET_INFO (Linux 6.13)");
	c = fork();
	if (c == 0)
		_exit(7);
	k = fork();
	if (k == 0) {
		for (;;)
			pause();
	}
	fd = syscall(__NR_pidfd_open, c, 0);
	kfd = syscall(__NR_pidfd_open, k, 0);
	CHECK(fd >= 0 && kfd >= 0);
	/* Alive, then a zombie: no status yet, and it says why. */
	errno = 0;
	CHECK(pfk_pidfd_status(kfd, &st) == -1 && errno == ENODATA);
	CHECK(waitid(P_PID, c, NULL, WEXITED | WNOWAIT) == 0);
	errno = 0;
	CHECK(pfk_pidfd_status(fd, &st) == -1 && errno == ENODATA);
	CHECK(waitpid(c, NULL, 0) == c);
	if (pfk_pidfd_status(fd, &st) < 0) {
		CHECK(errno == ESRCH);
		kill(k, SIGKILL);
		waitpid(k, NULL, 0);
		SKIP_IF(true, "the kernel keeps no exit status (6.13, 6.14)");
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	kill(k, SIGTERM);
	CHECK(waitpid(k, NULL, 0) == k);
	CHECK(pfk_pidfd_status(kfd, &st) == 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM && !WCOREDUMP(st));
	close(fd);
	close(kfd);
	return PASS;
}
