// SPDX-License-Identifier: GPL-2.0
/*
 * Differential tests against procps 4.0.7: pgrep, pkill (and pidwait)
 * against pfgrep, pfkill (and pfwait) on the zoo, row by row; the
 * declared deviations; procps's names as aliases of ours.
 */
#include "pfkill-tests.h"
#include "differential.h"

/* Needs: what a row needs from the zoo, else it is skipped. */
enum { NEED_ROOT = 1, NEED_TTY = 2, NEED_CG = 4 };

struct row {
	int needs;
	const char *args[10];
};

/*
 * How a row runs both programs: the argv[0] procps is given (run_procps(),
 * the reference), and the file executed and its argv[0] for ours.
 * argv[0] decides the mode of both.
 */
struct pair {
	const char *procps_argv0;
	const char *ours, *ours_argv0;
};

/* Run one row through procps and through ours. */
static void run_both(const struct row *row, const struct pair *pr,
		     struct run *rp, struct run *rf)
{
	char *argv[16];
	int n = 0;

	argv[n++] = (char *)pr->procps_argv0;
	for (int k = 0; k < 10 && row->args[k]; k++)
		argv[n++] = (char *)zoo_arg(row->args[k]);
	argv[n] = NULL;
	run_procps(rp, 0, argv);
	argv[0] = (char *)pr->ours_argv0;
	run_prog(rf, pr->ours, 0, argv);
}

static bool row_skipped(const struct row *row)
{
	return ((row->needs & NEED_ROOT) && !zoo.root) ||
	       ((row->needs & NEED_TTY) && !zoo.tty[0]) ||
	       ((row->needs & NEED_CG) && !zoo.cg);
}

/*
 * stderr's first line, with procps's program name put in ours ("pgrep:"
 * against "pfgrep:"); the same name when ours runs under procps's.
 */
static bool same_first_line(const char *procps, const char *ours,
			    const struct pair *pr)
{
	const char *name = strrchr(pr->procps_argv0, '/');
	size_t nl;

	name = name ? name + 1 : pr->procps_argv0;
	nl = strlen(name);
	if (strstr(pr->ours_argv0, name))
		nl = 0;		/* no "pf" to put in */
	const char *pe = strchr(procps, '\n'), *oe = strchr(ours, '\n');
	size_t pl = pe ? (size_t)(pe - procps) : strlen(procps);
	size_t ol = oe ? (size_t)(oe - ours) : strlen(ours);

	if (nl && pl >= nl && strncmp(procps, name, nl) == 0) {
		/* "pgrep: ..." against "pfgrep: ..." */
		return ol == pl + 1 && strncmp(ours, "pf", 2) == 0 &&
		       strncmp(ours + 2, procps + 1, pl - 1) == 0;
	}
	return pl == ol && strncmp(procps, ours, pl) == 0;
}

/* LC_ALL of the pass in progress (procps escapes by the locale's codeset). */
static const char *diff_locale = "";

static int compare_rows(const struct row *rows, size_t nrows,
			const struct pair *pr, bool bad, int *compared)
{
	int failed = 0;

	for (size_t i = 0; i < nrows; i++) {
		static struct run rp, rf;

		if (row_skipped(&rows[i]))
			continue;
		run_both(&rows[i], pr, &rp, &rf);
		if (!zoo_bounded(rp.out) || !zoo_bounded(rf.out)) {
			diag("LC_ALL=%s %s row %zu (%s %s %s): left the zoo: "
			     "procps [%.200s] ours [%.200s]", diff_locale,
			     pr->ours_argv0, i, rows[i].args[0],
			     rows[i].args[1] ? rows[i].args[1] : "",
			     rows[i].args[1] && rows[i].args[2] ?
			     rows[i].args[2] : "", rp.out, rf.out);
			failed++;
			continue;
		}
		if (rp.status != rf.status || strcmp(rp.out, rf.out) != 0 ||
		    (bad && !same_first_line(rp.err, rf.err, pr))) {
			diag("LC_ALL=%s %s row %zu (%s %s %s %s): procps %d "
			     "[%.300s] [%.120s] ours %d [%.300s] [%.120s]",
			     diff_locale, pr->ours_argv0, i,
			     rows[i].args[0], rows[i].args[1] ? rows[i].args[1] : "",
			     rows[i].args[1] && rows[i].args[2] ? rows[i].args[2] : "",
			     rows[i].args[1] && rows[i].args[2] && rows[i].args[3] ?
			     rows[i].args[3] : "", rp.status, rp.out, rp.err,
			     rf.status, rf.out, rf.err);
			failed++;
		}
		*compared += rp.status == 0;
	}
	return failed;
}

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

