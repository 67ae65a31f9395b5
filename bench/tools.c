// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace: pfgrep/pfkill against procps pgrep/pkill, over 100, 1000
 * and 5000 matching processes that this program starts itself.
 *
 *   tools [-n 100,1000,5000] [-p PFKILL] [-g PGREP] [-k PKILL] [-s STRACE -o DIR]
 *         [-m MODE,...] [-r ROOT]
 *
 * Without options (the guest plan) it uses the guest's paths. Each
 * measured op is one run of the command, stdout counted through a pipe
 * so a tool that matched the wrong number of processes is caught
 * instead of timed. The matched processes carry a name unique to this
 * run and are our children, and the commands also say so (-x NAME
 * -P OURPID): they can never select anybody else's process. The kill
 * commands send SIGURG, which the children ignore, so the same
 * processes serve every round. With -s, every command also runs once
 * per size under `strace -f -c -o DIR/<tool>-<n>.txt`. With -m only
 * the CPU and RSS rows of those modes are measured (no wall-time rows):
 * a quick look at one mode while working on it. With -r, PGREP and PKILL
 * are those of procps unpacked in ROOT (issue 48's reference, Debian
 * forky's 4.0.7, which scripts/deps.sh unpacks into the cache), run
 * under ROOT's own dynamic loader and libraries, as the tool's
 * differential tests run it.
 *
 * Besides wall time per run (tools.<mode>.<n>), each mode gets two rows
 * from the kernel's own accounting of the child (wait4): tools.cpu.* is
 * user+system CPU time, tools.rss.* peak RSS, A/B per round as usual.
 * Modes: list (-x), count (-c), full (-f), listfull (-a), kill (-URG),
 * euid (-u OURUID: the owner of every process checked), threads (-w:
 * each process's task directory read, one line per thread), uid and gid
 * (-U OURUID, -G OURGID: the real ids), handler (-H: the children catch
 * SIGUSR1) and ns (--ns OURPID, the default --nslist).  procps 4.0.2
 * has no -H: its row is the same selection without it (4.0.7's too, so
 * that either reference runs it), which costs procps the same, as it
 * reads every process's status (SigCgt) anyway.
 *
 * In the guest a run at 5000 takes seconds under TCG, so the sizes can
 * come from the kernel command line, pidfd.bench_tools=100,1000 or
 * =none (scripts/bench.sh runs them in the patched boot only), or from
 * PIDFD_BENCH_TOOLS in the environment (the smoke form, scripts/smoke.sh).
 */
#include "bench.h"

#include <sys/resource.h>

struct cmd {
	const char *tool;	/* short name for files and labels */
	char *argv[12];
	long expect_lines;	/* -1: do not count */
};

/* CPU time (ns) and peak RSS (KiB) of the last run(), from wait4(). */
static double last_cpu_ns, last_rss_kib;

static const char *pgrep = "/usr/bin/pgrep", *pkill = "/usr/bin/pkill";
/* -r ROOT: the loader and library path procps runs with there. */
static char procps_ld[4096], procps_libs[8192];

static int run(struct cmd *c, const char *strace, const char *out)
{
	struct rusage ru;
	char buf[65536], *argv[24];
	long lines = 0;
	int p[2], status, i, a = 0;
	ssize_t n;
	pid_t pid;

	if (strace) {
		argv[a++] = (char *)strace;
		argv[a++] = "-f";
		argv[a++] = "-c";
		argv[a++] = "-o";
		argv[a++] = (char *)out;
	}
	if (procps_ld[0] && (c->argv[0] == pgrep || c->argv[0] == pkill)) {
		argv[a++] = procps_ld;
		argv[a++] = "--library-path";
		argv[a++] = procps_libs;
		argv[a++] = "--argv0";
		argv[a++] = c->argv[0] == pgrep ? "pgrep" : "pkill";
	}
	for (i = 0; c->argv[i]; i++)
		argv[a++] = c->argv[i];
	argv[a] = NULL;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(p[0]);
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return -1;
	last_cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
		      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	last_rss_kib = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    (c->expect_lines >= 0 && lines != c->expect_lines)) {
		fprintf(stderr, "%s: status %#x, %ld lines (want %ld)\n",
			c->tool, status, lines, c->expect_lines);
		errno = WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			ENOENT : EPROTO;
		return -1;
	}
	return 0;
}

static int op_run(void *ctx, long n)
{
	while (n--)
		if (run(ctx, NULL, NULL))
			return -1;
	return 0;
}

/*
 * CPU time and peak RSS of A against B: rounds of one run each, in
 * alternating order, the kernel's accounting of each child.  Two rows,
 * tools.cpu.<what> and tools.rss.<what>, in bench_pair()'s format (the
 * "ns" columns hold ns of CPU and KiB).  A run's CPU time is a few
 * clock ticks at most sizes, hence the median of 3 runs per side.
 */
static void usage_pair(const char *what, struct cmd *a, struct cmd *b)
{
	double cpu[2][BENCH_MAX_ROUNDS], rss[2][BENCH_MAX_ROUNDS];
	double rc[BENCH_MAX_ROUNDS], rr[BENCH_MAX_ROUNDS];
	int rounds = bench_rounds ? bench_rounds : 7, r, k, side;
	char name[2][48];

	snprintf(name[0], sizeof(name[0]), "tools.cpu.%s", what);
	snprintf(name[1], sizeof(name[1]), "tools.rss.%s", what);
	if (rounds > BENCH_MAX_ROUNDS)
		rounds = BENCH_MAX_ROUNDS;
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 2; k++) {
			struct cmd *c = (k ^ r) & 1 ? b : a;
			double v[3], m[3];

			side = c == b;
			for (int i = 0; i < 3; i++) {
				if (run(c, NULL, NULL)) {
					bench_na(name[0], a->argv[0], b->argv[0], strerror(errno));
					bench_na(name[1], a->argv[0], b->argv[0], strerror(errno));
					return;
				}
				v[i] = last_cpu_ns;
				m[i] = last_rss_kib;
			}
			cpu[side][r] = median(v, 3);
			rss[side][r] = median(m, 3);
		}
		/* A run under one clock tick reads as 0: count it as half a tick. */
		for (side = 0; side < 2; side++)
			if (cpu[side][r] <= 0)
				cpu[side][r] = 0.5e9 / sysconf(_SC_CLK_TCK);
		rc[r] = cpu[0][r] / cpu[1][r];
		rr[r] = rss[0][r] / rss[1][r];
	}
	for (k = 0; k < 2; k++) {
		double *ratio = k ? rr : rc, lo = ratio[0], hi = ratio[0];
		double ma = median(k ? rss[0] : cpu[0], rounds);
		double mb = median(k ? rss[1] : cpu[1], rounds);

		for (r = 1; r < rounds; r++) {
			lo = ratio[r] < lo ? ratio[r] : lo;
			hi = ratio[r] > hi ? ratio[r] : hi;
		}
		printf("# bench: %s,%s,%s,%.4f,%.4f,%.4f,%.0f,%.0f\n", name[k],
		       a->tool, b->tool, median(ratio, rounds), lo, hi, ma, mb);
		printf("%-28s %-30s %10.0f %s vs %-12s %10.0f  ratio %.3f [%.3f..%.3f]\n",
		       name[k], a->tool, ma, k ? "KiB" : "ns cpu", b->tool, mb,
		       median(ratio, rounds), lo, hi);
		fflush(stdout);
		bench_smoke_case(name[k], 1, NULL);
	}
}

