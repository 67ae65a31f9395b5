// SPDX-License-Identifier: GPL-2.0
/*
 * The differential tests' zoo: the processes they start (odd names, other
 * uids, namespaces, a pty, a zombie, a tree, a cgroup, pid files), the
 * placeholders rows name them by, and the check that a row's output
 * names nothing else.
 */
#include "pfkill-tests.h"
#include "differential.h"

struct zoo zoo;

static pid_t zoo_add(const char *name, struct helper_opts *o)
{
	static const struct helper_opts none = { .ruid = -1, .euid = -1,
						 .rgid = -1 };
	pid_t pid = spawn(name, o ? o : &none);

	if (pid > 0 && zoo.nh < 24)
		zoo.h[zoo.nh++] = pid;
	return pid;
}

static void zoo_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			diag("write %s: %s", path, strerror(errno));
		close(fd);
	}
}

int zoo_start(void)
{
	static char longarg[9001], envvar[48];
	struct helper_opts o = { .ruid = -1, .euid = -1, .rgid = -1 };
	struct timespec gap = { 0, 15 * 1000 * 1000 };
	char buf[160], *pts;
	int ready[2];
	pid_t pid;

	memset(&zoo, 0, sizeof(zoo));
	zoo.root = geteuid() == 0;
	unique_name(zoo.a, "za");
	unique_name(zoo.b, "zb");
	unique_name(zoo.t, "zt");
	unique_name(zoo.z, "zz");
	unique_name(zoo.tree, "zr");
	unique_name(zoo.self, "zs");
	snprintf(zoo.t1, sizeof(zoo.t1), "%.13s1", zoo.t);
	for (size_t i = 0; i <= strlen(zoo.a); i++)
		zoo.au[i] = toupper((unsigned char)zoo.a[i]);
	/* A name with control characters: listed as "pk....?c?" */
	unique_name(zoo.ctl, "c");
	strcat(zoo.ctl, "\x01\n\xe9");
	/*
	 * argv[0] rewritten, with everything procps must escape; after the
	 * invalid 0xff a UTF-8 locale escapes as the C locale does.
	 */
	snprintf(zoo.weird, sizeof(zoo.weird),
		 "%s\x01 new\nline\ttab \xc3\xa9 \x7f \xe9 'q' \xff\x02\x7f.",
		 zoo.b);

	zoo_add(zoo.a, NULL);
	nanosleep(&gap, NULL);
	o.new_pgrp = true;
	if (zoo.root) {
		o.ruid = 1000, o.euid = 0, o.rgid = 1000;
	}
	zoo_add(zoo.a, &o);
	itoa_buf(zoo.v_pgid, zoo.h[1]);
	nanosleep(&gap, NULL);
	o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
				  .new_session = true };
	zoo_add(zoo.b, &o);
	itoa_buf(zoo.v_sid, zoo.h[2]);
	nanosleep(&gap, NULL);
	o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
				  .argv0 = zoo.weird,
				  .extra = { "", "a b", "it's" } };
	zoo_add(zoo.b, &o);
	memset(longarg, 'y', sizeof(longarg) - 1);
	o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
				  .extra = { longarg } };
	snprintf(envvar, sizeof(envvar), "PFK_ZOO=%s", zoo.b);
	o.env = envvar;
	zoo_add(zoo.b, &o);
	zoo_add(zoo.ctl, NULL);
	/* A lead byte that would hide a terminal escape from procps */
	unique_name(zoo.esc, "ze");
	zoo.esc[0] = 'q';	/* kept out of the rows that list "pk" */
	snprintf(zoo.escargv, sizeof(zoo.escargv), "%s\xe0\x1b[0m", zoo.esc);
	o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
				  .argv0 = zoo.escargv };
	zoo_add(zoo.esc, &o);
	o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
				  .threads = 2 };
	zoo_add(zoo.t, &o);
	if (zoo.root) {
		o = (struct helper_opts){ .ruid = 1000, .euid = 1000,
					  .rgid = 1000 };
		zoo_add(zoo.a, &o);
		o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
					  .unshare = CLONE_NEWNET | CLONE_NEWUTS };
		zoo.netns = zoo_add(zoo.a, &o);
		/*
		 * One namespace each, where procps's default --ns set and
		 * the one we had differed: uts and user are not in it,
		 * cgroup is.
		 */
		unique_name(zoo.nsx, "zn");
		o.unshare = CLONE_NEWUTS;
		zoo_add(zoo.nsx, &o);
		o.unshare = CLONE_NEWCGROUP;
		zoo_add(zoo.nsx, &o);
		o.unshare = CLONE_NEWUSER;
		zoo_add(zoo.nsx, &o);
	}
	itoa_buf(zoo.v_ns, zoo.netns > 0 ? zoo.netns : getpid());
	zoo.ptm = posix_openpt(O_RDWR | O_NOCTTY);
	if (zoo.ptm >= 0 && grantpt(zoo.ptm) == 0 && unlockpt(zoo.ptm) == 0 &&
	    (pts = ptsname(zoo.ptm))) {
		snprintf(zoo.tty, sizeof(zoo.tty), "%s", pts + 5);
		o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1,
					  .new_session = true, .tty = pts };
		zoo_add(zoo.b, &o);
		/* Our stdin is that terminal: -t stdin must not reach it. */
		int fd = open(pts, O_RDWR | O_NOCTTY | O_CLOEXEC);

		if (fd < 0 || dup2(fd, 0) < 0)
			return -1;
		close(fd);
	}

	/* A tree: our child "tree" with a helper child of its own. */
	if (pipe(ready) < 0)
		return -1;
	zoo.tree_pid = fork();
	if (zoo.tree_pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, zoo.tree);
		spawn_simple(zoo.a);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], buf, 1) != 1)
		return -1;
	close(ready[0]);
	itoa_buf(zoo.v_tree, zoo.tree_pid);

	/* A zombie: a child that exits and is not reaped until the end. */
	zoo.zombie = fork();
	if (zoo.zombie == 0) {
		prctl(PR_SET_NAME, zoo.z);
		_exit(0);
	}
	for (int i = 0; i < 200; i++) {
		snprintf(buf, sizeof(buf), "/proc/%d/stat", zoo.zombie);
		FILE *f = fopen(buf, "re");
		char st = 0;

		if (f) {
			if (fscanf(f, "%*d (%*[^)]) %c", &st) != 1)
				st = 0;
			fclose(f);
		}
		if (st == 'Z')
			break;
		nanosleep(&gap, NULL);
	}

	/* A cgroup (v2) holding one helper, where root may make one. */
	if (zoo.root) {
		snprintf(zoo.cgdir, sizeof(zoo.cgdir), "/sys/fs/cgroup/%s",
			 zoo.a);
		if (mkdir(zoo.cgdir, 0755) == 0) {
			snprintf(buf, sizeof(buf), "%s/cgroup.procs", zoo.cgdir);
			pid = zoo_add(zoo.b, NULL);
			int fd = open(buf, O_WRONLY | O_CLOEXEC);

			snprintf(buf, sizeof(buf), "%d", pid);
			zoo.cg = fd >= 0 && write(fd, buf, strlen(buf)) > 0;
			if (fd >= 0)
				close(fd);
		}
	}

	/* Pid files: the first helper's, a locked one, a broken one. */
	snprintf(zoo.pf, sizeof(zoo.pf), "/tmp/%s.pid", zoo.a);
	snprintf(zoo.lpf, sizeof(zoo.lpf), "/tmp/%s.lock.pid", zoo.a);
	snprintf(zoo.badpf, sizeof(zoo.badpf), "/tmp/%s.bad.pid", zoo.a);
	snprintf(buf, sizeof(buf), "%d\n", zoo.h[0]);
	zoo_write(zoo.pf, buf);
	snprintf(buf, sizeof(buf), "  %d junk", zoo.h[2]);
	zoo_write(zoo.lpf, buf);
	snprintf(buf, sizeof(buf), "%dx", zoo.h[0]);
	zoo_write(zoo.badpf, buf);
	zoo.lockfd = open(zoo.lpf, O_RDONLY | O_CLOEXEC);
	if (zoo.lockfd < 0 || flock(zoo.lockfd, LOCK_EX) < 0)
		return -1;

	itoa_buf(zoo.v_me, getpid());
	itoa_buf(zoo.v_up, getppid());	/* the runner: %SELF's parent */
	snprintf(zoo.v_metree, sizeof(zoo.v_metree), "%d,%d", getpid(),
		 zoo.tree_pid);
	snprintf(zoo.v_plus, sizeof(zoo.v_plus), "+%d", getpid());
	snprintf(zoo.v_upme, sizeof(zoo.v_upme), "%d,%d", getppid(), getpid());
	prctl(PR_SET_NAME, zoo.self);
	for (int i = 0; i < zoo.nh; i++)
		if (zoo.h[i] <= 0)
			return -1;
	return 0;
}

