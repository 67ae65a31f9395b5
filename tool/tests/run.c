// SPDX-License-Identifier: GPL-2.0
/*
 * Running pfkill (or pfgrep, or procps) as a test's child: arguments,
 * exit status, stdout and stderr; the last run, for a failed CHECK() to
 * show; a seccomp filter that makes the run see an older kernel.
 */
#include "pfkill-tests.h"

bool emulate_old_kernel;		/* run pfkill under old_kernel_filter */
int run_stdin = -1;		/* >= 0: pfkill's stdin */
int run_stdout = -1;		/* >= 0: its stdout, uncaptured; -2: closed */
long run_hard_nofile;		/* > 0: run_prog()'s hard fd limit */

static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* glibc's fstatfs() is fstatfs64 where that exists (32-bit). */
#ifdef __NR_fstatfs64
#define NR_FSTATFS_TOO __NR_fstatfs64
#else
#define NR_FSTATFS_TOO __NR_fstatfs
#endif

/*
 * Make this process see a Linux 5.3..6.8 kernel: pidfd_open() and
 * pidfd_send_signal() refuse every flag with EINVAL, as they did before
 * PIDFD_THREAD and PIDFD_SIGNAL_*, and pidfds know no ioctl(PIDFD_GET_INFO)
 * (ENOTTY; matched by its type and number, any size).  Lets the host test
 * the degraded paths.  No pidfs either: seccomp cannot make fstatfs()
 * report an anonymous inode as 6.8 would, so it fails (EINVAL), which
 * the probe takes as no pidfs, as util-linux's pfd_is_pidfs() does.
 */
int old_kernel_filter(void)
{
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, nr)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fstatfs, 1, 0),
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_FSTATFS_TOO, 0, 1),
		/* 3 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 0, 2),
		/* 5 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 7, 8),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				 __NR_pidfd_send_signal, 0, 2),
		/* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3)),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 4, 5),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		/* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		/* 12 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xffff),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xff0b, 2, 0),
		/* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 15 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		/* 16 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOTTY),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
#undef ARG_LO

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

struct last_run last_run;

static void remember_run(const struct run *r, char *const argv[])
{
	size_t len = 0;

	last_run.cmd[0] = '\0';
	for (int i = 0; argv[i] && len < sizeof(last_run.cmd) - 1; i++)
		len += snprintf(last_run.cmd + len, sizeof(last_run.cmd) - len,
				"%s%s", i ? " " : "", argv[i]);
	last_run.status = r->status;
	snprintf(last_run.err, sizeof(last_run.err), "%s", r->err);
	last_run.valid = true;
}

/* At most this many lines of its stderr. */
#define SHOW_ERR_LINES 10

void show_last_run(void)
{
	const char *line = last_run.err;
	int n = 0;

	if (!last_run.valid)
		return;
	diag("last run: %s", last_run.cmd);
	diag("  exit status %d%s", last_run.status,
	     *line ? ", stderr:" : ", stderr empty");
	while (*line && n++ < SHOW_ERR_LINES) {
		int len = strcspn(line, "\n");

		diag("    %.*s", len, line);
		line += len + (line[len] == '\n');
	}
	if (*line)
		diag("    (%d more lines)", lines(line) + (line[strlen(line) - 1] != '\n'));
}

/*
 * Run prog with argv (argv[0] decides pfkill/pfgrep behaviour), capturing
 * stdout and stderr.  nofile > 0 caps RLIMIT_NOFILE (soft and hard; the
 * hard one at run_hard_nofile when that is set).
 */
