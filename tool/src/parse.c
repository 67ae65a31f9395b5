// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - turn command-line words into numbers: signals, ids, users,
 * groups, terminals, durations.  Every function rejects trailing junk and
 * overflow instead of wrapping, so a typo never widens a match.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "pfk.h"

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{ "HUP", SIGHUP },	{ "INT", SIGINT },	{ "QUIT", SIGQUIT },
	{ "ILL", SIGILL },	{ "TRAP", SIGTRAP },	{ "ABRT", SIGABRT },
	{ "IOT", SIGIOT },	{ "BUS", SIGBUS },	{ "FPE", SIGFPE },
	{ "KILL", SIGKILL },	{ "USR1", SIGUSR1 },	{ "SEGV", SIGSEGV },
	{ "USR2", SIGUSR2 },	{ "PIPE", SIGPIPE },	{ "ALRM", SIGALRM },
	{ "TERM", SIGTERM },	{ "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD },
	{ "CLD", SIGCHLD },	{ "CONT", SIGCONT },	{ "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP },	{ "TTIN", SIGTTIN },	{ "TTOU", SIGTTOU },
	{ "URG", SIGURG },	{ "XCPU", SIGXCPU },	{ "XFSZ", SIGXFSZ },
	{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },	{ "WINCH", SIGWINCH },
	{ "IO", SIGIO },	{ "POLL", SIGPOLL },	{ "PWR", SIGPWR },
	{ "SYS", SIGSYS },
};

int pfk_parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Digits only, leading digit required (strtoull would take "-1", " 1"). */
static int parse_ull(const char *s, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int pfk_parse_ident(const char *s, unsigned long *pid, unsigned long long *n)
{
	const char *colon = strchr(s, ':');
	unsigned long long v;
	char head[24];

	if (!colon || (size_t)(colon - s) >= sizeof(head))
		return -1;
	memcpy(head, s, colon - s);
	head[colon - s] = '\0';
	if (parse_ull(head, &v) < 0 || v < 1 || v > INT_MAX ||
	    parse_ull(colon + 1, n) < 0)
		return -1;
	*pid = v;
	return 0;
}

/*
 * procps's rules: an optional "SIG" prefix, names in any case (CLD, IO, IOT,
 * EXIT and NULL included), RTMIN, RTMIN+N, or a number strtol() takes as a
 * whole; anything with a value up to 127 - SIGRTMIN counts.  RTMAX and
 * RTMAX-N as procps 4.0.5 takes them.  Range checking is
 * pfk_parse_signal()'s business.
 */
int pfk_signal_word(const char *s)
{
	int offset = 0;
	long v;
	char *end;

	if (!s)
		return -1;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	if (strcasecmp(s, "CLD") == 0)
		return SIGCHLD;
	if (strcasecmp(s, "IO") == 0)
		return SIGIO;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (strcasecmp(s, signals[i].name) == 0)
			return signals[i].sig;
	if (strcasecmp(s, "RTMIN") == 0)
		return SIGRTMIN;
	if (strcasecmp(s, "RTMAX") == 0)
		return SIGRTMAX;
	if (strcasecmp(s, "EXIT") == 0 || strcasecmp(s, "NULL") == 0)
		return 0;
	if (strncasecmp(s, "RTMIN+", 6) == 0) {
		s += 6;
		offset = SIGRTMIN;
	} else if (strncasecmp(s, "RTMAX-", 6) == 0) {
		unsigned long n;

		if (pfk_parse_ulong(s + 6, SIGRTMAX - SIGRTMIN, &n))
			return -1;
		return SIGRTMAX - (int)n;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || end == s || errno || v > 127 - SIGRTMIN || v < -1000)
		return -1;
	v += offset;
	return v < 0 ? -1 : (int)v;
}

/* A signal we can send: what procps takes, within 0..SIGRTMAX. */
int pfk_parse_signal(const char *s)
{
	int sig = pfk_signal_word(s);

	return sig > SIGRTMAX ? -1 : sig;
}

/*
 * procps's strict_atol(): an optional sign and digits only ("" is 0);
 * unlike procps, the empty string is refused here (the caller decides).
 */
int pfk_parse_long(const char *s, long *out)
{
	long v = 0, sign = 1;

	if (*s == '+') {
		s++;
	} else if (*s == '-') {
		s++;
		sign = -1;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > (LONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = sign * v;
	return 0;
}

const char *pfk_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return NULL;
}

/* "5" or "5s", "1.5s", "250ms", "2m", "1h"; capped so poll() can take it. */
int pfk_parse_duration_ms(const char *s, long *ms)
{
	unsigned long long whole = 0, frac = 0, frac_div = 1, unit = 1000;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > INT_MAX)
			return -1;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (frac_div < 1000000000ULL) {
				frac = frac * 10 + (*p - '0');
				frac_div *= 10;
			}
		}
	}
	if (strcmp(p, "ms") == 0)
		unit = 1;
	else if (strcmp(p, "s") == 0 || *p == '\0')
		unit = 1000;
	else if (strcmp(p, "m") == 0)
		unit = 60 * 1000;
	else if (strcmp(p, "h") == 0)
		unit = 3600 * 1000;
	else
		return -1;
	whole = whole * unit + frac * unit / frac_div;
	if (whole > INT_MAX)
		return -1;
	*ms = (long)whole;
	return 0;
}

