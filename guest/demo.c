// SPDX-License-Identifier: GPL-2.0
/*
 * The race that pidfds close, shown step by step (make run):
 * a process exits, its PID goes to a newcomer, kill(2) on the number hits
 * the newcomer, and the pidfd still naming the first process says ESRCH.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_sys.h"

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* The next fork gets @pid, if it is free. */
static int set_next_pid(pid_t pid)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	int len = snprintf(buf, sizeof(buf), "%d", pid - 1);
	int ret = fd >= 0 && write(fd, buf, len) == len ? 0 : -1;

	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * A sleeper with PID @pid. Without ns_last_pid (CONFIG_CHECKPOINT_RESTORE
 * =n) PIDs are handed out in a cycle, so fork until the cycle comes back
 * to @pid, as it does on a busy machine; at most pid_max tries.
 */
static pid_t spawn_with_pid(pid_t pid)
{
	pid_t child;
	int tries, max = 0;
	FILE *f;

	if (set_next_pid(pid) == 0)
		return spawn_sleeper();
	printf("   (no /proc/sys/kernel/ns_last_pid: forking until PID %d comes round)\n",
	       pid);
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (!f || fscanf(f, "%d", &max) != 1)
		max = 0;
	if (f)
		fclose(f);
	for (tries = 0; tries <= max; tries++) {
		child = fork();
		if (child == 0) {
			/* Only the one with the wanted PID stays. */
			if (getpid() == pid)
				pause();
			_exit(0);
		}
		if (child < 0 || child == pid)
			return child;
		waitpid(child, NULL, 0);
	}
	return -1;
}

int main(void)
{
	pid_t victim, newcomer;
	int pidfd, status, refused;

	victim = spawn_sleeper();
	pidfd = sys_pidfd_open(victim, 0);
	if (victim < 0 || pidfd < 0) {
		perror("demo: fork/pidfd_open");
		return 1;
	}
	printf("1. started process %d and opened a pidfd for it\n", victim);

	kill(victim, SIGKILL);
	waitpid(victim, &status, 0);
	printf("2. process %d exited and was reaped; its PID is free\n", victim);

	newcomer = spawn_with_pid(victim);
	printf("3. a newcomer was started and got PID %d%s\n", newcomer,
	       newcomer == victim ? " - the same number" : " (reuse failed)");
	if (newcomer != victim)
		return 1;

	refused = sys_pidfd_send_signal(pidfd, SIGTERM, NULL, 0) < 0 &&
		  errno == ESRCH;
	if (refused)
		printf("4. pidfd_send_signal(pidfd, SIGTERM): ESRCH - the newcomer is safe\n");
	else
		printf("4. pidfd_send_signal(pidfd, SIGTERM) succeeded - WRONG\n");

	kill(victim, SIGTERM);
	waitpid(newcomer, &status, 0);
	printf("5. kill(%d, SIGTERM) instead: %s\n", victim,
	       WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ?
	       "the newcomer was killed - the race pidfds exist to close" :
	       "the newcomer survived?");
	return refused ? 0 : 1;
}
