// SPDX-License-Identifier: GPL-2.0
/*
 * End to end: --wait, --timeout and --then of pfkill, and pfwait, with
 * the exit status the kernel keeps for a waited-for process.
 */
#include "pfkill-tests.h"

int t_e2e_wait(void)
{
	struct helper_opts o = { .mortal = true, .ruid = -1, .euid = -1,
				 .rgid = -1 };
	char name[16], want[128];
	struct run r;
	pid_t h;

	unique_name(name, "wt");
	h = spawn(name, &o);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "--json", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"exited\"}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	/* pfkill saw it exit, so it is a zombie now: reapable at once. */
	int st;
	CHECK(waitpid(h, &st, WNOHANG) == h);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	return PASS;
}

int t_e2e_timeout_then(void)
{
	struct helper_opts o = { .ignore_term = true, .ruid = -1, .euid = -1,
				 .rgid = -1 };
	char name[16], want[128];
	struct run r;
	pid_t h;
	int st;

	unique_name(name, "to");
	h = spawn(name, &o);
	CHECK(h > 0);
	/* TERM is ignored: only the escalation can end it, and it says so. */
	CHECK(pfkill(&r, "--timeout", "100ms", "--then", "KILL", "--json",
		     "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"exited\","
		 "\"escalated\":true}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(waitpid(h, &st, WNOHANG) == h);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* -e: the kill line, then the escalation's. */
	h = spawn(name, &o);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--timeout", "100ms", "--then", "KILL", "-e",
		     "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%s killed (pid %d)\n%s escalated to "
		 "SIGKILL (pid %d)\n", name, h, name, h);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(waitpid(h, &st, 0) == h);
	/* One that exits on TERM is not escalated. */
	o.ignore_term = false;
	o.mortal = true;
	h = spawn(name, &o);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--timeout", "2s", "--then", "KILL", "--json",
		     "-x", name, NULL) == 0);
	CHECK(strstr(r.out, "\"result\":\"exited\",\"escalated\":false}"));
	CHECK(waitpid(h, &st, 0) == h);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	return PASS;
}

int t_e2e_timeout_alive(void)
{
	char name[16], want[128];
	struct run r;
	pid_t h;

	unique_name(name, "ta");
	h = spawn_simple(name);		/* blocks everything but KILL */
	CHECK(h > 0);
	CHECK(pfkill(&r, "--timeout", "50ms", "--json", "-x", name, NULL) == 1);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"alive\"}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(lines(r.err) == 1);
	CHECK(pending(h, SIGTERM));
	/* --then USR1 reaches only it: pending, still alive. */
	CHECK(pfkill(&r, "--timeout", "10ms", "--then", "USR1", "-x", name,
		     NULL) == 1);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	return PASS;
}

int t_e2e_thread_wait(void)
{
	struct helper_opts o = { .threads = 1, .mortal = true, .ruid = -1,
				 .euid = -1, .rgid = -1 };
	struct pfk_features feat;
	char name[16], t1[16];
	struct run r;
	pid_t h;
	int st;

	pfk_probe_features(&feat);
	SKIP_IF(!feat.pidfd_thread, "kernel lacks PIDFD_THREAD");
	unique_name(name, "tw");
	snprintf(t1, sizeof(t1), "%.13s1", name);
	h = spawn(name, &o);
	CHECK(h > 0);
	/* A fatal signal to one thread kills the process; wait for it. */
	CHECK(pfkill(&r, "--thread", "--wait", "-KILL", "-x", t1, NULL) == 0);
	CHECK(waitpid(h, &st, 0) == h && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGKILL);
	return PASS;
}

