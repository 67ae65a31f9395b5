// SPDX-License-Identifier: GPL-2.0
/*
 * End to end: checked identities, PID:STARTTIME and PID:INODE (--format),
 * and a PID reused within one clock tick.
 */
#include "pfkill-tests.h"

/* Field 22 of /proc/<pid>/stat: start time in clock ticks after boot. */
static unsigned long long starttime_of(pid_t pid)
{
	char path[40], buf[1024], *s;
	unsigned long long v = 0;
	int fd, i;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	s = strrchr(buf, ')');
	for (i = 2; s && i < 22; i++)
		s = strchr(s + 1, ' ');
	if (s)
		v = strtoull(s + 1, NULL, 10);
	return v;
}

/*
 * --format pid:starttime hands an identity to a later pfkill -p, which
 * refuses a process with that PID but another start time (a recycled
 * PID has a later one).
 */
int t_e2e_identity(void)
{
	char name[16], want[64], wrong[64];
	unsigned long long st;
	struct run r;
	pid_t h;

	unique_name(name, "id");
	h = spawn_simple(name);
	CHECK(h > 0);
	st = starttime_of(h);
	CHECK(st > 0);
	snprintf(want, sizeof(want), "%d:%llu\n", h, st);
	CHECK(pfgrep(&r, "--format", "pid:starttime", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pfgrep(&r, "--format", "pid", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, h));
	/* A start time it does not have: as if the PID had been recycled. */
	snprintf(wrong, sizeof(wrong), "%d:%llu", h, st + 1);
	CHECK(pfkill(&r, "-USR1", "-p", wrong, NULL) == 1);
	CHECK(nothing_pending(h));
	want[strlen(want) - 1] = '\0';
	CHECK(pfkill(&r, "-USR1", "-p", want, NULL) == 0);
	CHECK(pending(h, SIGUSR1));
	/* Mixed with a plain PID in one list; junk after the colon. */
	CHECK(pfgrep(&r, "-p", "1,", NULL) == 2);
	snprintf(wrong, sizeof(wrong), "%d:1x", h);
	CHECK(pfgrep(&r, "-p", wrong, NULL) == 2 && lines(r.err) == 1 &&
	      strstr(r.err, "not a number"));
	CHECK(pfgrep(&r, "--format", "pid,comm", "-x", name, NULL) == 2);
	reap(h);
	return PASS;
}

/* The inode of a pidfd for pid, as util-linux's getino prints it; 0: none. */
static unsigned long long pidfs_ino_of(pid_t pid)
{
	int fd = syscall(__NR_pidfd_open, pid, 0);
	unsigned long long ino = 0;
	struct statx stx;

	if (fd >= 0 && statx(fd, "", AT_EMPTY_PATH, STATX_INO, &stx) == 0)
		ino = stx.stx_ino;
	if (fd >= 0)
		close(fd);
	return ino;
}

/*
 * --format pid:inode: util-linux's PID:inode hand-off, both ways.  -p
 * reads PID:N as PID:INODE only with --format pid:inode; without it, as
 * 0.2 did, as PID:STARTTIME (with a warning where pidfs exists).
 */
int t_e2e_identity_inode(void)
{
	struct pfk_features f;
	char name[16], id[64], wrong[64], want[256];
	unsigned long long ino;
	struct run r;
	pid_t h;

	pfk_probe_features(&f);
	SKIP_IF(!f.pidfs, "no pidfs (Linux 6.9): e2e_identity_no_pidfs checks "
		"the refusal");
	unique_name(name, "ii");
	h = spawn_simple(name);
	CHECK(h > 0);
	ino = pidfs_ino_of(h);
	CHECK(ino > 0);
	snprintf(id, sizeof(id), "%d:%llu", h, ino);
	snprintf(want, sizeof(want), "%s\n", id);
	CHECK(pfgrep(&r, "--format", "pid:inode", "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, want) == 0);
	snprintf(want, sizeof(want), "{\"pid\":%d,\"name\":\"%s\",\"result\":"
		 "\"matched\",\"inode\":%llu}\n", h, name, ino);
	CHECK(pfgrep(&r, "--json", "--format", "pid:inode", "-x", name,
		     NULL) == 0);
	CHECK(strcmp(r.out, want) == 0);

	/* An inode it does not have: no match, nothing sent, exit 1. */
	snprintf(wrong, sizeof(wrong), "%d:%llu", h, ino + 1);
	CHECK(pfkill(&r, "-USR1", "--format", "pid:inode", "-p", wrong,
		     NULL) == 1);
	CHECK(!r.out[0] && !r.err[0]);
	CHECK(pfgrep(&r, "--format", "pid:inode", "-p", wrong, NULL) == 1);
	CHECK(nothing_pending(h));
	/* The one it has: matched, then signaled through that pidfd. */
	CHECK(pfgrep(&r, "--format", "pid:inode", "-p", id, NULL) == 0);
	CHECK(strncmp(r.out, id, strlen(id)) == 0 && lines(r.out) == 1);
	CHECK(pfkill(&r, "-USR1", "--format", "pid:inode", "-p", id, NULL) == 0);
	CHECK(!r.err[0]);
	CHECK(pending(h, SIGUSR1));
	snprintf(want, sizeof(want), "{\"pid\":%d,\"name\":\"%s\",\"result\":"
		 "\"signaled\",\"inode\":%llu}\n", h, name, ino);
	CHECK(pfkill(&r, "--json", "-USR2", "--format", "pid:inode", "-p", id,
		     "-x", name, NULL) == 0);
	CHECK(strcmp(r.out, want) == 0);
	CHECK(pending(h, SIGUSR2));

	/* Without --format pid:inode the pair is a start time, as in 0.2. */
	if (starttime_of(h) != ino) {
		CHECK(pfkill(&r, "-HUP", "-p", id, NULL) == 1);
		CHECK(lines(r.err) == 1 && strstr(r.err, "PID:STARTTIME") &&
		      strstr(r.err, "--format pid:inode"));
		CHECK(!pending(h, SIGHUP));
	}
	/* A thread's pidfd has an inode of its own: not offered. */
	CHECK(pfgrep(&r, "--format", "pid:inode", "-w", "-x", name, NULL) == 2);
	reap(h);
	return PASS;
}

/*
 * Where the kernel has no pidfs (before 6.9, or seccomp's pretence of
 * one), every pidfd has the same inode: --format pid:inode and reading
 * PID:INODE fail at once (exit 3), and PID:STARTTIME works, unwarned.
 */
int t_e2e_identity_no_pidfs(void)
{
	struct pfk_features f;
	char name[16], id[64];
	struct run r;
	pid_t h;

	pfk_probe_features(&f);
	unique_name(name, "in");
	h = spawn_simple(name);
	CHECK(h > 0);
	emulate_old_kernel = f.pidfs;
	pfkill(&r, "--version", NULL);
	SKIP_IF(r.status == 126, "this kernel has pidfs and seccomp is not "
		"available to hide it");
	CHECK(r.status == 0 && strstr(r.out, "pidfs=no"));
	CHECK(pfgrep(&r, "--format", "pid:inode", "-x", name, NULL) == 3);
	CHECK(!r.out[0] && lines(r.err) == 1 &&
	      strstr(r.err, "--format pid:inode needs pidfs (Linux 6.9)"));
	snprintf(id, sizeof(id), "%d:%llu", h, f.pidfs ? pidfs_ino_of(h) : 1);
	CHECK(pfkill(&r, "-USR1", "--format", "pid:inode", "-p", id, NULL) == 3);
	CHECK(lines(r.err) == 1 && strstr(r.err, "needs pidfs"));
	CHECK(pfgrep(&r, "--json", "--format", "pid:inode", "-p", id,
		     NULL) == 3 && !r.out[0]);
	CHECK(nothing_pending(h));
	snprintf(id, sizeof(id), "%d:%llu", h, starttime_of(h));
	CHECK(pfkill(&r, "-USR1", "-p", id, NULL) == 0 && !r.err[0]);
	CHECK(pending(h, SIGUSR1));
	reap(h);
	return PASS;
}

/*
 * A victim for reuse_in_ns(): a plain fork, so that no exec stands
 * between its start and its newcomer's.  Named, signals blocked, ready
 * when this returns.
 */
static pid_t fork_named(const char *name)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		sigset_t all;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		prctl(PR_SET_NAME, name);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		reap(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

#define REUSE_ROUNDS 30

/*
 * Issue 34: a PID reused within one clock tick.  Each round names a
 * victim both ways, kills and reaps it, and hands its PID at once
 * (ns_last_pid) to a newcomer of the same name, mostly within the same
 * tick.  PID:INODE must never reach the newcomer; PID:STARTTIME reaches
 * it exactly when the two start times are equal, the limit pfkill(1)
 * states.  The victim's identity is read here, not by running pfgrep
 * (the last round checks pfgrep prints the same), to keep the window
 * short.
 */
static int reuse_in_ns(void)
{
	struct pfk_features f;
	char name[16] = "pk_reuse_tick", byino[64], byst[64], buf[32];
	int same_tick = 0, len, fd;
	struct run r;

	pfk_probe_features(&f);
	SKIP_IF(!f.pidfs, "no pidfs: PID:INODE cannot be checked on this "
		"kernel (e2e_identity_no_pidfs checks the refusal)");
	for (int round = 0; round < REUSE_ROUNDS; round++) {
		unsigned long long ino, st;
		pid_t victim, newcomer;
		bool tick, reached, warned;
		int by_st;

		victim = fork_named(name);
		CHECK(victim > 0);
		ino = pidfs_ino_of(victim);
		st = starttime_of(victim);
		CHECK(ino > 0 && st > 0);
		snprintf(byino, sizeof(byino), "%d:%llu", victim, ino);
		snprintf(byst, sizeof(byst), "%d:%llu", victim, st);
		reap(victim);
		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
		SKIP_IF(fd < 0, "ns_last_pid: %s (needs "
			"CONFIG_CHECKPOINT_RESTORE)", strerror(errno));
		len = snprintf(buf, sizeof(buf), "%d", victim - 1);
		SKIP_IF(write(fd, buf, len) != len, "write ns_last_pid: %s",
			strerror(errno));
		close(fd);
		newcomer = spawn_simple(name);
		CHECK(newcomer > 0);
		SKIP_IF(newcomer != victim, "PID %d not reused (got %d)",
			victim, newcomer);
		tick = starttime_of(newcomer) == st;
		same_tick += tick;

		/* The start time: tells them apart only across ticks. */
		by_st = pfkill(&r, "-USR2", "-x", name, "-p", byst, NULL);
		warned = strstr(r.err, "PID:STARTTIME") != NULL;
		reached = pending(newcomer, SIGUSR2);
		/* The inode: refused, whatever the start times say. */
		if (pfkill(&r, "-USR1", "-x", name, "--format", "pid:inode",
			   "-p", byino, NULL) != 1 ||
		    pending(newcomer, SIGUSR1)) {
			diag("round %d: start times %s, PID:STARTTIME %s the "
			     "newcomer; PID:INODE did not refuse it", round,
			     tick ? "equal" : "differ",
			     reached ? "reached" : "missed");
			show_last_run();
			return FAIL;
		}
		CHECK(by_st == (tick ? 0 : 1) && reached == tick && warned);

		/* Control: the newcomer's own PID:INODE does reach it. */
		if (round == REUSE_ROUNDS - 1) {
			snprintf(byino, sizeof(byino), "%d:%llu\n", newcomer,
				 pidfs_ino_of(newcomer));
			CHECK(pfgrep(&r, "--format", "pid:inode", "-x", name,
				     NULL) == 0 && strcmp(r.out, byino) == 0);
			byino[strlen(byino) - 1] = '\0';
			CHECK(pfkill(&r, "-USR1", "-x", name, "--format",
				     "pid:inode", "-p", byino, NULL) == 0);
			CHECK(pending(newcomer, SIGUSR1));
		}
		reap(newcomer);
	}
	diag("%d of %d rounds reused the PID within one clock tick: "
	     "PID:STARTTIME reached the newcomer in each of them, PID:INODE "
	     "in none of the %d", same_tick, REUSE_ROUNDS, REUSE_ROUNDS);
	SKIP_IF(same_tick == 0, "no round reused the PID within one clock "
		"tick (a slow machine): PID:INODE refused all %d",
		REUSE_ROUNDS);
	return PASS;
}

int t_e2e_identity_reuse_one_tick(void)
{
	return in_new_pidns(reuse_in_ns);
}