void zoo_stop(void)
{
	for (int i = 0; i < zoo.nh; i++)
		reap(zoo.h[i]);
	reap(zoo.tree_pid);
	reap(zoo.zombie);
	if (zoo.cgdir[0])
		rmdir(zoo.cgdir);
	unlink(zoo.pf);
	unlink(zoo.lpf);
	unlink(zoo.badpf);
}

const char *zoo_arg(const char *w)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "%A", offsetof(struct zoo, a) },
		{ "%AU", offsetof(struct zoo, au) },
		{ "%B", offsetof(struct zoo, b) },
		{ "%T", offsetof(struct zoo, t) },
		{ "%T1", offsetof(struct zoo, t1) },
		{ "%Z", offsetof(struct zoo, z) },
		{ "%SELF", offsetof(struct zoo, self) },
		{ "%E", offsetof(struct zoo, esc) },
		{ "%N", offsetof(struct zoo, nsx) },
		{ "%me", offsetof(struct zoo, v_me) },
		{ "%up", offsetof(struct zoo, v_up) },
		{ "%tree", offsetof(struct zoo, v_tree) },
		{ "%me,tree", offsetof(struct zoo, v_metree) },
		{ "%up,me", offsetof(struct zoo, v_upme) },
		{ "+%me", offsetof(struct zoo, v_plus) },
		{ "%pgid", offsetof(struct zoo, v_pgid) },
		{ "%sid", offsetof(struct zoo, v_sid) },
		{ "%ns", offsetof(struct zoo, v_ns) },
		{ "%tty", offsetof(struct zoo, tty) },
		{ "%pf", offsetof(struct zoo, pf) },
		{ "%lpf", offsetof(struct zoo, lpf) },
		{ "%badpf", offsetof(struct zoo, badpf) },
	};
	static char cg[128];

	if (strcmp(w, "%cg") == 0) {
		snprintf(cg, sizeof(cg), "/%s", zoo.a);
		return cg;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(w, keys[i].key) == 0)
			return (const char *)&zoo + keys[i].off;
	return w;
}

