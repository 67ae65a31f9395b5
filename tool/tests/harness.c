// SPDX-License-Identifier: GPL-2.0
/*
 * pfkill-tests - unit tests of the pfk library and end-to-end tests of the
 * pfkill binary, printed as TAP: the runner.  Exit 0 on success, 1 on any
 * failure, 4 when everything was skipped.
 *
 * Each test runs in its own child (PR_SET_PDEATHSIG takes its helpers
 * along), under an alarm.  Which tests run: all, or those named by -t NAME
 * (exact, repeatable), PFKILL_TESTS (comma-separated globs) or an argument
 * (a part of the name); the others are reported as skipped.  The table
 * below is the TAP order; the tests are in the files named beside them.
 */
#include "pfkill-tests.h"

char pfkill_path[PATH_MAX];
char self_path[PATH_MAX];
char *skip_reason;		/* shared with the test children */
static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{ "unit_parse_signal", t_parse_signal },
	{ "unit_parse_numbers", t_parse_numbers },
	{ "unit_parse_ident", t_parse_ident },
	{ "unit_lookup_ids", t_lookup_ids },
	{ "unit_probe_features", t_probe_features },
	{ "unit_probe_pidfd_info", t_probe_pidfd_info },
	{ "unit_probe_pidfs", t_probe_pidfs },
	{ "lib_match_name", t_lib_match_name },
	{ "lib_stat_odd_name", t_lib_stat_odd_name },
	{ "lib_stat_long_name", t_lib_stat_long_name },
	{ "lib_newest_oldest", t_lib_newest_oldest },
	{ "lib_signal_step", t_lib_signal_step },
	{ "lib_scan_hold", t_lib_scan_hold },
	{ "lib_gone_before_signal", t_lib_gone },
	{ "lib_pid_reuse_race", t_lib_pid_reuse_race },
	{ "lib_thread_reuse_race", t_lib_thread_reuse_race },
	{ "lib_exit_status", t_lib_exit_status },
	{ "e2e_default_term", t_e2e_default_term },
	{ "e2e_signal_forms", t_e2e_signal_forms },
	{ "e2e_no_match", t_e2e_no_match },
	{ "e2e_exact_icase", t_e2e_exact_icase },
	{ "e2e_full_cmdline", t_e2e_full },
	{ "e2e_list_formats", t_e2e_list_formats },
	{ "e2e_pfgrep_symlink", t_e2e_pfgrep_symlink },
	{ "e2e_echo_count", t_e2e_echo_count },
	{ "e2e_json", t_e2e_json },
	{ "e2e_parent", t_e2e_parent },
	{ "e2e_pgrp_session", t_e2e_pgrp_session },
	{ "e2e_users_groups", t_e2e_users },
	{ "e2e_terminal", t_e2e_terminal },
	{ "e2e_handler", t_e2e_handler },
	{ "e2e_namespaces", t_e2e_namespaces },
	{ "e2e_newest_oldest", t_e2e_newest_oldest },
	{ "e2e_negate_list", t_e2e_negate_list },
	{ "e2e_negate_kill", t_e2e_negate_kill },
	{ "e2e_never_self_or_ancestors", t_e2e_never_self_or_ancestors },
	{ "e2e_proc_of_parent_pidns", t_e2e_proc_of_parent_pidns },
	{ "e2e_proc_of_child_pidns", t_e2e_proc_of_child_pidns },
	{ "e2e_wait", t_e2e_wait },
	{ "e2e_timeout_then", t_e2e_timeout_then },
	{ "e2e_timeout_alive", t_e2e_timeout_alive },
	{ "e2e_wait_status", t_e2e_wait_status },
	{ "e2e_wait_status_absent", t_e2e_wait_status_absent },
	{ "e2e_thread", t_e2e_thread },
	{ "e2e_thread_wait", t_e2e_thread_wait },
	{ "e2e_pgroup", t_e2e_pgroup },
	{ "e2e_batches", t_e2e_batches },
	{ "e2e_complete_inherited_fds", t_e2e_complete_inherited },
	{ "e2e_complete_low_limits", t_e2e_complete_low_limits },
	{ "e2e_snapshot_respawn", t_e2e_snapshot_respawn },
	{ "e2e_old_kernel_degrades", t_e2e_old_kernel },
	{ "e2e_help_version", t_e2e_help_version },
	{ "e2e_write_errors", t_e2e_write_errors },
	{ "e2e_newer_procps", t_e2e_newer_procps },
	{ "e2e_identity", t_e2e_identity },
	{ "e2e_identity_inode", t_e2e_identity_inode },
	{ "e2e_identity_no_pidfs", t_e2e_identity_no_pidfs },
	{ "e2e_identity_reuse_one_tick", t_e2e_identity_reuse_one_tick },
	{ "e2e_bad_input", t_e2e_bad_input },
	{ "differential_procps", t_differential },
	{ "differential_deviations", t_differential_deviations },
	{ "differential_aliases", t_differential_aliases },
};

