// SPDX-License-Identifier: GPL-2.0
/*
 * procmatch.c - the match step: walk a procfs root, open each
 * /proc/<pid> (or /proc/<tgid>/task/<tid>) directory first, read only the
 * files the filter needs through that fd, and hand out the matches with
 * the fd still open so the signal step addresses the same process.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pfk.h"

struct pfk_scan {
	const struct pfk_filter *flt;
	DIR *proc_dir;
	DIR *task_dir;			/* --thread: tasks of the current process */
	pid_t task_tgid;
	int task_procfd;		/* with thread_tgid_fd: /proc/<tgid> */
	pid_t *skip;			/* ourselves and, by default, our ancestors */
	size_t nskip;
	size_t ancestor_hits;		/* matches dropped as our ancestors */
	double uptime;			/* -O: /proc/uptime when the scan began */
	long hz;
	unsigned long long born_by;	/* the clock tick the scan began in */
	struct pfk_proc best;		/* -n / -o: the best match so far */
	bool have_best;
	bool best_is_ancestor;
	bool done;
	char *buf;			/* scratch buffer for cmdline */
	size_t bufsz;
	char *raw;			/* -a -Q: the raw argv */
	size_t rawsz, rawlen;
	int *pend;			/* fds to close in one go (flush_pending) */
	size_t npend, pendsz;
	char cur[16];			/* the candidate next_dir() opened last */
	bool again;			/* ... to be opened again: out of fds */
	size_t held;			/* handles the caller holds (pfk_scan_hold) */
	unsigned int tries;		/* its retries with no batch held */
	size_t unexamined;		/* candidates given up on (out of fds) */
	int unexamined_err;
	unsigned long long nthreads;	/* stat's num_threads, last read */
	unsigned long long sigcatch;	/* handler_in_stat(): field 34 */
	/* one_thread_stat: a process's stat, read to count its threads */
	struct pfk_proc pre;
	pid_t pre_ppid, pre_session;
	unsigned long pre_tty;
	bool pre_valid;
	/* by_path: the candidate's files opened ahead (see match_path()) */
	int cmd_fd, stat_fd;
	bool cmd_dirty;			/* a file opened after cmd_fd's last read */
	unsigned int pre_euid;
};

/*
 * Closing costs a system call per fd, and a system call is most of what a
 * scan does (opening a directory and a file, reading it).  Fds the scan is
 * done with are kept here instead and closed together: the kernel hands
 * out the lowest free numbers, so a batch's fds form runs that one
 * close_range() (Linux 5.9) each closes.
 */
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

/*
 * Not too many open at once.  A batch's own are closed with it (a listing
 * batch of 256 leaves some 768); this bounds one that never ends (-n, -o
 * keep scanning), and running out of fds flushes them early.
 */
#define PEND_FLUSH 1024

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void close_run(int lo, int hi)
{
	static bool no_close_range;

	if (lo < hi && !no_close_range) {
		if (syscall(__NR_close_range, lo, hi, 0) == 0)
			return;
		no_close_range = true;	/* ENOSYS: before 5.9 */
	}
	for (int fd = lo; fd <= hi; fd++)
		close(fd);
}

static void flush_pending(struct pfk_scan *scan)
{
	int e = errno;
	size_t i = 0;

	/*
	 * Often in order already (a listing by path: pend_sort_tail()):
	 * then qsort(), which took a quarter of such a listing's user time,
	 * is not needed.
	 */
	for (i = 1; i < scan->npend && scan->pend[i - 1] < scan->pend[i]; i++)
		;
	if (i < scan->npend)
		qsort(scan->pend, scan->npend, sizeof(*scan->pend), cmp_int);
	i = 0;
	while (i < scan->npend) {
		size_t j = i;

		while (j + 1 < scan->npend &&
		       scan->pend[j + 1] == scan->pend[j] + 1)
			j++;
		close_run(scan->pend[i], scan->pend[j]);
		i = j + 1;
	}
	scan->npend = 0;
	errno = e;
}

/* Close fd now, or with the next flush when the scan may defer it. */
static void close_later(struct pfk_scan *scan, int fd, bool defer)
{
	if (fd < 0)
		return;
	if (!scan || !defer) {
		close(fd);
		return;
	}
	if (scan->npend == scan->pendsz) {
		size_t sz = scan->pendsz ? scan->pendsz * 2 : PEND_FLUSH;
		int *v = realloc(scan->pend, sz * sizeof(*v));

		if (!v) {
			close(fd);
			return;
		}
		scan->pend = v;
		scan->pendsz = sz;
	}
	scan->pend[scan->npend++] = fd;
}

/*
 * Put pend[first..] in order of number: a candidate read by path pends
 * its fds as it is done with them (stat, a pidfd, then cmdline), one to
 * three, all above the last candidate's (the kernel hands out the lowest
 * free fd).  In order, the whole list needs no qsort() at its flush.
 */
static void pend_sort_tail(struct pfk_scan *scan, size_t first)
{
	for (size_t i = first + 1; i < scan->npend; i++) {
		int fd = scan->pend[i];
		size_t j = i;

		for (; j > first && scan->pend[j - 1] > fd; j--)
			scan->pend[j] = scan->pend[j - 1];
		scan->pend[j] = fd;
	}
}

/* A file fd the scan read and is done with. */
static void close_file(struct pfk_scan *scan, int fd)
{
	close_later(scan, fd, scan && scan->flt->defer_close);
	if (scan && scan->npend >= PEND_FLUSH)
		flush_pending(scan);
}

/* openat(), which on running out of fds closes the deferred ones first. */
static int scan_openat(struct pfk_scan *scan, int dirfd, const char *name,
		       int flags)
{
	int fd = openat(dirfd, name, flags);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && scan &&
	    scan->npend) {
		flush_pending(scan);
		fd = openat(dirfd, name, flags);
	}
	return fd;
}

/*
 * One decimal field of stat, as strtoull() reads it there (blanks, an
 * optional sign, digits; a negative one wraps) at a fraction of its
 * cost: the scan parses twenty of these per process.  Where it ends, or
 * NULL for no digits or an overflow.
 */