/* pgrep beside pfgrep, pkill beside pfkill. */
static struct pair as_pgrep = { "pgrep", NULL, "pfgrep" };
static struct pair as_pkill = { "pkill", NULL, "pfkill" };

/*
 * Run the rest of the test, and the programs it starts, under LC_ALL=loc.
 * True when that is a UTF-8 locale here (it needs locale files: a busybox
 * guest has none, and everything falls back to C, procps included).
 */
static bool use_locale(const char *loc)
{
	const char *cs;
	bool utf8;

	diff_locale = loc;
	setenv("LC_ALL", loc, 1);
	unsetenv("LANGUAGE");
	if (!setlocale(LC_CTYPE, ""))
		setlocale(LC_CTYPE, "C");
	cs = nl_langinfo(CODESET);
	utf8 = cs && strcasecmp(cs, "UTF-8") == 0;
	setlocale(LC_CTYPE, "C");
	return utf8;
}

static int differential_pass(const struct row *list, size_t nlist,
			     const struct row *kill, size_t nkill,
			     const struct row *bad, size_t nbad,
			     const struct row *badkill, size_t nbadkill,
			     int *compared)
{
	return compare_rows(list, nlist, &as_pgrep, false, compared) +
	       compare_rows(kill, nkill, &as_pkill, false, compared) +
	       compare_rows(bad, nbad, &as_pgrep, true, compared) +
	       compare_rows(badkill, nbadkill, &as_pkill, true, compared);
}

/* A copy of file src as dst; O_EXCL: never through a link to elsewhere. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

/*
 * Drop-in names (issue 20): procps run under a name beside ours run
 * through a symlink, or a renamed copy, of that very name.  Only the
 * name pkill may signal; pgrep and a copy under any other name (even
 * "xkill") list, pidwait waits (on the zoo's zombie: at once).
 */
static int alias_pass(const char *dir, int *compared)
{
	static const struct row list_rows[] = {
		{ 0, { "-P", "%me", "%A" } },
		{ 0, { "-P", "%me", "-l", "pk" } },
		{ 0, { "-P", "%me", "-c", "-x", "%B" } },
	};
	static const struct row kill_rows[] = {
		{ 0, { "-0", "-e", "-P", "%me", "%A" } },
		{ 0, { "-URG", "-c", "-P", "%me", "-x", "%B" } },
	};
	static const struct row wait_rows[] = {
		{ 0, { "-e", "-c", "-P", "%me", "-x", "%Z" } },
		{ 0, { "-P", "%me", "-x", "%Z" } },
		{ 0, { "-c", "-P", "%me", "-x", "nomatch" } },
	};
	static const struct row wait_bad_rows[] = {
		{ 0, { "-l", "-P", "%me", "-x", "%Z" } },
		{ 0, { "-P", "%me", "-d", ",", "%Z" } },
	};
	static char path[4][PATH_MAX];
	static const char *const names[4] = { "pgrep", "pkill", "pidwait",
					      "xkill" };
	struct pair pr[4] = {
		{ "pgrep", path[0], path[0] },
		{ "pkill", path[1], path[1] },
		{ "pidwait", path[2], path[2] },
		{ "xkill", path[3], path[3] },
	};
	int failed = 0;

	for (int i = 0; i < 4; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]);
	failed += compare_rows(list_rows, NROWS(list_rows), &pr[0], false,
			       compared);
	failed += compare_rows(kill_rows, NROWS(kill_rows), &pr[1], false,
			       compared);
	failed += compare_rows(list_rows, NROWS(list_rows), &pr[3], false,
			       compared);
	failed += compare_rows(wait_rows, NROWS(wait_rows), &pr[2], false,
			       compared) +
		  compare_rows(wait_bad_rows, NROWS(wait_bad_rows), &pr[2],
			       true, compared);
	return failed;
}

