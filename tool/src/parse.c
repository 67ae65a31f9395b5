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

/* "9", "KILL", "SIGKILL", "kill", "RTMIN+3", "SIGRTMAX-1". */
int pfk_parse_signal(const char *s)
{
	unsigned long n;

	if (!s || !*s)
		return -1;
	if (isdigit((unsigned char)*s))
		return pfk_parse_ulong(s, SIGRTMAX, &n) ? -1 : (int)n;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (strcasecmp(s, signals[i].name) == 0)
			return signals[i].sig;
	if (strncasecmp(s, "RTMIN", 5) == 0 || strncasecmp(s, "RTMAX", 5) == 0) {
		bool min = toupper((unsigned char)s[3]) == 'I';
		int base = min ? SIGRTMIN : SIGRTMAX;

		if (s[5] == '\0')
			return base;
		if (s[5] != (min ? '+' : '-') ||
		    pfk_parse_ulong(s + 6, SIGRTMAX - SIGRTMIN, &n))
			return -1;
		return min ? base + (int)n : base - (int)n;
	}
	return -1;
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

int pfk_lookup_user(const char *s, unsigned long *uid)
{
	if (isdigit((unsigned char)*s))
		return pfk_parse_ulong(s, UINT_MAX - 1, uid);
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
	if (isdigit((unsigned char)*s))
		return pfk_parse_ulong(s, UINT_MAX - 1, gid);
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

/* "pts/3", "tty1", "/dev/ttyS0" -> the tty_nr value /proc/<pid>/stat shows. */
int pfk_lookup_tty(const char *s, unsigned long *tty_nr)
{
	char path[256];
	struct stat st;
	unsigned int maj, min;

	if (strcmp(s, "?") == 0 || strcmp(s, "-") == 0) {
		*tty_nr = 0;		/* no controlling terminal */
		return 0;
	}
	if (strncmp(s, "/dev/", 5) == 0)
		snprintf(path, sizeof(path), "%s", s);
	else
		snprintf(path, sizeof(path), "/dev/%s", s);
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return -1;
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
	/* The kernel's new_encode_dev(). */
	*tty_nr = (min & 0xff) | (maj << 8) | ((min & ~0xffu) << 12);
	return 0;
}