static const char *stat_field(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;
	bool neg;

	while (*s == ' ')
		s++;
	neg = *s == '-';
	s += neg || *s == '+';
	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = *s - '0';

		if (v > (~0ULL - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*out = neg ? -v : v;
	return s;
}

/* procps's library order: bit i of --nslist is name i. */
const char *const pfk_ns_names[PFK_NS_COUNT] = {
	"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts",
};

int pfk_ns_index(const char *name)
{
	for (int i = 0; i < PFK_NS_COUNT; i++)
		if (strcmp(name, pfk_ns_names[i]) == 0)
			return i;
	return -1;
}

/*
 * The inode of namespace i below dirfd, 0 if unreadable.  The link's
 * text, "net:[4026531840]", holds the inode that stat() would give
 * (ns_get_name() prints ns->inum, the nsfs inode's number): reading it
 * costs half as much as following the link to the namespace's inode.
 */
static unsigned long long ns_ino(int dirfd, int i)
{
	char path[16] = "ns/", link[64];
	const char *s;
	unsigned long long ino;
	ssize_t n;

	strcpy(path + 3, pfk_ns_names[i]);
	n = readlinkat(dirfd, path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = '\0';
	s = strchr(link, '[');
	if (!s || !(s = stat_field(s + 1, &ino)) || *s != ']')
		return 0;
	return ino;
}

/* The inode of each ns/<name> link below dirfd; 0 where unreadable. */
int pfk_read_ns(int dirfd, unsigned long long ino[PFK_NS_COUNT])
{
	int found = 0;

	for (int i = 0; i < PFK_NS_COUNT; i++) {
		ino[i] = ns_ino(dirfd, i);
		found += ino[i] != 0;
	}
	return found ? 0 : -1;
}

static bool ctl_char(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF), at most len
 * bytes; 0 if there is none.  *cp: the code point.
 */
static int u8seq(const unsigned char *s, size_t len, unsigned int *cp)
{
	unsigned int c = s[0], min;
	int n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if ((size_t)n > len)
		return 0;
	for (int k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[k] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * procps 4.0.7's output escaping (library/escape.c), by the codeset of
 * LC_CTYPE.  In UTF-8 a well-formed sequence is kept unless it is a
 * control character (C0, DEL, C1), and every byte of a control or of
 * what is not well-formed becomes '?', the next byte read afresh.  In
 * every other locale every control and every byte from 0x80 up is '?'
 * (the table knows no 8-bit charset).  (4.0.2 made controls '.' there,
 * skipped a sequence by its lead byte unchecked, and gave up on UTF-8
 * at the first broken one.)  In place, same length.
 */
void pfk_escape(char *str, size_t len)
{
	static int utf8;	/* 0 unknown, 1 yes, -1 no */
	unsigned char *s = (unsigned char *)str;
	size_t i = 0;

	/*
	 * Printable ASCII stays as it is in every case, and is nearly all
	 * a command line holds: skip it at the speed of a compare.
	 */
	while (i < len && (unsigned char)(s[i] - 0x20) < 0x5f)
		i++;
	if (!utf8) {
		const char *cs = nl_langinfo(CODESET);

		utf8 = cs && strcasecmp(cs, "UTF-8") == 0 ? 1 : -1;
	}
	while (i < len) {
		unsigned int cp;
		int n = utf8 > 0 ? u8seq(s + i, len - i, &cp) : 0;

		if (n == 0) {
			if (ctl_char(s[i]) || s[i] >= 0x80)
				s[i] = '?';
			i++;
			continue;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			memset(s + i, '?', n);
		i += n;
	}
}

void pfk_filter_init(struct pfk_filter *flt, int proc_fd)
{
	memset(flt, 0, sizeof(*flt));
	flt->proc_fd = proc_fd;
	flt->ns_mask = PFK_NS_DEFAULT;
}

void pfk_filter_free(struct pfk_filter *flt)
{
	struct pfk_ids *lists[] = { &flt->euid, &flt->ruid, &flt->rgid,
				    &flt->pgrp, &flt->session, &flt->ppid,
				    &flt->tty, &flt->pid, &flt->ident_pid };
	struct pfk_strs *strs[] = { &flt->cgroup, &flt->env };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		for (size_t k = 0; k < strs[i]->n; k++)
			free(strs[i]->v[k]);
		free(strs[i]->v);
		strs[i]->v = NULL;
		strs[i]->n = 0;
	}

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		free(lists[i]->v);
		lists[i]->v = NULL;
		lists[i]->n = 0;
	}
	free(flt->ident_val);
	flt->ident_val = NULL;
	if (flt->has_pattern)
		regfree(&flt->pattern);
	flt->has_pattern = false;
}

/* match_dir()'s dirfd for a candidate read by path (flt->by_path). */
#define BY_PATH (-100)

/*
 * "<cur>/<name>" in path, made by hand: snprintf() took a tenth of a
 * listing's user time, for the two paths of each candidate.  cur is a
 * number of at most 15 digits, name one of the files a candidate read
 * by path has (cmdline, stat).
 */
static const char *cur_path(char path[40], const char *cur, const char *name)
{
	size_t n = strlen(cur), len = strlen(name);

	if (n + 1 + len >= 40) {
		snprintf(path, 40, "%s/%s", cur, name);	/* cut, as before */
		return path;
	}
	memcpy(path, cur, n);
	path[n] = '/';
	memcpy(path + n + 1, name, len + 1);
	return path;
}

/*
 * Open a file of the candidate: below dirfd, or with BY_PATH as
 * /proc/<cur>/<name>, where the files match_path() opened ahead are
 * taken first.  cmd_fd is lent, not handed over (*lent): it stays open
 * until the candidate is decided, as the handle that tells whether every
 * file opened by path was its process's.
 */
static int file_open(struct pfk_scan *scan, int dirfd, const char *name,
		     bool *lent)
{
	char path[40];
	int fd;

	*lent = false;
	if (dirfd != BY_PATH)
		return scan_openat(scan, dirfd, name, O_RDONLY | O_CLOEXEC);
	if (scan->cmd_fd >= 0 && strcmp(name, "cmdline") == 0) {
		*lent = true;
		return scan->cmd_fd;
	}
	if (scan->stat_fd >= 0 && strcmp(name, "stat") == 0) {
		fd = scan->stat_fd;
		scan->stat_fd = -1;
		return fd;
	}
	fd = scan_openat(scan, scan->flt->proc_fd,
			 cur_path(path, scan->cur, name), O_RDONLY | O_CLOEXEC);
	scan->cmd_dirty = true;
	return fd;
}

/*
 * Read a whole file below dirfd into *buf (NUL-terminated); length or -1.
 * A read that returns less than asked is the end: procfs hands out a
 * seq_file record or a command line in one go, so waiting for the 0 of
 * a second read would cost a syscall per process for nothing.
 */
static ssize_t read_at(struct pfk_scan *scan, int dirfd, const char *name,
		       char **buf, size_t *bufsz)
{
	size_t len = 0;
	ssize_t r;
	bool lent;
	int fd, e = 0;

	fd = file_open(scan, dirfd, name, &lent);
	if (fd < 0)
		return -1;
	for (;;) {
		if (len + 1 >= *bufsz) {
			size_t sz = *bufsz ? *bufsz * 2 : 4096;
			char *nb = realloc(*buf, sz);

			if (!nb) {
				e = ENOMEM;
				break;
			}
			*buf = nb;
			*bufsz = sz;
		}
		/* At an offset: a lent cmd_fd may be read more than once. */
		r = pread(fd, *buf + len, *bufsz - len - 1, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		len += r;
		if ((size_t)r < *bufsz - (len - r) - 1)
			break;		/* short read (or 0): the end */
	}
	if (!lent)
		close_file(scan, fd);
	else if (!e)
		scan->cmd_dirty = false;
	if (e) {
		errno = e;
		return -1;
	}
	(*buf)[len] = '\0';
	return len;
}

/* Small files (stat, status) fit a stack buffer; to EOF as read_at(). */
static ssize_t read_small_at(struct pfk_scan *scan, int dirfd,
			     const char *name, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	bool lent;
	int fd, e = 0;

	fd = file_open(scan, dirfd, name, &lent);
	if (fd < 0)
		return -1;
	while (len + 1 < size) {
		r = read(fd, buf + len, size - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		len += r;
		if ((size_t)r < size - (len - r) - 1)
			break;		/* short read (or 0): the end */
	}
	close_file(scan, fd);
	if (e) {
		errno = e;
		return -1;
	}
	buf[len] = '\0';
	return len;
}

/*
 * -H for a signal from 1 to 31: stat's sigcatch (field 34) has its bit,
 * as status's SigCgt does (the kernel fills both with one function,
 * collect_sigign_sigcatch()), and stat is read anyway; status costs some
 * ten times as much to read.  stat masks the field to signals 1-31.
 */
static bool handler_in_stat(const struct pfk_filter *flt)
{
	return flt->handler_sig > 0 && flt->handler_sig <= PFK_STAT_SIGS;
}

/*
 * -U, -G of processes with ids_by_pidfd: the ids come from a pidfd
 * (cred_ahead()), unless status is read anyway, for -H.
 */
static bool cred_by_pidfd(const struct pfk_filter *flt)
{
	return flt->ids_by_pidfd && !flt->threads &&
	       (flt->ruid.n || flt->rgid.n) &&
	       !(flt->handler_sig && !handler_in_stat(flt));
}

/* A pidfd before the candidate's files: for -U, -G, or -P's parent. */
static bool pidfd_ahead(const struct pfk_filter *flt)
{
	return cred_by_pidfd(flt) || flt->ppid_by_pidfd;
}

/* -U, -G without a pidfd, or -H of a signal stat does not show. */
static bool status_needed(const struct pfk_filter *flt)
{
	return ((flt->ruid.n || flt->rgid.n) && !cred_by_pidfd(flt)) ||
	       (flt->handler_sig && !handler_in_stat(flt));
}

static int read_stat(struct pfk_scan *scan, int dirfd, struct pfk_proc *p,
		     pid_t *ppid, pid_t *session, unsigned long *tty)
{
	char buf[1024], *open_paren, *close_paren;
	const char *s;
	unsigned long long f[20];
	size_t namelen;
	int i;

	switch (read_small_at(scan, dirfd, "stat", buf, sizeof(buf))) {
	case -1:
		return -1;
	case 0:
		errno = EPROTO;
		return -1;
	}
	/* The name sits in parentheses and may itself contain ") ". */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		goto bad;
	namelen = close_paren - open_paren - 1;
	if (namelen > 63)
		namelen = 63;	/* the kernel's own limit, as before */
	if (p->x) {
		free(p->x->long_name);
		p->x->long_name = NULL;
	}
	if (namelen < sizeof(p->name)) {
		memcpy(p->name, open_paren + 1, namelen);
		p->name[namelen] = '\0';
		pfk_escape(p->name, namelen);
	} else {
		p->name[0] = '\0';
		if (!pfk_proc_extra(p) ||
		    !(p->x->long_name = strndup(open_paren + 1, namelen)))
			return -1;
		pfk_escape(p->x->long_name, namelen);
	}

	/* Fields 3..22 follow: state ppid pgrp session tty_nr ... starttime. */
	s = close_paren + 2;
	p->state = *s;
	if (*s)
		s += 2;		/* skip the one-letter state */
	for (i = 1; i < 20; i++)
		if (!(s = stat_field(s, &f[i])))
			goto bad;
	if (scan)
		scan->nthreads = f[17];
	/* Fields 23..34: vsize ... sigignore, then sigcatch. */
	if (scan && handler_in_stat(scan->flt)) {
		unsigned long long v = 0;

		for (i = 23; i <= 34; i++)
			if (!(s = stat_field(s, &v)))
				goto bad;
		scan->sigcatch = v;
	}
	if (ppid)
		*ppid = f[1];
	p->pgrp = f[2];
	if (session)
		*session = f[3];
	if (tty)
		*tty = (unsigned int)f[4];
	p->starttime = f[19];
	return 0;
bad:
	if (p->x) {
		free(p->x->long_name);
		p->x->long_name = NULL;
	}
	errno = EPROTO;
	return -1;
}

int pfk_read_stat(int dirfd, struct pfk_proc *p, pid_t *ppid, pid_t *session,
		  unsigned long *tty)
{
	return read_stat(NULL, dirfd, p, ppid, session, tty);
}

/*
 * Our status there lists our pid in each pid namespace from that
 * procfs's down to our own (NSpid, Linux 4.1): one number if the two
 * are the same.  In the procfs of a namespace we are not in, there is
 * no "self" to read.
 */
bool pfk_procfs_is_ours(int proc_fd)
{
	char status[4096];
	const char *s;

	if (read_small_at(NULL, proc_fd, "self/status", status,
			  sizeof(status)) <= 0 ||
	    !(s = strstr(status, "\nNSpid:\t")))
		return false;
	for (s += 8; *s >= '0' && *s <= '9'; s++)
		;
	return *s == '\n';
}

/* "Uid:\treal\teffective..." -> the first two numbers after key. */
static int status_ids(const char *status, const char *key,
		      unsigned long *real, unsigned long *effective)
{
	const char *line = strstr(status, key);
	char *end;

	if (!line)
		return -1;
	line += strlen(key);
	*real = strtoul(line, &end, 10);
	*effective = strtoul(end, &end, 10);
	return 0;
}

int pfk_strs_add(struct pfk_strs *l, const char *str)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	l->v = v;
	v[l->n] = strdup(str);
	if (!v[l->n])
		return -1;
	l->n++;
	return 0;
}

bool pfk_ids_has(const struct pfk_ids *ids, unsigned long id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == id)
			return true;
	return false;
}

int pfk_ids_add(struct pfk_ids *ids, unsigned long id)
{
	unsigned long *v = realloc(ids->v, (ids->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	v[ids->n++] = id;
	ids->v = v;
	return 0;
}

static bool skipped(const struct pfk_scan *scan, pid_t tgid)
{
	for (size_t i = 1; i < scan->nskip; i++)	/* [0] is ourselves */
		if (scan->skip[i] == tgid)
			return true;
	return false;
}

/* procps's command line buffer: longer ones are cut, as there. */
#define CMDLINE_MAX (128 * 1024 - 1)
/*
 * An offset past every command line (exec() takes at most 6 MiB of
 * arguments) that a 32-bit off_t holds.
 */
#define CMDLINE_PAST_END ((off_t)1 << 30)

static int grow(char **buf, size_t *bufsz, size_t need)
{
	char *nb;

	if (need <= *bufsz)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return -1;
	*buf = nb;
	*bufsz = need;
	return 0;
}

/*
 * The text -f matches and -a shows, as procps builds it: argv joined by
 * spaces (NULs and newlines both become spaces, trailing NULs dropped, a
 * last space cut), escaped; "[comm]" (plus " <defunct>" for a zombie)
 * when the command line is empty.  With keep_argv the raw argv stays in
 * scan->raw for -Q.  argv_text() is the argv part, in scan->buf; its
 * length, 0 for an empty command line.
 */
static ssize_t argv_text(struct pfk_scan *scan, int dirfd)
{
	ssize_t n = read_at(scan, dirfd, "cmdline", &scan->buf, &scan->bufsz);
	char *b = scan->buf;
	ssize_t i;

	/* Unreadable as the process exits: empty.  Out of fds: not known. */
	if (n < 0 && pfk_resource_error(errno))
		return -1;
	if (n < 0)
		n = 0;
	if (scan->flt->keep_argv) {
		if (grow(&scan->raw, &scan->rawsz, n + 1) < 0)
			return -1;
		memcpy(scan->raw, b, n);
		scan->raw[n] = '\0';
		scan->rawlen = n;
	}
	if (n > CMDLINE_MAX)
		n = CMDLINE_MAX;
	if (n > 0) {
		bool escape = false;
		ssize_t k;

		for (i = n; i > 0 && b[i - 1] == '\0'; i--)
			;
		/*
		 * One pass: separators become spaces, and whether anything
		 * else outside printable ASCII is there (pfk_escape()).
		 */
		for (k = 0; k < i; k++) {
			unsigned char c = b[k];

			if ((unsigned char)(c - 0x20) < 0x5f)
				continue;
			if (c == '\0' || c == '\n')
				b[k] = ' ';
			else
				escape = true;
		}
		/* A last separator is cut, trailing NULs are dropped. */
		n = i == n && b[n - 1] == ' ' ? n - 1 : i;
		b[n] = '\0';
		if (escape)
			pfk_escape(b, n);
	}
	return n;
}

static const char *full_text(struct pfk_scan *scan, int dirfd,
			     struct pfk_proc *p)
{
	ssize_t n = argv_text(scan, dirfd);

	if (n < 0)
		return NULL;
	if (n == 0) {
		size_t need;

		/* argv_only: stat was skipped, and the argv went in between. */
		if (!p->state && read_stat(scan, dirfd, p, NULL, NULL, NULL) < 0)
			return NULL;
		need = strlen(pfk_proc_name(p)) + sizeof("[] <defunct>");

		if (grow(&scan->buf, &scan->bufsz, need) < 0)
			return NULL;
		snprintf(scan->buf, need, "[%s]%s", pfk_proc_name(p),
			 p->state == 'Z' ? " <defunct>" : "");
	}
	return scan->buf;
}

/*
 * "0::/path" lines of /proc/<pid>/cgroup against --cgroup (cgroup v2).
 * 1 match, 0 not, -1 unread for want of fds or memory.
 */
static int cgroup_match(struct pfk_scan *scan, int dirfd)
{
	const struct pfk_strs *want = &scan->flt->cgroup;
	ssize_t n = read_at(scan, dirfd, "cgroup", &scan->buf, &scan->bufsz);
	char *line, *rest;

	if (n < 0 && pfk_resource_error(errno))
		return -1;
	if (n <= 0)
		return false;
	for (rest = scan->buf; (line = strsep(&rest, "\n")) && *line; ) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		for (size_t k = 0; k < want->n; k++)
			if (strcmp(line + 3, want->v[k]) == 0)
				return true;
	}
	return false;
}

/*
 * --env: NAME=VALUE must equal an entry; a bare NAME matches the entry of
 * that very name, as procps's master branch does.  (4.0.5 matched every
 * entry it began, so "PATH" also took "PATHX=1": too wide to signal by.)
 * 1 match, 0 not (or not ours to read), -1 unread for want of fds.
 */
static int env_match(struct pfk_scan *scan, int dirfd)
{
	const struct pfk_strs *want = &scan->flt->env;
	ssize_t n = read_at(scan, dirfd, "environ", &scan->buf, &scan->bufsz);
	const char *e, *end;

	if (n < 0 && pfk_resource_error(errno))
		return -1;
	if (n <= 0)
		return false;
	end = scan->buf + n;
	for (e = scan->buf; e < end && *e; e += strlen(e) + 1) {
		for (size_t k = 0; k < want->n; k++) {
			const char *w = want->v[k];

			size_t len = strlen(w);

			if (strchr(w, '=') ? strcmp(e, w) == 0
					   : strncmp(e, w, len) == 0 && e[len] == '=')
				return true;
		}
	}
	return false;
}

/*
 * Only the namespaces --nslist names (six by default, not eight): each
 * is a readlink, most of what --ns costs per process.  The first that
 * differs decides.
 */
static bool ns_match(const struct pfk_filter *flt, int dirfd)
{
	for (int i = 0; i < PFK_NS_COUNT; i++)
		if ((flt->ns_mask & (1u << i)) &&
		    ns_ino(dirfd, i) != flt->ns_ref[i])
			return false;
	return true;
}

/*
 * -p: a plain PID, or PID:STARTTIME as pfgrep --format pid:starttime
 * prints it, which a process that got the PID in a later clock tick does
 * not have; or with ident_ino PID:INODE, which no other process of this
 * boot has.  The inode is that of a pidfd we then hold and signal
 * through.  1 match, 0 not, -1 (errno) as match_dir().
 */
static int pid_match(const struct pfk_filter *flt, struct pfk_proc *p)
{
	if (pfk_ids_has(&flt->pid, p->tgid))
		return 1;
	for (size_t i = 0; i < flt->ident_pid.n; i++) {
		if (flt->ident_pid.v[i] != (unsigned long)p->tgid)
			continue;
		if (!flt->ident_ino) {
			if (flt->ident_val[i] == p->starttime)
				return 1;
			continue;
		}
		if (!pfk_proc_ino(p) && pfk_open_ident(p) < 0)
			return -1;
		if (flt->ident_val[i] == pfk_proc_ino(p))
			return 1;
	}
	return 0;
}

/* stat's starttime against /proc/uptime, as procps's ELAPSED. */
static bool older_match(const struct pfk_scan *scan, const struct pfk_proc *p)
{
	double elapsed = scan->uptime - (double)p->starttime / scan->hz;

	return (int)elapsed >= scan->flt->older;
}

/*
 * -U and -G with ids_by_pidfd: the ids from ioctl(PIDFD_GET_INFO), at
 * less than half of what status costs (the kernel makes all of its text
 * for the two lines we read).  A pidfd is opened by number, so this
 * comes before the candidate's first file is read: that read succeeds
 * only if the candidate has not been reaped by then, so the number was
 * still its own when the pidfd was opened (as signal.c's open_pidfd(),
 * the other way round).  0, or -1 with errno as match_dir().
 */
static int cred_ahead(struct pfk_scan *scan, pid_t pid, struct pfk_cred *c)
{
	int fd = pfk_pidfd_open(pid), r, e;

	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && scan->npend) {
		flush_pending(scan);
		fd = pfk_pidfd_open(pid);
	}
	if (fd < 0) {
		/* The number is a thread's now: the candidate is gone. */
		if (errno == EINVAL)
			errno = ESRCH;
		return -1;
	}
	r = pfk_pidfd_cred(fd, c);
	e = errno;
	close_file(scan, fd);
	errno = e;
	return r;
}

/*
 * -u, -U, -G, and -H of a signal that stat does not show.  ahead: the
 * ids cred_ahead() read, or NULL.  1 match, 0 not, -1 (errno) as
 * match_dir().
 */
static int ids_match(struct pfk_scan *scan, int dirfd,
		     const struct pfk_cred *ahead)
{
	const struct pfk_filter *flt = scan->flt;
	char status[4096];
	unsigned long egid;
	struct pfk_cred c;
	const char *cgt;

	status[0] = '\0';
	if (ahead) {
		c = *ahead;
	} else if (!status_needed(flt)) {
		/*
		 * -u alone: a /proc/<pid> directory (and a task's) is owned
		 * by the effective uid and gid of its task, whatever its
		 * dumpable state (task_dump_owner(): the rule for
		 * world-readable directories, kept for procps, which read
		 * the euid so), mapped into our user namespace as status
		 * maps it.  fstat() costs a tenth of reading status.
		 */
		struct stat st;

		if (dirfd == BY_PATH)
			st.st_uid = scan->pre_euid;
		else if (fstat(dirfd, &st) < 0)
			return -1;
		return pfk_ids_has(&flt->euid, st.st_uid);
	} else {
		if (read_small_at(scan, dirfd, "status", status,
				  sizeof(status)) < 0)
			return -1;
		if (status_ids(status, "\nUid:", &c.ruid, &c.euid) < 0 ||
		    status_ids(status, "\nGid:", &c.rgid, &egid) < 0) {
			errno = EPROTO;
			return -1;
		}
	}
	if ((flt->euid.n && !pfk_ids_has(&flt->euid, c.euid)) ||
	    (flt->ruid.n && !pfk_ids_has(&flt->ruid, c.ruid)) ||
	    (flt->rgid.n && !pfk_ids_has(&flt->rgid, c.rgid)))
		return 0;
	if (!flt->handler_sig || handler_in_stat(flt))
		return 1;
	/* -H of a real-time signal: status was read (no ids ahead). */
	cgt = strstr(status, "\nSigCgt:");
	return cgt && flt->handler_sig <= 64 &&
	       (strtoull(cgt + 8, NULL, 16) >> (flt->handler_sig - 1) & 1);
}

/*
 * Decide about one open directory.  1: match (p filled in), 0: no match,
 * -1 with errno: the process went away while we looked (treated as no
 * match), or with pfk_resource_error(errno) it could not be looked at.
 */
static int match_dir(struct pfk_scan *scan, int dirfd, struct pfk_proc *p)
{
	const struct pfk_filter *flt = scan->flt;
	unsigned long tty = 0;
	pid_t ppid = 0, session = 0;
	const char *text = NULL;
	bool m = true, argv_matched = false, have_stat = scan->pre_valid;
	bool ppid_ahead = false;
	struct pfk_cred cred;
	int r;

	if (have_stat) {
		/* next_dir() read it: a process with one thread. */
		scan->pre_valid = false;
		memcpy(p->name, scan->pre.name, sizeof(p->name));
		p->x = scan->pre.x;	/* a long name, if any */
		scan->pre.x = NULL;
		p->state = scan->pre.state;
		p->pgrp = scan->pre.pgrp;
		p->starttime = scan->pre.starttime;
		ppid = scan->pre_ppid;
		session = scan->pre_session;
		tty = scan->pre_tty;
	}

	/* By number: before any file of the candidate is read. */
	if (pidfd_ahead(flt)) {
		if (cred_ahead(scan, p->pid, &cred) == 0) {
			ppid = cred.ppid;
			ppid_ahead = flt->ppid_by_pidfd;
		} else if (errno != ESRCH || cred_by_pidfd(flt)) {
			return -1;
		}
		/*
		 * Else -P alone: gone, or a parent outside our pid
		 * namespace, which stat shows as 0 and the ioctl of the
		 * first kernels that have it refuses (ESRCH).  stat decides.
		 */
	}
	/*
	 * -f: the pattern usually rules out most processes, and for them
	 * the command line alone decides, so their stat (a third of the
	 * reads) is not read. An empty command line is matched as "[comm]",
	 * which needs stat, and is decided below with the rest.
	 */
	if (flt->has_pattern && flt->full && !flt->negate) {
		ssize_t n;

		/* -P's parent, known already: no command line to read. */
		if (ppid_ahead && !pfk_ids_has(&flt->ppid, ppid))
			return 0;
		n = argv_text(scan, dirfd);

		if (n < 0)
			return -1;
		if (n > 0 && regexec(&flt->pattern, scan->buf, 0, NULL, 0))
			return 0;
		argv_matched = n > 0;
	}
	/*
	 * argv_only: p's stat fields stay 0; full_text() reads them if
	 * needed.  With -P only once the pidfd told the parent.
	 */
	if (!have_stat &&
	    !(argv_matched && flt->argv_only && (!flt->ppid.n || ppid_ahead)) &&
	    read_stat(scan, dirfd, p, &ppid, &session, &tty) < 0)
		return -1;
	if (p->pid == scan->skip[0])
		return 0;		/* never ourselves */
	/* Born after the scan began (stat read: its state is set). */
	if (p->state && p->starttime > scan->born_by)
		return 0;

	if (flt->ppid.n && !pfk_ids_has(&flt->ppid, ppid))
		m = false;
	if (m && (flt->pid.n || flt->ident_pid.n) &&
	    (r = pid_match(flt, p)) <= 0) {
		if (r < 0)
			return -1;
		m = false;
	}
	if (m && flt->pgrp.n && !pfk_ids_has(&flt->pgrp, p->pgrp))
		m = false;
	if (m && flt->session.n && !pfk_ids_has(&flt->session, session))
		m = false;
	if (m && flt->tty_given && !pfk_ids_has(&flt->tty, tty))
		m = false;
	if (m && flt->runstates && !strchr(flt->runstates, p->state))
		m = false;
	if (m && flt->older && !older_match(scan, p))
		m = false;
	/* The name is stat's: rule a candidate out before reading more. */
	if (m && flt->has_pattern && !flt->full) {
		text = pfk_proc_name(p);
		m = regexec(&flt->pattern, text, 0, NULL, 0) == 0;
	}
	if (m && handler_in_stat(flt) &&
	    !(scan->sigcatch & 1ULL << (flt->handler_sig - 1)))
		m = false;
	if (m && (flt->euid.n || flt->ruid.n || flt->rgid.n ||
		  status_needed(flt)) &&
	    (r = ids_match(scan, dirfd,
			   cred_by_pidfd(flt) ? &cred : NULL)) <= 0) {
		if (r < 0)
			return -1;
		m = false;
	}
	if (m && flt->ns_given && !ns_match(flt, dirfd))
		m = false;
	if (m && flt->cgroup.n && (r = cgroup_match(scan, dirfd)) <= 0) {
		if (r < 0)
			return -1;
		m = false;
	}
	if (m && flt->env.n && (r = env_match(scan, dirfd)) <= 0) {
		if (r < 0)
			return -1;
		m = false;
	}
	if (m && flt->has_pattern && flt->full && !argv_matched) {
		text = full_text(scan, dirfd, p);
		if (!text)
			return -1;
		m = regexec(&flt->pattern, text, 0, NULL, 0) == 0;
	}
	if (flt->negate)
		m = !m;
	if (!m)
		return 0;
	if (skipped(scan, p->tgid)) {
		/*
		 * -n/-o: without -A an ancestor still competes, as under
		 * procps (and, picked, is left out with a warning); with -A
		 * it is gone before the pick, as there.
		 */
		if (flt->pick != PFK_PICK_ALL && !flt->drop_ancestors)
			return 2;
		scan->ancestor_hits++;
		return 0;
	}

	if (flt->keep_cmdline) {
		if (!text || !flt->full)
			text = full_text(scan, dirfd, p);
		if (!text)
			return -1;
		struct pfk_proc_extra *x = pfk_proc_extra(p);

		if (!x)
			return -1;
		if (flt->keep_argv) {
			x->argv_len = scan->rawlen;
			x->cmdline = malloc(x->argv_len + 1);
			if (x->cmdline) {
				memcpy(x->cmdline, scan->raw, x->argv_len);
				x->cmdline[x->argv_len] = '\0';
			}
		} else {
			x->cmdline = strdup(text);
		}
		if (!x->cmdline)
			return -1;
	}
	/* Gone by now: not listed, as if it had gone a moment earlier. */
	if (flt->want_ino && !pfk_proc_ino(p) && pfk_open_ident(p) < 0)
		return -1;
	return 1;
}

/*
 * A listing that reads nothing but stat, cmdline and the owner (flt->
 * by_path) opens /proc/<pid>/stat and /proc/<pid>/cmdline by path, with
 * no directory fd: one file fewer per process.  They are still one
 * process's.  The first file opened holds that process (cmdline when
 * it is read at all, else stat), and every other lookup by path (or by
 * number: -U and -G's pidfd) comes before that file is read (or, if one
 * had to come later, the file is read again after it).  Reading a
 * /proc/<pid> file fails (ESRCH) once its process has been reaped, and
 * only a reaped process's PID can go to another: so a successful read
 * says that each lookup by path before it found the same process.  The
 * same as match_dir().
 */
static int match_path(struct pfk_scan *scan, struct pfk_proc *p)
{
	const struct pfk_filter *flt = scan->flt;
	bool euid_only = flt->euid.n && !status_needed(flt) &&
			 !cred_by_pidfd(flt);
	size_t first = scan->npend;
	char path[40];
	int r = -1, e;

	scan->cmd_fd = scan->stat_fd = -1;
	scan->cmd_dirty = false;
	if ((flt->full && flt->has_pattern) || flt->keep_cmdline) {
		scan->cmd_fd = scan_openat(scan, flt->proc_fd,
					   cur_path(path, scan->cur, "cmdline"),
					   O_RDONLY | O_CLOEXEC);
		if (scan->cmd_fd < 0)
			return -1;
	}
	if (!flt->argv_only) {
		scan->stat_fd = scan_openat(scan, flt->proc_fd,
					    cur_path(path, scan->cur, "stat"),
					    O_RDONLY | O_CLOEXEC);
		if (scan->stat_fd < 0)
			goto out;
		scan->cmd_dirty = true;
	}
	if (euid_only) {
		struct stat st;

		/* The owner of /proc/<pid> (see match_dir()), by path. */
		if (fstatat(flt->proc_fd, scan->cur, &st, 0) < 0)
			goto out;
		scan->pre_euid = st.st_uid;
		scan->cmd_dirty = true;
	}
	r = match_dir(scan, BY_PATH, p);
	/* A match: was cmdline read after the last lookup?  Else now. */
	if (r > 0 && scan->cmd_fd >= 0 && scan->cmd_dirty) {
		char c;

		/* Far past the end: no data read, but ESRCH if reaped. */
		if (pread(scan->cmd_fd, &c, 1, CMDLINE_PAST_END) < 0) {
			pfk_proc_release(p);
			r = -1;
		}
	}
out:
	e = errno;
	close_later(scan, scan->cmd_fd, flt->defer_close);
	close_later(scan, scan->stat_fd, flt->defer_close);
	scan->cmd_fd = scan->stat_fd = -1;
	/* (A flush meanwhile emptied the list: sort what it holds now.) */
	pend_sort_tail(scan, first <= scan->npend ? first : 0);
	errno = e;
	return r;
}

static bool numeric(const char *s, pid_t *out)
{
	long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > 100000000)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

/*
 * scan->cur = the decimal name of n, which numeric() read from name:
 * that name itself unless it has leading zeros (no /proc entry has).
 * snprintf() took a tenth of a listing's user time here.
 */
static void set_cur(struct pfk_scan *scan, const char *name, pid_t n)
{
	size_t len = strlen(name);

	if (len < sizeof(scan->cur) && (name[0] != '0' || len == 1))
		memcpy(scan->cur, name, len + 1);
	else
		snprintf(scan->cur, sizeof(scan->cur), "%d", (int)n);
}

/*
 * How a candidate's directory is opened.  A listing only reads files
 * below it and never signals through it, so an O_PATH fd serves: it
 * holds the process as well (a file opened below it is that process's,
 * or the open fails), and costs less to open and to close.  Signaling
 * and waiting need a real /proc/<pid> fd (pidfd_send_signal()).
 */
static int dir_flags(const struct pfk_filter *flt)
{
	return (flt->path_dirs ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC;
}

/*
 * Open the next candidate directory: /proc/<pid>, or with --thread
 * /proc/<tgid>/task/<tid>.  Its name is kept in scan->cur: with
 * scan->again set, that one is opened again instead of the next.
 * Returns its fd, -1 at the end, -2 on error, -3 when it could not be
 * opened for want of fds or memory (errno says which).
 */
static int next_dir(struct pfk_scan *scan, pid_t *pid, pid_t *tgid,
		    int *tgid_fd)
{
	const struct pfk_filter *flt = scan->flt;
	struct dirent *de;
	int fd, e;

	for (;;) {
		if (scan->task_dir) {
			if (!scan->again) {
				de = readdir(scan->task_dir);
				if (!de) {
					closedir(scan->task_dir);
					scan->task_dir = NULL;
					if (scan->task_procfd >= 0)
						close(scan->task_procfd);
					scan->task_procfd = -1;
					continue;
				}
				if (!numeric(de->d_name, pid))
					continue;
				set_cur(scan, de->d_name, *pid);
			}
			scan->again = false;
			numeric(scan->cur, pid);
			fd = scan_openat(scan, dirfd(scan->task_dir), scan->cur,
					 dir_flags(flt));
			if (fd < 0 && pfk_resource_error(errno))
				return -3;
			if (fd < 0)
				continue;	/* the thread exited */
			*tgid = scan->task_tgid;
			if (scan->task_procfd >= 0) {
				*tgid_fd = fcntl(scan->task_procfd,
						 F_DUPFD_CLOEXEC, 0);
				if (*tgid_fd < 0) {
					e = errno;
					close(fd);
					errno = e;
					return pfk_resource_error(e) ? -3 : -2;
				}
			}
			return fd;
		}

		if (!scan->again) {
			errno = 0;
			de = readdir(scan->proc_dir);
			if (!de)
				return errno ? -2 : -1;
			if (!numeric(de->d_name, tgid))
				continue;
			set_cur(scan, de->d_name, *tgid);
		}
		scan->again = false;
		numeric(scan->cur, tgid);
		if (flt->by_path) {
			*pid = *tgid;
			return BY_PATH;
		}
		fd = scan_openat(scan, flt->proc_fd, scan->cur,
				 dir_flags(flt));
		if (fd < 0 && pfk_resource_error(errno))
			return -3;
		if (fd < 0)
			continue;		/* the process exited */
		if (!flt->threads) {
			*pid = *tgid;
			return fd;
		}
		/*
		 * A listing of threads: most processes have one, and its
		 * entry would show what the process's stat shows (the name,
		 * state, ids and start time are its leader's; only the
		 * counters we do not read differ).  Read that once here, and
		 * walk task/ only for a process that has more threads.
		 */
		if (flt->one_thread_stat) {
			struct pfk_proc *pre = &scan->pre;

			if (read_stat(scan, fd, pre, &scan->pre_ppid,
				      &scan->pre_session, &scan->pre_tty) < 0) {
				e = errno;
				close_file(scan, fd);
				if (pfk_resource_error(e)) {
					errno = e;
					return -3;
				}
				continue;	/* the process exited */
			}
			if (scan->nthreads <= 1) {
				scan->pre_valid = true;
				*pid = *tgid;
				return fd;
			}
			pfk_proc_free_extra(pre);
		}
		/* Threads: walk this process's task/ next. */
		{
			int taskfd = scan_openat(scan, fd, "task", O_RDONLY |
						 O_DIRECTORY | O_CLOEXEC);
			DIR *dir;

			e = errno;
			if (taskfd < 0 || !flt->thread_tgid_fd) {
				close(fd);
				fd = -1;
			}
			if (taskfd < 0) {
				errno = e;
				if (pfk_resource_error(e))
					return -3;
				continue;
			}
			dir = fdopendir(taskfd);
			if (!dir) {
				e = errno;
				close(taskfd);
				if (fd >= 0)
					close(fd);
				errno = e;
				return pfk_resource_error(e) ? -3 : -2;
			}
			scan->task_procfd = fd;
			scan->task_dir = dir;
			scan->task_tgid = *tgid;
		}
	}
}

/*
 * The snapshot (issue 48).  A caller that signals batch by batch while
 * the scan goes on would otherwise also match what is born meanwhile: a
 * supervisor's replacements for the children it just killed, which it
 * then kills, and so on.  procps is spared by signaling after one pass;
 * we bound the scan by birth instead, with stat's start time, which the
 * scan reads anyway: no system call more, on every kernel.
 *
 * The start time is the task's CLOCK_BOOTTIME at fork, in clock ticks
 * (USER_HZ, rounded down; the kernel's nsec_to_clock_t() of
 * start_boottime, moved by our time namespace as our own clock is), so
 * born_by, the tick the scan began in, is on the same clock.  Whatever
 * existed when the scan began was born in that tick or before: never
 * left out.  What is born later in that same tick is not told apart; so
 * pfk_scan_settle() lets that tick end before the caller acts on a
 * first batch, and nothing born of its acts can be in it.  (A pidfs
 * inode would order births exactly, but costs a pidfd and an fstat()
 * per candidate, and only Linux 6.9 has one.)
 */
static unsigned long long boot_tick(long hz)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return ~0ULL;		/* no bound rather than a wrong one */
	return (unsigned long long)ts.tv_sec * hz +
	       (unsigned long long)ts.tv_nsec / (1000000000 / hz);
}

void pfk_scan_settle(const struct pfk_scan *scan)
{
	struct timespec ts;

	while (scan->born_by != ~0ULL && boot_tick(scan->hz) <= scan->born_by) {
		ts.tv_sec = 0;
		ts.tv_nsec = 1000000000 / scan->hz / 4;
		nanosleep(&ts, NULL);
	}
}

/*
 * Our pid as the procfs at proc_fd numbers us: its "self" link.  getpid()
 * is our own pid namespace's number, which in the procfs of another (a
 * container's /proc, or the host's /proc seen from a container) names
 * some other process, or none.  0 where we are not in its namespace (the
 * link is missing), nor then are our ancestors; -1 with errno on error.
 */
static pid_t procfs_self(int proc_fd)
{
	char link[16];
	ssize_t n = readlinkat(proc_fd, "self", link, sizeof(link) - 1);
	pid_t pid;

	if (n < 0)
		return errno == ENOENT ? 0 : -1;
	link[n] = '\0';
	if (!numeric(link, &pid)) {
		errno = EPROTO;
		return -1;
	}
	return pid;
}

/*
 * Our own pid and the chain of parents above it, as seen in proc_fd.  Not
 * there at all: skip[0] is 0, which no process listed there has.
 */
static int collect_skip(struct pfk_scan *scan)
{
	const struct pfk_filter *flt = scan->flt;
	pid_t pid = procfs_self(flt->proc_fd);

	if (pid < 0)
		return -1;
	scan->skip = malloc(sizeof(*scan->skip));
	if (!scan->skip)
		return -1;
	scan->skip[scan->nskip++] = pid;
	while (pid > 0 && !flt->include_ancestors && scan->nskip <= 4096) {
		struct pfk_proc p = { .x = NULL };
		pid_t *v, ppid;
		char name[16];
		int fd;

		snprintf(name, sizeof(name), "%d", (int)pid);
		fd = openat(flt->proc_fd, name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		/*
		 * An ancestor we cannot look at for want of fds would be
		 * one we might signal: fail rather than stop the chain.
		 */
		if (fd < 0 && pfk_resource_error(errno))
			return -1;
		if (fd < 0)
			break;
		if (read_stat(NULL, fd, &p, &ppid, NULL, NULL) < 0) {
			int e = errno;

			close(fd);
			errno = e;
			if (pfk_resource_error(e))
				return -1;
			break;
		}
		pfk_proc_free_extra(&p);
		close(fd);
		pid = ppid;
		if (pid <= 0)
			break;
		v = realloc(scan->skip, (scan->nskip + 1) * sizeof(*v));
		if (!v)
			return -1;
		scan->skip = v;
		scan->skip[scan->nskip++] = pid;
	}
	return 0;
}

struct pfk_scan *pfk_scan_open(const struct pfk_filter *flt)
{
	struct pfk_scan *scan = calloc(1, sizeof(*scan));
	int fd;

	if (!scan)
		return NULL;
	scan->flt = flt;
	scan->task_procfd = -1;
	scan->hz = sysconf(_SC_CLK_TCK);
	if (scan->hz <= 0)
		scan->hz = 100;
	scan->born_by = boot_tick(scan->hz);
	if (flt->older) {
		char up[128];
		int ufd = openat(flt->proc_fd, "uptime", O_RDONLY | O_CLOEXEC);
		ssize_t n = ufd < 0 ? -1 : read(ufd, up, sizeof(up) - 1);

		if (ufd >= 0)
			close(ufd);
		up[n > 0 ? n : 0] = '\0';
		scan->uptime = strtod(up, NULL);
	}
	fd = openat(flt->proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	scan->proc_dir = fdopendir(fd);
	if (!scan->proc_dir) {
		close(fd);
		goto fail;
	}
	if (collect_skip(scan) < 0)
		goto fail;
	return scan;
fail:
	pfk_scan_close(scan);
	return NULL;
}

void pfk_scan_close(struct pfk_scan *scan)
{
	int e = errno;

	if (!scan)
		return;
	flush_pending(scan);
	free(scan->pend);
	if (scan->task_dir)
		closedir(scan->task_dir);
	if (scan->task_procfd >= 0)
		close(scan->task_procfd);
	if (scan->proc_dir)
		closedir(scan->proc_dir);
	if (scan->have_best)
		pfk_proc_release(&scan->best);
	pfk_proc_free_extra(&scan->pre);
	free(scan->skip);
	free(scan->buf);
	free(scan->raw);
	free(scan);
	errno = e;
}

bool pfk_scan_done(const struct pfk_scan *scan)
{
	return scan->done;
}

void pfk_scan_hold(struct pfk_scan *scan, size_t n)
{
	scan->held = n;
}

size_t pfk_scan_ancestor_hits(const struct pfk_scan *scan)
{
	return scan->ancestor_hits;
}

size_t pfk_scan_unexamined(const struct pfk_scan *scan, int *err)
{
	*err = scan->unexamined_err;
	return scan->unexamined;
}

/* Kill mode holds one per match: keep it at 64 bytes (see pfk.h). */
_Static_assert(sizeof(struct pfk_proc) <= 64, "struct pfk_proc over 64 bytes");
_Static_assert(PFK_ALIVE < 16, "enum pfk_result in pfk_proc.result:4");

struct pfk_proc_extra *pfk_proc_extra(struct pfk_proc *p)
{
	if (!p->x) {
		p->x = calloc(1, sizeof(*p->x));
		if (!p->x)
			return NULL;
		p->x->group_fd = -1;
	}
	return p->x;
}

void pfk_proc_free_extra(struct pfk_proc *p)
{
	if (!p->x)
		return;
	if (p->x->group_fd >= 0)
		close(p->x->group_fd);
	free(p->x->cmdline);
	free(p->x->long_name);
	free(p->x);
	p->x = NULL;
}

void pfk_proc_release(struct pfk_proc *p)
{
	if (p->dirfd >= 0)
		close(p->dirfd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->tgid_fd >= 0)
		close(p->tgid_fd);
	p->dirfd = p->pidfd = p->tgid_fd = -1;
	pfk_proc_free_extra(p);
}

/*
 * A process's fds to the pending ones (all, in a batch release; with
 * defer_close also a candidate that did not match), its memory freed.
 */
static void release_later(struct pfk_scan *scan, struct pfk_proc *p)
{
	close_later(scan, p->dirfd, true);
	close_later(scan, p->pidfd, true);
	close_later(scan, p->tgid_fd, true);
	p->dirfd = p->pidfd = p->tgid_fd = -1;
	if (p->x) {
		close_later(scan, p->x->group_fd, true);
		p->x->group_fd = -1;
	}
	pfk_proc_release(p);
}

/* Close one kind of fd of a batch, in the runs the batch has it in. */
static void close_field(struct pfk_proc *procs, size_t n, size_t off)
{
	int lo = -1, hi = -1;

	for (size_t i = 0; i < n; i++) {
		int *fd = (int *)((char *)&procs[i] + off);

		if (*fd < 0)
			continue;
		if (lo >= 0 && *fd == hi + 1) {
			hi = *fd;
		} else {
			if (lo >= 0)
				close_run(lo, hi);
			lo = hi = *fd;
		}
		*fd = -1;
	}
	if (lo >= 0)
		close_run(lo, hi);
}

void pfk_scan_release(struct pfk_scan *scan, struct pfk_proc *procs, size_t n)
{
	if (scan->flt->defer_close) {
		for (size_t i = 0; i < n; i++)
			release_later(scan, &procs[i]);
		flush_pending(scan);
		return;
	}
	/*
	 * The files were closed as read, so the batch's directory fds (kill
	 * mode: thousands) follow each other; no copy of them needed.  A
	 * group leader's fd (--pgroup, one per group) closes with p->x.
	 */
	close_field(procs, n, offsetof(struct pfk_proc, dirfd));
	close_field(procs, n, offsetof(struct pfk_proc, pidfd));
	close_field(procs, n, offsetof(struct pfk_proc, tgid_fd));
	for (size_t i = 0; i < n; i++)
		pfk_proc_release(&procs[i]);
}

/* -n: later start wins (then the higher pid); -o: the other way round. */
static bool better(enum pfk_pick pick, const struct pfk_proc *a,
		   const struct pfk_proc *b)
{
	if (a->starttime != b->starttime)
		return pick == PFK_PICK_NEWEST ? a->starttime > b->starttime
					       : a->starttime < b->starttime;
	return pick == PFK_PICK_NEWEST ? a->pid > b->pid : a->pid < b->pid;
}

/*
 * The candidate in scan->cur could not be examined for want of fds or
 * memory (error e).  That says nothing about the process, so it is looked
 * at again: after the caller has released the batch of n, and what it
 * still holds of earlier ones, whose handles are what hold the fds (true:
 * return the batch now), or with nothing held at once, once.  Failing
 * that too, it is counted as unexamined.
 */
static bool interrupted(struct pfk_scan *scan, size_t n, int e)
{
	bool release = n > 0 || scan->held > 0;

	flush_pending(scan);
	if (release || scan->tries++ == 0) {
		scan->again = true;
		return release;
	}
	scan->tries = 0;
	scan->unexamined++;
	scan->unexamined_err = e;
	return false;
}

ssize_t pfk_scan_next(struct pfk_scan *scan, struct pfk_proc *out, size_t max)
{
	const struct pfk_filter *flt = scan->flt;
	size_t n = 0;

	if (scan->done || max == 0)
		return 0;
	while (n < max) {
		struct pfk_proc p = { .dirfd = -1, .pidfd = -1, .tgid_fd = -1 };
		int fd, r;

		fd = next_dir(scan, &p.pid, &p.tgid, &p.tgid_fd);
		if (fd == -2)
			return n ? (ssize_t)n : -1;
		if (fd == -1) {
			scan->done = true;
			break;
		}
		r = -1;
		if (fd == BY_PATH) {
			r = match_path(scan, &p);
		} else if (fd >= 0) {
			p.dirfd = fd;
			r = match_dir(scan, fd, &p);
		}
		if (r < 0 && pfk_resource_error(errno)) {
			int e = errno;

			pfk_proc_release(&p);
			if (interrupted(scan, n, e))
				return n;
			continue;
		}
		scan->tries = 0;
		if (r <= 0) {
			if (flt->defer_close)
				release_later(scan, &p);
			else
				pfk_proc_release(&p);
			if (scan->npend >= PEND_FLUSH)
				flush_pending(scan);
			continue;
		}
		p.result = PFK_MATCHED;
		if (flt->pick == PFK_PICK_ALL) {
			out[n++] = p;
			continue;
		}
		if (!scan->have_best || better(flt->pick, &p, &scan->best)) {
			if (scan->have_best)
				pfk_proc_release(&scan->best);
			scan->best = p;
			scan->have_best = true;
			scan->best_is_ancestor = r == 2;
		} else {
			pfk_proc_release(&p);
		}
	}
	if (scan->done && scan->have_best) {
		scan->have_best = false;
		if (scan->best_is_ancestor) {
			/* What procps would pick is left out: say so. */
			pfk_proc_release(&scan->best);
			scan->ancestor_hits++;
			return 0;
		}
		out[0] = scan->best;
		return 1;
	}
	return n;
}