static int alias_setup(char *dir)
{
	static const char *const links[] = { "pgrep", "pkill", "pidwait" };
	char path[PATH_MAX];

	if (!mkdtemp(dir))
		return -1;
	for (size_t i = 0; i < NROWS(links); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, links[i]);
		if (symlink(pfkill_path, path) < 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/xkill", dir);
	return copy_file(pfkill_path, path);
}

static void alias_cleanup(const char *dir)
{
	static const char *const names[] = { "pgrep", "pkill", "pidwait",
					     "xkill" };
	char path[PATH_MAX];

	for (size_t i = 0; i < NROWS(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/*
 * The rows: pgrep against pfgrep, pkill against pfkill (signal 0 or
 * signals the helpers block), on the zoo.
 */
static const struct row list_rows[] = {
	{ 0, { "-P", "%me", "%A" } },
	{ 0, { "-P", "%me", "-x", "%A" } },
	{ 0, { "-P", "%me", "-l", "pk" } },
	{ 0, { "-P", "%me", "-a", "pk" } },
	{ 0, { "-P", "%me", "--list-full", "-d", "|", "pk" } },
	{ 0, { "-P", "%me", "-c", "%A" } },
	{ 0, { "-P", "%me", "-c", "nomatch" } },
	{ 0, { "-P", "%me", "-d", ":", "pk" } },
	{ 0, { "-P", "%me", "-d", "", "-l", "%B" } },
	{ 0, { "-P", "%me", "-f", "%A" } },
	{ 0, { "-P", "%me", "-f", "-a", "helper %B" } },
	{ 0, { "-P", "%me", "-f", "-c", "yyyyyyyyyy" } },
	{ 0, { "-P", "%me", "-f", "-l", "a b it.s$" } },
	{ 0, { "-P", "%me", "-f", "-x", "pfkill-tests --helper %A .*" } },
	{ 0, { "-P", "%me", "-f", "-a", "defunct" } },
	{ 0, { "-P", "%me", "-f", "-a", "^\\[" } },
	{ 0, { "-P", "%me", "-l", "\\?" } },
	/* a UTF-8 lead byte before a control (4.0.2 skipped it unseen) */
	{ 0, { "-P", "%me", "-a", "%E" } },
	/* 4.0.7: --quiet lists nothing, but counts */
	{ 0, { "-P", "%me", "--quiet", "pk" } },
	{ 0, { "-P", "%me", "--quiet", "-c", "pk" } },
	{ 0, { "-P", "%me", "-a", "-Q", "pk" } },
	{ 0, { "-P", "%me", "-H", "--signal", "0" } },
	{ 0, { "-P", "%me", "-i", "%AU" } },
	{ 0, { "-P", "%me", "-x", "-i", "-l", "%AU" } },
	/* -v negates -P too: it would match the host, see negate_* */
	{ 0, { "-P", "%me", "-n", "pk" } },
	{ 0, { "-P", "%me", "-o", "-l", "pk" } },
	{ 0, { "-P", "%me", "-n" } },
	{ 0, { "-P", "%me", "-o", "-a" } },
	{ 0, { "-P", "%me", "-u", "0", "-l", "pk" } },
	{ NEED_ROOT, { "-P", "%me", "-u", "1000" } },
	{ NEED_ROOT, { "-P", "%me", "-U", "1000", "-l" } },
	{ NEED_ROOT, { "-P", "%me", "-U", "root,1000", "-c" } },
	{ NEED_ROOT, { "-P", "%me", "-G", "1000" } },
	{ 0, { "-P", "%me", "-G", "0", "-c" } },
	{ 0, { "-P", "%me", "-u", "-1" } },
	{ 0, { "-g", "%pgid" } },
	{ 0, { "--pgroup", "%pgid", "-l" } },
	{ 0, { "-s", "%sid", "-a" } },
	{ 0, { "--session", "%sid", "-c" } },
	{ 0, { "-P", "%tree", "-l" } },
	{ 0, { "-P", "%me,tree", "-l", "pk" } },
	{ 0, { "-P", "+%me", "-c" } },
	{ 0, { "-P", "%me", "-r", "Z", "-a" } },
	{ 0, { "-P", "%me", "-r", "S", "-c" } },
	{ 0, { "-P", "%me", "--runstates", "S,Z", "-l" } },
	{ 0, { "-P", "%me", "-w", "-l" } },
	{ 0, { "-P", "%me", "-w", "-l", "%T1" } },
	{ 0, { "-P", "%me", "--lightweight", "-a", "%T" } },
	{ NEED_TTY, { "-t", "%tty", "-l" } },
	{ NEED_TTY, { "-P", "%me", "--terminal", "%tty,nosuchtty" } },
	{ 0, { "-P", "%me", "-t", "?", "-c" } },
	{ 0, { "-P", "%me", "-t", "nosuchtty" } },
	{ NEED_TTY, { "-t", "stdin", "-l" } },
	{ NEED_TTY, { "-t", "fd/0", "-l" } },
	{ 0, { "-F", "%pf", "-l" } },
	{ 0, { "-F", "%pf", "%A" } },
	{ 0, { "-F", "%pf", "%B" } },
	{ 0, { "--pidfile", "%lpf", "-L", "-l" } },
	{ 0, { "-P", "%me", "-O", "0", "-c" } },
	{ 0, { "-P", "%me", "--older", "100000" } },
	{ 0, { "-P", "%me", "--ns", "%me", "-c" } },
	{ 0, { "-P", "%me", "--ns", "99999999", "-c" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%ns", "-l" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%ns", "--nslist", "uts", "-c" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%me", "--nslist", "net" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%me", "-l", "%N" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%me", "--nslist", "cgroup", "-l", "%N" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%me", "--nslist", "time", "-c", "%N" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%me", "--nslist", "user", "-l", "%N" } },
	{ NEED_ROOT, { "-P", "%me", "--ns", "%me", "--nslist", "uts", "-l", "%N" } },
	{ NEED_CG, { "-P", "%me", "--cgroup", "%cg", "-l" } },
	{ 0, { "-P", "%me", "-A", "-l", "pk" } },
	{ 0, { "-P", "%up", "-x", "%SELF" } },
	{ 0, { "-P", "%up", "-A", "-x", "%SELF" } },
	/* -A first, then -o: we (the oldest) are out, h[0] is next */
	{ 0, { "-A", "-o", "-l", "-P", "%up,me", "pk" } },
	{ 0, { "-P", "%me", "-x", "pkverylongname1234" } },
	{ 0, { "-P", "%me", "--signal", "9", "%A" } },
	/* "--in" would be --inverse, which negates -P: see negate_* */
	{ 0, { "-P", "%me", "--ig", "-c", "%AU" } },
	{ 0, { "-P", "%me", "--t", "?", "-c" } },
	{ 0, { "-P", "%me", "--pg", "%pgid" } },
};

static const struct row kill_rows[] = {
	{ 0, { "-0", "-e", "-P", "%me", "%A" } },
	{ 0, { "-0", "-c", "-P", "%me", "pk" } },
	{ 0, { "-URG", "-e", "-P", "%me", "-x", "%B" } },
	{ 0, { "-urg", "-e", "-c", "-P", "%me", "-n", "pk" } },
	{ 0, { "-sigurg", "-e", "-s", "%sid", "pk" } },
	{ 0, { "-io", "-e", "-P", "%me", "-x", "%A" } },
	{ 0, { "--signal", "0", "-e", "-F", "%pf", "%A" } },
	{ 0, { "-e", "-0", "-g", "%pgid", "pk" } },
	{ 0, { "-0", "-e", "-c", "--pgroup", "%pgid", "." } },
	{ 0, { "-0", "-e", "--lightweight", "-P", "%me", "%T" } },
	{ 0, { "-0", "-e", "-P", "%me", "-r", "Z", "pk" } },
	{ 0, { "-0", "-e", "-P", "%me", "-q", "5", "%A" } },
	{ 0, { "-0", "-e", "-P", "%me", "--list-full", "%B" } },
	{ 0, { "-0", "-P", "%me", "-x", "nomatch" } },
	{ NEED_ROOT, { "-0", "-e", "--ns", "%me", "-P", "%me", "%N" } },
	{ 0, { "-0", "-e", "-A", "-o", "-P", "%up,me", "pk" } },
	/* 4.0.7: --quiet is taken, -e and -c still print */
	{ 0, { "-0", "--quiet", "-e", "-c", "-P", "%me", "%A" } },
	{ 0, { "-0", "-H", "-P", "%me", "pk" } },
};

/* Bad input: for these the first line of stderr is compared too. */
static const struct row bad_rows[] = {
	{ 0, { "-P", "%me", "-u", "nosuchuserpfk" } },
	{ 0, { "-P", "%me", "-G", "nosuchgrouppfk" } },
	{ 0, { "-P", "%me", "-g", "x" } },
	{ 0, { "-P", "%me", "-s", "1x" } },
	{ 0, { "-P", "%me", "-P", "1.5" } },
	{ 0, { "-P", "%me", "a[" } },
	{ 0, { "-P", "%me", "--bogus" } },
	{ 0, { "-P", "%me", "-Z" } },
	{ 0, { "-P" } },
	{ 0, { "-P", "%me", "a", "b" } },
	{ 0, { "-c" } },
	{ 0, { "-P", "" } },
	{ 0, { "-P", "%me", "-n", "-o" } },
	{ 0, { "-P", "%me", "-v", "-n" } },
	{ 0, { "-P", "%me", "-L" } },
	{ 0, { "-F", "/nonexistent/pfk.pid" } },
	{ 0, { "-F", "%badpf" } },
	{ 0, { "-P", "%me", "-e" } },
	{ 0, { "-P", "%me", "--quiet", "-a", "pk" } },
	{ 0, { "-P", "%me", "--quiet", "-l", "pk" } },
	/* procps 4.0.2 warns for these long patterns too */
	{ 0, { "-P", "%me", "-x", "pkverylongname12|x" } },
	{ 0, { "-P", "%me", "[p]kverylongname12" } },
};

static const struct row bad_kill_rows[] = {
	{ 0, { "-0", "-P", "%me", "-l", "pk" } },
	{ 0, { "-0", "-P", "%me", "-a", "pk" } },
	{ 0, { "-0", "-P", "%me", "-d", ",", "pk" } },
	{ 0, { "-0", "-P", "%me", "-v", "pk" } },
	{ 0, { "-0", "-P", "%me", "-w", "pk" } },
	{ 0, { "-0", "-P", "%me", "-NOPE", "pk" } },
	{ 0, { "-kill", "-0", "-P", "%me", "pk" } },
};

/*
 * The declared deviations, each with its reason; the test checks
 * that procps still behaves otherwise and what we do instead.
 */
static const struct {
	bool kill;
	struct row row;
	int status;		/* ours */
	const char *why;
	bool utf8;		/* only there; elsewhere compared */
} deviations[] = {
	{ false, { 0, { "-P", "%me", "-u", "0,", "pk" } }, 2,
	  "an empty list element: procps reads it as 0 (root, our own "
	  "group or session), so a stray comma widens the match", false },
	{ true, { 0, { "-0", "-P", "%up", "-x", "%SELF" } }, 1,
	  "pfkill never signals its ancestors unless asked "
	  "(--include-ancestors); it says so on stderr", false },
	{ false, { NEED_ROOT, { "-P", "%me", "--ns", "%me", "--nslist",
			     "net,pid", "-c" } }, 0,
	  "--nslist a,b: procps 4.0.2 checks only the last namespace "
	  "(bug); we check all that are listed", false },
	{ false, { 0, { "-P", "%me", "-i", "-i", "-c", "pk" } }, 0,
	  "-i twice: procps prints its help and exits 0 (bug)", false },
	{ false, { 0, { "-P", "%me", "--ns", "0" } }, 2,
	  "--ns 0 or junk: procps matches nothing (atoi, bug); exit 2",
	  false },
	{ false, { 0, { "-P", "%me", "-O", "abc", "-c" } }, 2,
	  "-O junk: procps's atoi() makes it 0; exit 2", false },
	{ true, { 0, { "-0", "-P", "%me", "-q", "abc", "%A" } }, 2,
	  "-q junk: procps's atoi() sends 0; exit 2", false },
	{ true, { 0, { "-0", "-e", "-g", "%pgid" } }, 0,
	  "pkill -e without a pattern prints an empty name (bug)",
	  false },
	{ false, { NEED_TTY, { "-t", "%tty", "-r", "Z", "-c" } }, 1,
	  "-t with -r or --cgroup: procps 4.0.2 ignores those two "
	  "when -t is given (fixed in 4.0.3); all criteria apply here",
	  false },
	{ false, { 0, { "-P", "%me", "--nslist", "bogus" } }, 2,
	  "--nslist with an unknown name: procps exits 2 silently",
	  false },
	{ true, { 0, { "-99", "-P", "%me", "pk" } }, 2,
	  "-99 (or any number past the last signal): procps 4.0.7 tries "
	  "to send it to each match (EINVAL, exit 1); exit 2 before "
	  "matching", false },
	{ false, { 0, { "-F", "%pf", "-L" } }, 1,
	  "-L of a pid file not locked: procps 4.0.7 adds a stale errno "
	  "to its message ('Success', 'No such file ...'); we say 'not "
	  "locked'", false },
	{ true, { 0, { "-P", "%me", "--signal", "NOPE", "%A" } }, 2,
	  "unknown --signal name or number: procps tries to send it "
	  "(EINVAL, exit 1); exit 2 before matching", false },
};

/* The guest has no locales at all: both passes are C there. */
static const char *const locales[] = { "C", "C.UTF-8" };

/*
 * Run pass once per locale on a zoo of its own, then check that the zoo
 * is as it was (its helpers block signals: nothing may have killed them,
 * and no row sends TERM, pfkill's default, so none may be pending) and
 * that at least min_compared rows matched something in both.
 */
static int on_zoo(int (*pass)(bool utf8, int *compared), int min_compared)
{
	int failed = 0, compared = 0;

	const char *v = procps_version();

	SKIP_IF(!v || strcmp(v, PROCPS_REFERENCE) != 0,
		"procps %s is the reference, here %s (PFKILL_PROCPS: the root "
		"of Debian forky's procps, as scripts/deps.sh unpacks it)",
		PROCPS_REFERENCE, v ? v : "none");
	as_pgrep.ours = as_pkill.ours = pfkill_path;
	CHECK(zoo_start() == 0);
	if (!zoo.root)
		diag("not root: rows with other uids and namespaces skipped");
	if (!zoo.tty[0])
		diag("no pseudo terminal: -t rows skipped");
	if (!zoo.cg)
		diag("cannot make a cgroup v2 group: --cgroup rows skipped");

	for (size_t l = 0; l < NROWS(locales); l++) {
		bool utf8 = use_locale(locales[l]);

		if (!utf8 && strstr(locales[l], "UTF-8"))
			diag("no %s locale here: that pass runs as C",
			     locales[l]);
		failed += pass(utf8, &compared);
	}
	unsetenv("LC_ALL");
	for (int i = 0; i < zoo.nh; i++) {
		if (waitpid(zoo.h[i], NULL, WNOHANG) != 0 ||
		    pending(zoo.h[i], SIGTERM)) {
			diag("zoo helper %d was signaled or died", zoo.h[i]);
			failed++;
		}
	}
	diag("%d rows matched something in both", compared);
	zoo_stop();
	CHECK(compared >= min_compared);
	return failed ? FAIL : PASS;
}

/* Exit status and stdout byte for byte; for bad input, stderr's first line. */
static int rows_pass(bool utf8, int *compared)
{
	(void)utf8;
	return differential_pass(list_rows, NROWS(list_rows),
				 kill_rows, NROWS(kill_rows),
				 bad_rows, NROWS(bad_rows),
				 bad_kill_rows, NROWS(bad_kill_rows), compared);
}

int t_differential(void)
{
	return on_zoo(rows_pass, 100);
}

/*
 * Each declared deviation: procps still behaves otherwise, and we exit
 * as the table says; one that is a deviation only in a UTF-8 locale must
 * match procps in the others.
 */
static int deviations_pass(bool utf8, int *compared)
{
	struct run rp, rf;
	int failed = 0;

	for (size_t i = 0; i < NROWS(deviations); i++) {
		const struct pair *pr = deviations[i].kill ? &as_pkill :
							     &as_pgrep;

		if (row_skipped(&deviations[i].row))
			continue;
		if (deviations[i].utf8 && !utf8) {
			/* No deviation here: must match procps. */
			failed += compare_rows(&deviations[i].row, 1,
					       pr, false, compared);
			continue;
		}
		run_both(&deviations[i].row, pr, &rp, &rf);
		if (!zoo_bounded(rp.out) || !zoo_bounded(rf.out) ||
		    rf.status != deviations[i].status ||
		    (rp.status == rf.status && !strcmp(rp.out, rf.out) &&
		     !strcmp(rp.err, rf.err + 1))) {
			diag("LC_ALL=%s deviation %zu (%s): procps %d "
			     "[%.200s] ours %d [%.200s] [%.200s]",
			     diff_locale, i, deviations[i].why,
			     rp.status, rp.out, rf.status, rf.out,
			     rf.err);
			failed++;
		}
	}
	return failed;
}

int t_differential_deviations(void)
{
	return on_zoo(deviations_pass, 0);
}

static char alias_dir[] = "/tmp/pfk-alias.XXXXXX";

static int aliases_pass(bool utf8, int *compared)
{
	(void)utf8;
	return alias_pass(alias_dir, compared);
}

/* procps's names (pgrep, pkill, pidwait, xkill) for ours: alias_pass(). */
int t_differential_aliases(void)
{
	int ret;

	CHECK(alias_setup(alias_dir) == 0);
	ret = on_zoo(aliases_pass, 0);
	alias_cleanup(alias_dir);
	return ret;
}
