// SPDX-License-Identifier: GPL-2.0
/*
 * pfkill / pfgrep - pkill and pgrep that cannot signal the wrong process.
 *
 * Each candidate's /proc/<pid> directory is opened first; everything the
 * decision needs is read through that fd and the signal is sent through
 * the same fd with pidfd_send_signal(), so a PID that is recycled between
 * the decision and the signal cannot reach a stranger.
 *
 * Exit status: 0 something matched (and was signaled), 1 nothing matched
 * (or nothing could be signaled, or --timeout left processes alive),
 * 2 usage error, 3 fatal error (including a missing kernel feature).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pfk.h"

#ifndef PFK_VERSION
#define PFK_VERSION "0.1"
#endif

enum {
	EXIT_MATCH = 0,
	EXIT_NOMATCH = 1,
	EXIT_USAGE = 2,
	EXIT_FATAL = 3,
};

/* Everything the command line asked for. */
struct pfkill_ctl {
	struct pfk_filter filter;
	struct pfk_features feat;
	const char *pattern;
	const char *delim;
	int sig;
	int then_sig;
	long timeout_ms;		/* -1: wait forever */
	enum pfk_scope scope;
	unsigned int list_mode:1,	/* pfgrep */
		     exact:1,
		     icase:1,
		     count:1,
		     list_name:1,	/* -l */
		     list_full:1,	/* -a */
		     echo:1,
		     json:1,
		     wait:1,
		     has_timeout:1,
		     has_then:1,
		     pgroup:1,
		     sig_given:1;
	/* results */
	size_t matched;
	size_t signaled;
	size_t alive;
	bool printed;
};

enum {
	OPT_LIST = 0x100, OPT_SIGNAL, OPT_INCLUDE_ANCESTORS, OPT_WAIT,
	OPT_TIMEOUT, OPT_THEN, OPT_THREAD, OPT_PGROUP, OPT_JSON,
};

