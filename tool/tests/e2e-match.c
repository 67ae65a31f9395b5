// SPDX-License-Identifier: GPL-2.0
/*
 * End to end: which processes match (patterns, -f, -P, -g, -s, -u, -t,
 * -n/-o, -v) and which never do (pfkill itself, its ancestors).
 */
#include "pfkill-tests.h"

int t_e2e_no_match(void)
{
	char name[16];
	struct run r;

	unique_name(name, "nm");
	CHECK(pfkill(&r, name, NULL) == 1);
	CHECK(pfgrep(&r, name, NULL) == 1);
	CHECK(r.out[0] == '\0');
	return PASS;
}

int t_e2e_exact_icase(void)
{
	char name[16], part[16], upper[16];
	struct run r;
	pid_t h;

	unique_name(name, "ex");
	snprintf(part, sizeof(part), "%.*s", (int)strlen(name) - 1, name);
	for (size_t i = 0; i <= strlen(name); i++)
		upper[i] = (name[i] >= 'a' && name[i] <= 'z') ?
			   name[i] - 32 : name[i];
	h = spawn_simple(name);
	CHECK(h > 0);
	CHECK(pfgrep(&r, part, NULL) == 0 && lists_pid(r.out, h));
	CHECK(pfgrep(&r, "-x", part, NULL) == 1);
	CHECK(pfgrep(&r, "-x", name, NULL) == 0 && lists_pid(r.out, h));
	CHECK(pfgrep(&r, upper, NULL) == 1);
	CHECK(pfgrep(&r, "-i", upper, NULL) == 0 && lists_pid(r.out, h));
	CHECK(pfkill(&r, "-x", "-USR1", part, NULL) == 1);
	CHECK(!pending(h, SIGUSR1));
	CHECK(pfkill(&r, "-x", "-i", "-USR1", upper, NULL) == 0);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	return PASS;
}

int t_e2e_full(void)
{
	char name[16], pat[64];
	struct run r;
	pid_t h;

	unique_name(name, "fu");
	h = spawn_simple(name);
	CHECK(h > 0);
	/* The command line is "pfkill-tests --helper NAME ...". */
	snprintf(pat, sizeof(pat), "helper %s", name);
	CHECK(pfgrep(&r, pat, NULL) == 1);
	CHECK(pfgrep(&r, "-f", pat, NULL) == 0 && lists_pid(r.out, h));
	CHECK(lines(r.out) == 1);
	snprintf(pat, sizeof(pat), "^pfkill-tests --helper %s ", name);
	CHECK(pfkill(&r, "-f", "-USR1", pat, NULL) == 0);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	return PASS;
}

