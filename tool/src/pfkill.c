// SPDX-License-Identifier: GPL-2.0
/*
 * pfkill / pfgrep - pkill and pgrep that cannot signal the wrong process.
 *
 * Each candidate's /proc/<pid> directory is opened first; everything the
 * decision needs is read through that fd and the signal is sent through
 * the same fd with pidfd_send_signal(), so a PID that is recycled between
 * the decision and the signal cannot reach a stranger.
 *
 * The name it is invoked by decides what it does, and only two names
 * signal: pfkill and pkill.  pfwait and pidwait wait for the matches to
 * exit; every other name (pfgrep, pgrep, an alternatives link, a renamed
 * copy) only lists, so a drop-in link can never kill by surprise.
 *
 * Exit status: 0 something matched (and was signaled, or has exited),
 * 1 nothing matched (or nothing could be signaled, or --timeout left
 * processes alive), 2 usage error, 3 fatal error (including a missing
 * kernel feature, and a result left incomplete for want of fds).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pfk.h"

#ifndef PFK_VERSION
#define PFK_VERSION "0.3"
#endif

enum {
	EXIT_MATCH = 0,
	EXIT_NOMATCH = 1,
	EXIT_USAGE = 2,
	EXIT_FATAL = 3,
};

enum mode { MODE_LIST, MODE_KILL, MODE_WAIT };

/* Everything the command line asked for. */
struct pfkill_ctl {
	enum mode mode;
	struct pfk_filter filter;
	struct pfk_features feat;
	const char *pattern;
	const char *delim;
	const char *pidfile;
	int sig;
	int then_sig;
	int queue_value;
	long timeout_ms;		/* -1: wait forever */
	enum pfk_scope scope;
	unsigned int exact:1,
		     icase:1,
		     count:1,
		     list_name:1,	/* -l */
		     list_full:1,	/* -a */
		     shell_quote:1,	/* -Q */
		     echo:1,
		     json:1,
		     quiet:1,		/* --quiet: the exit status only */
		     identity:1,	/* --format pid:starttime */
		     identity_ino:1,	/* --format pid:inode */
		     mrelease:1,	/* -m */
		     wait:1,
		     has_timeout:1,
		     has_then:1,
		     sig_given:1,
		     queue:1,		/* -q */
		     lock:1,		/* -L */
		     require_handler:1,	/* -H */
		     ignore_ancestors:1, /* -A */
		     include_ancestors:1;
	int criteria;			/* procps's criteria_count */
	/* results */
	size_t matched;
	size_t signaled;
	size_t alive;
	size_t ancestor_hits;
	bool printed;
	bool count_printed;		/* pfwait -c: before waiting */
	bool mrelease_failed;		/* -m: exit 1, as procps */
	bool resource_failed;		/* a handle lacked fds or memory: exit 3 */
};

/* Options of procps-ng 4.0.2 pgrep/pkill, and of 4.0.5/4.0.6 where race-free. */
enum {
	OPT_SIGNAL = 0x100, OPT_NS, OPT_NSLIST, OPT_CGROUP, OPT_ENV,
	/* ours */
	OPT_LIST, OPT_INCLUDE_ANCESTORS, OPT_WAIT, OPT_TIMEOUT, OPT_THEN,
	OPT_THREAD, OPT_SCOPE, OPT_JSON, OPT_QUIET, OPT_FORMAT,
};

static const struct option procps_opts[] = {
	{ "signal",		required_argument, NULL, OPT_SIGNAL },
	{ "ignore-ancestors",	no_argument,	   NULL, 'A' },
	{ "require-handler",	no_argument,	   NULL, 'H' },
	{ "count",		no_argument,	   NULL, 'c' },
	{ "cgroup",		required_argument, NULL, OPT_CGROUP },
	{ "delimiter",		required_argument, NULL, 'd' },
	{ "list-name",		no_argument,	   NULL, 'l' },
	{ "list-full",		no_argument,	   NULL, 'a' },
	{ "full",		no_argument,	   NULL, 'f' },
	{ "pgroup",		required_argument, NULL, 'g' },
	{ "group",		required_argument, NULL, 'G' },
	{ "ignore-case",	no_argument,	   NULL, 'i' },
	{ "newest",		no_argument,	   NULL, 'n' },
	{ "oldest",		no_argument,	   NULL, 'o' },
	{ "older",		required_argument, NULL, 'O' },
	{ "pid",		required_argument, NULL, 'p' },
	{ "parent",		required_argument, NULL, 'P' },
	{ "session",		required_argument, NULL, 's' },
	{ "terminal",		required_argument, NULL, 't' },
	{ "euid",		required_argument, NULL, 'u' },
	{ "uid",		required_argument, NULL, 'U' },
	{ "inverse",		no_argument,	   NULL, 'v' },
	{ "lightweight",	no_argument,	   NULL, 'w' },
	{ "exact",		no_argument,	   NULL, 'x' },
	{ "pidfile",		required_argument, NULL, 'F' },
	{ "logpidfile",		no_argument,	   NULL, 'L' },
	{ "echo",		no_argument,	   NULL, 'e' },
	{ "ns",			required_argument, NULL, OPT_NS },
	{ "nslist",		required_argument, NULL, OPT_NSLIST },
	{ "queue",		required_argument, NULL, 'q' },
	{ "runstates",		required_argument, NULL, 'r' },
	{ "env",		required_argument, NULL, OPT_ENV },
	{ "shell-quote",	no_argument,	   NULL, 'Q' },
	{ "mrelease",		no_argument,	   NULL, 'm' },
	/* 4.0.6: with --queue there, --q and --qu are ambiguous */
	{ "quiet",		no_argument,	   NULL, OPT_QUIET },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "version",		no_argument,	   NULL, 'V' },
};