static const char short_opts[] = ":fxiu:U:G:g:s:P:t:nocld:aevhV";
static const struct option long_opts[] = {
	{ "full",		no_argument,	   NULL, 'f' },
	{ "exact",		no_argument,	   NULL, 'x' },
	{ "ignore-case",	no_argument,	   NULL, 'i' },
	{ "euid",		required_argument, NULL, 'u' },
	{ "uid",		required_argument, NULL, 'U' },
	{ "group",		required_argument, NULL, 'G' },
	{ "session",		required_argument, NULL, 's' },
	{ "parent",		required_argument, NULL, 'P' },
	{ "terminal",		required_argument, NULL, 't' },
	{ "newest",		no_argument,	   NULL, 'n' },
	{ "oldest",		no_argument,	   NULL, 'o' },
	{ "count",		no_argument,	   NULL, 'c' },
	{ "list-name",		no_argument,	   NULL, 'l' },
	{ "list-full",		no_argument,	   NULL, 'a' },
	{ "delimiter",		required_argument, NULL, 'd' },
	{ "echo",		no_argument,	   NULL, 'e' },
	{ "inverse",		no_argument,	   NULL, 'v' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "version",		no_argument,	   NULL, 'V' },
	{ "signal",		required_argument, NULL, OPT_SIGNAL },
	{ "list",		no_argument,	   NULL, OPT_LIST },
	{ "include-ancestors",	no_argument,	   NULL, OPT_INCLUDE_ANCESTORS },
	{ "wait",		no_argument,	   NULL, OPT_WAIT },
	{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
	{ "then",		required_argument, NULL, OPT_THEN },
	{ "thread",		no_argument,	   NULL, OPT_THREAD },
	{ "pgroup",		no_argument,	   NULL, OPT_PGROUP },
	{ "json",		no_argument,	   NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 },
};

static void __attribute__((noreturn)) usage(bool list_mode)
{
	FILE *out = stdout;

	fprintf(out,
"Usage:\n"
" %s [options] <pattern>\n"
"\n"
"%s processes by name or attributes, race-free: each process is\n"
"held by its /proc directory fd from match to signal.\n"
"\n"
"Options:\n"
" -<sig>, --signal <sig>    signal to send (name or number, default TERM)\n"
" -f, --full                match the full command line, not the name\n"
" -x, --exact               the pattern must match the whole name\n"
" -i, --ignore-case         case-insensitive match\n"
" -u, --euid <id,...>       effective user ids or names\n"
" -U, --uid <id,...>        real user ids or names\n"
" -G, --group <gid,...>     real group ids or names\n"
" -g <pgid,...>             process group ids (0: ours)\n"
" -s, --session <sid,...>   session ids (0: ours)\n"
" -P, --parent <ppid,...>   parent process ids\n"
" -t, --terminal <tty,...>  controlling terminals\n"
" -n, --newest              only the newest matching process\n"
" -o, --oldest              only the oldest matching process\n"
" -v, --inverse             negate the match\n"
" -c, --count               print how many matched (were signaled)\n"
" -l, --list-name           list the name too\n"
" -a, --list-full           list the full command line too\n"
" -d, --delimiter <str>     list separator (default newline)\n"
" -e, --echo                print what was signaled\n"
"     --list                only list, like pfgrep\n"
"     --include-ancestors   allow our own parent processes to match\n"
"     --wait                wait until every signaled process has exited\n"
"     --timeout <time>      stop waiting after <time> (5, 1.5s, 200ms, 2m)\n"
"     --then <sig>          after --timeout, send <sig> to the survivors\n"
"     --thread              match and signal individual threads\n"
"     --pgroup              signal the process group of each match\n"
"     --json                one JSON object per process: pid, name, result\n"
" -h, --help                display this help\n"
" -V, --version             display version and kernel features\n"
"\n"
"Exit status: 0 matched, 1 nothing matched or signaled, 2 usage error,\n"
"3 fatal error or missing kernel feature.\n",
		list_mode ? "pfgrep" : "pfkill",
		list_mode ? "List" : "Signal");
	exit(EXIT_MATCH);
}

/* One line on stderr, exit 2: nothing has been signaled yet. */
static void __attribute__((noreturn, format(printf, 1, 2)))
bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

static void print_version(void)
{
	struct pfk_features f;

	pfk_probe_features(&f);
	printf("%s %s\n", program_invocation_short_name, PFK_VERSION);
	printf("compiled in: PIDFD_THREAD=%d PIDFD_SIGNAL_THREAD=%lu "
	       "PIDFD_SIGNAL_THREAD_GROUP=%lu PIDFD_SIGNAL_PROCESS_GROUP=%lu"
#ifdef PFK_NO_NSS
	       " static(no-nss)"
#endif
	       "\n", PIDFD_THREAD, (unsigned long)PIDFD_SIGNAL_THREAD,
	       (unsigned long)PIDFD_SIGNAL_THREAD_GROUP,
	       (unsigned long)PIDFD_SIGNAL_PROCESS_GROUP);
	printf("kernel: procfd-signal=%s pidfd-open=%s pidfd-thread=%s "
	       "signal-flags=%s taskfd-signal=%s\n",
	       f.procfd_signal ? "yes" : "no", f.pidfd_open ? "yes" : "no",
	       f.pidfd_thread ? "yes" : "no", f.signal_flags ? "yes" : "no",
	       f.taskfd_signal ? "yes" : "no");
}

typedef int (*lookup_fn)(const char *, unsigned long *);

static int lookup_number(const char *s, unsigned long *v)
{
	return pfk_parse_ulong(s, INT_MAX, v);
}

/* "a,b,c" -> ids; "0" means our own group/session where own_id >= 0. */
static void parse_list(struct pfk_ids *ids, const char *arg, lookup_fn fn,
		       const char *what, long own_id)
{
	char *copy = strdup(arg), *rest = copy, *tok;

	if (!copy)
		err(EXIT_FATAL, "out of memory");
	while ((tok = strsep(&rest, ",")) != NULL) {
		unsigned long v;

		if (!*tok)
			bad_usage("invalid %s list: %s", what, arg);
		if (fn(tok, &v) < 0)
			bad_usage("invalid %s: %s", what, tok);
		if (v == 0 && own_id >= 0)
			v = own_id;
		if (pfk_ids_add(ids, v) < 0)
			err(EXIT_FATAL, "out of memory");
	}
	free(copy);
}

static int parse_signal_or_die(const char *s)
{
	int sig = pfk_parse_signal(s);

	if (sig < 0)
		bad_usage("unknown signal: %s", s);
	return sig;
}

/*
 * Only upper case names count as "-SIG" (or digits): "-io" stays the
 * option cluster -i -o rather than SIGIO.
 */
static bool signal_word(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '+' || *s == '-'))
			return false;
	return true;
}

/*
 * procps style "-KILL", "-9": take them out of argv before getopt sees
 * them (getopt would read "-USR1" as "-U SR1").  Only in pfkill mode.
 */