int run_prog(struct run *r, const char *prog, long nofile,
	     char *const argv[])
{
	int out = memfd_create("out", MFD_CLOEXEC);
	int errfd = memfd_create("err", MFD_CLOEXEC);
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(out, 1);
		dup2(errfd, 2);
		if (run_stdout >= 0)
			dup2(run_stdout, 1);
		else if (run_stdout == -2)
			close(1);
		if (nofile > 0) {
			struct rlimit rl = { nofile, run_hard_nofile > 0 ?
					     run_hard_nofile : nofile };

			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (run_stdin >= 0)
			dup2(run_stdin, 0);
		if (emulate_old_kernel && old_kernel_filter() < 0)
			_exit(126);
		execv(prog, argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(out, r->out, sizeof(r->out));
	slurp(errfd, r->err, sizeof(r->err));
	remember_run(r, argv);
	return r->status;
}

/*
 * procps, the reference (issue 48: 4.0.7, Debian forky's).  PFKILL_PROCPS
 * names the root its packages were unpacked into (procps, libproc2-1,
 * libc6, libsystemd0 ...: scripts/deps.sh puts them in
 * $PIDFD_CACHE/debian/forky, tool/Makefile passes that): its pgrep runs
 * under its own dynamic loader and libraries, the machine's untouched,
 * argv[0] (pgrep, pkill, pidwait) choosing the mode as ever.  Without it,
 * the machine's /usr/bin/pgrep.
 */
static char procps_root[PATH_MAX];
static char procps_exe[PATH_MAX + 32], procps_ld[PATH_MAX + 64];
static char procps_libs[2 * PATH_MAX + 64];

static bool procps_setup(void)
{
	const char *root = getenv("PFKILL_PROCPS");

	if (procps_exe[0])
		return true;
	if (root && *root) {
		snprintf(procps_root, sizeof(procps_root), "%s", root);
		snprintf(procps_exe, sizeof(procps_exe), "%s/usr/bin/pgrep",
			 procps_root);
		snprintf(procps_ld, sizeof(procps_ld),
			 "%s/usr/lib64/ld-linux-x86-64.so.2", procps_root);
		snprintf(procps_libs, sizeof(procps_libs),
			 "%s/usr/lib/x86_64-linux-gnu:%s/lib/x86_64-linux-gnu",
			 procps_root, procps_root);
		if (access(procps_exe, X_OK) || access(procps_ld, X_OK)) {
			procps_exe[0] = '\0';
			return false;
		}
		return true;
	}
	snprintf(procps_exe, sizeof(procps_exe), "/usr/bin/pgrep");
	if (access(procps_exe, X_OK) == 0)
		return true;
	procps_exe[0] = '\0';
	return false;
}

int run_procps(struct run *r, long nofile, char *const argv[])
{
	char *av[64];
	int n = 0;

	if (!procps_setup()) {
		r->status = 127;
		r->out[0] = r->err[0] = '\0';
		return 127;
	}
	if (!procps_root[0])
		return run_prog(r, procps_exe, nofile, argv);
	av[n++] = procps_ld;
	av[n++] = "--library-path";
	av[n++] = procps_libs;
	av[n++] = "--argv0";
	av[n++] = argv[0];
	av[n++] = procps_exe;
	for (int i = 1; argv[i] && n < 63; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	return run_prog(r, procps_ld, nofile, av);
}

/*
 * The reference's version ("4.0.7"), or NULL when there is none: from
 * pgrep -V, "pgrep from procps-ng 4.0.7".
 */
const char *procps_version(void)
{
	static char version[32];
	char *argv[] = { "pgrep", "-V", NULL };
	struct run *r = malloc(sizeof(*r));
	const char *v;

	if (version[0] || !r)
		return version[0] ? version : NULL;
	if (run_procps(r, 0, argv) == 0 && (v = strstr(r->out, "procps-ng ")))
		snprintf(version, sizeof(version), "%.*s",
			 (int)strcspn(v + 10, "\n "), v + 10);
	free(r);
	return version[0] ? version : NULL;
}

#define MAXARGS 32

int vrun(struct run *r, long nofile, const char *argv0, va_list ap)
{
	char *argv[MAXARGS];
	int n = 0;

	argv[n++] = (char *)argv0;
	while (n < MAXARGS - 1 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	return run_prog(r, pfkill_path, nofile, argv);
}

/* pfkill(r, "-USR1", "-x", name, NULL) */
int pfkill(struct run *r, ...)
{
	va_list ap;
	int s;

	va_start(ap, r);
	s = vrun(r, 0, "pfkill", ap);
	va_end(ap);
	return s;
}

int pfgrep(struct run *r, ...)
{
	va_list ap;
	int s;

	va_start(ap, r);
	s = vrun(r, 0, "pfgrep", ap);
	va_end(ap);
	return s;
}

int pfwait(struct run *r, ...)
{
	va_list ap;
	int s;

	va_start(ap, r);
	s = vrun(r, 0, "pfwait", ap);
	va_end(ap);
	return s;
}

/* fn's exit code, run as PID 1 of a new pid namespace, /proc unchanged. */
int in_child_pidns(int (*fn)(void))
{
	pid_t pid, child;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWPID) < 0)
			_exit(SKIP);
		child = fork();
		if (child == 0)
			_exit(fn());
		_exit(child > 0 && waitpid(child, &st, 0) == child &&
		      WIFEXITED(st) ? WEXITSTATUS(st) : FAIL);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return FAIL;
	return WEXITSTATUS(st);
}

int pfkill_nofile(struct run *r, long nofile, ...)
{
	va_list ap;
	int s;

	va_start(ap, nofile);
	s = vrun(r, nofile, "pfkill", ap);
	va_end(ap);
	return s;
}

int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Does the output hold pid as a whole word at the start of a line? */
bool lists_pid(const char *out, pid_t pid)
{
	char want[32];
	size_t len = snprintf(want, sizeof(want), "%d", (int)pid);

	for (const char *s = out; *s; ) {
		if (strncmp(s, want, len) == 0 &&
		    (s[len] == '\n' || s[len] == ' ' || s[len] == '\0'))
			return true;
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	return false;
}

char *itoa_buf(char *buf, long v)
{
	sprintf(buf, "%ld", v);
	return buf;
}
