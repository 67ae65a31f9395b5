// SPDX-License-Identifier: GPL-2.0
/*
 * End to end: what pfgrep and pfkill print (-l, -a, -d, -e, -c, --json,
 * the pfgrep name, --help, --version).
 */
#include "pfkill-tests.h"

int t_e2e_list_formats(void)
{
	char name[16], want[128];
	struct run r;
	pid_t a, b;

	unique_name(name, "lf");
	a = spawn_simple(name);
	b = spawn_simple(name);
	CHECK(a > 0 && b > 0);
	if (b < a) {		/* listed in pid order; PIDs may wrap */
		pid_t t = a;

		a = b;
		b = t;
	}
	CHECK(pfgrep(&r, "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d\n%d\n", a, b);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfgrep(&r, "-d", ",", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d,%d\n", a, b);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfgrep(&r, "-l", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d %s\n%d %s\n", a, name, b, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfgrep(&r, "-c", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, "2\n") == 0);
	CHECK(pfgrep(&r, "-a", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d pfkill-tests --helper %s ", a, name);
	CHECK(strncmp(r.out, want, strlen(want)) == 0 && lines(r.out) == 2);
	/* --list on pfkill lists and signals nothing. */
	CHECK(pfkill(&r, "--list", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d\n%d\n", a, b);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(nothing_pending(a) && nothing_pending(b));
	reap(a);
	reap(b);
	return PASS;
}

int t_e2e_pfgrep_symlink(void)
{
	char link[PATH_MAX], name[16];
	char *argv[] = { "pfgrep", "-x", name, NULL };
	struct run r;
	pid_t h;

	snprintf(link, sizeof(link), "%.*s/pfgrep",
		 (int)(strrchr(pfkill_path, '/') - pfkill_path), pfkill_path);
	SKIP_IF(access(link, X_OK) != 0, "no pfgrep next to %.200s", pfkill_path);
	unique_name(name, "sl");
	h = spawn_simple(name);
	CHECK(h > 0);
	CHECK(run_prog(&r, link, 0, argv) == 0 && lists_pid(r.out, h));
	CHECK(nothing_pending(h));
	reap(h);
	return PASS;
}

int t_e2e_echo_count(void)
{
	char name[16], want[64];
	struct run r;
	pid_t h;

	unique_name(name, "ec");
	h = spawn_simple(name);
	CHECK(h > 0);
	CHECK(pfkill(&r, "-e", "-USR1", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%s killed (pid %d)\n", name, h);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfkill(&r, "-c", "-USR2", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, "1\n") == 0);
	CHECK(pending(h, SIGUSR1) && pending(h, SIGUSR2));
	reap(h);
	return PASS;
}

int t_e2e_json(void)
{
	char name[16], want[256];
	struct run r;
	pid_t h;

	unique_name(name, "js");
	h = spawn_simple(name);
	CHECK(h > 0);
	CHECK(pfgrep(&r, "--json", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"matched\"}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfkill(&r, "--json", "-USR1", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"name\":\"%s\",\"result\":\"signaled\"}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pending(h, SIGUSR1));

	/* JSON Lines that honour -c, --quiet, -a and --format. */
	CHECK(pfgrep(&r, "--json", "-c", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, "{\"count\":1}\n") == 0);
	CHECK(pfgrep(&r, "--json", "--quiet", "-x", name, NULL) == 0);
	CHECK(!r.out[0]);
	/* procps 4.0.7: --quiet -c prints the count. */
	CHECK(pfgrep(&r, "--json", "-c", "--quiet", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, "{\"count\":1}\n") == 0);
	CHECK(pfgrep(&r, "--json", "-a", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "{\"pid\":%d,\"name\":\"%s\",\"result\":"
		 "\"matched\",\"cmdline\":\"pfkill-tests --helper %s ", h, name,
		 name);
	CHECK(strncmp(r.out, want, strlen(want)) == 0 && lines(r.out) == 1);
	/* -Q quotes for a shell; a JSON string is quoted already */
	CHECK(pfgrep(&r, "--json", "-a", "-Q", "-x", name, NULL) == 0);
	CHECK(strncmp(r.out, want, strlen(want)) == 0 && lines(r.out) == 1);
	CHECK(pfgrep(&r, "--format", "pid:starttime", "-x", name, NULL) == 0);
	CHECK(strchr(r.out, ':') && strchr(r.out, '\n'));
	*strchr(r.out, '\n') = '\0';
	snprintf(want, sizeof(want), "{\"pid\":%d,\"name\":\"%s\",\"result\":"
		 "\"matched\",\"starttime\":%s}\n", h, name,
		 strchr(r.out, ':') + 1);
	CHECK(pfgrep(&r, "--json", "--format", "pid:starttime", "-x", name,
		     NULL) == 0);
	CHECK(strcmp(r.out, want) == 0);
	/* pkill -c counts the matches: in JSON after the objects */
	CHECK(pfkill(&r, "--json", "-c", "-USR2", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "{\"pid\":%d,\"name\":\"%s\",\"result\":"
		 "\"signaled\"}\n{\"count\":1}\n", h, name);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pending(h, SIGUSR2));
	reap(h);
	return PASS;
}

int t_e2e_help_version(void)
{
	struct run r;

	CHECK(pfkill(&r, "--help", NULL) == 0 && strstr(r.out, "--timeout"));
	CHECK(pfgrep(&r, "-h", NULL) == 0 && strstr(r.out, "pfgrep"));
	CHECK(pfkill(&r, "--version", NULL) == 0);
	CHECK(strstr(r.out, "PIDFD_SIGNAL_PROCESS_GROUP") &&
	      strstr(r.out, "pidfd-thread="));
	return PASS;
}

/*
 * argv0 and args with stdout on /dev/full (out >= 0) or closed (-2):
 * exit 1 and "<argv0>: write error: <why>" as the last line of stderr,
 * as procps's close_stdout() says it.
 */
static int write_error_run(int out, const char *why, const char *argv0, ...)
{
	char want[128];
	struct run r;
	va_list ap;
	size_t len;

	run_stdout = out;
	va_start(ap, argv0);
	vrun(&r, 0, argv0, ap);
	va_end(ap);
	run_stdout = -1;
	snprintf(want, sizeof(want), "%s: write error: %s\n", argv0, why);
	len = strlen(r.err);
	if (r.status != 1 || len < strlen(want) ||
	    strcmp(r.err + len - strlen(want), want) != 0)
		diag("%s, stdout %s: exit %d, stderr [%s]; want exit 1 and "
		     "[%.*s]", argv0, out >= 0 ? "/dev/full" : "closed",
		     r.status, r.err, (int)strlen(want) - 1, want);
	CHECK(r.status == 1);
	CHECK(len >= strlen(want) && strcmp(r.err + len - strlen(want), want) == 0);
	return PASS;
}

/*
 * Issue 48: a full or closed stdout is an error in every mode that
 * prints, as under procps: "write error: ..." and exit 1, the lines
 * lost said to be.  pfkill -e still signals each match.
 */
int t_e2e_write_errors(void)
{
	const char *full = strerror(ENOSPC), *closed = strerror(EBADF);
	int devfull = open("/dev/full", O_WRONLY | O_CLOEXEC);
	char name[16], zname[16];
	pid_t h, z;
	int ret = PASS;

	SKIP_IF(devfull < 0, "no /dev/full: %s", strerror(errno));
	unique_name(name, "we");
	unique_name(zname, "wz");
	h = spawn_simple(name);
	z = spawn_simple(zname);
	CHECK(h > 0 && z > 0);
	kill(z, SIGKILL);	/* a zombie: pfwait returns at once */
	struct { int out; const char *why, *argv0, *a[6]; } rows[] = {
		{ devfull, full, "pfkill", { "-e", "-USR1", "-x", name } },
		{ -2, closed, "pfkill", { "-e", "-USR1", "-x", name } },
		{ devfull, full, "pfkill", { "-c", "-USR1", "-x", name } },
		{ devfull, full, "pfkill", { "--json", "-USR1", "-x", name } },
		{ devfull, full, "pfwait", { "-e", "-x", zname } },
		{ -2, closed, "pfwait", { "-e", "-x", zname } },
		{ devfull, full, "pfwait", { "-c", "-x", zname } },
		{ devfull, full, "pfgrep", { "-x", name } },
		{ devfull, full, "pfgrep", { "-c", "-x", name } },
		{ devfull, full, "pfgrep", { "-a", "-x", name } },
		{ -2, closed, "pfgrep", { "-l", "-x", name } },
		{ devfull, full, "pfgrep", { "--help" } },
		{ devfull, full, "pfkill", { "-V" } },
	};

	for (size_t i = 0; ret == PASS && i < sizeof(rows) / sizeof(rows[0]); i++)
		ret = write_error_run(rows[i].out, rows[i].why, rows[i].argv0,
				      rows[i].a[0], rows[i].a[1], rows[i].a[2],
				      rows[i].a[3], rows[i].a[4], NULL);
	/* The lines were lost, not the signals. */
	CHECK(ret != PASS || pending(h, SIGUSR1));
	close(devfull);
	reap(h);
	reap(z);
	return ret;
}