static void take_signal_args(struct pfkill_ctl *ctl, int *argc, char **argv)
{
	int i, out = 1;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
		    signal_word(a + 1)) {
			int sig = pfk_parse_signal(a + 1);

			if (sig < 0 && a[1] >= '0' && a[1] <= '9')
				bad_usage("invalid signal number: %s", a + 1);
			if (sig >= 0) {
				ctl->sig = sig;
				ctl->sig_given = 1;
				continue;
			}
		}
		argv[out++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
}

static void parse_args(struct pfkill_ctl *ctl, int argc, char **argv)
{
	bool has_criteria = false;
	int c, i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (strcmp(argv[i], "--list") == 0)
			ctl->list_mode = 1;
	if (!ctl->list_mode)
		take_signal_args(ctl, &argc, argv);

	opterr = 0;	/* our own one-line messages */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		struct pfk_filter *f = &ctl->filter;

		switch (c) {
		case 'f': f->full = true; break;
		case 'x': ctl->exact = 1; break;
		case 'i': ctl->icase = 1; break;
		case 'n': f->pick = PFK_PICK_NEWEST; break;
		case 'o': f->pick = PFK_PICK_OLDEST; break;
		case 'v': f->negate = true; break;
		case 'c': ctl->count = 1; break;
		case 'l': ctl->list_name = 1; break;
		case 'a': ctl->list_full = 1; f->keep_cmdline = true; break;
		case 'd': ctl->delim = optarg; break;
		case 'e': ctl->echo = 1; break;
		case 'u':
			parse_list(&f->euid, optarg, pfk_lookup_user, "user", -1);
			has_criteria = true;
			break;
		case 'U':
			parse_list(&f->ruid, optarg, pfk_lookup_user, "user", -1);
			has_criteria = true;
			break;
		case 'G':
			parse_list(&f->rgid, optarg, pfk_lookup_group, "group", -1);
			has_criteria = true;
			break;
		case 'g':
			parse_list(&f->pgrp, optarg, lookup_number,
				   "process group", getpgrp());
			has_criteria = true;
			break;
		case 's':
			parse_list(&f->session, optarg, lookup_number,
				   "session", getsid(0));
			has_criteria = true;
			break;
		case 'P':
			parse_list(&f->ppid, optarg, lookup_number,
				   "parent pid", -1);
			has_criteria = true;
			break;
		case 't':
			parse_list(&f->tty, optarg, pfk_lookup_tty,
				   "terminal", -1);
			has_criteria = true;
			break;
		case OPT_SIGNAL:
			ctl->sig = parse_signal_or_die(optarg);
			ctl->sig_given = 1;
			break;
		case OPT_LIST: ctl->list_mode = 1; break;
		case OPT_INCLUDE_ANCESTORS: f->include_ancestors = true; break;
		case OPT_WAIT: ctl->wait = 1; break;
		case OPT_TIMEOUT:
			if (pfk_parse_duration_ms(optarg, &ctl->timeout_ms) < 0)
				bad_usage("invalid duration: %s", optarg);
			ctl->has_timeout = 1;
			ctl->wait = 1;
			break;
		case OPT_THEN:
			ctl->then_sig = parse_signal_or_die(optarg);
			ctl->has_then = 1;
			break;
		case OPT_THREAD: f->threads = true; break;
		case OPT_PGROUP: ctl->pgroup = 1; break;
		case OPT_JSON: ctl->json = 1; break;
		case 'h': usage(ctl->list_mode);
		case 'V':
			print_version();
			exit(EXIT_MATCH);
		case ':':
			bad_usage("option %s needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				bad_usage("invalid option -- '%c' (try --help)",
					  optopt);
			bad_usage("unrecognized option '%s' (try --help)",
				  argv[optind - 1]);
		}
	}

	if (argc - optind > 1)
		bad_usage("only one pattern can be provided");
	if (argc - optind == 1)
		ctl->pattern = argv[optind];
	if (!ctl->pattern && !has_criteria)
		bad_usage("no matching criteria specified");
	if (ctl->has_then && !ctl->has_timeout)
		bad_usage("--then needs --timeout");
	if (ctl->pgroup && ctl->filter.threads)
		bad_usage("--pgroup and --thread exclude each other");
	if (ctl->list_mode && (ctl->sig_given || ctl->wait || ctl->pgroup))
		bad_usage("--signal, --wait, --timeout and --pgroup are for "
			  "pfkill, not for listing");
	if (!ctl->list_mode)
		ctl->filter.keep_cmdline = false;
	if (ctl->pgroup)
		ctl->scope = PFK_SCOPE_PGROUP;
	else if (ctl->filter.threads)
		ctl->scope = PFK_SCOPE_THREAD;

	if (ctl->pattern) {
		int flags = REG_EXTENDED | REG_NOSUB | (ctl->icase ? REG_ICASE : 0);
		char *re = NULL;
		int r;

		if (ctl->exact && asprintf(&re, "^(%s)$", ctl->pattern) < 0)
			err(EXIT_FATAL, "out of memory");
		r = regcomp(&ctl->filter.pattern, re ? re : ctl->pattern, flags);
		if (r) {
			char msg[256];

			regerror(r, &ctl->filter.pattern, msg, sizeof(msg));
			bad_usage("invalid pattern: %s", msg);
		}
		ctl->filter.has_pattern = true;
		free(re);
	}
}