static const struct option our_opts[] = {
	{ "list",		no_argument,	   NULL, OPT_LIST },
	{ "include-ancestors",	no_argument,	   NULL, OPT_INCLUDE_ANCESTORS },
	{ "wait",		no_argument,	   NULL, OPT_WAIT },
	{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
	{ "then",		required_argument, NULL, OPT_THEN },
	{ "thread",		no_argument,	   NULL, OPT_THREAD },
	{ "scope",		required_argument, NULL, OPT_SCOPE },
	{ "json",		no_argument,	   NULL, OPT_JSON },
	{ "format",		required_argument, NULL, OPT_FORMAT },
};

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* procps's short options: the mode's own, then the shared ones. */
static const char pgrep_short[] = "lad:vwQLF:cfinoxp:P:O:AHg:s:u:U:G:t:r:Vh";
static const char pkill_short[] = "eq:mQLF:cfinoxp:P:O:AHg:s:u:U:G:t:r:Vh";
static const char pidwait_short[] = "eLF:cfinoxp:P:O:AHg:s:u:U:G:t:r:Vh";

/*
 * procps decides by its name too, but signals unless told otherwise by a
 * name it knows.  We turn that round: only the names pfkill and pkill
 * signal, pfwait and pidwait wait, and any other name only lists.
 */
static enum mode mode_of(const char *name)
{
	if (strcmp(name, "pfkill") == 0 || strcmp(name, "pkill") == 0)
		return MODE_KILL;
	if (strcmp(name, "pfwait") == 0 || strcmp(name, "pidwait") == 0)
		return MODE_WAIT;
	return MODE_LIST;
}

/*
 * getopt_long() takes unique abbreviations.  So that "--in" or "--t"
 * keep meaning --inverse and --terminal, as they do under procps, each
 * prefix of one of our names that procps resolves to exactly one of its
 * options becomes an exact alias of that option.
 */
static struct option *long_options(void)
{
	size_t max = NOPTS(procps_opts) + NOPTS(our_opts) + 64, n = 0;
	struct option *t = calloc(max + 1, sizeof(*t));

	if (!t)
		err(EXIT_FATAL, "out of memory");
	for (size_t i = 0; i < NOPTS(procps_opts); i++)
		t[n++] = procps_opts[i];
	for (size_t i = 0; i < NOPTS(our_opts); i++)
		t[n++] = our_opts[i];
	for (size_t i = 0; i < NOPTS(our_opts); i++) {
		const char *name = our_opts[i].name;

		for (size_t len = 1; len < strlen(name) && n < max; len++) {
			const struct option *hit = NULL;
			int hits = 0;
			char *alias;

			for (size_t k = 0; k < NOPTS(procps_opts); k++)
				if (strncmp(procps_opts[k].name, name, len) == 0) {
					hit = &procps_opts[k];
					hits++;
				}
			if (hits != 1 || strlen(hit->name) == len)
				continue;
			alias = strndup(name, len);
			if (!alias)
				err(EXIT_FATAL, "out of memory");
			t[n] = *hit;
			t[n++].name = alias;
		}
	}
	return t;
}

static void __attribute__((noreturn)) usage(const struct pfkill_ctl *ctl,
					    bool error)
{
	FILE *out = error ? stderr : stdout;

	fprintf(out, "\nUsage:\n %s [options] <pattern>\n\nOptions:\n",
		program_invocation_short_name);
	if (ctl->mode == MODE_LIST)
		fputs(
" -d, --delimiter <string>  specify output delimiter\n"
" -l, --list-name           list PID and process name\n"
" -a, --list-full           list PID and full command line\n"
" -v, --inverse             negates the matching\n"
" -w, --lightweight         list all TID\n", out);
	else if (ctl->mode == MODE_WAIT)
		fputs(
" -e, --echo                display PIDs before waiting\n", out);
	else
		fputs(
" -<sig>, --signal <sig>    signal to send (either number or name)\n"
" -H, --require-handler     match only if signal handler is present\n"
" -q, --queue <value>       integer value to be sent with the signal\n"
" -e, --echo                display what is killed\n"
" -m, --mrelease            release the memory of SIGKILLed processes at once\n",
		      out);
	fputs(
" -c, --count               count of matching processes\n"
" -f, --full                use full process name to match\n"
" -g, --pgroup <PGID,...>   match listed process group IDs\n"
" -G, --group <GID,...>     match real group IDs\n"
" -i, --ignore-case         match case insensitively\n"
" -n, --newest              select most recently started\n"
" -o, --oldest              select least recently started\n"
" -O, --older <seconds>     select where older than seconds\n"
" -p, --pid <PID,...>       match process PIDs\n"
" -P, --parent <PPID,...>   match only child processes of the given parent\n"
" -s, --session <SID,...>   match session IDs\n", out);
	if (ctl->mode != MODE_KILL)
		fputs(
"     --signal <sig>        signal for -H (either number or name)\n"
" -H, --require-handler     match only if signal handler is present\n", out);
	fputs(
" -t, --terminal <tty,...>  match by controlling terminal\n"
" -u, --euid <ID,...>       match by effective IDs\n"
" -U, --uid <ID,...>        match by real IDs\n"
" -x, --exact               match exactly with the command name\n"
" -F, --pidfile <file>      read PIDs from file\n"
" -L, --logpidfile          fail if PID file is not locked\n"
" -r, --runstates <state>   match runstates [D,S,Z,...]\n"
" -A, --ignore-ancestors    exclude our ancestors from results\n"
" -Q, --shell-quote         output the command line in shell-quoted form\n"
" --cgroup <grp,...>        match by cgroup v2 names\n"
" --ns <PID>                match the processes that belong to the same\n"
"                           namespace as <pid>\n"
" --nslist <ns,...>         list which namespaces will be considered for\n"
"                           the --ns option.\n"
"                           Available namespaces: cgroup, ipc, mnt, net,\n"
"                           pid, time, user, uts\n"
" --env <name=val,...>      match on environment variable\n"
"     --quiet               list no PIDs (-c, -e still print): the exit\n"
"                           status tells\n"
"\n"
"Race-free extensions:\n"
"     --list                only list, like pfgrep\n"
"     --include-ancestors   let pfkill signal its own parent chain\n"
"     --wait                wait until every signaled process has exited\n"
"     --timeout <time>      stop waiting after <time> (5, 1.5s, 200ms, 2m)\n"
"     --then <sig>          after --timeout, send <sig> to the survivors\n"
"     --scope <what>        process (default), thread, or pgroup: signal\n"
"                           each match's thread or its process group\n"
"     --thread              match threads; with pfkill, --scope thread\n"
"     --json                JSON Lines: an object per process (pid, name,\n"
"                           result), or with -c the count\n"
"     --format <format>     pid (default); pid:inode: list PID:INODE, as\n"
"                           util-linux kill(1) takes it, and read -p PID:N\n"
"                           so (pidfs, Linux 6.9): no other process of this\n"
"                           boot has the pair; pid:starttime: list\n"
"                           PID:STARTTIME, as -p PID:N is read by default:\n"
"                           unique only to the clock tick\n"
"\n"
" -h, --help     display this help and exit\n"
" -V, --version  output version and kernel features and exit\n"
"\n"
"For more details see pfkill(1).\n", out);
	exit(error ? EXIT_USAGE : EXIT_MATCH);
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
	       "signal-flags=%s taskfd-signal=%s mrelease=%s pidfd-info=%s "
	       "pidfs=%s\n",
	       f.procfd_signal ? "yes" : "no", f.pidfd_open ? "yes" : "no",
	       f.pidfd_thread ? "yes" : "no", f.signal_flags ? "yes" : "no",
	       f.taskfd_signal ? "yes" : "no", f.mrelease ? "yes" : "no",
	       f.pidfd_info ? "yes" : "no", f.pidfs ? "yes" : "no");
}

/* List elements, converted as procps does; warnx + exit 2 on a bad one. */
enum list_kind { L_USER, L_GROUP, L_PGRP, L_SID, L_NUM, L_TTY, L_STR, L_NS,
		 L_PID };

static void add_id(struct pfk_ids *ids, unsigned long v)
{
	if (pfk_ids_add(ids, v) < 0)
		err(EXIT_FATAL, "out of memory");
}

/*
 * -g 0, -s 0: our own process group or session, as /proc numbers it (in
 * our own pid namespace's /proc what getpgrp() and getsid() say; in
 * another's, /proc's numbers are what a process shows and is matched by).
 * Where /proc is of a pid namespace we are not in, our group has no
 * number there: refused, as nothing could be told to be in it.
 */
