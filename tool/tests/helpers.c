// SPDX-License-Identifier: GPL-2.0
/*
 * Helper processes: every process a test signals is one it started, a copy
 * of this program run as "--helper NAME ...", which renames itself with
 * PR_SET_NAME, blocks signals (so a delivered signal stays visible in
 * /proc/<pid>/status as pending instead of racing with process death) and
 * waits.  Also: what is pending at a helper, and a PID namespace box.
 */
#include "pfkill-tests.h"

static unsigned int name_seq;
static int usr1_code;

static void exit_on_usr1(int sig)
{
	(void)sig;
	_exit(usr1_code);
}

/* A handler that does nothing: for -H, whose SigCgt shows it. */
static void caught(int sig)
{
	(void)sig;
}

static void *helper_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* argv: --helper NAME READYFD THREADS PGRP JOIN SESSION TTY RUID EUID RGID MODE */
int helper_main(char **argv)
{
	const char *name = argv[2];
	int ready = atoi(argv[3]), threads = atoi(argv[4]);
	long join = atol(argv[6]), ruid = atol(argv[9]), euid = atol(argv[10]);
	long rgid = atol(argv[11]);
	const char *mode = argv[12];
	sigset_t all;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (atoi(argv[5]))
		setpgid(0, 0);
	if (join > 0)
		setpgid(0, join);
	if (atoi(argv[7]))
		setsid();
	if (strstr(mode, ",unshare=") &&
	    unshare(strtol(strstr(mode, ",unshare=") + 9, NULL, 16)) < 0)
		_exit(95);
	if (strcmp(argv[8], "-") != 0) {
		int fd = open(argv[8], O_RDWR);

		if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
			_exit(93);
	}
	if (rgid >= 0 && setresgid(rgid, 0, 0) < 0)
		_exit(90);
	if ((ruid >= 0 || euid >= 0) &&
	    setresuid(ruid >= 0 ? ruid : 0, euid >= 0 ? euid : 0, 0) < 0)
		_exit(91);
	/* A change of credentials clears the death signal: arm it again. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	/* Threads inherit the mask: block before creating them. */
	sigfillset(&all);
	if (strncmp(mode, "block", 5) == 0)
		sigprocmask(SIG_BLOCK, &all, NULL);
	else if (strncmp(mode, "ignterm", 7) == 0)
		signal(SIGTERM, SIG_IGN);
	else if (strncmp(mode, "exit", 4) == 0) {
		usr1_code = atoi(mode + 4);
		signal(SIGUSR1, exit_on_usr1);
	}
	if (strstr(mode, ",catch=") && atoi(strstr(mode, ",catch=") + 7) > 0)
		signal(atoi(strstr(mode, ",catch=") + 7), caught);

	prctl(PR_SET_NAME, name);
	for (int i = 1; i <= threads; i++) {
		char tname[32];
		pthread_t t;

		if (pthread_create(&t, NULL, helper_thread, NULL))
			_exit(94);
		snprintf(tname, sizeof(tname), "%.13s%d", name, i);
		tname[15] = '\0';
		pthread_setname_np(t, tname);
	}
	if (write(ready, "x", 1) != 1)
		_exit(92);
	close(ready);
	for (;;)
		pause();
}

/* A name no other process has: "pk" + random + tag, at most 15 chars. */
void unique_name(char *buf, const char *tag)
{
	snprintf(buf, 16, "pk%05x%.6s", (unsigned int)((getpid() * 7919u +
		 ++name_seq * 104729u + (unsigned int)time(NULL)) & 0xfffff),
		 tag);
}

