// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a process without the new clone flags: clone3() with
 * flags 0, the child's exit, the parent's waitpid(). The series adds
 * admission checks to copy_process(), an exit record written by
 * release_task() and an autoreap test to do_notify_parent(), all on
 * this path, so it is the third half of the patched-vs-stock "no
 * regression" comparison in scripts/bench.sh. getppid() is the
 * yardstick: a syscall the series leaves alone, so the ratio follows
 * the boot's speed and nothing else. It is called GETPPID_PER_JOB times
 * per job, so that both sides of a job cost about the same and neither
 * is timed as 0 ns on a jiffies clock (bench_pair() gives both sides the
 * same number of jobs).
 */
#include "bench.h"

#define GETPPID_PER_JOB 4096

static int op_spawn(void *ctx, long n)
{
	struct clone_args_v0 args = { .exit_signal = SIGCHLD };
	pid_t pid;

	(void)ctx;
	while (n--) {
		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			return -1;
	}
	return 0;
}

int main(void)
{
	long per_job = GETPPID_PER_JOB;

	bench_pair("spawn", (struct bench_side){ "clone3 flags 0+exit+wait",
		   op_spawn, NULL },
		   (struct bench_side){ "getppid x4096", bench_op_getppid,
					&per_job });
	return 0;
}
