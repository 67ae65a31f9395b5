// SPDX-License-Identifier: GPL-2.0
/*
 * Handle lifecycle: open and close handles of every kind against
 * processes (and threads) that are exiting, signal 0 through each, then
 * check that the "pid" slab is back to its baseline object count and
 * that kmemleak has nothing new to report.
 *
 * Kinds: pidfd_open, pidfd_open(PIDFD_THREAD) on a thread, /proc/<pid>,
 * /proc/<pid>/task/<tid>, /proc/<pid>/kill, /proc/<pid>/task/<tid>/kill,
 * a pidfd_open whose probe is ioctl(PIDFD_GET_INFO, EXIT) instead of
 * signal 0, and clone3(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_NNP |
 * CLONE_PIDFD_AUTOKILL) children killed (and reaped by the kernel) by
 * closing their pidfd.
 *
 * Parameters: pidfd.stress_handles=N per kind (default 100000; the issue
 * asks for 1000000, which takes about ten times as long),
 * pidfd.stress_churn_seconds=N bounds the whole churn (default 150).
 * The pid count needs SLUB sysfs and "slab_nomerge" (scripts/stress.sh
 * boots with it), kmemleak needs CONFIG_DEBUG_KMEMLEAK: either missing
 * shows as n/a.
 */
#include "stress.h"
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>

enum { K_PIDFD, K_THREAD, K_PROC, K_TASK, K_KILL, K_TASKKILL, K_INFO,
       K_AUTOKILL, NK };
static const char *const kname[NK] = {
	"lifecycle:pidfd_open", "lifecycle:pidfd_open(PIDFD_THREAD)",
	"lifecycle:/proc/<pid>", "lifecycle:/proc/<pid>/task/<tid>",
	"lifecycle:/proc/<pid>/kill", "lifecycle:/proc/<pid>/task/<tid>/kill",
	"lifecycle:PIDFD_GET_INFO", "lifecycle:clone3(AUTOREAP+AUTOKILL)",
};
#define SLAB "/sys/kernel/slab/pid"
#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static struct features feat;
static struct {
	atomic_int pid, tid;	/* a recent target and one of its threads */
	atomic_int stop;
} *S;

static int kind_ok(int k)
{
	switch (k) {
	case K_THREAD: return feat.thread_pidfd;
	case K_KILL: return feat.killfile;
	case K_TASKKILL: return feat.taskkill;
	case K_INFO: return feat.getinfo;
	case K_AUTOKILL: return feat.autokill;
	default: return 1;
	}
}

static void *idle_thread(void *arg)
{
	(void)arg;
	atomic_store(&S->tid, sys_gettid());
	usleep(500);
	return NULL;
}

