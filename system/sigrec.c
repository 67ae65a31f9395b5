// SPDX-License-Identifier: GPL-2.0
/*
 * sigrec: the receiving side of the system plan's client cases. Records
 * every signal it gets as one line in a log file and keeps running until
 * a terminating signal that it does not ignore.
 *
 *   sigrec [-c CHILDREN] [-i] LOG NAME
 *
 * -c N  fork N children first; each records into the same LOG;
 * -i    record SIGTERM but do not exit on it (a service that ignores
 *       TERM, for kill --timeout ... KILL).
 * NAME is only there so that pgrep/pkill -f can find the processes.
 * Each line: "<pid> <role> <signo> <si_code> <si_pid>", role "main" or
 * "child"; a terminating signal is written before the process exits.
 * Each process first writes "<pid> <role> ready" once its handlers are set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_fd = -1;
static const char *role = "main";
static int ignore_term;

static void record(int sig, siginfo_t *si, void *uc)
{
	char line[128];
	int len;

	(void)uc;
	len = snprintf(line, sizeof(line), "%d %s %d %d %d\n", getpid(), role,
		       sig, si->si_code, si->si_pid);
	/* O_APPEND: lines of several processes do not interleave. */
	if (write(log_fd, line, len) < 0)
		_exit(2);
	if (sig == SIGTERM && !ignore_term)
		_exit(0);
	if (sig == SIGINT || sig == SIGQUIT)
		_exit(0);
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2,
				    SIGTERM, SIGALRM, SIGWINCH };
	struct sigaction sa = { .sa_sigaction = record, .sa_flags = SA_SIGINFO };
	int children = 0, opt, i;

	while ((opt = getopt(argc, argv, "c:i")) != -1) {
		switch (opt) {
		case 'c': children = atoi(optarg); break;
		case 'i': ignore_term = 1; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2) {
usage:
		fprintf(stderr, "usage: sigrec [-c N] [-i] LOG NAME\n");
		return 2;
	}
	log_fd = open(argv[optind], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		fprintf(stderr, "sigrec: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	sigfillset(&sa.sa_mask);
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++)
		sigaction(sigs[i], &sa, NULL);

	for (i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("sigrec: fork");
			return 1;
		}
		if (pid == 0) {
			role = "child";
			break;
		}
	}
	dprintf(log_fd, "%d %s ready\n", getpid(), role);
	for (;;)
		pause();
}