static long own_group(const struct pfkill_ctl *ctl, bool session)
{
	struct pfk_proc self = { .x = NULL };
	pid_t sid;
	int fd;

	fd = openat(ctl->filter.proc_fd, "self", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		errx(EXIT_FATAL, "%s 0: /proc is of a pid namespace we are "
		     "not in, where our own %s has no number", session ?
		     "-s" : "-g", session ? "session" : "process group");
	if (fd < 0 || pfk_read_stat(fd, &self, NULL, &sid, NULL) < 0)
		err(EXIT_FATAL, "cannot read /proc/self/stat");
	pfk_proc_free_extra(&self);
	close(fd);
	return session ? sid : self.pgrp;
}

static void convert(struct pfkill_ctl *ctl, enum list_kind kind,
		    const char *tok, void *dst)
{
	static const char *const msg[] = {
		[L_USER] = "invalid user name: %s",
		[L_GROUP] = "invalid group name: %s",
		[L_PGRP] = "invalid process group: %s",
		[L_SID] = "invalid session id: %s",
		[L_NUM] = "not a number: %s",
		[L_NS] = "unknown namespace: %s",
		[L_PID] = "not a number: %s",
	};
	unsigned long long val;
	unsigned long v;
	long n;
	int i;

	switch (kind) {
	case L_USER:
	case L_GROUP:
		if ((kind == L_USER ? pfk_lookup_user : pfk_lookup_group)(tok, &v))
			bad_usage(msg[kind], tok);
		add_id(dst, v);
		return;
	case L_PGRP:
	case L_SID:
	case L_NUM:
		if (pfk_parse_long(tok, &n) < 0)
			bad_usage(msg[kind], tok);
		if (n == 0 && kind != L_NUM)
			n = own_group(ctl, kind == L_SID);
		add_id(dst, (unsigned long)n);
		return;
	case L_PID:
		/*
		 * PID:N, as --format pid:starttime or pid:inode prints it;
		 * which of the two it is, --format says (parse_args()).
		 */
		if (strchr(tok, ':')) {
			struct pfk_filter *f = &ctl->filter;
			unsigned long long *nv;

			if (pfk_parse_ident(tok, &v, &val) < 0)
				bad_usage(msg[kind], tok);
			nv = realloc(f->ident_val, (f->ident_pid.n + 1) *
				     sizeof(*nv));
			if (!nv)
				err(EXIT_FATAL, "out of memory");
			f->ident_val = nv;
			nv[f->ident_pid.n] = val;
			add_id(&f->ident_pid, v);
			return;
		}
		if (pfk_parse_long(tok, &n) < 0)
			bad_usage(msg[kind], tok);
		add_id(dst, (unsigned long)n);
		return;
	case L_TTY:
		/* A terminal that does not exist matches nothing, as there. */
		if (pfk_lookup_tty(tok, &v) < 0)
			v = ULONG_MAX;
		add_id(dst, v);
		return;
	case L_STR:
		if (pfk_strs_add(dst, tok) < 0)
			err(EXIT_FATAL, "out of memory");
		return;
	case L_NS:
		i = pfk_ns_index(tok);
		if (i < 0)
			bad_usage(msg[kind], tok);
		ctl->filter.ns_mask |= 1u << i;
		return;
	}
}

/*
 * "a,b,c".  An empty argument is a usage error as in procps; an empty
 * element is refused too, where procps reads it as 0 (root, our own
 * group or session): a stray comma must not widen a match.
 */
static void parse_list(struct pfkill_ctl *ctl, enum list_kind kind,
		       const char *arg, void *dst)
{
	char *copy, *rest, *tok;

	if (!*arg)
		usage(ctl, true);
	copy = strdup(arg);
	if (!copy)
		err(EXIT_FATAL, "out of memory");
	for (rest = copy; (tok = strsep(&rest, ",")) != NULL; ) {
		if (!*tok)
			bad_usage("empty element in list: '%s'", arg);
		convert(ctl, kind, tok, dst);
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

static int parse_int_or_die(const char *s, const char *what, long min)
{
	long v;

	if (pfk_parse_long(s, &v) < 0 || v < min || v > INT_MAX)
		bad_usage("invalid %s: %s", what, s);
	return (int)v;
}

/*
 * procps's "-SIG": the first argument anywhere that starts with '-' and
 * whose rest is a signal word is taken out of argv.  So "-io" is SIGIO
 * and "-kill" SIGKILL, as in pkill.  Only in pfkill mode.
 */
static void take_signal_arg(struct pfkill_ctl *ctl, int *argc, char **argv)
{
	for (int i = 1; i < *argc; i++) {
		int sig;

		if (argv[i][0] != '-')
			continue;
		sig = pfk_signal_word(argv[i] + 1);
		if (sig < 0)
			continue;
		if (sig > SIGRTMAX)
			bad_usage("invalid signal number: %s", argv[i] + 1);
		ctl->sig = sig;
		ctl->sig_given = 1;
		memmove(argv + i, argv + i + 1, (*argc - i) * sizeof(*argv));
		(*argc)--;
		return;
	}
}

/* -L: the daemon holds a lock on it (flock or fcntl), as procps checks. */
static bool pidfile_locked(int fd)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };

	if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		return true;
	return fcntl(fd, F_SETLK, &fl) < 0 &&
	       (errno == EACCES || errno == EAGAIN);
}

/* What a pid file may not be, named for the message; NULL if it may. */
static const char *pidfile_refused(mode_t mode)
{
	if (S_ISREG(mode) || S_ISFIFO(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

/*
 * A pipe's writer may not have written yet (a process substitution,
 * <(echo $pid)), nor all at once: wait for it, then read up to the end
 * of the first line, as procps's fgets() does.
 */
static ssize_t read_pipe_line(int fd, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	while (len + 1 < size && !memchr(buf, '\n', len)) {
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	return len ? (ssize_t)len : -1;
}

/*
 * procps's pid file: a file starting with a pid, which procps opens
 * whatever it is.  We read a regular file, a FIFO or pipe (a process
 * substitution's /dev/fd/N is one), or stdin for "-" (procps 4.0.5).
 * Anything else is refused before it is opened, since opening one can
 * act (a tape rewinds, a terminal becomes ours) and reading one can
 * block for good: a directory, a device, a socket.
 */
static void read_pidfile(struct pfkill_ctl *ctl)
{
	bool std_in = strcmp(ctl->pidfile, "-") == 0;
	char buf[12] = "", *end;
	const char *why = NULL;
	unsigned long pid;
	struct stat st;
	ssize_t n = -1;
	int fd = -1;

	if (std_in)
		fd = fcntl(0, F_DUPFD_CLOEXEC, 0);
	else if (stat(ctl->pidfile, &st) == 0 &&
		 (why = pidfile_refused(st.st_mode)) == NULL)
		fd = open(ctl->pidfile, O_RDONLY | O_NOCTTY | O_NONBLOCK |
			  O_CLOEXEC);
	/* What was opened, not what the name said a moment before. */
	if (fd >= 0 && fstat(fd, &st) == 0 && !std_in)
		why = pidfile_refused(st.st_mode);
	if (why)
		errx(EXIT_NOMATCH, "pidfile not valid: %s is %s (a pid file "
		     "is a regular file or a pipe)", ctl->pidfile, why);
	/* As procps 4.0.7 says these two (the lock, without its errno). */
	if (fd < 0)
		err(EXIT_NOMATCH, "Unable to open pidfile");
	if (ctl->lock && !pidfile_locked(fd))
		errx(EXIT_NOMATCH, "Locking check for pidfile failed: not "
		     "locked");
	if (fd >= 0 && (!ctl->lock || pidfile_locked(fd))) {
		if (std_in || S_ISFIFO(st.st_mode))
			n = read_pipe_line(fd, buf, sizeof(buf));
		else if (st.st_size > 0)
			n = read(fd, buf, sizeof(buf) - 1);
	}
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		errno = 0;
		pid = strtoul(buf, &end, 10);
		if (end > buf && pid >= 1 && pid <= INT_MAX && !errno &&
		    (!*end || isspace((unsigned char)*end))) {
			add_id(&ctl->filter.pid, pid);
			return;
		}
	}
	errx(EXIT_NOMATCH, "pidfile not valid\nTry `%s --help' for more "
	     "information.", program_invocation_short_name);
}

static void parse_args(struct pfkill_ctl *ctl, int argc, char **argv)
{
	struct pfk_filter *f = &ctl->filter;
	struct option *longopts;
	bool picked = false;
	int c, i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (strcmp(argv[i], "--list") == 0)
			ctl->mode = MODE_LIST;
	if (ctl->mode == MODE_KILL)
		take_signal_arg(ctl, &argc, argv);

	longopts = long_options();
	argv[0] = program_invocation_short_name;	/* getopt's messages */
	while ((c = getopt_long(argc, argv, ctl->mode == MODE_LIST ? pgrep_short :
				ctl->mode == MODE_WAIT ? pidwait_short :
				pkill_short, longopts, NULL)) != -1) {
		switch (c) {
		case 'f': f->full = true; break;
		case 'x': ctl->exact = 1; break;
		case 'i': ctl->icase = 1; break;
		case 'n':
		case 'o':
		case 'v':
			/* procps: -n, -o and -v exclude each other. */
			if (picked)
				usage(ctl, true);
			picked = true;
			if (c == 'v') {
				f->negate = true;
				break;
			}
			f->pick = c == 'n' ? PFK_PICK_NEWEST : PFK_PICK_OLDEST;
			ctl->criteria++;
			break;
		case 'c': ctl->count = 1; break;
		case 'l': ctl->list_name = 1; break;
		case 'a': ctl->list_full = 1; break;
		case 'Q': ctl->shell_quote = 1; break;
		case 'd': ctl->delim = optarg; break;
		case 'e': ctl->echo = 1; break;
		case 'm': ctl->mrelease = 1; break;
		case 'w': f->threads = true; break;
		case 'A': ctl->ignore_ancestors = 1; break;
		case 'L': ctl->lock = 1; break;
		case 'F': ctl->pidfile = optarg; ctl->criteria++; break;
		case 'H': ctl->require_handler = 1; ctl->criteria++; break;
		case 'q':
			ctl->queue_value = parse_int_or_die(optarg,
						"queue value", INT_MIN);
			ctl->queue = 1;
			break;
		case 'O':
			f->older = parse_int_or_die(optarg, "age", INT_MIN);
			ctl->criteria++;
			break;
		case 'r': f->runstates = optarg; ctl->criteria++; break;
		case 'u': parse_list(ctl, L_USER, optarg, &f->euid); ctl->criteria++; break;
		case 'U': parse_list(ctl, L_USER, optarg, &f->ruid); ctl->criteria++; break;
		case 'G': parse_list(ctl, L_GROUP, optarg, &f->rgid); ctl->criteria++; break;
		case 'g': parse_list(ctl, L_PGRP, optarg, &f->pgrp); ctl->criteria++; break;
		case 's': parse_list(ctl, L_SID, optarg, &f->session); ctl->criteria++; break;
		case 'P': parse_list(ctl, L_NUM, optarg, &f->ppid); ctl->criteria++; break;
		case 'p': parse_list(ctl, L_PID, optarg, &f->pid); ctl->criteria++; break;
		case 't':
			parse_list(ctl, L_TTY, optarg, &f->tty);
			f->tty_given = true;
			ctl->criteria++;
			break;
		case OPT_CGROUP: parse_list(ctl, L_STR, optarg, &f->cgroup); ctl->criteria++; break;
		case OPT_ENV: parse_list(ctl, L_STR, optarg, &f->env); ctl->criteria++; break;
		case OPT_NS: {
			char name[16];
			int fd;

			snprintf(name, sizeof(name), "%d",
				 parse_int_or_die(optarg, "pid", 1));
			fd = openat(f->proc_fd, name, O_RDONLY | O_DIRECTORY |
				    O_CLOEXEC);
			if (fd < 0 && errno == ENOENT) {
				/*
				 * As procps: nothing shares the namespaces of
				 * no process, so nothing matches (exit 1);
				 * unlike procps we say why.  No inode is ~0.
				 */
				warnx("--ns %s: no such process", name);
				memset(f->ns_ref, 0xff, sizeof(f->ns_ref));
			} else if (fd < 0 || pfk_read_ns(fd, f->ns_ref) < 0) {
				errx(EXIT_FATAL, "Error reading reference "
				     "namespace information");
			}
			if (fd >= 0)
				close(fd);
			f->ns_given = true;
			ctl->criteria++;
			break;
		}
		case OPT_NSLIST:
			f->ns_mask = 0;
			parse_list(ctl, L_NS, optarg, NULL);
			break;
		case OPT_SIGNAL:
			ctl->sig = parse_signal_or_die(optarg);
			ctl->sig_given = 1;
			break;
		case OPT_LIST: ctl->mode = MODE_LIST; break;
		case OPT_INCLUDE_ANCESTORS: ctl->include_ancestors = 1; break;
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
		case OPT_THREAD: ctl->scope = PFK_SCOPE_THREAD; break;
		case OPT_SCOPE:
			if (strcmp(optarg, "process") == 0)
				ctl->scope = PFK_SCOPE_PROCESS;
			else if (strcmp(optarg, "thread") == 0)
				ctl->scope = PFK_SCOPE_THREAD;
			else if (strcmp(optarg, "pgroup") == 0)
				ctl->scope = PFK_SCOPE_PGROUP;
			else
				bad_usage("invalid scope: %s (process, thread "
					  "or pgroup)", optarg);
			break;
		case OPT_JSON: ctl->json = 1; break;
		case OPT_QUIET: ctl->quiet = 1; break;
		case OPT_FORMAT:
			ctl->identity = strcmp(optarg, "pid:starttime") == 0;
			ctl->identity_ino = strcmp(optarg, "pid:inode") == 0;
			if (!ctl->identity && !ctl->identity_ino &&
			    strcmp(optarg, "pid") != 0)
				bad_usage("invalid format: %s (pid, pid:inode "
					  "or pid:starttime)", optarg);
			break;
		case 'h': usage(ctl, false);
		case 'V':
			print_version();
			exit(EXIT_MATCH);
		default:
			usage(ctl, true);	/* getopt said what was wrong */
		}
	}

	if (ctl->lock && !ctl->pidfile)
		errx(EXIT_USAGE, "-L without -F makes no sense\nTry `%s --help' "
		     "for more information.", program_invocation_short_name);
	if (ctl->pidfile) {
		if (f->pid.n || f->ident_pid.n)
			errx(EXIT_NOMATCH, "Cannot use pidfile and pid option "
			     "together\nTry `%s --help' for more information.",
			     program_invocation_short_name);
		read_pidfile(ctl);
	}
	if (argc - optind == 1)
		ctl->pattern = argv[optind];
	else if (argc - optind > 1)
		errx(EXIT_USAGE, "only one pattern can be provided\nTry `%s "
		     "--help' for more information.",
		     program_invocation_short_name);
	else if (ctl->criteria == 0)
		errx(EXIT_USAGE, "no matching criteria specified\nTry `%s "
		     "--help' for more information.",
		     program_invocation_short_name);

	if (ctl->has_then && !ctl->has_timeout)
		bad_usage("--then needs --timeout");
	/*
	 * procps 4.0.7: --quiet in every mode; it silences only a listing's
	 * pids (-c and -e still print), and a listing's -a or -l refuse it.
	 */
	if (ctl->quiet && (ctl->list_full || ctl->list_name))
		errx(EXIT_USAGE, "Cannot use --quiet and %s options together\n"
		     "Try `%s --help' for more information.", ctl->list_full ?
		     "-a,--list-full" : "-l,--list-name",
		     program_invocation_short_name);
	/* A pidfd (and its inode) is a process's, not one thread's. */
	if (ctl->identity_ino && (f->threads || ctl->scope == PFK_SCOPE_THREAD))
		bad_usage("--format pid:inode names processes, not threads "
			  "(-w, --thread)");
	/*
	 * -p PID:N is a start time unless --format pid:inode says it is an
	 * inode: the two look alike, and 0.2 read them as start times.
	 */
	f->ident_ino = f->want_ino = ctl->identity_ino;
	if (f->ident_ino)
		for (size_t k = 0; k < f->ident_pid.n; k++)
			if (f->ident_val[k] == 0)
				bad_usage("invalid inode: %lu:0 (no pidfd has "
					  "inode 0)", f->ident_pid.v[k]);
	/* The kernel releases only the memory of a process being killed. */
	if (ctl->mrelease && (ctl->sig != SIGKILL || ctl->scope != PFK_SCOPE_PROCESS))
		bad_usage("-m needs SIGKILL sent to processes");
	if (ctl->mode == MODE_LIST && (ctl->wait || ctl->scope == PFK_SCOPE_PGROUP))
		bad_usage("--wait, --timeout and --scope pgroup are for "
			  "pfkill, not for listing");
	/*
	 * procps shares one table of long options among its three modes:
	 * pidwait takes --queue N and sends nothing, and so do we.
	 */
	if (ctl->mode == MODE_WAIT && (ctl->has_then ||
				       ctl->scope != PFK_SCOPE_PROCESS))
		bad_usage("--then and --scope are for pfkill, not for waiting");
	if (ctl->scope == PFK_SCOPE_PGROUP && f->threads)
		bad_usage("--scope pgroup and -w exclude each other");
	/* -H with signal 0: no process has a handler for it (as 4.0.7). */
	if (ctl->require_handler)
		f->handler_sig = ctl->sig ? ctl->sig : PFK_NO_HANDLER;
	if (ctl->scope == PFK_SCOPE_THREAD)
		f->threads = true;
	else if (f->threads && ctl->mode != MODE_LIST)
		f->thread_tgid_fd = true;	/* -w: the process stands for it */
	f->path_dirs = ctl->mode == MODE_LIST;
	/* -U, -G: the ids by pidfd (procmatch.c), where it can. */
	f->ids_by_pidfd = (f->ruid.n || f->rgid.n) && ctl->feat.pidfd_info &&
			  pfk_procfs_is_ours(f->proc_fd);
	/*
	 * A listing that needs no file but stat and cmdline, nor a handle
	 * (--format pid:inode), opens those two by path (match_path()).
	 * -H of a signal up to 31 is read from stat, -U and -G by pidfd.
	 */
	f->by_path = ctl->mode == MODE_LIST && !f->threads && !f->want_ino &&
		     !f->ident_pid.n && !f->ns_given && !f->cgroup.n &&
		     !f->env.n && f->handler_sig <= PFK_STAT_SIGS &&
		     (f->ids_by_pidfd || (!f->ruid.n && !f->rgid.n));
	/* Listing holds no thread handle: /proc/<pid> serves for one thread. */
	f->one_thread_stat = f->threads && ctl->mode == MODE_LIST;
	/* Listing and waiting cannot hurt an ancestor: as procps, keep them. */
	f->include_ancestors = ctl->mode != MODE_KILL || ctl->include_ancestors;
	if (ctl->ignore_ancestors)
		f->include_ancestors = false;
	f->drop_ancestors = ctl->ignore_ancestors;
	/*
	 * -e shows the name, or with --list-full the command line; so does
	 * --json.  -Q quotes for a shell: JSON has its own quoting.
	 */
	f->keep_cmdline = ctl->list_full && (ctl->mode == MODE_LIST ?
			  !ctl->count : ctl->echo || ctl->json);
	f->keep_argv = f->keep_cmdline && ctl->shell_quote && !ctl->json;
	/*
	 * -f, -c and -a need nothing of a matching process but its command
	 * line: stat (pid's name, start time, group, state) is left unread
	 * unless a filter (-H too), a pick or the output asks for it.
	 */
	f->argv_only = ctl->mode == MODE_LIST && f->full && !f->negate &&
		       !ctl->list_name && !ctl->json && !ctl->identity &&
		       !ctl->identity_ino &&
		       f->pick == PFK_PICK_ALL && !f->pgrp.n &&
		       !f->session.n && !f->tty_given && !f->runstates &&
		       !f->older && !f->ident_pid.n && !f->handler_sig;
	/*
	 * -P too, where a pidfd tells the parent (as ids_by_pidfd the ids):
	 * that costs half of what opening and reading stat does.
	 */
	f->ppid_by_pidfd = f->argv_only && f->ppid.n && !f->threads &&
			   ctl->feat.pidfd_info &&
			   (f->ids_by_pidfd || pfk_procfs_is_ours(f->proc_fd));
	if (f->ppid.n && !f->ppid_by_pidfd)
		f->argv_only = false;
	/* Listing holds nothing past a batch: close its fds all at once. */
	f->defer_close = ctl->mode == MODE_LIST;

	if (ctl->pattern) {
		int flags = REG_EXTENDED | REG_NOSUB | (ctl->icase ? REG_ICASE : 0);
		char *re = NULL;
		int r;

		if (ctl->exact && asprintf(&re, "^(%s)$", ctl->pattern) < 0)
			err(EXIT_FATAL, "out of memory");
		r = regcomp(&f->pattern, re ? re : ctl->pattern, flags);
		if (r) {
			char msg[256];

			regerror(r, &f->pattern, msg, sizeof(msg));
			errx(EXIT_USAGE, "regex error: %s", msg);
		}
		f->has_pattern = true;
		free(re);
	}
}

/* Fail before touching anything when the kernel lacks what we need. */
static void require_features(const struct pfkill_ctl *ctl)
{
	const struct pfk_features *f = &ctl->feat;

	/*
	 * Without pidfs every pidfd has the same inode number: refuse
	 * rather than print or check a number that names nothing.
	 */
	if (ctl->identity_ino && !f->pidfs)
		errx(EXIT_FATAL, "--format pid:inode needs pidfs (Linux 6.9): "
		     "no PID:INODE names a process on this kernel");
	/*
	 * 0.2's hand-off still works, but where PID:INODE would name the
	 * process exactly, say that this is no longer the safe way.
	 */
	if (ctl->filter.ident_pid.n && !ctl->identity_ino && f->pidfs)
		warnx("-p PID:N is read as PID:STARTTIME, which cannot tell "
		      "apart two processes that had the PID in one clock "
		      "tick; use --format pid:inode");
	if (ctl->mode == MODE_WAIT && !f->pidfd_open)
		errx(EXIT_FATAL, "waiting needs pidfd_open() (Linux 5.3)");
	if (ctl->mode != MODE_KILL)
		return;
	if (!f->procfd_signal)
		errx(EXIT_FATAL, "signaling needs pidfd_send_signal() on "
		     "/proc/<pid> fds (Linux 5.1)");
	if (ctl->wait && !f->pidfd_open)
		errx(EXIT_FATAL, "--wait needs pidfd_open() (Linux 5.3)");
	if (ctl->mrelease && !(f->pidfd_open && f->mrelease))
		errx(EXIT_FATAL, "-m needs process_mrelease() (Linux 5.15)");
	if (ctl->scope == PFK_SCOPE_THREAD && !f->taskfd_signal &&
	    !f->pidfd_thread)
		errx(EXIT_FATAL, "--thread needs thread handles "
		     "(PIDFD_THREAD or /proc/<pid>/task/<tid> fds)");
	if (ctl->scope == PFK_SCOPE_THREAD && ctl->wait && !f->pidfd_thread)
		errx(EXIT_FATAL, "--thread --wait needs PIDFD_THREAD");
	if (ctl->scope == PFK_SCOPE_PGROUP && !f->signal_flags)
		errx(EXIT_FATAL, "--scope pgroup needs PIDFD_SIGNAL_PROCESS_GROUP");
}

/*
 * pidfd_open() takes a pid of our own pid namespace.  A /proc mounted for
 * another (a container's seen from the host, or the host's from inside a
 * container) numbers processes its own way, and a pidfd opened by one of
 * its numbers would be some other process's, or none.  What needs such a
 * pidfd is refused there, before anything is read or signaled; the rest
 * acts through /proc's own handles, which name the process they hold.
 * (-U and -G read status there instead: see ids_by_pidfd.)
 */
static void require_own_pidns(const struct pfkill_ctl *ctl)
{
	const char *what = NULL;

	if (ctl->mode == MODE_WAIT)
		what = "waiting";
	else if (ctl->wait)
		what = "--wait";
	else if (ctl->mrelease)
		what = "-m";
	else if (ctl->filter.want_ino)
		what = "--format pid:inode";
	else if (ctl->scope == PFK_SCOPE_THREAD && !ctl->feat.taskfd_signal)
		what = "--thread";
	if (what && !pfk_procfs_is_ours(ctl->filter.proc_fd))
		errx(EXIT_FATAL, "%s needs pidfds, which take the pids of our "
		     "own pid namespace: /proc is another's", what);
}

/*
 * Fds free below the soft limit.  The limit alone overstates it for a
 * caller that hands us hundreds (a daemon, a shell with redirections), so
 * count those open: in /proc/self/fd, or failing that by asking each.
 */
static long free_fds(long limit)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	long used = 0;

	if (!d) {
		for (long fd = 0; fd < limit && fd < 65536; fd++)
			used += fcntl(fd, F_GETFD) >= 0;
		return limit - used;
	}
	while ((de = readdir(d)) != NULL)
		if (isdigit((unsigned char)de->d_name[0]) &&
		    atol(de->d_name) < limit && atol(de->d_name) != dirfd(d))
			used++;
	closedir(d);
	return limit > used ? limit - used : 0;
}

/*
 * What a batch leaves free: the scan's own fds (/proc, a candidate's
 * directory and the file read from it, a task directory) and the signal
 * step's passing ones (a stat read to check a pidfd, a group leader).
 */
#define FD_RESERVE 8

/*
 * Hold as many handles as we can: raise the soft fd limit to the hard one
 * and size a batch to what is free of it, less FD_RESERVE.  Each handle
 * may need a second fd (pidfd for --wait/--thread, leader fd for
 * --pgroup).  A batch that still runs out is cut short by the scan and
 * the candidate retried (pfk_scan_next()).
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
	open_max = free_fds(open_max) - FD_RESERVE;
	/*
	 * Listing holds nothing past the print: a small batch keeps the
	 * process table out of our memory and our fd table small.
	 */
	if (ctl->mode == MODE_LIST)
		return open_max > 256 ? 256 : open_max > 0 ? (size_t)open_max : 1;
	if (ctl->mode == MODE_WAIT)
		per_handle += 1 + ctl->filter.thread_tgid_fd;
	else if (ctl->mode == MODE_KILL)
		per_handle += (ctl->wait || ctl->mrelease ||
			       ctl->filter.want_ino) +
			      (ctl->scope != PFK_SCOPE_PROCESS) +
			      ctl->filter.thread_tgid_fd;
	open_max /= per_handle;
	return open_max > 0 ? (size_t)open_max : 1;
}

/*
 * Standard output that could not be written is an error, as procps's
 * close_stdout() makes it there: each print notes the first write error
 * (its errno, which the stream forgets) and the end says it.
 */
static int out_errno;
static bool out_closed;

static void out_check(void)
{
	if (!out_errno && ferror(stdout))
		out_errno = errno ? errno : EIO;
}

static void out_flush(void)
{
	if (fflush(stdout) != 0 && !out_errno)
		out_errno = errno;
	out_check();
}

/*
 * Close stdout: true, having said "write error: <why>", when something
 * could not be written (a full disk, a closed descriptor); a reader that
 * went away (EPIPE) is no error, as there.
 */
static bool out_close(void)
{
	bool pending = __fpending(stdout) != 0, failed = ferror(stdout);
	int e = out_errno;

	out_closed = true;
	errno = 0;
	if (fclose(stdout) != 0 && (failed || pending || errno != EBADF)) {
		failed = true;
		e = errno;
	}
	if (!failed || e == EPIPE)
		return false;
	errno = e;
	if (e)
		warn("write error");
	else
		warnx("write error");
	return true;
}

/* What exit() leaves to us (--help, --version, a fatal error): exit 1. */
static void out_close_at_exit(void)
{
	if (!out_closed && out_close())
		_exit(EXIT_NOMATCH);
}

/*
 * A standard descriptor closed by the caller would be the next one we
 * open (/proc, a process's directory): hold each with /dev/null, stdout
 * read-only so that writing to it fails (EBADF) and is reported.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
		if (n != fd)
			exit(EXIT_FATAL);	/* cannot even say so */
	}
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

/*
 * How a process ended, where the kernel told (PIDFD_INFO_EXIT):
 * {"exited":true,"code":N} or
 * {"exited":false,"signo":N,"signal":"NAME","core":BOOL}, "signal" only
 * where the number has a name.
 */
static void json_status(int st)
{
	const char *name;

	if (WIFEXITED(st)) {
		printf(",\"status\":{\"exited\":true,\"code\":%d}",
		       WEXITSTATUS(st));
		return;
	}
	if (!WIFSIGNALED(st))
		return;
	printf(",\"status\":{\"exited\":false,\"signo\":%d", WTERMSIG(st));
	name = pfk_signal_name(WTERMSIG(st));
	if (name)
		printf(",\"signal\":\"%s\"", name);
	printf(",\"core\":%s}", WCOREDUMP(st) ? "true" : "false");
}

/*
 * JSON Lines: an object per process, with what the plain output would
 * show (--format pid:starttime or pid:inode, -a), or with -c the count
 * alone.
 */
static void print_json(const struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	printf("{\"pid\":%d,\"name\":", (int)p->pid);
	json_string(pfk_proc_name(p));
	printf(",\"result\":\"%s\"", pfk_result_name(p->result));
	if (ctl->identity)
		printf(",\"starttime\":%llu", p->starttime);
	if (pfk_proc_ino(p))
		printf(",\"inode\":%llu", pfk_proc_ino(p));
	if (ctl->list_full && pfk_proc_cmdline(p)) {
		fputs(",\"cmdline\":", stdout);
		json_string(pfk_proc_cmdline(p));
	}
	/* With --then: was the second signal sent (result tells the end)? */
	if (ctl->has_then)
		printf(",\"escalated\":%s", p->escalated ? "true" : "false");
	if (p->has_status)
		json_status(p->exit_status);
	puts("}");
	out_check();
}

/* -Q: procps 4.0.5's shell quoting; controls are '?' (never a new line). */
static bool shell_safe(const char *t)
{
	if (!*t)
		return false;
	for (; *t; t++)
		if (!isalnum((unsigned char)*t) && !strchr("_@%+:,./-", *t))
			return false;
	return true;
}

static void put_quoted(const char *t, size_t len)
{
	char *tok = strndup(t, len);

	if (!tok)
		err(EXIT_FATAL, "out of memory");
	pfk_escape(tok, strlen(tok));
	if (shell_safe(tok)) {
		fputs(tok, stdout);
	} else {
		putchar('\'');
		for (const char *c = tok; *c; c++)
			if (*c == '\'')
				fputs("'\\''", stdout);
			else
				putchar(*c);
		putchar('\'');
	}
	free(tok);
}

/* argv split as procps 4.0.7's vector: at NULs and newlines. */
static void put_quoted_argv(const struct pfk_proc *p)
{
	const char *s = p->x->cmdline, *end = s + p->x->argv_len;
	bool first = true;

	/* The last NUL ends the last argument: empty ones before it stay. */
	if (end > s && end[-1] == '\0')
		end--;
	/* No argument at all (a zombie, a kernel thread): "-", as 4.0.7. */
	if (s == end) {
		putchar('-');
		return;
	}
	while (s < end) {
		size_t len = 0;

		while (s + len < end && s[len] && s[len] != '\n')
			len++;
		if (!first)
			putchar(' ');
		first = false;
		put_quoted(s, len);
		s += len + 1;
	}
}

/* What -l, -a and -e show after the pid: name or command line. */
static void put_text(const struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	if (ctl->list_full && pfk_proc_cmdline(p) && ctl->shell_quote)
		put_quoted_argv(p);
	else if (ctl->list_full && pfk_proc_cmdline(p))
		fputs(pfk_proc_cmdline(p), stdout);
	else if (ctl->shell_quote)
		put_quoted(pfk_proc_name(p), strlen(pfk_proc_name(p)));
	else
		fputs(pfk_proc_name(p), stdout);
}

/* -c: pkill counts what matched, not what it could signal. */
static void print_count(struct pfkill_ctl *ctl)
{
	if (ctl->json)
		printf("{\"count\":%zu}\n", ctl->matched);
	else
		printf("%zu\n", ctl->matched);
	ctl->count_printed = true;
	out_check();
}

static void list_one(struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	if (ctl->count || ctl->quiet)
		return;
	if (ctl->json) {
		print_json(ctl, p);
		return;
	}
	if (ctl->printed)
		fputs(ctl->delim, stdout);
	ctl->printed = true;
	printf("%d", (int)p->pid);
	if (ctl->identity)
		printf(":%llu", p->starttime);
	else if (ctl->identity_ino)
		printf(":%llu", pfk_proc_ino(p));
	if (ctl->list_name || ctl->list_full) {
		putchar(' ');
		put_text(ctl, p);
	}
	out_check();
}

/* As pkill: a process that is gone is no error, others are warned about. */
static void report_signal(struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	switch (p->result) {
	case PFK_SIGNALED:
		ctl->signaled++;
		if (ctl->echo && !ctl->json) {
			put_text(ctl, p);
			printf(" killed (pid %d)\n", (int)p->pid);
			out_check();
		}
		break;
	case PFK_GONE:
		break;
	default:
		errno = p->err;
		warn("killing pid %d failed", (int)p->pid);
		if (pfk_resource_error(p->err))
			ctl->resource_failed = true;
	}
}

/*
 * A process pfk_wait() could not hold a pidfd for: not seen to exit,
 * and for want of fds or memory, no answer at all (exit 3).
 */
static void report_wait_failed(struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	if (!p->wait_failed)
		return;
	errno = p->err;
	warn("waiting for pid %d failed", (int)p->pid);
	if (pfk_resource_error(p->err))
		ctl->resource_failed = true;
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
			  size_t n, int sig, siginfo_t *info)
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
			if (pfk_signal_info(order[j], sig, info,
					    PFK_SCOPE_PGROUP, &ctl->feat) !=
			    PFK_GONE)
				done = order[j];
		}
		i = j;
	}
	free(order);
}