/* Fail before touching anything when the kernel lacks what we need. */
static void require_features(const struct pfkill_ctl *ctl)
{
	const struct pfk_features *f = &ctl->feat;

	if (ctl->list_mode)
		return;
	if (!f->procfd_signal)
		errx(EXIT_FATAL, "signaling needs pidfd_send_signal() on "
		     "/proc/<pid> fds (Linux 5.1)");
	if (ctl->wait && !f->pidfd_open)
		errx(EXIT_FATAL, "--wait needs pidfd_open() (Linux 5.3)");
	if (ctl->scope == PFK_SCOPE_THREAD && !f->taskfd_signal &&
	    !f->pidfd_thread)
		errx(EXIT_FATAL, "--thread needs thread handles "
		     "(PIDFD_THREAD or /proc/<pid>/task/<tid> fds)");
	if (ctl->scope == PFK_SCOPE_THREAD && ctl->wait && !f->pidfd_thread)
		errx(EXIT_FATAL, "--thread --wait needs PIDFD_THREAD");
	if (ctl->scope == PFK_SCOPE_PGROUP && !f->signal_flags)
		errx(EXIT_FATAL, "--pgroup needs PIDFD_SIGNAL_PROCESS_GROUP");
}

/*
 * Hold as many handles as we can: raise the soft fd limit to the hard one
 * and size a batch to leave room for the scan's own fds.  Each handle may
 * need a second fd (pidfd for --wait/--thread, leader fd for --pgroup).
 */