#ifdef PFK_NO_NSS
/*
 * Static builds: glibc's getpwnam() would need the NSS shared libraries at
 * run time, so read the local files ourselves.
 */
static int lookup_file(const char *path, const char *name, unsigned long *id)
{
	char line[1024];
	size_t len = strlen(name);
	FILE *f = fopen(path, "re");
	int r = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *field;

		if (strncmp(line, name, len) != 0 || line[len] != ':')
			continue;
		field = strchr(line + len + 1, ':');	/* skip password */
		if (field && pfk_parse_ulong(strtok(field + 1, ":\n"),
					     UINT_MAX - 1, id) == 0)
			r = 0;
		break;
	}
	fclose(f);
	return r;
}
#endif

/* Numbers as procps takes them (sign allowed; -1 matches nobody). */
static int numeric_id(const char *s, unsigned long *id)
{
	long v;

	if (pfk_parse_long(s, &v) < 0)
		return -1;
	*id = (unsigned long)v;
	return 0;
}

int pfk_lookup_user(const char *s, unsigned long *uid)
{
	if (numeric_id(s, uid) == 0)
		return 0;
#ifdef PFK_NO_NSS
	return lookup_file("/etc/passwd", s, uid);
#else
	struct passwd *pw = getpwnam(s);

	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	return 0;
#endif
}

int pfk_lookup_group(const char *s, unsigned long *gid)
{
	if (numeric_id(s, gid) == 0)
		return 0;
#ifdef PFK_NO_NSS
	return lookup_file("/etc/group", s, gid);
#else
	struct group *gr = getgrnam(s);

	if (!gr)
		return -1;
	*gid = gr->gr_gid;
	return 0;
#endif
}

/*
 * procps compares -t names with the name of each process's terminal as
 * it prints it ("pts/3", "tty1", "?" for none): resolve the name below
 * /dev to the tty_nr value /proc/<pid>/stat shows.  -1: no such terminal
 * (then nothing matches it, as in procps).  A symlink is no terminal's
 * name: /dev/stdin would otherwise stand for whatever our fd 0 is.
 */
int pfk_lookup_tty(const char *s, unsigned long *tty_nr)
{
	char path[256];
	struct stat st;
	unsigned int maj, min;

	if (strcmp(s, "?") == 0) {
		*tty_nr = 0;		/* no controlling terminal */
		return 0;
	}
	if (*s == '\0' || *s == '/' || strstr(s, "..") ||
	    snprintf(path, sizeof(path), "/dev/%s", s) >= (int)sizeof(path))
		return -1;
	if (lstat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return -1;
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
	/* The kernel's new_encode_dev(). */
	*tty_nr = (min & 0xff) | (maj << 8) | ((min & ~0xffu) << 12);
	return 0;
}