/* --then: the second signal, said with -e (what else would show it?). */
static void escalate(struct pfkill_ctl *ctl, struct pfk_proc *p)
{
	const char *name = pfk_signal_name(ctl->then_sig);

	if (pfk_signal(p, ctl->then_sig, ctl->scope, &ctl->feat) !=
	    PFK_ESCALATED)
		return;
	p->escalated = true;
	if (!ctl->echo || ctl->json)
		return;
	put_text(ctl, p);
	if (name)
		printf(" escalated to SIG%s (pid %d)\n", name, (int)p->pid);
	else
		printf(" escalated to signal %d (pid %d)\n", ctl->then_sig,
		       (int)p->pid);
	out_flush();
}

/*
 * -e after waiting: how each process that we saw exit ended, where the
 * kernel keeps it (PIDFD_INFO_EXIT); without it, nothing, as before.
 */
static void echo_status(const struct pfkill_ctl *ctl, const struct pfk_proc *p)
{
	int st = p->exit_status;
	const char *name;

	if (!ctl->echo || ctl->json || !p->has_status || p->result != PFK_EXITED)
		return;
	if (WIFEXITED(st)) {
		put_text(ctl, p);
		printf(" exited, status %d (pid %d)\n", WEXITSTATUS(st),
		       (int)p->pid);
	} else if (WIFSIGNALED(st)) {
		put_text(ctl, p);
		name = pfk_signal_name(WTERMSIG(st));
		if (name)
			printf(" killed by SIG%s", name);
		else
			printf(" killed by signal %d", WTERMSIG(st));
		printf("%s (pid %d)\n", WCOREDUMP(st) ? ", core dumped" : "",
		       (int)p->pid);
	}
	out_check();
}

