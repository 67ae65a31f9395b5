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

	if (!procps_version())
		return -1;
	run_procps(&rp, nofile, argv);
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

/*
 * A supervisor in our PID namespace box: n children named name, each
 * dying of the first TERM, and a replacement forked for each child that
 * dies, up to respawns of them (a storm, bounded so that a tool that
 * chases the replacements still ends).  Its pid, once every first child
 * has its name.  *forks (shared) counts the children it has forked.
 */
static pid_t spawn_supervisor(const char *name, int n, int respawns,
			      volatile int *forks)
{
	int ready[2], named[2];
	pid_t sup;
	char c;

	if (pipe(ready) < 0 || pipe(named) < 0)
		return -1;
	fflush(stdout);
	sup = fork();
	if (sup != 0) {
		close(ready[1]);
		close(named[0]);
		close(named[1]);
		if (sup < 0 || read(ready[0], &c, 1) != 1)
			sup = -1;
		close(ready[0]);
		return sup;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "pksupervisor");
	close(ready[0]);
	for (int i = 0; i < n + respawns; i++) {
		pid_t child;

		/* The first n at once; then one for each that died. */
		if (i >= n && wait(NULL) < 0)
			break;
		child = fork();
		if (child < 0)
			_exit(96);
		if (child > 0)
			__atomic_add_fetch(forks, 1, __ATOMIC_SEQ_CST);
		if (child == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_NAME, name);
			if (i < n && write(named[1], "x", 1) != 1)
				_exit(92);
			close(named[0]);
			close(named[1]);
			for (;;)
				pause();
		}
		if (i == n - 1) {
			for (int k = 0; k < n; k++)
				if (read(named[0], &c, 1) != 1)
					_exit(97);
			if (write(ready[1], "x", 1) != 1)
				_exit(92);
		}
	}
	for (;;)
		pause();
}

/*
 * pfkill -c and opt (-e, --wait, or -TERM: the plain kill that holds
 * only each match's fd and pid) over the supervisor sup's children at a
 * hard limit of 256: each of the n that are there counted once, and
 * with -e said killed once.
 */
static int kill_children_once(const char *name, pid_t sup, int n,
			      const char *opt)
{
	bool echo = strcmp(opt, "-e") == 0;
	char sup_s[16];
	const char *last;
	struct run r;

	itoa_buf(sup_s, sup);
	run_as(&r, 256, "pfkill", "-c", opt, "-x", name, "-P", sup_s, NULL);
	last = strrchr(r.out, '\n');
	while (last && last > r.out && last[-1] != '\n')
		last--;
	diag("pfkill -c %s at fd limit 256: %d killed, count %d, of %d",
	     opt, count_of(r.out, " killed (pid "), last ? atoi(last) : -1, n);
	CHECK(r.status == 0);
	CHECK(!echo || count_of(r.out, " killed (pid ") == n);
	CHECK(last && atoi(last) == n);
	return PASS;
}

/*
 * A supervisor's children, killed as batches (with --wait, smaller; held
 * as fds and pids only, with the plain kill).
 */
static int respawn_box(void)
{
	static const char *const rounds[] = { "-e", "--wait", "-TERM" };
	int n = crowd_size(), ret = PASS;
	volatile int *forks = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char name[16];
	pid_t sup;

	CHECK(forks != MAP_FAILED);
	unique_name(name, "rs");
	sup = spawn_supervisor(name, n, 4 * n, forks);
	CHECK(sup > 0);
	for (int k = 0; ret == PASS && k < 3; k++) {
		/*
		 * Before each round after the first the storm is over: every
		 * child killed replaced (a child born while a scan runs may
		 * be matched, as under procps) and each replacement named.
		 */
		for (int i = 0; k > 0 && i < 1000; i++) {
			char sup_s[16];
			struct run r;

			run_as(&r, 0, "pfgrep", "-c", "-x", name, "-P",
			       itoa_buf(sup_s, sup), NULL);
			if (__atomic_load_n(forks, __ATOMIC_SEQ_CST) >=
			    (k + 1) * n && atoi(r.out) == n)
				break;
			usleep(10000);
		}
		ret = kill_children_once(name, sup, n, rounds[k]);
	}
	kill(sup, SIGKILL);
	waitpid(sup, NULL, 0);
	return ret;
}

/*
 * Issue 48: with more matches than free descriptors pfkill signals batch
 * by batch while the scan goes on; what a supervisor forks in place of
 * the children just killed must not be matched, signaled or counted.
 * Only what existed when the scan began, as procps's one pass: each of
 * the n children once, -c n, and a respawn storm does not keep it going.
 */
int t_e2e_snapshot_respawn(void)
{
	return in_new_pidns(respawn_box);
}
