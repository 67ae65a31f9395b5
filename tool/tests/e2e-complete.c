// SPDX-License-Identifier: GPL-2.0
/*
 * Complete or fail (issue 34): every match found in batches, under small
 * fd limits and with fds inherited, or exit 3 and a line that says how
 * many were not examined.
 */
#include "pfkill-tests.h"

int t_e2e_batches(void)
{
	struct helper_opts mortal = { .mortal = true, .ruid = -1, .euid = -1,
				      .rgid = -1 };
	enum { N = 40 };
	char name[16];
	struct run r;
	pid_t h[N];

	/* 48 fds leave pfkill batches of 16 handles (8 with --wait). */
	unique_name(name, "ba");
	for (int i = 0; i < N; i++)
		CHECK((h[i] = spawn_simple(name)) > 0);
	CHECK(pfkill_nofile(&r, 48, "-c", "-USR1", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, "40\n") == 0);
	for (int i = 0; i < N; i++)
		CHECK(pending(h[i], SIGUSR1));
	for (int i = 0; i < N; i++)
		reap(h[i]);

	unique_name(name, "bw");
	for (int i = 0; i < N; i++)
		CHECK((h[i] = spawn(name, &mortal)) > 0);
	CHECK(pfkill_nofile(&r, 48, "-c", "--wait", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, "40\n") == 0);
	for (int i = 0; i < N; i++)
		CHECK(waitpid(h[i], NULL, WNOHANG) == h[i]);
	return PASS;
}

/*
 * Thousands of matches: more than a batch of handles can hold at the
 * limits below, so a scan that runs out of fds midway shows.  Under TCG
 * (the guest plan sets PFKILL_TEST_TIMEOUT) fewer, still more than the
 * 500 free fds of t_e2e_complete_inherited().
 */
static int crowd_size(void)
{
	const char *limit = getenv("PFKILL_TEST_TIMEOUT");

	return limit && atoi(limit) >= 300 ? 600 : 2000;
}

/*
 * n helpers named name, our children: forked, not exec'd (thousands of
 * execs take minutes under TCG), every signal blocked, each waiting until
 * it is killed or we exit.  Their pids in pids[]; how many started.
 */
static int spawn_crowd(const char *name, pid_t *pids, int n)
{
	int p[2], started;
	char c;

	if (pipe(p) < 0)
		return 0;
	fflush(stdout);
	for (started = 0; started < n; started++) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			sigset_t all;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			sigfillset(&all);
			sigprocmask(SIG_BLOCK, &all, NULL);
			prctl(PR_SET_NAME, name);
			close(p[0]);
			if (write(p[1], "x", 1) != 1)
				_exit(92);
			close(p[1]);
			for (;;)
				pause();
		}
		pids[started] = pid;
	}
	close(p[1]);
	for (int i = 0; i < started; i++)
		if (read(p[0], &c, 1) != 1)
			break;
	close(p[0]);
	return started;
}

static void reap_crowd(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

/* argv0 ("pfgrep", "pfkill", "pfwait") with an fd limit, as pfkill_nofile(). */
static int run_as(struct run *r, long nofile, const char *argv0, ...)
{
	va_list ap;
	int s;

	va_start(ap, argv0);
	s = vrun(r, nofile, argv0, ap);
	va_end(ap);
	return s;
}

/* procps's pgrep -c -x name -P ppid under the same limit; -1 without it. */
static int procps_count(const char *name, const char *ppid, long nofile)
{
	char *argv[] = { "pgrep", "-c", "-x", (char *)name, "-P", (char *)ppid,
			 NULL };
	struct run rp;

	if (access("/usr/bin/pgrep", X_OK) != 0)
		return -1;
	run_prog(&rp, "/usr/bin/pgrep", nofile, argv);
	return rp.status == 0 ? atoi(rp.out) : -1;
}

static int count_of(const char *s, const char *word)
{
	int n = 0;

	for (; (s = strstr(s, word)) != NULL; s += strlen(word))
		n++;
	return n;
}

/* A count (or listing) short of want is the bug: say by how much. */
#define CHECK_ALL(what, got, want, nofile) do {				\
	if ((got) != (want))						\
		diag("%s at fd limit %ld: %d of %d (as procps), exit %d", \
		     what, (long)(nofile), (int)(got), (int)(want),	\
		     last_run.status);			\
	CHECK((got) == (want));						\
} while (0)

/*
 * Every mode over the crowd of want helpers (children of ours named
 * name) at the fd limit nofile: the count or listing holds every one,
 * with the usual exit status and nothing on stderr.  pfwait is asked
 * not to wait (--timeout 0): its count comes before, exit 1 (alive).
 */