static void kill_batch(struct pfkill_ctl *ctl, struct pfk_proc *procs,
		       size_t n)
{
	size_t left = 0;

	siginfo_t info, *ip = NULL;

	if (ctl->queue) {
		/* -q: what sigqueue() would send, through the handle. */
		memset(&info, 0, sizeof(info));
		info.si_signo = ctl->sig;
		info.si_code = SI_QUEUE;
		info.si_pid = getpid();
		info.si_uid = getuid();
		info.si_value.sival_int = ctl->queue_value;
		ip = &info;
	}
	/*
	 * --wait with PIDFD_GET_INFO: hold each pidfd before the signal, as
	 * the kernel records an exit status only for a process that has one
	 * when its parent reaps it, which may be at once.  A process already
	 * gone is left to the signal step to find.
	 */
	if (ctl->wait && ctl->feat.pidfd_info &&
	    ctl->scope != PFK_SCOPE_THREAD)
		for (size_t i = 0; i < n; i++)
			pfk_open_pidfd(&procs[i], ctl->scope);
	if (ctl->scope == PFK_SCOPE_PGROUP)
		signal_groups(ctl, procs, n, ctl->sig, ip);
	else
		for (size_t i = 0; i < n; i++)
			pfk_signal_info(&procs[i], ctl->sig, ip, ctl->scope,
					&ctl->feat);
	for (size_t i = 0; i < n; i++)
		report_signal(ctl, &procs[i]);
	out_flush();
	/* -m: as procps 4.0.6, each killed process's memory, now. */
	for (size_t i = 0; ctl->mrelease && i < n; i++) {
		if (procs[i].result != PFK_SIGNALED ||
		    pfk_mrelease(&procs[i]) == 0 || errno == ESRCH)
			continue;
		warn("pid %d killed, but process_mrelease failed",
		     (int)procs[i].pid);
		ctl->mrelease_failed = true;
	}

	if (ctl->wait) {
		long t = ctl->has_timeout ? ctl->timeout_ms : -1;

		left = pfk_wait(procs, n, t, ctl->scope, &ctl->feat);
		if (left && ctl->has_then) {
			/* Only the survivors, through the same handles. */
			for (size_t i = 0; i < n; i++)
				if (procs[i].result == PFK_SIGNALED)
					escalate(ctl, &procs[i]);
			left = pfk_wait(procs, n, t, ctl->scope, &ctl->feat);
		}
		for (size_t i = 0; i < n; i++) {
			if (procs[i].result == PFK_SIGNALED ||
			    procs[i].result == PFK_ESCALATED) {
				procs[i].result = PFK_ALIVE;
				ctl->alive++;
				warnx("pid %d (%s) is still running",
				      (int)procs[i].pid, pfk_proc_name(&procs[i]));
			}
			report_wait_failed(ctl, &procs[i]);
			echo_status(ctl, &procs[i]);
		}
	}
	if (ctl->json)
		for (size_t i = 0; i < n; i++)
			print_json(ctl, &procs[i]);
}