static void find_pfkill(void)
{
	const char *env = getenv("PFKILL");
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	char dir[PATH_MAX - 16];

	self_path[n > 0 ? n : 0] = '\0';
	if (env && *env) {
		snprintf(pfkill_path, sizeof(pfkill_path), "%.4000s", env);
		return;
	}
	snprintf(dir, sizeof(dir), "%.4000s", self_path);
	*strrchr(dir, '/') = '\0';
	/* Installed side by side (guest: /bin), or tool/tests -> tool. */
	snprintf(pfkill_path, sizeof(pfkill_path), "%s/pfkill", dir);
	if (access(pfkill_path, X_OK) != 0)
		snprintf(pfkill_path, sizeof(pfkill_path), "%s/../pfkill", dir);
}

/*
 * Which tests run: each -t NAME (an exact name, as a kselftest harness
 * takes it), each glob of PFKILL_TESTS (comma-separated, fnmatch(3)), and
 * an argument, a part of a name (the older form).  None given: all.
 */
static const char **only_names;
static size_t nonly_names;
static const char *only_globs, *only_part;

static bool selected(const char *name)
{
	bool any = false;

	for (size_t k = 0; k < nonly_names; k++)
		if (strcmp(name, only_names[k]) == 0)
			return true;
	any = nonly_names > 0;
	if (only_globs) {
		char *list = strdup(only_globs), *save = NULL;
		bool hit = false;

		for (char *g = strtok_r(list, ",", &save); g && !hit;
		     g = strtok_r(NULL, ",", &save))
			hit = fnmatch(g, name, 0) == 0;
		free(list);
		if (hit)
			return true;
		any = true;
	}
	if (only_part)
		return strstr(name, only_part) != NULL;
	return !any;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-l] [-t NAME]... [PART]\n"
		"  -l            list the names of the tests\n"
		"  -t NAME       run the test NAME (repeatable)\n"
		"  PART          run the tests whose name holds PART\n"
		"  PFKILL_TESTS  (environment) comma-separated globs of names\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	size_t ntests = sizeof(tests) / sizeof(tests[0]), nsel = 0;
	int failed = 0, skipped = 0, opt;

	if (argc > 12 && strcmp(argv[1], "--helper") == 0)
		return helper_main(argv);

	only_names = calloc(argc, sizeof(*only_names));
	while (only_names && (opt = getopt(argc, argv, "t:lh")) != -1) {
		switch (opt) {
		case 't':
			only_names[nonly_names++] = optarg;
			break;
		case 'l':
			for (size_t i = 0; i < ntests; i++)
				puts(tests[i].name);
			return 0;
		default:
			usage(argv[0]);
		}
	}
	if (optind < argc - 1)
		usage(argv[0]);
	only_part = optind < argc ? argv[optind] : NULL;
	only_globs = getenv("PFKILL_TESTS");
	if (only_globs && !*only_globs)
		only_globs = NULL;
	for (size_t i = 0; i < ntests; i++)
		nsel += selected(tests[i].name);
	if (!nsel) {
		fprintf(stderr, "%s: no test selected (see -l for the names)\n",
			argv[0]);
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	find_pfkill();
	skip_reason = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (skip_reason == MAP_FAILED)
		return 1;

	printf("TAP version 13\n1..%zu\n", ntests);
	printf("# pfkill: %s\n", pfkill_path);
	for (size_t i = 0; i < ntests; i++) {
		pid_t pid;
		int st, res;

		if (!selected(tests[i].name)) {
			printf("ok %zu %s # SKIP filtered out\n", i + 1,
			       tests[i].name);
			skipped++;
			continue;
		}
		skip_reason[0] = '\0';
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			/* A hung test is a failure, not a hang. Under TCG on a
			 * loaded host (arm64 most of all) the differential
			 * test's hundreds of procps runs take minutes: the
			 * guest plan sets PFKILL_TEST_TIMEOUT. On the host the
			 * differential test needs over a minute when other
			 * builds share the two cores. */
			const char *limit = getenv("PFKILL_TEST_TIMEOUT");

			alarm(limit ? atoi(limit) : 300);
			_exit(tests[i].fn());
		}
		waitpid(pid, &st, 0);
		res = WIFEXITED(st) ? WEXITSTATUS(st) : FAIL;
		if (!WIFEXITED(st))
			diag("test died with signal %d", WTERMSIG(st));
		if (res == PASS) {
			printf("ok %zu %s\n", i + 1, tests[i].name);
		} else if (res == SKIP) {
			printf("ok %zu %s # SKIP %s\n", i + 1, tests[i].name,
			       skip_reason);
			skipped++;
		} else {
			printf("not ok %zu %s\n", i + 1, tests[i].name);
			failed++;
		}
	}
	printf("# %zu tests: %zu passed, %d failed, %d skipped\n", ntests,
	       ntests - failed - skipped, failed, skipped);
	if (failed)
		return 1;
	return (size_t)skipped == ntests ? 4 : 0;
}