static size_t batch_size(const struct pfkill_ctl *ctl)
{
	struct rlimit rl;
	long open_max, per_handle = 1;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1 << 20 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	open_max = sysconf(_SC_OPEN_MAX);
	if (open_max <= 0)
		open_max = 1024;
	if (!ctl->list_mode)
		per_handle += ctl->wait + (ctl->scope != PFK_SCOPE_PROCESS);
	open_max = (open_max - 32) / per_handle;
	return open_max > 0 ? (size_t)open_max : 1;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(const struct pfk_proc *p)
{
	printf("{\"pid\":%d,\"name\":", (int)p->pid);
	json_string(p->name);
	printf(",\"result\":\"%s\"}\n", pfk_result_name(p->result));
}

static void list_one(struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	if (ctl->json) {
		print_json(p);
		return;
	}
	if (ctl->count)
		return;
	if (ctl->printed)
		fputs(ctl->delim, stdout);
	ctl->printed = true;
	if (ctl->list_full)
		printf("%d %s", (int)p->pid, p->cmdline);
	else if (ctl->list_name)
		printf("%d %s", (int)p->pid, p->name);
	else
		printf("%d", (int)p->pid);
}

static void report_signal(struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	switch (p->result) {
	case PFK_SIGNALED:
		ctl->signaled++;
		if (ctl->echo)
			printf("%s killed (pid %d)\n", p->name, (int)p->pid);
		break;
	case PFK_GONE:
		warnx("pid %d (%s) exited before it was signaled", (int)p->pid,
		      p->name);
		break;
	default:
		errno = p->err;
		warn("killing pid %d failed", (int)p->pid);
	}
}

static int cmp_pgrp(const void *a, const void *b)
{
	const struct pfk_proc *x = *(struct pfk_proc *const *)a;
	const struct pfk_proc *y = *(struct pfk_proc *const *)b;

	return (x->pgrp > y->pgrp) - (x->pgrp < y->pgrp);
}

/*
 * --pgroup: signal each group once, through the first member that can
 * reach it; the other members of that group share its result.
 */
static void signal_groups(struct pfkill_ctl *ctl, struct pfk_proc *procs,
			  size_t n, int sig)
{
	struct pfk_proc **order = malloc(n * sizeof(*order));
	size_t i = 0;

	if (!order)
		err(EXIT_FATAL, "out of memory");
	for (size_t k = 0; k < n; k++)
		order[k] = &procs[k];
	qsort(order, n, sizeof(*order), cmp_pgrp);
	while (i < n) {
		size_t j = i;
		struct pfk_proc *done = NULL;

		for (; j < n && order[j]->pgrp == order[i]->pgrp; j++) {
			if (done) {
				order[j]->result = done->result;
				order[j]->err = done->err;
				continue;
			}
			if (pfk_signal(order[j], sig, PFK_SCOPE_PGROUP,
				       &ctl->feat) != PFK_GONE)
				done = order[j];
		}
		i = j;
	}
	free(order);
}

static void kill_batch(struct pfkill_ctl *ctl, struct pfk_proc *procs,
		       size_t n)
{
	size_t left = 0;

	if (ctl->scope == PFK_SCOPE_PGROUP)
		signal_groups(ctl, procs, n, ctl->sig);
	else
		for (size_t i = 0; i < n; i++)
			pfk_signal(&procs[i], ctl->sig, ctl->scope, &ctl->feat);
	for (size_t i = 0; i < n; i++)
		report_signal(ctl, &procs[i]);
	fflush(stdout);

	if (ctl->wait) {
		long t = ctl->has_timeout ? ctl->timeout_ms : -1;

		left = pfk_wait(procs, n, t, ctl->scope, &ctl->feat);
		if (left && ctl->has_then) {
			/* Only the survivors, through the same handles. */
			for (size_t i = 0; i < n; i++)
				if (procs[i].result == PFK_SIGNALED)
					pfk_signal(&procs[i], ctl->then_sig,
						   ctl->scope, &ctl->feat);
			left = pfk_wait(procs, n, t, ctl->scope, &ctl->feat);
		}
		for (size_t i = 0; i < n; i++) {
			if (procs[i].result == PFK_SIGNALED ||
			    procs[i].result == PFK_ESCALATED) {
				procs[i].result = PFK_ALIVE;
				ctl->alive++;
				warnx("pid %d (%s) is still running",
				      (int)procs[i].pid, procs[i].name);
			}
		}
	}
	if (ctl->json)
		for (size_t i = 0; i < n; i++)
			print_json(&procs[i]);
}

static int run(struct pfkill_ctl *ctl)
{
	size_t max = batch_size(ctl);
	struct pfk_proc *procs;
	struct pfk_scan *scan;
	ssize_t n;

	procs = calloc(max, sizeof(*procs));
	if (!procs)
		err(EXIT_FATAL, "out of memory");
	scan = pfk_scan_open(&ctl->filter);
	if (!scan)
		err(EXIT_FATAL, "cannot read /proc");

	while ((n = pfk_scan_next(scan, procs, max)) > 0) {
		ctl->matched += n;
		if (ctl->list_mode)
			for (ssize_t i = 0; i < n; i++)
				list_one(ctl, &procs[i]);
		else
			kill_batch(ctl, procs, n);
		for (ssize_t i = 0; i < n; i++)
			pfk_proc_release(&procs[i]);
	}
	if (n < 0)
		err(EXIT_FATAL, "reading /proc");
	pfk_scan_close(scan);
	free(procs);

	if (ctl->printed)
		putchar('\n');
	if (ctl->count)
		printf("%zu\n", ctl->list_mode ? ctl->matched : ctl->signaled);
	if (fflush(stdout) != 0)
		err(EXIT_FATAL, "write error");

	if (ctl->list_mode)
		return ctl->matched ? EXIT_MATCH : EXIT_NOMATCH;
	if (!ctl->signaled || ctl->alive)
		return EXIT_NOMATCH;
	return EXIT_MATCH;
}

int main(int argc, char **argv)
{
	struct pfkill_ctl ctl = {
		.delim = "\n",
		.sig = SIGTERM,
		.timeout_ms = -1,
		.scope = PFK_SCOPE_PROCESS,
	};
	int proc_fd, ret;

	if (strcmp(program_invocation_short_name, "pfgrep") == 0)
		ctl.list_mode = 1;

	proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		err(EXIT_FATAL, "cannot open /proc");
	pfk_filter_init(&ctl.filter, proc_fd);
	parse_args(&ctl, argc, argv);

	pfk_probe_features(&ctl.feat);
	require_features(&ctl);

	ret = run(&ctl);
	pfk_filter_free(&ctl.filter);
	close(proc_fd);
	return ret;
}