/*
 * pfwait/pidwait: wait until the matches have exited.  Each is held by
 * its /proc directory fd since it matched, and its pidfd is checked
 * against that fd, so a process that exits meanwhile is not mistaken for
 * a newcomer with its PID.  As pidwait: the count first, then the names.
 */
static void wait_batch(struct pfkill_ctl *ctl, struct pfk_proc *procs,
		       size_t n, bool last)
{
	long t = ctl->has_timeout ? ctl->timeout_ms : -1;

	if (ctl->count && last)
		print_count(ctl);
	/*
	 * The pidfds first: what we say we wait for is held from then on,
	 * and the kernel keeps an exit status only for a process that has
	 * a pidfd when it is reaped.  One gone already is found by
	 * pfk_wait().
	 */
	for (size_t i = 0; i < n; i++)
		pfk_open_pidfd(&procs[i], PFK_SCOPE_PROCESS);
	for (size_t i = 0; ctl->echo && !ctl->json && i < n; i++) {
		fputs("waiting for ", stdout);
		put_text(ctl, &procs[i]);
		printf(" (pid %d)\n", (int)procs[i].pid);
	}
	out_flush();
	pfk_wait(procs, n, t, PFK_SCOPE_PROCESS, &ctl->feat);
	for (size_t i = 0; i < n; i++) {
		if (procs[i].result == PFK_EXITED) {
			ctl->signaled++;	/* here: seen to exit */
		} else if (procs[i].result == PFK_MATCHED) {
			procs[i].result = PFK_ALIVE;
			ctl->alive++;
		} else {
			report_wait_failed(ctl, &procs[i]);
		}
		echo_status(ctl, &procs[i]);
		if (ctl->json)
			print_json(ctl, &procs[i]);
	}
}