int t_e2e_parent(void)
{
	char name[16], me[16];
	struct run r;
	pid_t h;

	unique_name(name, "pp");
	h = spawn_simple(name);
	CHECK(h > 0);
	itoa_buf(me, getpid());
	CHECK(pfgrep(&r, "-P", me, "-x", name, NULL) == 0 &&
	      lists_pid(r.out, h));
	CHECK(pfgrep(&r, "-P", "1", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-P", "1,2,", "-x", name, NULL) == 2);
	/* No pattern: every child of ours but pfgrep itself. */
	CHECK(pfgrep(&r, "--parent", me, NULL) == 0 && lists_pid(r.out, h) &&
	      lines(r.out) == 1);
	CHECK(pfkill(&r, "-USR1", "-P", me, NULL) == 0);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	return PASS;
}

int t_e2e_pgrp_session(void)
{
	struct helper_opts grp = { .new_pgrp = true, .ruid = -1, .euid = -1,
				   .rgid = -1 };
	struct helper_opts ses = { .new_session = true, .ruid = -1,
				   .euid = -1, .rgid = -1 };
	char name[16], ids[16];
	struct run r;
	pid_t g, s;

	unique_name(name, "gs");
	g = spawn(name, &grp);
	s = spawn(name, &ses);
	CHECK(g > 0 && s > 0);
	CHECK(pfgrep(&r, "-g", itoa_buf(ids, g), NULL) == 0);
	CHECK(lists_pid(r.out, g) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-s", itoa_buf(ids, s), NULL) == 0);
	CHECK(lists_pid(r.out, s) && lines(r.out) == 1);
	/* 0 means our own group / session: g left our group, s both. */
	CHECK(pfgrep(&r, "-g", "0", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-s", "0", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, g) && lines(r.out) == 1);
	CHECK(pfkill(&r, "-USR1", "-g", itoa_buf(ids, g), NULL) == 0);
	CHECK(pending(g, SIGUSR1) && !pending(s, SIGUSR1));
	CHECK(pfkill(&r, "-USR2", "-s", itoa_buf(ids, s), "-x", name, NULL) == 0);
	CHECK(pending(s, SIGUSR2) && !pending(g, SIGUSR2));
	reap(g);
	reap(s);
	return PASS;
}

static char users_name[16];
static pid_t users_pid;

/* -U where /proc is the parent pid namespace's (see t_e2e_users()). */
static int users_from_child_pidns(void)
{
	struct run r;

	CHECK(pfgrep(&r, "-U", "1000", "-x", users_name, NULL) == 0);
	CHECK(lists_pid(r.out, users_pid) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-G", "0", "-x", users_name, NULL) == 1);
	return PASS;
}

int t_e2e_users(void)
{
	/* real uid 1000 / effective 0; real gid 1000 */
	struct helper_opts o = { .ruid = 1000, .euid = 0, .rgid = 1000 };
	char name[16];
	struct run r;
	pid_t h;

	SKIP_IF(geteuid() != 0, "needs root to set ids");
	unique_name(name, "us");
	h = spawn(name, &o);
	CHECK(h > 0);
	CHECK(pfgrep(&r, "-u", "0", "-x", name, NULL) == 0 && lists_pid(r.out, h));
	if (has_root_entries()) {
		CHECK(pfgrep(&r, "-u", "root", "-x", name, NULL) == 0);
		CHECK(pfgrep(&r, "-G", "root", "-x", name, NULL) == 1);
	}
	CHECK(pfgrep(&r, "-u", "1000", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-U", "1000", "-x", name, NULL) == 0 && lists_pid(r.out, h));
	CHECK(pfgrep(&r, "-U", "0,5", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-U", "5,1000", "-x", name, NULL) == 0);
	CHECK(pfgrep(&r, "-G", "1000", "-x", name, NULL) == 0 && lists_pid(r.out, h));
	CHECK(pfgrep(&r, "-G", "0", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-U", "1000", "-u", "0", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, h) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-U", "1000", "-u", "1000", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-U", "1000", "-w", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, h) && lines(r.out) == 1);
	/*
	 * -U reads the ids through a pidfd opened by the number /proc
	 * shows: not where /proc is another pid namespace's, whose numbers
	 * pidfd_open() does not take.  There it reads status.
	 */
	memcpy(users_name, name, sizeof(name));
	users_pid = h;
	CHECK(in_child_pidns(users_from_child_pidns) == PASS);
	CHECK(pfkill(&r, "-USR1", "-U", "1000", "-x", name, NULL) == 0);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	return PASS;
}

/*
 * -H: a process matches if it has a handler for the signal, as SigCgt
 * shows; signals up to 31 are read from stat's sigcatch, higher ones
 * from status.  Listing by path, with -f and -w (stat read another way),
 * and kill mode each take their own path to it.
 */
int t_e2e_handler(void)
{
	struct helper_opts usr1 = { .ruid = -1, .euid = -1, .rgid = -1,
				    .catch_sig = SIGUSR1 };
	struct helper_opts rt = usr1, none = usr1;
	char name[16], rtsig[16];
	struct run r;
	pid_t a, b, c;

	rt.catch_sig = SIGRTMIN + 3;
	none.catch_sig = 0;
	itoa_buf(rtsig, SIGRTMIN + 3);
	unique_name(name, "hd");
	a = spawn(name, &usr1);
	b = spawn(name, &rt);
	c = spawn(name, &none);
	CHECK(a > 0 && b > 0 && c > 0);
	CHECK(pfgrep(&r, "-H", "--signal", "USR1", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, a) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-H", "--signal", rtsig, "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, b) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-H", "--signal", "USR2", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-H", "-x", name, NULL) == 1);	/* TERM */
	CHECK(pfgrep(&r, "-H", "--signal", "USR1", "-f", name, NULL) == 0);
	CHECK(lists_pid(r.out, a) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-H", "--signal", "USR1", "-w", "-x", name,
		     NULL) == 0);
	CHECK(lists_pid(r.out, a) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-H", "--signal", "USR1", "-v", "-x", name,
		     NULL) == 0);
	CHECK(!lists_pid(r.out, a) && lists_pid(r.out, b) &&
	      lists_pid(r.out, c));
	CHECK(pfkill(&r, "-USR1", "-H", "-x", name, NULL) == 0);
	CHECK(pending(a, SIGUSR1) && nothing_pending(b) && nothing_pending(c));
	reap(a);
	reap(b);
	reap(c);
	return PASS;
}

/*
 * --ns: the namespaces of the reference, as its ns/ links name them; a
 * process in a uts namespace of its own matches unless uts is compared
 * (it is not by default, as in procps).
 */
int t_e2e_namespaces(void)
{
	struct helper_opts own = { .ruid = -1, .euid = -1, .rgid = -1,
				   .unshare = CLONE_NEWUTS };
	char name[16], me[16], ids[16];
	struct run r;
	pid_t a, b;

	SKIP_IF(geteuid() != 0, "needs root for a uts namespace");
	unique_name(name, "ns");
	itoa_buf(me, getpid());
	a = spawn_simple(name);
	b = spawn(name, &own);
	CHECK(a > 0 && b > 0);
	CHECK(pfgrep(&r, "--ns", me, "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, a) && lists_pid(r.out, b) && lines(r.out) == 2);
	CHECK(pfgrep(&r, "--ns", me, "--nslist", "uts", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, a) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "--ns", itoa_buf(ids, b), "--nslist", "uts,net", "-x",
		     name, NULL) == 0);
	CHECK(lists_pid(r.out, b) && lines(r.out) == 1);
	CHECK(pfkill(&r, "-USR1", "--ns", me, "--nslist", "uts", "-x", name,
		     NULL) == 0);
	CHECK(pending(a, SIGUSR1) && nothing_pending(b));
	reap(a);
	reap(b);
	return PASS;
}

int t_e2e_terminal(void)
{
	struct helper_opts o = { .new_session = true, .ruid = -1, .euid = -1,
				 .rgid = -1 };
	char name[16], *pts;
	struct run r;
	pid_t h;
	int master;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	SKIP_IF(master < 0, "no pseudo terminals: %s", strerror(errno));
	SKIP_IF(grantpt(master) < 0 || unlockpt(master) < 0 ||
		!(pts = ptsname(master)), "pty setup failed");
	o.tty = pts;
	unique_name(name, "tt");
	h = spawn(name, &o);
	CHECK(h > 0);
	CHECK(pfgrep(&r, "-t", pts + 5, NULL) == 0);	/* "pts/N" */
	CHECK(lists_pid(r.out, h) && lines(r.out) == 1);
	/* procps compares names as it prints them: no "/dev/" prefix */
	CHECK(pfgrep(&r, "-t", pts, "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "-t", "no_such_tty_pfk", "-x", name, NULL) == 1);
	CHECK(pfgrep(&r, "--terminal", "?", "-x", name, NULL) == 1);
	CHECK(pfkill(&r, "-USR1", "-t", pts + 5, NULL) == 0);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	close(master);
	return PASS;
}

int t_e2e_newest_oldest(void)
{
	struct timespec gap = { 0, 30 * 1000 * 1000 };
	char name[16], want[32];
	struct run r;
	pid_t h[3];

	unique_name(name, "nw");
	for (int i = 0; i < 3; i++) {
		h[i] = spawn_simple(name);
		CHECK(h[i] > 0);
		nanosleep(&gap, NULL);
	}
	CHECK(pfgrep(&r, "-n", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d\n", h[2]);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfgrep(&r, "--oldest", "-x", name, NULL) == 0);
	snprintf(want, sizeof(want), "%d\n", h[0]);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfkill(&r, "-USR1", "-o", "-x", name, NULL) == 0);
	CHECK(pending(h[0], SIGUSR1) && !pending(h[1], SIGUSR1) &&
	      !pending(h[2], SIGUSR1));
	for (int i = 0; i < 3; i++)
		reap(h[i]);
	return PASS;
}

/* -v matches nearly everything: only inside a pid namespace of our own. */
static int negate_list_in_ns(void)
{
	char a[16], b[16], me[16];
	struct run r;
	pid_t ha, hb;

	unique_name(a, "na");
	unique_name(b, "nb");
	ha = spawn_simple(a);
	hb = spawn_simple(b);
	CHECK(ha > 0 && hb > 0);
	itoa_buf(me, getpid());
	/* Negation covers every criterion, as in procps. */
	CHECK(pfgrep(&r, "-v", "-x", a, NULL) == 0);
	CHECK(!lists_pid(r.out, ha) && lists_pid(r.out, hb));
	CHECK(lists_pid(r.out, getpid()));	/* pgrep lists ancestors */
	/* "--in", the abbreviation, as procps reads it (--inverse) */
	if (procps_version()) {
		static struct run rp;
		char *argv[] = { "pgrep", "--in", "-x", a, NULL };

		run_procps(&rp, 0, argv);
		argv[0] = "pfgrep";
		run_prog(&r, pfkill_path, 0, argv);
		CHECK(rp.status == 0 && r.status == 0);
		CHECK(strcmp(rp.out, r.out) == 0 && lists_pid(r.out, hb));
	}
	reap(ha);
	reap(hb);
	return PASS;
}

int t_e2e_negate_list(void)
{
	return in_new_pidns(negate_list_in_ns);
}

static char negate_name_a[16], negate_name_b[16];

static int negate_kill_in_ns(void)
{
	struct run r;
	pid_t a = spawn_simple(negate_name_a), b = spawn_simple(negate_name_b);

	CHECK(a > 0 && b > 0);
	/* Only our own namespace is visible: b is the one "not a". */
	/* pkill refuses -v; the long form is what it accepts */
	CHECK(pfkill(&r, "-v", "-USR1", "-x", negate_name_a, NULL) == 2);
	CHECK(nothing_pending(b));
	CHECK(pfkill(&r, "--inverse", "-USR1", "-x", negate_name_a, NULL) == 0);
	CHECK(pending(b, SIGUSR1) && !pending(a, SIGUSR1));
	reap(a);
	reap(b);
	return PASS;
}

int t_e2e_negate_kill(void)
{
	unique_name(negate_name_a, "va");
	unique_name(negate_name_b, "vb");
	return in_new_pidns(negate_kill_in_ns);
}

int t_e2e_never_self_or_ancestors(void)
{
	char name[16], token[32];
	struct run r;

	/* This test process is an ancestor of every pfgrep it runs. */
	unique_name(name, "an");
	prctl(PR_SET_NAME, name);
	/* pfgrep lists ancestors, as pgrep does; -A leaves them out */
	CHECK(pfgrep(&r, "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, getpid()) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-A", "-x", name, NULL) == 1);
	/* pfkill does not signal them, and says why it found nothing */
	CHECK(pfkill(&r, "-x", "-USR1", name, NULL) == 1);
	CHECK(nothing_pending(getpid()));
	CHECK(lines(r.err) == 1 && strstr(r.err, "--include-ancestors"));
	CHECK(pfkill(&r, "-x", "-n", "-USR1", name, NULL) == 1);
	CHECK(lines(r.err) == 1 && strstr(r.err, "ancestors"));
	/* -A asked for it: no hint */
	CHECK(pfkill(&r, "-A", "-x", "-USR1", name, NULL) == 1);
	CHECK(r.err[0] == '\0');
	CHECK(nothing_pending(getpid()));
	/* The pattern is in pfgrep's own command line: still never itself. */
	snprintf(token, sizeof(token), "%s_self", name);
	CHECK(pfgrep(&r, "-f", token, NULL) == 1);
	return PASS;
}
