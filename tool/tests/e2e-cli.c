// SPDX-License-Identifier: GPL-2.0
/*
 * End to end: bad input (usage errors, exit 2) and the options of newer
 * procps versions (pid files, -m, -H, --env ...).
 */
#include "pfkill-tests.h"

/*
 * Every bad input: exit 2, procps's first line on stderr (usage errors
 * follow it with the help text, as procps does), nothing signaled.
 */
int t_e2e_bad_input(void)
{
	static const struct {
		const char *args[4];
		const char *first;	/* start of stderr's first line */
	} cases[] = {
		{ { "--bogus" }, "pfkill: unrecognized option '--bogus'" },
		{ { "-Z" }, "pfkill: invalid option -- 'Z'" },
		{ { "-u" }, "pfkill: option requires an argument -- 'u'" },
		{ { "a[" }, "pfkill: regex error: " },
		{ { "-u", "no_such_user_pfk" }, "pfkill: invalid user name: no_such_user_pfk" },
		{ { "-U", "99999999999999999999" }, "pfkill: invalid user name: 9" },
		{ { "-G", "no_such_group_pfk" }, "pfkill: invalid group name: no_such" },
		{ { "-g", "x1" }, "pfkill: invalid process group: x1" },
		{ { "-s", "1x" }, "pfkill: invalid session id: 1x" },
		{ { "-P", "99999999999999999999" }, "pfkill: not a number: 9" },
		{ { "-p", "0x10" }, "pfkill: not a number: 0x10" },
		{ { "--signal", "NOPE" }, "pfkill: unknown signal: NOPE" },
		{ { "--signal", "99" }, "pfkill: unknown signal: 99" },
		/* only the first -SIG counts: this one is an option cluster */
		{ { "-65" }, "pfkill: invalid option -- '6'" },
		{ { "-99999999999999999999" }, "pfkill: invalid option -- '9'" },
		{ { "-q", "1x" }, "pfkill: invalid queue value: 1x" },
		{ { "-q", "99999999999" }, "pfkill: invalid queue value: " },
		{ { "-O", "abc" }, "pfkill: invalid age: abc" },
		{ { "--ns", "0" }, "pfkill: invalid pid: 0" },
		{ { "--nslist", "bogus" }, "pfkill: unknown namespace: bogus" },
		{ { "-P", "1,,2" }, "pfkill: empty element in list: '1,,2'" },
		{ { "-u", "0," }, "pfkill: empty element in list: '0,'" },
		{ { "-g", ",0" }, "pfkill: empty element in list: ',0'" },
		{ { "-P", "" }, "" },
		{ { "-l" }, "pfkill: invalid option -- 'l'" },
		{ { "-a" }, "pfkill: invalid option -- 'a'" },
		{ { "-d", "," }, "pfkill: invalid option -- 'd'" },
		{ { "-v" }, "pfkill: invalid option -- 'v'" },
		{ { "-w" }, "pfkill: invalid option -- 'w'" },
		{ { "-n", "-o" }, "" },
		{ { "-L" }, "pfkill: -L without -F makes no sense" },
		{ { "--timeout", "5x" }, "pfkill: invalid duration: 5x" },
		{ { "--timeout", "99999999999" }, "pfkill: invalid duration: " },
		{ { "--then", "KILL" }, "pfkill: --then needs --timeout" },
		{ { "--scope", "pgroup", "--lightweight" }, "pfkill: --scope pgroup and -w" },
		{ { "--scope", "nope" }, "pfkill: invalid scope: nope" },
		{ { "extra_pattern" }, "pfkill: only one pattern can be provided" },
		{ { "-m" }, "pfkill: -m needs SIGKILL sent to processes" },
		{ { "-p", "0:5" }, "pfkill: not a number: 0:5" },
		{ { "-p", "5:-1" }, "pfkill: not a number: 5:-1" },
		{ { "--format", "pid:inode", "-p", "5:0" },
		  "pfkill: invalid inode: 5:0" },
		{ { "--format", "pid:inode", "--thread" },
		  "pfkill: --format pid:inode names processes, not threads" },
		{ { "--format", "pid:ino" }, "pfkill: invalid format: pid:ino" },
	};
	char name[16];
	struct run r;
	pid_t h;

	unique_name(name, "bi");
	h = spawn_simple(name);
	CHECK(h > 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[12];
		int n = 0;

		argv[n++] = "pfkill";
		argv[n++] = "-USR1";
		argv[n++] = "-x";
		argv[n++] = name;
		for (int k = 0; k < 4 && cases[i].args[k]; k++)
			argv[n++] = (char *)cases[i].args[k];
		argv[n] = NULL;
		/* "a[" must be the pattern: drop our own name for it. */
		if (strcmp(cases[i].args[0], "a[") == 0) {
			argv[3] = "a[";
			argv[4] = NULL;
		}
		run_prog(&r, pfkill_path, 0, argv);
		if (r.status != 2 || r.out[0] || !r.err[0] ||
		    strncmp(r.err, cases[i].first, strlen(cases[i].first)) ||
		    (cases[i].first[0] == '\0' && !strstr(r.err, "Usage:"))) {
			diag("case %zu (%s): status %d, stderr: %.200s", i,
			     cases[i].args[0], r.status, r.err);
			return FAIL;
		}
	}
	/* No criteria at all. */
	CHECK(pfkill(&r, NULL) == 2 && lines(r.err) == 2);
	CHECK(strncmp(r.err, "pfkill: no matching criteria specified\n"
		      "Try `pfkill --help' for more information.\n", 80) == 0);
	CHECK(pfkill(&r, "-65", "-x", name, NULL) == 2);
	CHECK(strcmp(r.err, "pfkill: invalid signal number: 65\n") == 0);
	CHECK(pfgrep(&r, "-9", name, NULL) == 2 && strstr(r.err, "'9'"));
	CHECK(pfgrep(&r, "-e", name, NULL) == 2 && strstr(r.err, "'e'"));
	CHECK(pfgrep(&r, "-q", "1", name, NULL) == 2 && strstr(r.err, "'q'"));
	/* A pid file that is not one: procps's exit 1, nothing signaled. */
	/* --ns of no process: nothing matches, as procps, and we say so. */
	CHECK(pfgrep(&r, "--ns", "99999999", "-c", name, NULL) == 1);
	CHECK(strcmp(r.out, "0\n") == 0 && lines(r.err) == 1 &&
	      strstr(r.err, "no such process"));
	CHECK(pfkill(&r, "-F", "/nonexistent/pfk.pid", NULL) == 1);
	CHECK(strcmp(r.err, "pfkill: Unable to open pidfile: No such file or "
		     "directory\n") == 0);
	CHECK(nothing_pending(h));
	reap(h);
	return PASS;
}