/*
 * procps warns when a name pattern cannot match a 15-byte comm: 4.0.7
 * (since 4.0.3) for one longer than that with no '|' or '[' in it.
 */
static bool long_name_pattern(const char *p)
{
	return p && strlen(p) > 15 && !strpbrk(p, "|[");
}

/*
 * Each batch as the scan hands it out, up to max handles: listed, waited
 * for or signaled before the next.  The last pfk_scan_next() result.
 */
static ssize_t scan_batches(struct pfkill_ctl *ctl, struct pfk_scan *scan,
			    size_t max)
{
	struct pfk_proc *procs = calloc(max, sizeof(*procs));
	ssize_t n;

	if (!procs)
		err(EXIT_FATAL, "out of memory");
	while ((n = pfk_scan_next(scan, procs, max)) > 0) {
		ctl->matched += n;
		if (ctl->mode == MODE_LIST)
			for (ssize_t i = 0; i < n; i++)
				list_one(ctl, &procs[i]);
		else if (!pfk_scan_done(scan))
			pfk_scan_settle(scan);	/* the snapshot: see pfk.h */
		if (ctl->mode == MODE_WAIT)
			wait_batch(ctl, procs, n, pfk_scan_done(scan));
		else if (ctl->mode == MODE_KILL)
			kill_batch(ctl, procs, n);
		pfk_scan_release(scan, procs, n);
	}
	free(procs);
	return n;
}