static void caught(int sig)
{
	(void)sig;
}

/*
 * Start children up to @want, each renamed to @name and catching
 * SIGUSR1 (for -H) before we go on.
 */
static int spawn(pid_t *kids, int have, int want, const char *name)
{
	int p[2], i;
	char c = 0;

	if (pipe(p))
		return -1;
	for (i = have; i < want; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			prctl(PR_SET_NAME, name);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			signal(SIGUSR1, caught);
			if (write(p[1], &c, 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		if (kids[i] < 0)
			return -1;
	}
	for (i = have; i < want; i++)
		if (read(p[0], &c, 1) != 1)
			return -1;
	close(p[0]);
	close(p[1]);
	return 0;
}

/* Is word an element of the comma-separated list? */
static int in_list(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *s = list; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, word, len) && (s[len] == ',' || !s[len]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *pfkill = "/tests/tool/bin/pfkill", *strace = NULL, *dir = "/tmp";
	const char *only = NULL;
	char sizes_arg[64] = "100,1000,5000", name[16], ppid[16], pat[24];
	char uid[16], ruid[16], rgid[16];
	char *size, *save;
	pid_t *kids = NULL;
	int have = 0, opt, i;

	while ((opt = getopt(argc, argv, "n:p:g:k:s:o:m:r:")) != -1) {
		switch (opt) {
		case 'n': snprintf(sizes_arg, sizeof(sizes_arg), "%s", optarg); break;
		case 'p': pfkill = optarg; break;
		case 'g': pgrep = optarg; break;
		case 'k': pkill = optarg; break;
		case 's': strace = optarg; break;
		case 'o': dir = optarg; break;
		case 'm': only = optarg; break;
		case 'r':
			snprintf(procps_ld, sizeof(procps_ld),
				 "%s/usr/lib64/ld-linux-x86-64.so.2", optarg);
			snprintf(procps_libs, sizeof(procps_libs),
				 "%s/usr/lib/x86_64-linux-gnu:%s/lib/x86_64-linux-gnu",
				 optarg, optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n N,..] [-p pfkill] [-g pgrep] [-k pkill] [-s strace -o dir] [-m mode,..] [-r root]\n",
				argv[0]);
			return 2;
		}
	}
	if (argc == 1) {
		/* The guest: tinyconfig (BASE_SMALL) caps pid_max at 4096. */
		FILE *f = fopen("/proc/sys/kernel/pid_max", "w");

		if (f) {
			fprintf(f, "32768\n");	/* PID_MAX_LIMIT there */
			fclose(f);
		}
		if (bench_arg("tools"))
			snprintf(sizes_arg, sizeof(sizes_arg), "%s", bench_arg("tools"));
	}
	if (!strcmp(sizes_arg, "none"))
		return 0;
	/* Each run here is a whole process scan: 7 rounds are enough. */
	bench_rounds = bench_param("rounds", 7);
	snprintf(name, sizeof(name), "pfb-%d", getpid());
	snprintf(ppid, sizeof(ppid), "%d", getpid());
	snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
	snprintf(ruid, sizeof(ruid), "%u", (unsigned)getuid());
	snprintf(rgid, sizeof(rgid), "%u", (unsigned)getgid());
	snprintf(pat, sizeof(pat), "^%s$", name);

	for (size = strtok_r(sizes_arg, ",", &save); size;
	     size = strtok_r(NULL, ",", &save)) {
		int n = atoi(size);
		/*
		 * Pairs: ours then procps's, per mode.  The children are
		 * forks of us, so with -f their command line is ours: "."
		 * under -P selects them all and reads each one.
		 */
		struct cmd cmds[22] = {
			{ "pfgrep", { (char *)pfkill, "--list", "-x", "-P", ppid, pat }, n },
			{ "pgrep", { (char *)pgrep, "-x", "-P", ppid, pat }, n },
			{ "pfkill", { (char *)pfkill, "-URG", "-x", "-P", ppid, pat }, 0 },
			{ "pkill", { (char *)pkill, "-URG", "-x", "-P", ppid, pat }, 0 },
			{ "pfgrep-c", { (char *)pfkill, "--list", "-c", "-x", "-P", ppid, pat }, 1 },
			{ "pgrep-c", { (char *)pgrep, "-c", "-x", "-P", ppid, pat }, 1 },
			{ "pfgrep-f", { (char *)pfkill, "--list", "-f", "-P", ppid, "." }, n },
			{ "pgrep-f", { (char *)pgrep, "-f", "-P", ppid, "." }, n },
			{ "pfgrep-a", { (char *)pfkill, "--list", "-a", "-x", "-P", ppid, pat }, n },
			{ "pgrep-a", { (char *)pgrep, "-a", "-x", "-P", ppid, pat }, n },
			{ "pfgrep-u", { (char *)pfkill, "--list", "-u", uid, "-x", "-P", ppid, pat }, n },
			{ "pgrep-u", { (char *)pgrep, "-u", uid, "-x", "-P", ppid, pat }, n },
			{ "pfgrep-w", { (char *)pfkill, "--list", "-w", "-x", "-P", ppid, pat }, n },
			{ "pgrep-w", { (char *)pgrep, "-w", "-x", "-P", ppid, pat }, n },
			{ "pfgrep-U", { (char *)pfkill, "--list", "-U", ruid, "-x", "-P", ppid, pat }, n },
			{ "pgrep-U", { (char *)pgrep, "-U", ruid, "-x", "-P", ppid, pat }, n },
			{ "pfgrep-G", { (char *)pfkill, "--list", "-G", rgid, "-x", "-P", ppid, pat }, n },
			{ "pgrep-G", { (char *)pgrep, "-G", rgid, "-x", "-P", ppid, pat }, n },
			{ "pfgrep-H", { (char *)pfkill, "--list", "-H", "--signal", "USR1", "-x", "-P", ppid, pat }, n },
			{ "pgrep", { (char *)pgrep, "-x", "-P", ppid, pat }, n },
			{ "pfgrep-ns", { (char *)pfkill, "--list", "--ns", ppid, "-x", "-P", ppid, pat }, n },
			{ "pgrep-ns", { (char *)pgrep, "--ns", ppid, "-x", "-P", ppid, pat }, n },
		};
		static const char *const modes[11] = { "list", "kill", "count",
						       "full", "listfull", "euid",
						       "threads", "uid", "gid",
						       "handler", "ns" };
		/* Wall-time rows (count is as list there), labels as plotted. */
		static const struct { int pair; const char *a, *b; } wall[4] = {
			{ 0, "pfgrep", "pgrep" }, { 1, "pfkill -URG", "pkill -URG" },
			{ 3, "pfgrep -f", "pgrep -f" }, { 4, "pfgrep -a", "pgrep -a" },
		};
		char bname[32], out[256];

		if (n <= have)
			continue;
		kids = realloc(kids, n * sizeof(*kids));
		if (!kids || spawn(kids, have, n, name)) {
			perror("spawn");
			return 1;
		}
		have = n;

		for (i = 0; !only && i < 4; i++) {
			int k = wall[i].pair;

			snprintf(bname, sizeof(bname), "tools.%s.%d", modes[k], n);
			bench_pair(bname,
				   (struct bench_side){ wall[i].a, op_run, &cmds[2 * k] },
				   (struct bench_side){ wall[i].b, op_run, &cmds[2 * k + 1] });
		}
		for (i = 0; i < 11; i++) {
			if (only && !in_list(only, modes[i]))
				continue;
			snprintf(bname, sizeof(bname), "%s.%d", modes[i], n);
			usage_pair(bname, &cmds[2 * i], &cmds[2 * i + 1]);
		}

		for (i = 0; strace && i < 4; i++) {
			snprintf(out, sizeof(out), "%s/%s-%d.txt", dir, cmds[i].tool, n);
			if (run(&cmds[i], strace, out))
				printf("# strace of %s failed\n", cmds[i].tool);
		}
	}

	for (i = 0; i < have; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