/* Targets: processes with a thread that live about a millisecond. */
static void churn(void)
{
	while (!atomic_load(&S->stop)) {
		pid_t p = fork();

		if (p == 0) {
			pthread_t t;

			atomic_store(&S->pid, getpid());
			pthread_create(&t, NULL, idle_thread, NULL);
			usleep(1000);
			_exit(0);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	_exit(0);
}

/* The pid slab's object count, after flushing per-cpu slabs. */
static long pid_objects(void)
{
	write_str(SLAB "/shrink", "1");
	return read_long(SLAB "/objects");
}

/* Number of "unreferenced object" reports after two scans. */
static long kmemleak_count(int show)
{
	char buf[4096];
	long n = 0, shown = 0;
	FILE *f;

	if (write_str(KMEMLEAK, "scan") || write_str(KMEMLEAK, "scan"))
		return -1;
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (strstr(buf, "unreferenced object"))
			n++;
		if (show && shown++ < 40)
			printf("# leak report: %s", buf);
	}
	fclose(f);
	return n;
}

static long open_kind(int k, pid_t pid, pid_t tid)
{
	char path[96];

	switch (k) {
	case K_PIDFD:
		return sys_pidfd_open(pid, 0);
	case K_THREAD:
		return sys_pidfd_open(tid, PIDFD_THREAD);
	case K_PROC:
		snprintf(path, sizeof(path), "/proc/%d", pid);
		return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	case K_TASK:
		snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
		return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	case K_KILL:
		snprintf(path, sizeof(path), "/proc/%d/kill", pid);
		return open(path, O_WRONLY | O_CLOEXEC);
	case K_INFO:
		return sys_pidfd_open(pid, 0);
	case K_AUTOKILL: {
		/* A child that would live a millisecond: the close kills it. */
		int fd = -1;
		pid_t c = stress_clone3(CLONE_PIDFD | CLONE_AUTOREAP |
					CLONE_NNP | CLONE_PIDFD_AUTOKILL, 0, &fd);

		if (c == 0) {
			usleep(1000);
			_exit(0);
		}
		return c > 0 ? fd : -1;
	}
	default:
		snprintf(path, sizeof(path), "/proc/%d/task/%d/kill", pid, tid);
		return open(path, O_WRONLY | O_CLOEXEC);
	}
}

/*
 * PIDFD_GET_INFO asking for the exit: a reaped process answers too (with
 * or without a record), so any error, ESRCH included, is odd.
 */
static int get_exit_info(int fd)
{
	struct pidfd_info info = { .mask = PIDFD_INFO_EXIT };

	if (ioctl(fd, PIDFD_GET_INFO, &info) == 0)
		return 0;
	if (errno == ESRCH)
		errno = EIO;
	return -1;
}

int main(void)
{
	long per_kind = param("handles", 100000);
	double seconds = param("churn_seconds", 150), start, end;
	long opened[NK] = { 0 }, tried[NK] = { 0 }, odd[NK] = { 0 };
	long base_objs, objs = -1, base_leaks = -1, leaks = -1;
	int k, i, done, failed = 0;
	pid_t churner;
	char leakbuf[96];

	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_features(&feat);
	S = shared(sizeof(*S));
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(KMEMLEAK, W_OK) == 0) {
		base_leaks = kmemleak_count(0);
		write_str(KMEMLEAK, "clear");
	}
	base_objs = pid_objects();
	printf("# baseline: pid objects %ld, kmemleak reports %ld (cleared)\n",
	       base_objs, base_leaks);

	churner = fork();
	if (churner == 0)
		churn();
	/*
	 * Open, signal 0, close: every kind on the same (pid, tid) before the
	 * next, so that all kinds sample the same moments of the churn (in
	 * batches per kind, a fast kind's whole batch could fall between two
	 * targets and find none alive).
	 */
	start = now_s();
	end = start + seconds;
	do {
		done = 1;
		for (k = 0; k < NK; k++)
			if (kind_ok(k) && tried[k] < per_kind)
				done = 0;
		for (i = 0; i < 256 && !done; i++) {
			pid_t pid = atomic_load(&S->pid), tid = atomic_load(&S->tid);

			if (pid <= 0 || tid <= 0)
				break;
			for (k = 0; k < NK; k++) {
				long fd;
				int r;

				if (!kind_ok(k) || tried[k] >= per_kind)
					continue;
				tried[k]++;
				fd = open_kind(k, pid, tid);
				if (fd < 0)
					continue;
				opened[k]++;
				if (k == K_KILL || k == K_TASKKILL) {
					r = killfile_send(fd, 0);
				} else if (k == K_INFO) {
					r = get_exit_info(fd);
				} else if (k == K_PIDFD || k == K_THREAD ||
					   k == K_PROC || k == K_AUTOKILL ||
					   feat.taskfd) {
					r = sys_pidfd_send_signal(fd, 0, NULL, 0);
				} else {
					r = 0;
				}
				/* Anything but success or ESRCH is an invariant broken. */
				if (r && errno != ESRCH)
					odd[k]++;
				close(fd);
			}
		}
	} while (!done && now_s() < end);
	atomic_store(&S->stop, 1);
	waitpid(churner, NULL, 0);
	printf("# churn: %.0f s\n", now_s() - start);

	/* RCU frees struct pid late and KASAN quarantines it: retry. */
	for (i = 0; i < 30; i++) {
		usleep(200000);
		objs = pid_objects();
		if (base_objs < 0 || objs <= base_objs)
			break;
	}
	if (base_leaks >= 0)
		leaks = kmemleak_count(1);
	printf("# after: pid objects %ld (baseline %ld), kmemleak reports %ld\n",
	       objs, base_objs, leaks);

	if (base_objs < 0)
		snprintf(leakbuf, sizeof(leakbuf), "pid slab n/a");
	else
		snprintf(leakbuf, sizeof(leakbuf), "pid %+ld", objs - base_objs);
	if (leaks >= 0)
		snprintf(leakbuf + strlen(leakbuf), sizeof(leakbuf) - strlen(leakbuf),
			 ", kmemleak %ld", leaks);
	else
		strcat(leakbuf, ", kmemleak n/a");
	for (k = 0; k < NK; k++) {
		if (!kind_ok(k)) {
			row(kname[k], -1, 0, "-", "not in this kernel");
			continue;
		}
		printf("# %s: %ld tried, %ld opened, %ld odd errors\n", kname[k],
		       tried[k], opened[k], odd[k]);
		row(kname[k], opened[k], odd[k], "-",
		    "%ld open attempts", tried[k]);
		failed |= odd[k] != 0;
	}
	row("lifecycle:leak check", 1, 0, leakbuf, "pid slab vs baseline; kmemleak after the churn");
	if ((base_objs >= 0 && objs > base_objs) || leaks > 0)
		failed = 1;
	return failed;
}