pid_t spawn(const char *name, const struct helper_opts *o)
{
	static const struct helper_opts none = { .ruid = -1, .euid = -1,
						 .rgid = -1 };
	char a[11][48];
	int pipefd[2];
	pid_t pid;
	char c;

	if (!o)
		o = &none;
	if (pipe(pipefd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pipefd[0]);
		snprintf(a[0], 48, "%s", name);
		snprintf(a[1], 48, "%d", pipefd[1]);
		snprintf(a[2], 48, "%d", o->threads);
		snprintf(a[3], 48, "%d", o->new_pgrp);
		snprintf(a[4], 48, "%d", (int)o->join_pgrp);
		snprintf(a[5], 48, "%d", o->new_session);
		snprintf(a[6], 48, "%s", o->tty ? o->tty : "-");
		snprintf(a[7], 48, "%ld", o->ruid);
		snprintf(a[8], 48, "%ld", o->euid);
		snprintf(a[9], 48, "%ld", o->rgid);
		if (o->exit_on_usr1 > 0)
			snprintf(a[10], 48, "exit%d,unshare=%x,catch=%d",
				 o->exit_on_usr1, o->unshare, o->catch_sig);
		else
			snprintf(a[10], 48, "%s,unshare=%x,catch=%d",
				 o->mortal ? "mortal" :
				 o->ignore_term ? "ignterm" : "block",
				 o->unshare, o->catch_sig);
		char *av[20] = { (char *)(o->argv0 ? o->argv0 : "pfkill-tests"),
				 "--helper" };
		int n = 2;

		for (int i = 0; i < 11; i++)
			av[n++] = a[i];
		for (int i = 0; i < 4 && o->extra[i]; i++)
			av[n++] = (char *)o->extra[i];
		av[n] = NULL;
		if (o->env)
			putenv((char *)o->env);
		execv(self_path, av);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1) {
		close(pipefd[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(pipefd[0]);
	return pid;
}

pid_t spawn_simple(const char *name)
{
	return spawn(name, NULL);
}

/*
 * A helper whose parent reaps it as soon as it exits, as a shell or a
 * service manager would: a child of *nanny, itself our child, which
 * waits for it and then exits.  The kernel records an exit status for
 * PIDFD_GET_INFO only at that reap.
 */
pid_t spawn_nannied(const char *name, const struct helper_opts *o,
		    pid_t *nanny)
{
	int p[2];
	pid_t h = -1;

	if (pipe(p) < 0)
		return -1;
	*nanny = fork();
	if (*nanny < 0)
		return -1;
	if (*nanny == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		h = spawn(name, o);
		if (write(p[1], &h, sizeof(h)) != sizeof(h) || h <= 0)
			_exit(1);
		_exit(waitpid(h, NULL, 0) == h ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &h, sizeof(h)) != sizeof(h))
		h = -1;
	close(p[0]);
	return h;
}

/* Our own child, not yet reaped: its PID cannot have been reused. */
void reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A hex signal mask line from /proc/<pid>[/task/<tid>]/status. */
static unsigned long long status_mask(pid_t pid, pid_t tid, const char *key)
{
	char path[64], line[256];
	unsigned long long v = ~0ULL;
	FILE *f;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = strtoull(line + strlen(key), NULL, 16);
	fclose(f);
	return v;
}

bool pending(pid_t pid, int sig)
{
	return status_mask(pid, 0, "ShdPnd:") & (1ULL << (sig - 1));
}

bool thread_pending(pid_t pid, pid_t tid, int sig)
{
	return status_mask(pid, tid, "SigPnd:") & (1ULL << (sig - 1));
}

bool nothing_pending(pid_t pid)
{
	return status_mask(pid, 0, "ShdPnd:") == 0 &&
	       status_mask(pid, pid, "SigPnd:") == 0;
}

/*
 * Run fn as PID 1 of a fresh PID namespace with its own /proc: the test may
 * then steer PID allocation (ns_last_pid) or kill "everything" without
 * disturbing the host.
 */
int in_new_pidns(int (*fn)(void))
{
	pid_t pid;
	int st;

	SKIP_IF(unshare(CLONE_NEWPID | CLONE_NEWNS) < 0,
		"unshare(CLONE_NEWPID|CLONE_NEWNS): %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return FAIL;
	if (pid == 0) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
			  MS_NOEXEC, NULL) < 0) {
			snprintf(skip_reason, 256, "mount proc: %s",
				 strerror(errno));
			_exit(SKIP);
		}
		_exit(fn());
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return FAIL;
	return WEXITSTATUS(st);
}

/* Minimal guests may lack /etc/passwd or /etc/group entries for root. */
static bool file_has_line(const char *path, const char *prefix)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, prefix, strlen(prefix)) == 0;
	fclose(f);
	return found;
}

bool has_root_entries(void)
{
	return file_has_line("/etc/passwd", "root:") &&
	       file_has_line("/etc/group", "root:");
}

/* Does this kernel keep exit statuses (PIDFD_INFO_EXIT, 6.15)? */
bool kernel_keeps_status(void)
{
	struct pfk_features f;
	pid_t c;
	int fd, st;
	bool kept;

	pfk_probe_features(&f);
	if (!f.pidfd_info)
		return false;
	c = fork();
	if (c == 0)
		_exit(0);
	fd = syscall(__NR_pidfd_open, c, 0);
	waitpid(c, NULL, 0);
	kept = fd >= 0 && pfk_pidfd_status(fd, &st) == 0;
	if (fd >= 0)
		close(fd);
	return kept;
}