/*
 * Kill mode without -e, --json, --wait, -m, --scope, -w or --format
 * pid:inode needs nothing of a match, once the scan has taken it, but
 * its handle, and its pid for a warning.  It keeps those 8 bytes, not
 * the 64 of a record, until the scan is done and then signals them all,
 * as pkill does (issue 48: peak RSS at thousands of matches).
 */
struct held_match {
	int dirfd;
	pid_t pid;
};

static bool holds_handles_only(const struct pfkill_ctl *ctl)
{
	const struct pfk_filter *f = &ctl->filter;

	return ctl->mode == MODE_KILL && !ctl->echo && !ctl->json &&
	       !ctl->wait && !ctl->mrelease &&
	       ctl->scope == PFK_SCOPE_PROCESS && !f->threads && !f->want_ino;
}

/* Signal the n held matches, as records again, chunk at a time. */
static void kill_held(struct pfkill_ctl *ctl, struct pfk_scan *scan,
		      const struct held_match *held, size_t n,
		      struct pfk_proc *procs, size_t chunk)
{
	for (size_t i = 0; i < n; ) {
		size_t k;

		for (k = 0; k < chunk && i < n; k++, i++)
			procs[k] = (struct pfk_proc){
				.dirfd = held[i].dirfd, .pidfd = -1,
				.tgid_fd = -1, .pid = held[i].pid,
				.tgid = held[i].pid, .result = PFK_MATCHED,
			};
		kill_batch(ctl, procs, k);
		pfk_scan_release(scan, procs, k);
	}
}

/* Records in use at once while the scan runs, or while signaling. */
#define HELD_CHUNK 256

/*
 * Plain kill mode: the scan's batches go into a small array of records,
 * and what signaling needs of each match into held[].  Up to max handles
 * are held (then, or when the scan runs short of fds, they are signaled
 * before it goes on, as scan_batches() does with a batch).  The last
 * pfk_scan_next() result.
 */
static ssize_t scan_held(struct pfkill_ctl *ctl, struct pfk_scan *scan,
			 size_t max)
{
	size_t chunk = max < HELD_CHUNK ? max : HELD_CHUNK, nheld = 0;
	struct held_match *held = malloc(max * sizeof(*held));
	struct pfk_proc *procs = calloc(chunk, sizeof(*procs));
	ssize_t n = 0;

	if (!held || !procs)
		err(EXIT_FATAL, "out of memory");
	while (!pfk_scan_done(scan)) {
		size_t want = chunk < max - nheld ? chunk : max - nheld;

		n = pfk_scan_next(scan, procs, want);
		if (n < 0)
			break;
		ctl->matched += n;
		for (ssize_t i = 0; i < n; i++) {
			held[nheld++] = (struct held_match){ procs[i].dirfd,
							     procs[i].pid };
			procs[i].dirfd = -1;
		}
		pfk_scan_release(scan, procs, n);
		pfk_scan_hold(scan, nheld);
		/* Room for no more, or a batch cut short: out of fds. */
		if (!pfk_scan_done(scan) && nheld < max && (size_t)n == want)
			continue;
		if (!pfk_scan_done(scan))
			pfk_scan_settle(scan);	/* the snapshot: see pfk.h */
		kill_held(ctl, scan, held, nheld, procs, chunk);
		nheld = 0;
		pfk_scan_hold(scan, 0);
	}
	/* A walk that failed midway: what it found is signaled, as there. */
	kill_held(ctl, scan, held, nheld, procs, chunk);
	free(procs);
	free(held);
	return n;
}

static int run(struct pfkill_ctl *ctl)
{
	size_t max = batch_size(ctl);
	struct pfk_scan *scan;
	size_t unexamined;
	ssize_t n;
	int why;

	scan = pfk_scan_open(&ctl->filter);
	if (!scan)
		err(EXIT_FATAL, "cannot read /proc");
	if (holds_handles_only(ctl))
		n = scan_held(ctl, scan, max);
	else
		n = scan_batches(ctl, scan, max);
	if (n < 0)
		err(EXIT_FATAL, "reading /proc");
	ctl->ancestor_hits = pfk_scan_ancestor_hits(scan);
	unexamined = pfk_scan_unexamined(scan, &why);
	pfk_scan_close(scan);

	if (ctl->printed)
		putchar('\n');
	if (ctl->count && !ctl->count_printed)
		print_count(ctl);
	out_flush();
	if (!ctl->matched && !ctl->filter.full && long_name_pattern(ctl->pattern))
		warnx("pattern that searches for process name longer than 15 "
		      "characters will result in zero matches\nTry `%s -f' "
		      "option to match against the complete command line.",
		      program_invocation_short_name);

	/*
	 * Complete or fail: a candidate we could not look at, for want of
	 * fds or memory even after releasing the batch, may have matched.
	 */
	if (unexamined)
		warnx("%zu processes not examined: %s; the result is incomplete",
		      unexamined, strerror(why));
	if (unexamined || ctl->resource_failed)
		return EXIT_FATAL;
	if (ctl->mode == MODE_LIST)
		return ctl->matched ? EXIT_MATCH : EXIT_NOMATCH;
	if (ctl->mode == MODE_WAIT)
		return ctl->signaled && !ctl->alive ? EXIT_MATCH : EXIT_NOMATCH;
	if (!ctl->matched && ctl->ancestor_hits && !ctl->ignore_ancestors)
		warnx("only ancestors of this pfkill matched (%zu), none "
		      "signaled; --include-ancestors would signal them",
		      ctl->ancestor_hits);
	if (!ctl->signaled || ctl->alive || ctl->mrelease_failed)
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

	hold_std_fds();
	atexit(out_close_at_exit);
	setlocale(LC_ALL, "");
	ctl.mode = mode_of(program_invocation_short_name);

	proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		err(EXIT_FATAL, "cannot open /proc");
	pfk_filter_init(&ctl.filter, proc_fd);
	/* Before the options: which way a filter reads depends on it. */
	pfk_probe_features(&ctl.feat);
	parse_args(&ctl, argc, argv);
	require_features(&ctl);
	require_own_pidns(&ctl);

	ret = run(&ctl);
	pfk_filter_free(&ctl.filter);
	close(proc_fd);
	/* A write error is exit 1, as procps's, unless the run was fatal. */
	if (out_close() && ret != EXIT_FATAL)
		ret = EXIT_NOMATCH;
	return ret;
}
