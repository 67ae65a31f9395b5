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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfk.h"

struct pfk_scan {
	const struct pfk_filter *flt;
	DIR *proc_dir;
	DIR *task_dir;			/* --thread: tasks of the current process */
	pid_t task_tgid;
	pid_t *skip;			/* ourselves and, by default, our ancestors */
	size_t nskip;
	struct pfk_proc best;		/* -n / -o: the best match so far */
	bool have_best;
	bool done;
	char *buf;			/* scratch buffer for cmdline */
	size_t bufsz;
};

void pfk_filter_init(struct pfk_filter *flt, int proc_fd)
{
	memset(flt, 0, sizeof(*flt));
	flt->proc_fd = proc_fd;
}

void pfk_filter_free(struct pfk_filter *flt)
{
	struct pfk_ids *lists[] = { &flt->euid, &flt->ruid, &flt->rgid,
				    &flt->pgrp, &flt->session, &flt->ppid,
				    &flt->tty };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		free(lists[i]->v);
		lists[i]->v = NULL;
		lists[i]->n = 0;
	}
	if (flt->has_pattern)
		regfree(&flt->pattern);
	flt->has_pattern = false;
}

/* Read a whole file below dirfd into *buf (NUL-terminated); length or -1. */
static ssize_t read_at(int dirfd, const char *name, char **buf, size_t *bufsz)
{
	size_t len = 0;
	ssize_t r;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		if (len + 1 >= *bufsz) {
			size_t sz = *bufsz ? *bufsz * 2 : 4096;
			char *nb = realloc(*buf, sz);

			if (!nb) {
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			*buf = nb;
			*bufsz = sz;
		}
		r = read(fd, *buf + len, *bufsz - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	(*buf)[len] = '\0';
	return len;
}

/* Small files (stat, status) fit a stack buffer; read once, then to EOF. */
static ssize_t read_small_at(int dirfd, const char *name, char *buf,
			     size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (len + 1 < size) {
		r = read(fd, buf + len, size - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				len = (size_t)-1;
			break;
		}
		len += r;
	}
	close(fd);
	if (len == (size_t)-1)
		return -1;
	buf[len] = '\0';
	return len;
}

int pfk_read_stat(int dirfd, struct pfk_proc *p, pid_t *ppid, pid_t *session,
		  unsigned long *tty)
{
	char buf[1024], *open_paren, *close_paren, *s;
	unsigned long long f[20];
	size_t namelen;
	int i;

	if (read_small_at(dirfd, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	/* The name sits in parentheses and may itself contain ") ". */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		goto bad;
	namelen = close_paren - open_paren - 1;
	if (namelen >= sizeof(p->name))
		namelen = sizeof(p->name) - 1;
	memcpy(p->name, open_paren + 1, namelen);
	p->name[namelen] = '\0';

	/* Fields 3..22 follow: state ppid pgrp session tty_nr ... starttime. */
	s = close_paren + 2;
	if (*s)
		s += 2;		/* skip the one-letter state */
	for (i = 1; i < 20; i++) {
		char *end;

		errno = 0;
		f[i] = strtoull(s, &end, 10);
		if (end == s || errno)
			goto bad;
		s = end;
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
	errno = EPROTO;
	return -1;
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
	for (size_t i = 0; i < scan->nskip; i++)
		if (scan->skip[i] == tgid)
			return true;
	return false;
}

/* The text -f matches: the command line, or "[comm]" for kernel threads. */
static const char *full_text(struct pfk_scan *scan, int dirfd,
			     const struct pfk_proc *p)
{
	ssize_t len = read_at(dirfd, "cmdline", &scan->buf, &scan->bufsz);

	if (len < 0)
		return NULL;
	while (len > 0 && scan->buf[len - 1] == '\0')
		len--;
	for (ssize_t i = 0; i < len; i++)
		if (scan->buf[i] == '\0')
			scan->buf[i] = ' ';
	scan->buf[len] = '\0';
	if (len == 0) {
		size_t need = strlen(p->name) + 3;

		if (need > scan->bufsz) {
			char *nb = realloc(scan->buf, need);

			if (!nb)
				return NULL;
			scan->buf = nb;
			scan->bufsz = need;
		}
		snprintf(scan->buf, need, "[%s]", p->name);
	}
	return scan->buf;
}

/*
 * Decide about one open directory.  1: match (p filled in), 0: no match,
 * -1: the process went away while we looked (treated as no match).
 */
static int match_dir(struct pfk_scan *scan, int dirfd, struct pfk_proc *p)
{
	const struct pfk_filter *flt = scan->flt;
	unsigned long tty;
	pid_t ppid, session;
	const char *text = NULL;
	bool m = true;

	if (pfk_read_stat(dirfd, p, &ppid, &session, &tty) < 0)
		return -1;
	if (skipped(scan, p->tgid))
		return 0;

	if (flt->ppid.n && !pfk_ids_has(&flt->ppid, ppid))
		m = false;
	if (m && flt->pgrp.n && !pfk_ids_has(&flt->pgrp, p->pgrp))
		m = false;
	if (m && flt->session.n && !pfk_ids_has(&flt->session, session))
		m = false;
	if (m && flt->tty.n && !pfk_ids_has(&flt->tty, tty))
		m = false;
	if (m && (flt->euid.n || flt->ruid.n || flt->rgid.n)) {
		char status[4096];
		unsigned long ruid, euid, rgid, egid;

		if (read_small_at(dirfd, "status", status, sizeof(status)) < 0 ||
		    status_ids(status, "\nUid:", &ruid, &euid) < 0 ||
		    status_ids(status, "\nGid:", &rgid, &egid) < 0)
			return -1;
		if ((flt->euid.n && !pfk_ids_has(&flt->euid, euid)) ||
		    (flt->ruid.n && !pfk_ids_has(&flt->ruid, ruid)) ||
		    (flt->rgid.n && !pfk_ids_has(&flt->rgid, rgid)))
			m = false;
	}
	if (m && flt->has_pattern) {
		if (flt->full) {
			text = full_text(scan, dirfd, p);
			if (!text)
				return -1;
		} else {
			text = p->name;
		}
		m = regexec(&flt->pattern, text, 0, NULL, 0) == 0;
	}
	if (flt->negate)
		m = !m;
	if (!m)
		return 0;

	if (flt->keep_cmdline) {
		if (!text || !flt->full)
			text = full_text(scan, dirfd, p);
		p->cmdline = strdup(text ? text : p->name);
		if (!p->cmdline)
			return -1;
	}
	return 1;
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
 * Open the next candidate directory: /proc/<pid>, or with --thread
 * /proc/<tgid>/task/<tid>.  Returns its fd, -1 at the end, -2 on error.
 */
static int next_dir(struct pfk_scan *scan, pid_t *pid, pid_t *tgid)
{
	const struct pfk_filter *flt = scan->flt;
	struct dirent *de;
	int fd;

	for (;;) {
		if (scan->task_dir) {
			de = readdir(scan->task_dir);
			if (!de) {
				closedir(scan->task_dir);
				scan->task_dir = NULL;
				continue;
			}
			if (!numeric(de->d_name, pid))
				continue;
			fd = openat(dirfd(scan->task_dir), de->d_name,
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 && (errno == EMFILE || errno == ENFILE))
				return -2;
			if (fd < 0)
				continue;	/* the thread exited */
			*tgid = scan->task_tgid;
			return fd;
		}

		errno = 0;
		de = readdir(scan->proc_dir);
		if (!de)
			return errno ? -2 : -1;
		if (!numeric(de->d_name, tgid))
			continue;
		fd = openat(flt->proc_fd, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			return -2;
		if (fd < 0)
			continue;		/* the process exited */
		if (!flt->threads) {
			*pid = *tgid;
			return fd;
		}
		/* Threads: walk this process's task/ next. */
		{
			int taskfd = openat(fd, "task", O_RDONLY | O_DIRECTORY |
					    O_CLOEXEC);

			close(fd);
			if (taskfd < 0)
				continue;
			scan->task_dir = fdopendir(taskfd);
			if (!scan->task_dir) {
				close(taskfd);
				return -2;
			}
			scan->task_tgid = *tgid;
		}
	}
}

/* Our own pid and the chain of parents above it, as seen in proc_fd. */
static int collect_skip(struct pfk_scan *scan)
{
	pid_t pid = getpid();

	while (pid > 0) {
		struct pfk_proc p;
		pid_t *v, ppid;
		char name[16];
		int fd;

		v = realloc(scan->skip, (scan->nskip + 1) * sizeof(*v));
		if (!v)
			return -1;
		scan->skip = v;
		scan->skip[scan->nskip++] = pid;
		if (scan->flt->include_ancestors || scan->nskip > 4096)
			break;
		snprintf(name, sizeof(name), "%d", (int)pid);
		fd = openat(scan->flt->proc_fd, name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (pfk_read_stat(fd, &p, &ppid, NULL, NULL) < 0)
			ppid = 0;
		close(fd);
		pid = ppid;
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
	if (scan->task_dir)
		closedir(scan->task_dir);
	if (scan->proc_dir)
		closedir(scan->proc_dir);
	if (scan->have_best)
		pfk_proc_release(&scan->best);
	free(scan->skip);
	free(scan->buf);
	free(scan);
	errno = e;
}

void pfk_proc_release(struct pfk_proc *p)
{
	if (p->dirfd >= 0)
		close(p->dirfd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->group_fd >= 0)
		close(p->group_fd);
	p->dirfd = p->pidfd = p->group_fd = -1;
	free(p->cmdline);
	p->cmdline = NULL;
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

ssize_t pfk_scan_next(struct pfk_scan *scan, struct pfk_proc *out, size_t max)
{
	const struct pfk_filter *flt = scan->flt;
	size_t n = 0;

	if (scan->done || max == 0)
		return 0;
	while (n < max) {
		struct pfk_proc p = { .dirfd = -1, .pidfd = -1,
				      .group_fd = -1, .proc_fd = flt->proc_fd };
		int fd, r;

		fd = next_dir(scan, &p.pid, &p.tgid);
		if (fd == -2)
			return n ? (ssize_t)n : -1;
		if (fd == -1) {
			scan->done = true;
			break;
		}
		p.dirfd = fd;
		r = match_dir(scan, fd, &p);
		if (r <= 0) {
			pfk_proc_release(&p);
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
		} else {
			pfk_proc_release(&p);
		}
	}
	if (scan->done && scan->have_best) {
		out[0] = scan->best;
		scan->have_best = false;
		return 1;
	}
	return n;
}
