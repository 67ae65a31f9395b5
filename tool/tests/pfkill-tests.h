/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfkill-tests.h - what the files of pfkill-tests share: the result codes,
 * CHECK() and SKIP_IF(), the helper processes, running pfkill, and the
 * tests themselves (the runner's table is in harness.c).  One binary;
 * tests/README says which file holds which concern.
 */
#ifndef PFKILL_TESTS_H
#define PFKILL_TESTS_H

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pfk.h"

enum { PASS = 0, FAIL = 1, SKIP = 2 };

/* harness.c */
extern char pfkill_path[PATH_MAX];
extern char self_path[PATH_MAX];
extern char *skip_reason;

#define diag(...) do { printf("# " __VA_ARGS__); putchar('\n'); } while (0)

/*
 * A failed check names itself and shows the last program this test ran
 * (run_prog()): its arguments, exit status and stderr.
 */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		diag("%s:%d: check failed: %s", __FILE__, __LINE__, #cond); \
		show_last_run();					\
		return FAIL;						\
	}								\
} while (0)

#define SKIP_IF(cond, ...) do {						\
	if (cond) {							\
		snprintf(skip_reason, 256, __VA_ARGS__);		\
		return SKIP;						\
	}								\
} while (0)

/* ---------------------------------------------------------- helpers.c */

struct helper_opts {
	int threads;		/* extra threads, named NAME1, NAME2 ... */
	bool new_pgrp;		/* setpgid(0, 0) */
	pid_t join_pgrp;	/* setpgid(0, join_pgrp) */
	bool new_session;	/* setsid() */
	const char *tty;	/* open as controlling terminal (after setsid) */
	long ruid, euid;	/* setresuid, -1 to keep */
	long rgid;		/* setresgid real gid, -1 to keep */
	bool mortal;		/* default signal actions: dies on TERM */
	bool ignore_term;	/* SIGTERM ignored, everything else default */
	int exit_on_usr1;	/* > 0: SIGUSR1 makes it _exit() with this */
	int catch_sig;		/* > 0: a handler for it, doing nothing */
	int unshare;		/* unshare() flags: new namespaces */
	const char *argv0;	/* argv[0] to exec with (default pfkill-tests) */
	const char *extra[4];	/* more arguments after the helper's own */
	const char *env;	/* NAME=VALUE added to its environment */
};

int helper_main(char **argv);
void unique_name(char *buf, const char *tag);
pid_t spawn(const char *name, const struct helper_opts *o);
pid_t spawn_simple(const char *name);
pid_t spawn_nannied(const char *name, const struct helper_opts *o,
		    pid_t *nanny);
void reap(pid_t pid);
bool pending(pid_t pid, int sig);
bool thread_pending(pid_t pid, pid_t tid, int sig);
bool nothing_pending(pid_t pid);
int in_new_pidns(int (*fn)(void));
bool has_root_entries(void);
bool kernel_keeps_status(void);

/* -------------------------------------------------------------- run.c */

struct run {
	int status;		/* exit code, or 128+signal */
	char out[131072];	/* a line for each of thousands, with --json */
	char err[4096];
};

extern bool emulate_old_kernel;
extern int run_stdin;
extern int run_stdout;
extern long run_hard_nofile;
int old_kernel_filter(void);

/* The last run_prog() of this test, for a failed CHECK() to show. */
struct last_run {
	bool valid;
	char cmd[512];
	int status;
	char err[4096];
};
extern struct last_run last_run;

void show_last_run(void);
int run_prog(struct run *r, const char *prog, long nofile,
	     char *const argv[]);
int vrun(struct run *r, long nofile, const char *argv0, va_list ap);
/* procps's pgrep as argv[0] (pgrep, pkill, pidwait) says: 127 if none. */
int run_procps(struct run *r, long nofile, char *const argv[]);
/* The version of that procps ("4.0.7"), or NULL when there is none. */
const char *procps_version(void);
/* The procps release the differential tests compare with (issue 48). */
#define PROCPS_REFERENCE "4.0.7"

int pfkill(struct run *r, ...);
int pfgrep(struct run *r, ...);
int pfwait(struct run *r, ...);
/* fn's exit code, run as PID 1 of a new pid namespace, /proc unchanged. */
int in_child_pidns(int (*fn)(void));
int pfkill_nofile(struct run *r, long nofile, ...);
int lines(const char *s);
bool lists_pid(const char *out, pid_t pid);
char *itoa_buf(char *buf, long v);

/* ------------------------------------------------------------ tests */

/* unit.c */
int t_parse_signal(void);
int t_parse_numbers(void);
int t_parse_ident(void);
int t_lookup_ids(void);
int t_probe_features(void);
int t_probe_pidfd_info(void);
int t_probe_pidfs(void);

/* lib.c */
int t_lib_match_name(void);
int t_lib_stat_odd_name(void);
int t_lib_stat_long_name(void);
int t_lib_newest_oldest(void);
int t_lib_signal_step(void);
int t_lib_scan_hold(void);
int t_lib_gone(void);
int t_lib_pid_reuse_race(void);
int t_lib_thread_reuse_race(void);
int t_lib_exit_status(void);

/* e2e-signal.c */
int t_e2e_default_term(void);
int t_e2e_signal_forms(void);
int t_e2e_thread(void);
int t_e2e_pgroup(void);
int t_e2e_old_kernel(void);

/* e2e-match.c */
int t_e2e_no_match(void);
int t_e2e_exact_icase(void);
int t_e2e_full(void);
int t_e2e_parent(void);
int t_e2e_pgrp_session(void);
int t_e2e_users(void);
int t_e2e_terminal(void);
int t_e2e_handler(void);
int t_e2e_namespaces(void);
int t_e2e_newest_oldest(void);
int t_e2e_negate_list(void);
int t_e2e_negate_kill(void);
int t_e2e_never_self_or_ancestors(void);

/* e2e-output.c */
int t_e2e_list_formats(void);
int t_e2e_pfgrep_symlink(void);
int t_e2e_echo_count(void);
int t_e2e_json(void);
int t_e2e_help_version(void);
int t_e2e_write_errors(void);

/* e2e-cli.c */
int t_e2e_bad_input(void);
int t_e2e_newer_procps(void);

/* e2e-wait.c */
int t_e2e_wait(void);
int t_e2e_timeout_then(void);
int t_e2e_timeout_alive(void);
int t_e2e_thread_wait(void);
int t_e2e_wait_status(void);
int t_e2e_wait_status_absent(void);

/* e2e-identity.c */
int t_e2e_identity(void);
int t_e2e_identity_inode(void);
int t_e2e_identity_no_pidfs(void);
int t_e2e_identity_reuse_one_tick(void);

/* e2e-complete.c */
int t_e2e_batches(void);
int t_e2e_complete_inherited(void);
int t_e2e_complete_low_limits(void);
int t_e2e_snapshot_respawn(void);

/* e2e-pidns.c */
int t_e2e_proc_of_parent_pidns(void);
int t_e2e_proc_of_child_pidns(void);

/* differential.c */
int t_differential(void);
int t_differential_deviations(void);
int t_differential_aliases(void);

#endif