/* Ours: started by this test (a child, the tree's child, a thread, us). */
static bool zoo_owns(pid_t pid)
{
	char path[40], line[80];
	pid_t tgid = -1, ppid = -1;
	FILE *f;

	if (pid == getpid())
		return true;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;	/* gone: it was no helper of ours */
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Tgid: %d", &tgid);
		sscanf(line, "PPid: %d", &ppid);
	}
	fclose(f);
	if (tgid != pid && tgid > 0)
		return zoo_owns(tgid);
	return ppid == getpid() || (ppid > 0 && ppid == zoo.tree_pid);
}

/*
 * SAFETY: a row must stay inside the zoo.  Every PID it names (a line's
 * leading number, "killed (pid N)") must be ours, and a count (-c) must
 * be no larger than the zoo.  Of a -d list only the first PID is seen.
 */
bool zoo_bounded(const char *out)
{
	for (const char *l = out; *l; ) {
		const char *nl = strchr(l, '\n'), *k;
		char *end;
		long v = strtol(l, &end, 10);

		if (!nl)
			nl = l + strlen(l);
		/* A PID alone, or a count: no count beyond the zoo */
		if (end > l && end == nl && v > 32 && !zoo_owns(v))
			return false;
		if (end > l && end < nl && *end == ' ' && !zoo_owns(v))
			return false;
		/* pkill's "killed (pid N)", pidwait's "waiting for" */
		k = strstr(l, "(pid ");
		if (k && k < nl && !zoo_owns(atoi(k + 5)))
			return false;
		l = *nl ? nl + 1 : nl;
	}
	return true;
}