/*
 * -F of a pipe, as procps 4.0.6 reads any file it can open: a process
 * substitution's /dev/fd/N (an inherited pipe, named here by the
 * /proc/self/fd/N that /dev/fd leads to), a FIFO whose writer
 * comes late and writes in two parts; a directory and a device are
 * refused unopened, with the reason, exit 1 as procps's bad pid file.
 */
static int pidfile_kinds(const char *pid, pid_t h)
{
	char dir[] = "/tmp/pfk-fifo-XXXXXX", fifo[64], path[32];
	struct run r;
	int p[2];
	pid_t w;

	CHECK(pipe(p) == 0);
	CHECK(write(p[1], pid, strlen(pid)) > 0 && write(p[1], "\n", 1) == 1);
	close(p[1]);
	/*
	 * What /dev/fd/N of a process substitution leads to: the guest has
	 * no /dev/fd link.
	 */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	pfgrep(&r, "-F", path, NULL);
	close(p[0]);
	CHECK(r.status == 0 && lists_pid(r.out, h) && lines(r.out) == 1);

	CHECK(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/pid", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	w = fork();
	if (w == 0) {
		int fd = open(fifo, O_WRONLY);
		size_t half = strlen(pid) / 2;

		usleep(100000);
		if (fd < 0 || write(fd, pid, half) != (ssize_t)half)
			_exit(1);
		usleep(100000);
		if (write(fd, pid + half, strlen(pid) - half) < 0 ||
		    write(fd, "\n", 1) != 1)
			_exit(1);
		_exit(0);
	}
	pfgrep(&r, "-F", fifo, NULL);
	waitpid(w, NULL, 0);
	unlink(fifo);
	rmdir(dir);
	CHECK(r.status == 0 && lists_pid(r.out, h) && lines(r.out) == 1);

	CHECK(pfkill(&r, "-USR1", "-F", "/tmp", NULL) == 1 && !r.out[0]);
	CHECK(strstr(r.err, "/tmp is a directory"));
	CHECK(pfkill(&r, "-USR1", "-F", "/dev/null", NULL) == 1 && !r.out[0]);
	CHECK(strstr(r.err, "/dev/null is a character device"));
	return PASS;
}

/* From procps after 4.0.2: --quiet, -F -, --env NAME, pkill -m. */
int t_e2e_newer_procps(void)
{
	struct helper_opts o = { .ruid = -1, .euid = -1, .rgid = -1,
				 .env = "PFKE_X=1" };
	char name[16], pid[16];
	struct run r;
	int in;
	pid_t h;

	unique_name(name, "np");
	h = spawn(name, &o);
	CHECK(h > 0);
	itoa_buf(pid, h);
	/* --quiet: nothing on stdout, the status tells. */
	CHECK(pfgrep(&r, "--quiet", "-x", name, NULL) == 0 && !r.out[0]);
	/* procps 4.0.7: with -c the count; -a and -l refuse it. */
	CHECK(pfgrep(&r, "--quiet", "-c", "-x", "nomatch", NULL) == 1 &&
	      strcmp(r.out, "0\n") == 0);
	CHECK(pfgrep(&r, "--quiet", "-c", "-x", name, NULL) == 0 &&
	      strcmp(r.out, "1\n") == 0 && !r.err[0]);
	CHECK(pfgrep(&r, "--quiet", "-a", "-x", name, NULL) == 2 &&
	      !r.out[0] && strstr(r.err, "Cannot use --quiet and -a"));
	CHECK(pfgrep(&r, "--quiet", "-l", "-x", name, NULL) == 2 &&
	      !r.out[0] && strstr(r.err, "Cannot use --quiet and -l"));
	/* ... and pkill takes it: -e still says what it killed. */
	CHECK(pfkill(&r, "--quiet", "-0", "-e", "-x", name, NULL) == 0 &&
	      strstr(r.out, " killed (pid "));
	/*
	 * 4.0.6 has --queue and --quiet: --q and --qu are ambiguous there,
	 * as getopt_long() says, and here; nothing is signaled.
	 */
	CHECK(pfkill(&r, "-USR1", "--q", "3", "-x", name, NULL) == 2 &&
	      strstr(r.err, "'--q' is ambiguous"));
	CHECK(pfgrep(&r, "--qu", "-x", name, NULL) == 2 &&
	      strstr(r.err, "'--qu' is ambiguous") && !r.out[0]);
	CHECK(pfkill(&r, "-USR1", "--que", "3", "-x", name, NULL) == 0);
	CHECK(pfgrep(&r, "--qui", "-x", name, NULL) == 0 && !r.out[0]);
	/* pidwait takes --queue from the shared table and sends nothing. */
	{
		char *argv[] = { "pfwait", "--queue", "5", "--timeout", "0",
				 "-x", name, NULL };

		run_prog(&r, pfkill_path, 0, argv);
		CHECK(r.status == 1 && !r.err[0]);
	}
	/* --env: a bare name is that variable, not a prefix. */
	CHECK(pfgrep(&r, "--env", "PFKE", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "--env", "PFKE_X", "-x", name, NULL) == 0 &&
	      lists_pid(r.out, h));
	CHECK(pfgrep(&r, "--env", "PFKE_X=1", "-x", name, NULL) == 0);
	CHECK(pfgrep(&r, "--env", "PFKE_X=", "-x", name, NULL) == 1);
	/* -F -: the pid from stdin (a pipe here, not a regular file). */
	in = memfd_create("pid", MFD_CLOEXEC);
	CHECK(in >= 0 && write(in, pid, strlen(pid)) > 0 &&
	      lseek(in, 0, SEEK_SET) == 0);
	run_stdin = in;
	pfgrep(&r, "-F", "-", NULL);
	run_stdin = -1;
	close(in);
	CHECK(r.status == 0 && lists_pid(r.out, h) && lines(r.out) == 1);
	CHECK(pending(h, SIGUSR1));
	CHECK(pidfile_kinds(pid, h) == PASS);
	reap(h);

	/*
	 * -m: SIGKILL, then process_mrelease() through the handle.  Like
	 * procps, a kernel that refuses the release is a warning and exit
	 * 1; the process is killed either way.
	 */
	o = (struct helper_opts){ .ruid = -1, .euid = -1, .rgid = -1 };
	h = spawn(name, &o);
	CHECK(h > 0);
	pfkill(&r, "-m", "-KILL", "-x", name, NULL);
	if (r.status == 3)
		CHECK(lines(r.err) == 1 && strstr(r.err, "process_mrelease"));
	else if (r.status == 1)
		CHECK(lines(r.err) == 1 &&
		      strstr(r.err, "killed, but process_mrelease failed"));
	else
		CHECK(r.status == 0 && !r.err[0]);
	int st;
	CHECK(waitpid(h, &st, 0) == h);
	CHECK(r.status == 3 || (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL));
	if (r.status == 3)
		reap(h);
	return PASS;
}