/* pfwait run in the background: its pid, its stdout to read. */
static pid_t start_pfwait(int *out, char *const argv[])
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execv(pfkill_path, argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

/* Read fd into buf (after what it holds) until it holds want, or EOF. */
static bool read_until(int fd, char *buf, size_t size, const char *want)
{
	size_t len = strlen(buf);
	ssize_t n;

	while (!strstr(buf, want) && len + 1 < size &&
	       (n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		buf[len] = '\0';
	}
	return strstr(buf, want) != NULL;
}

/*
 * --wait and pfwait: how each process ended, read through its pidfd,
 * for processes whose parent reaps them (here a nanny, as a shell or a
 * service manager would).
 */
int t_e2e_wait_status(void)
{
	struct helper_opts o = { .mortal = true, .ruid = -1, .euid = -1,
				 .rgid = -1 };
	struct helper_opts ex = { .exit_on_usr1 = 3, .ruid = -1, .euid = -1,
				  .rgid = -1 };
	char name[16], want[256], buf[1024], ppid[16];
	struct run r;
	pid_t h, nanny, w;
	int out, st;

	SKIP_IF(!kernel_keeps_status(), "no PIDFD_INFO_EXIT (Linux 6.15)");
	unique_name(name, "es");
	/* Killed by our SIGTERM */
	h = spawn_nannied(name, &o, &nanny);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "--json", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"exited\","
		 "\"status\":{\"exited\":false,\"signo\":15,\"signal\":"
		 "\"TERM\",\"core\":false}}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(waitpid(nanny, NULL, 0) == nanny);
	h = spawn_nannied(name, &o, &nanny);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "-e", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%s killed (pid %d)\n%s killed by "
		 "SIGTERM (pid %d)\n", name, h, name, h);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(waitpid(nanny, NULL, 0) == nanny);

	/* Exits with 3 when it gets our SIGUSR1 */
	h = spawn_nannied(name, &ex, &nanny);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "-e", "-USR1", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%s killed (pid %d)\n%s exited, "
		 "status 3 (pid %d)\n", name, h, name, h);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(waitpid(nanny, NULL, 0) == nanny);
	h = spawn_nannied(name, &ex, &nanny);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "--json", "-USR1", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"exited\","
		 "\"status\":{\"exited\":true,\"code\":3}}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(waitpid(nanny, NULL, 0) == nanny);

	/* pfwait: it waits, then we end the process (our own helper). */
	h = spawn_nannied(name, &ex, &nanny);
	CHECK(h > 0);
	itoa_buf(ppid, nanny);
	char *argv[] = { "pfwait", "-e", "-P", ppid, "-x", name, NULL };

	w = start_pfwait(&out, argv);
	CHECK(w > 0);
	buf[0] = '\0';
	snprintf(want, sizeof(want), "waiting for %s (pid %d)\n", name, h);
	CHECK(read_until(out, buf, sizeof(buf), want));
	kill(h, SIGUSR1);
	snprintf(want, sizeof(want), "%s exited, status 3 (pid %d)\n", name, h);
	CHECK(read_until(out, buf, sizeof(buf), want));
	close(out);
	CHECK(waitpid(w, &st, 0) == w && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(want, sizeof(want), "waiting for %s (pid %d)\n%s exited, "
		 "status 3 (pid %d)\n", name, h, name, h);
	CHECK(strcmp(buf, want) == 0);
	CHECK(waitpid(nanny, NULL, 0) == nanny);
	return PASS;
}

/*
 * No status, no change: without the ioctl (seccomp: ENOTTY) or for a
 * zombie nobody reaps (our own helper, reaped only after pfkill), the
 * output is what it was before PIDFD_INFO_EXIT, and no error.
 */
int t_e2e_wait_status_absent(void)
{
	struct helper_opts o = { .mortal = true, .ruid = -1, .euid = -1,
				 .rgid = -1 };
	char name[16], want[256];
	struct run r;
	pid_t h, nanny;
	int st;

	unique_name(name, "en");
	h = spawn(name, &o);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "-e", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%s killed (pid %d)\n", name, h);
	CHECK(strcmp(r.out, want) == 0 && !r.err[0]);
	CHECK(waitpid(h, &st, 0) == h && WIFSIGNALED(st));

	emulate_old_kernel = true;
	pfkill(&r, "--version", NULL);
	SKIP_IF(r.status == 126, "seccomp not available");
	CHECK(strstr(r.out, "pidfd-info=no"));
	h = spawn_nannied(name, &o, &nanny);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "--json", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"exited\"}\n",
		 h, name);
	CHECK(strcmp(r.out, want) == 0 && !r.err[0]);
	CHECK(waitpid(nanny, NULL, 0) == nanny);
	h = spawn_nannied(name, &o, &nanny);
	CHECK(h > 0);
	CHECK(pfkill(&r, "--wait", "-e", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%s killed (pid %d)\n", name, h);
	CHECK(strcmp(r.out, want) == 0 && !r.err[0]);
	CHECK(waitpid(nanny, NULL, 0) == nanny);
	return PASS;
}