static int crowd_modes(const char *name, long nofile, int want)
{
	char ppid[16];
	struct run r;

	itoa_buf(ppid, getpid());
	run_as(&r, nofile, "pfgrep", "-c", "-x", name, "-P", ppid, NULL);
	CHECK_ALL("pfgrep -c", atoi(r.out), want, nofile);
	CHECK(r.status == 0 && !r.err[0]);
	run_as(&r, nofile, "pfgrep", "-x", name, "-P", ppid, NULL);
	CHECK_ALL("pfgrep", lines(r.out), want, nofile);
	CHECK(r.status == 0 && !r.err[0]);
	run_as(&r, nofile, "pfkill", "-0", "-c", "-x", name, "-P", ppid, NULL);
	CHECK_ALL("pfkill -0 -c", atoi(r.out), want, nofile);
	CHECK(r.status == 0 && !r.err[0]);
	run_as(&r, nofile, "pfwait", "-c", "--timeout", "0", "-x", name, "-P",
	       ppid, NULL);
	CHECK_ALL("pfwait -c", atoi(r.out), want, nofile);
	CHECK(r.status == 1 && !r.err[0]);
	/* Each one waited for and seen alive, none taken for gone. */
	run_as(&r, nofile, "pfwait", "--json", "--timeout", "0", "-x", name,
	       "-P", ppid, NULL);
	CHECK_ALL("pfwait --json, alive", count_of(r.out, "\"result\":\"alive\""),
		  want, nofile);
	CHECK(r.status == 1 && !r.err[0]);
	return PASS;
}

/*
 * Run by a process that holds hundreds of fds (a daemon, a shell with
 * redirections), which the tool inherits: 500 of a limit of 1024 in use.
 * Every match is listed, counted, signaled and waited for, as procps
 * finds them under the same limit.
 */
int t_e2e_complete_inherited(void)
{
	int n = crowd_size(), started, want, fds[500];
	struct rlimit rl;
	char name[16], ppid[16];
	struct run r;
	pid_t *pids = calloc(n, sizeof(*pids));
	int ret;

	CHECK(pids);
	SKIP_IF(getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < 1024,
		"a hard fd limit under 1024");
	rl.rlim_cur = rl.rlim_max;
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	unique_name(name, "ci");
	itoa_buf(ppid, getpid());
	started = spawn_crowd(name, pids, n);
	if (started < n)
		reap_crowd(pids, started);
	SKIP_IF(started < n, "could start only %d of %d processes", started, n);

	/* Not close-on-exec: every program we run has them too. */
	for (int i = 0; i < 500; i++)
		CHECK((fds[i] = open("/dev/null", O_RDONLY)) >= 0);
	want = procps_count(name, ppid, 1024);
	CHECK(want == -1 || want == n);
	want = n;
	ret = crowd_modes(name, 1024, want);
	if (ret != PASS)
		return ret;
	/* A blocked signal stays pending: each one got it, once. */
	run_as(&r, 1024, "pfkill", "-USR1", "-c", "-x", name, "-P", ppid, NULL);
	CHECK_ALL("pfkill -USR1 -c", atoi(r.out), want, 1024);
	CHECK(r.status == 0 && !r.err[0]);
	for (int i = 0; i < n; i++)
		CHECK(pending(pids[i], SIGUSR1));
	for (int i = 0; i < 500; i++)
		close(fds[i]);
	reap_crowd(pids, n);
	free(pids);
	return PASS;
}

/*
 * Small fd limits: 16, 64 and 256, soft and hard, and a soft 16 under a
 * hard 4096, which the tool may raise.  Every mode finds every match.
 * With 6 fds (5 for a listing) nothing can be examined: exit 3, one
 * line saying how many were not, and nothing signaled.
 */
int t_e2e_complete_low_limits(void)
{
	static const long limits[] = { 16, 64, 256 };
	int n = crowd_size(), started;
	char name[16], ppid[16];
	struct run r;
	pid_t *pids = calloc(n, sizeof(*pids));
	int ret;

	CHECK(pids);
	unique_name(name, "cl");
	itoa_buf(ppid, getpid());
	started = spawn_crowd(name, pids, n);
	if (started < n)
		reap_crowd(pids, started);
	SKIP_IF(started < n, "could start only %d of %d processes", started, n);

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		int want = procps_count(name, ppid, limits[i]);

		CHECK(want == -1 || want == n);
		ret = crowd_modes(name, limits[i], n);
		if (ret != PASS)
			return ret;
	}
	run_hard_nofile = 4096;
	ret = crowd_modes(name, 16, n);
	run_hard_nofile = 0;
	if (ret != PASS)
		return ret;

	/*
	 * A listing by path needs one fd per candidate (its stat): at 6
	 * it is complete or, where the caller left more fds open, fails
	 * as below.  At 5 the scan may not even open /proc (a guest's PID
	 * 1 leaves a descriptor or two to its children): either way, exit
	 * 3 and one line that says why.
	 */
	run_as(&r, 6, "pfgrep", "-c", "-x", name, "-P", ppid, NULL);
	CHECK((r.status == 0 && atoi(r.out) == n && !r.err[0]) ||
	      (r.status == 3 && lines(r.err) == 1));
	run_as(&r, 5, "pfgrep", "-c", "-x", name, "-P", ppid, NULL);
	CHECK(r.status == 3);
	CHECK(lines(r.err) == 1 && (strstr(r.err, "not examined") ||
				    strstr(r.err, "Too many open files")));
	run_as(&r, 6, "pfkill", "-USR1", "-x", name, "-P", ppid, NULL);
	CHECK(r.status == 3 && lines(r.err) == 1);
	for (int i = 0; i < n; i++)
		CHECK(nothing_pending(pids[i]));
	reap_crowd(pids, n);
	free(pids);
	return PASS;
}
