// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzing, for pidfd.stress_fuzz_seconds=N (default 120), three at once:
 *
 * - our argument fuzzer: pidfd_send_signal, pidfd_open, pidfd_getfd,
 *   waitid(P_PIDFD), poll, ioctl(PIDFD_GET_INFO) with random sizes and
 *   masks, and clone3() with random CLONE_AUTOREAP, CLONE_NNP and
 *   CLONE_PIDFD_AUTOKILL combinations (whose errno is checked against
 *   the admission rules), pidfs file handles (name_to_handle_at() and
 *   open_by_handle_at() of intact and damaged handles), extended
 *   attributes, the namespace ioctls, process_madvise() and
 *   process_mrelease(), over a pool of handles of every kind (and
 *   of things that are not handles), with random signals, flags and
 *   siginfo; random bytes written to kill files. Two instances, one as
 *   root and one as uid 1000, each in its own session with its own
 *   victims (re-forked when a random signal kills them; a fuzzer that
 *   kills itself is re-forked too). Invariants checked: unknown or
 *   combined scope flags give EINVAL whatever the fd; nothing but
 *   documented errors comes back; a kill file never accepts garbage; an
 *   intact handle opens the same process; a pidfd takes no xattr but
 *   trusted.*, and that only from root; a namespace ioctl returns a
 *   namespace file.
 * - Debian's trinity restricted to pidfd_send_signal, pidfd_open,
 *   pidfd_getfd, waitid, clone3, name_to_handle_at and open_by_handle_at
 *   (if /usr/bin/trinity is in the image);
 *   its row counts the syscalls it reports ("Ran N syscalls" when it
 *   stops on SIGINT, else its last "N iterations" line);
 * - Debian's stress-ng pidfd, kill, sigq and clone stressors, one row
 *   each with the bogo-ops of its --yaml report.
 * A fuzzer that did nothing (no count, or 0) is a failing row.
 *
 * The judge is the console: zero splats (scripts/stress.sh counts them).
 */
#include "stress.h"
#include <poll.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#define TRINITY "/usr/bin/trinity"
/*
 * The 64-bit syscall table only: trinity has two tables (and takes -a) on
 * x86_64; elsewhere (arm64) it has the one.
 */
#ifdef __x86_64__
#define TRINITY_ARCH "-a64",
#else
#define TRINITY_ARCH
#endif
#define STRESSNG "/usr/bin/stress-ng"
#ifndef FD_PIDFS_ROOT
#define FD_PIDFS_ROOT -10002
#endif
#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif
#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif
#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif
#define NVICTIMS 4
#define NFDS 48

static struct features feat;
static struct {
	atomic_long calls, breaks, writes, write_breaks, restarts;
	atomic_int first_break_line, first_break_errno;
	atomic_int garbage_len;		/* the first garbage accepted, +1 */
	unsigned char garbage[40];
} *F;

#define BREAK(e) do {							\
	int zero = 0;							\
	atomic_fetch_add(&F->breaks, 1);				\
	if (atomic_compare_exchange_strong(&F->first_break_line, &zero, __LINE__)) \
		atomic_store(&F->first_break_errno, (e));		\
} while (0)

static pid_t victims[NVICTIMS];
static int fds[NFDS];

static void respawn_victims(void)
{
	int i;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	for (i = 0; i < NVICTIMS; i++) {
		if (victims[i] > 0 && kill(victims[i], 0) == 0)
			continue;
		victims[i] = fork();
		if (victims[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (i & 1)
				setpgid(0, 0);
			for (;;)
				pause();
		}
	}
}

/* A random handle, non-handle or garbage fd for slot i. */
static void refill(int i, uint64_t *seed)
{
	pid_t v = victims[rnd(seed) % NVICTIMS];
	char path[96];
	int fd = -1;

	if (fds[i] >= 0)
		close(fds[i]);
	switch (rnd(seed) % 11) {
	case 0: fd = sys_pidfd_open(v, 0); break;
	case 1: fd = sys_pidfd_open(v, PIDFD_THREAD | O_NONBLOCK); break;
	case 2: fd = sys_pidfd_open(getpid(), PIDFD_THREAD); break;
	case 3:
		snprintf(path, sizeof(path), "/proc/%d", v);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		break;
	case 4:
		snprintf(path, sizeof(path), "/proc/%d/task/%d", v, v);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		break;
	case 5:
		snprintf(path, sizeof(path), "/proc/%d/kill", v);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		break;
	case 6:
		snprintf(path, sizeof(path), "/proc/%d/task/%d/kill", v, v);
		fd = open(path, rnd(seed) & 1 ? O_RDWR : O_WRONLY | O_CLOEXEC);
		break;
	case 7:
		snprintf(path, sizeof(path), "/proc/%d", v);
		fd = open(path, O_PATH | O_CLOEXEC);
		break;
	case 8: fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC); break;
	case 9: {
		int p[2];

		if (!pipe(p)) {
			close(p[1]);
			fd = p[0];
		}
		break;
	}
	default: fd = sys_pidfd_open(getpid(), 0); break;
	}
	fds[i] = fd;
}

static int pick_fd(uint64_t *seed)
{
	switch (rnd(seed) % 16) {
	case 0: return -1;
	case 1: return PIDFD_SELF_THREAD;
	case 2: return PIDFD_SELF_THREAD_GROUP;
	case 3: return (int)rnd(seed);
	case 4: return 1000 + rnd(seed) % 100;	/* closed */
	default: return fds[rnd(seed) % NFDS];
	}
}

static int pick_sig(uint64_t *seed)
{
	static const int sigs[] = { 0, SIGUSR1, SIGUSR2, SIGCONT, SIGSTOP,
				    SIGTERM, SIGKILL, SIGCHLD, SIGWINCH, 40, 64,
				    65, -1, 100, SIGHUP, SIGALRM };

	return rnd(seed) % 8 ? sigs[rnd(seed) % 16] : (int)rnd(seed);
}

static unsigned int pick_flags(uint64_t *seed)
{
	switch (rnd(seed) % 6) {
	case 0: return 0;
	case 1: return PIDFD_SIGNAL_THREAD;
	case 2: return PIDFD_SIGNAL_THREAD_GROUP;
	case 3: return PIDFD_SIGNAL_PROCESS_GROUP;
	case 4: return rnd(seed) % 8;
	default: return rnd(seed);
	}
}

static void fuzz_send(uint64_t *seed)
{
	siginfo_t si;
	int fd = pick_fd(seed), sig = pick_sig(seed), r;
	unsigned int flags = pick_flags(seed);
	siginfo_t *info = NULL;

	if (rnd(seed) % 3 == 0) {
		unsigned char *b = (unsigned char *)&si;
		size_t i;

		for (i = 0; i < sizeof(si); i++)
			b[i] = rnd(seed);
		if (rnd(seed) & 1) {
			si.si_signo = sig;
			si.si_code = rnd(seed) & 1 ? SI_QUEUE : (int)(rnd(seed) % 8) - 6;
		}
		info = &si;
	}
	r = sys_pidfd_send_signal(fd, sig, info, flags);
	atomic_fetch_add(&F->calls, 1);
	if (r == 0)
		return;
	/* Unknown bits or two scopes: EINVAL, checked before the fd. */
	if (feat.scopes && (flags & ~7U || __builtin_popcount(flags) > 1) &&
	    errno != EINVAL)
		BREAK(errno);
	switch (errno) {
	case EINVAL: case EBADF: case EPERM: case ESRCH: case EFAULT:
	case E2BIG:	/* siginfo bytes beyond the known layout */
		break;
	default:
		BREAK(errno);
	}
}

/* PIDFD_GET_INFO with a random size, direction and mask. */
static void fuzz_get_info(uint64_t *seed, int fd)
{
	unsigned char buf[160] = { 0 };
	unsigned int size = rnd(seed) % 4 ? 64 + 8 * (rnd(seed) % 9) :
			    rnd(seed) % sizeof(buf);
	unsigned int dir = rnd(seed) % 4 ? _IOC_READ | _IOC_WRITE :
			   rnd(seed) % 4;
	uint64_t mask = rnd(seed);

	memcpy(buf, &mask, sizeof(mask));
	if (ioctl(fd, _IOC(dir, 0xFF, 11, size), buf) == 0 || !feat.getinfo)
		return;
	switch (errno) {
	case ENOTTY: case EINVAL: case EFAULT: case ESRCH: case EREMOTE:
	case EBADF:
		break;
	default:
		BREAK(errno);
	}
}

/*
 * clone3() with a random mix of the handle flags: the child exits at
 * once. A refusal must be the one the admission rules give.
 */
static void fuzz_clone3(uint64_t *seed)
{
	static const uint64_t bits[] = {
		CLONE_PIDFD, CLONE_AUTOREAP, CLONE_NNP, CLONE_PIDFD_AUTOKILL,
	};
	uint64_t flags = 0;
	int sig = rnd(seed) % 4 ? 0 : SIGCHLD, fd = -1, want = 0;
	unsigned int i;
	pid_t c;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (rnd(seed) & 1)
			flags |= bits[i];
	if ((flags & CLONE_AUTOREAP) && sig)
		want = EINVAL;
	else if ((flags & CLONE_PIDFD_AUTOKILL) &&
		 (flags & (CLONE_PIDFD | CLONE_AUTOREAP)) !=
		 (CLONE_PIDFD | CLONE_AUTOREAP))
		want = EINVAL;
	else if ((flags & CLONE_PIDFD_AUTOKILL) && !(flags & CLONE_NNP) &&
		 geteuid())
		want = EPERM;
	c = stress_clone3(flags, sig, &fd);
	if (c == 0)
		_exit(0);
	if (c < 0) {
		if (!feat.autokill || errno == EAGAIN || errno == ENOMEM)
			return;
		if (errno != want)
			BREAK(errno);
		return;
	}
	if (want)
		BREAK(0);
	if (!(flags & CLONE_AUTOREAP))
		waitpid(c, NULL, __WALL);
	if (flags & CLONE_PIDFD)
		close(fd);
}

static ino_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/*
 * A pidfs file handle of @fd, then open_by_handle_at() of it, sometimes
 * with bytes, size or type changed, against FD_PIDFS_ROOT, a pidfd or
 * anything else, with random flags. Whatever comes back from an intact
 * handle is the same process: the same inode.
 */
static void fuzz_handle(uint64_t *seed, int fd)
{
	union {
		struct file_handle fh;
		unsigned char bytes[sizeof(struct file_handle) + 64];
	} h;
	int mnt_id, mount_fd, r, intact = 1;
	unsigned int i;

	h.fh.handle_bytes = rnd(seed) % 4 ? 64 : rnd(seed) % 80;
	if (name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH |
			      (rnd(seed) & 1 ? AT_HANDLE_FID : 0) |
			      (rnd(seed) % 8 ? 0 : (int)rnd(seed))))
		return;
	if (rnd(seed) % 3 == 0) {
		intact = 0;
		switch (rnd(seed) % 3) {
		case 0:
			for (i = 0; i < h.fh.handle_bytes && i < 64; i++)
				if (rnd(seed) % 4 == 0)
					h.fh.f_handle[i] = rnd(seed);
			break;
		case 1:
			h.fh.handle_bytes = rnd(seed) % 65;
			break;
		default:
			h.fh.handle_type = rnd(seed);
		}
	}
	switch (rnd(seed) % 4) {
	case 0: mount_fd = fd; break;
	case 1: mount_fd = pick_fd(seed); intact = 0; break;
	default: mount_fd = FD_PIDFS_ROOT;
	}
	r = open_by_handle_at(mount_fd, &h.fh, rnd(seed) % 4 ? O_RDONLY :
			      rnd(seed) & 1 ? O_RDWR | O_NONBLOCK | O_EXCL :
			      (int)rnd(seed));
	if (r < 0)
		return;
	if (intact && ino_of(r) != ino_of(fd))
		BREAK(0);
	close(r);
}

static int on_pidfs(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == PID_FS_MAGIC;
}

/* Extended attributes of a pidfd: only trusted.* may ever be set. */
static void fuzz_xattr(uint64_t *seed, int fd)
{
	static const char *const names[] = {
		"trusted.fuzz", "trusted.", "user.fuzz", "security.fuzz",
		"system.posix_acl_access", "fuzz", "trusted.a.b",
	};
	const char *name = names[rnd(seed) % 7];
	char buf[256], value[64];
	/* Short, or the whole of buf: what a get or a list can take. */
	size_t size = rnd(seed) % 4 ? rnd(seed) % sizeof(value) : sizeof(buf);
	unsigned int i;

	for (i = 0; i < sizeof(value); i++)
		value[i] = rnd(seed);
	switch (rnd(seed) % 4) {
	case 0:
		if (fsetxattr(fd, name, value, size > sizeof(value) ?
			      sizeof(value) : size, rnd(seed) % 4 ? 0 :
			      (int)(rnd(seed) % 4)))
			break;
		/* On pidfs: trusted.* only, and only with CAP_SYS_ADMIN. */
		if (on_pidfs(fd) && (strncmp(name, "trusted.", 8) || geteuid()))
			BREAK(0);
		break;
	case 1:
		fgetxattr(fd, name, buf, size);
		break;
	case 2:
		flistxattr(fd, buf, size);
		break;
	default:
		fremovexattr(fd, name);
	}
}

/*
 * The namespace ioctls (and FS_IOC_GETVERSION's number) with random
 * arguments: a file that comes back is a namespace file.
 */
static void fuzz_ns_ioctl(uint64_t *seed, int fd)
{
	unsigned int nr = rnd(seed) % 4 ? 1 + rnd(seed) % 10 : rnd(seed) % 256;
	unsigned long arg = rnd(seed) % 4 ? 0 : rnd(seed);
	struct statfs sf;
	int r;

	r = ioctl(fd, rnd(seed) % 8 ? _IO(0xFF, nr) : _IOR('v', 1, long), arg);
	if (r <= 2)
		return;
	if (nr <= 10 && on_pidfs(fd) && !fstatfs(r, &sf) &&
	    sf.f_type != NSFS_MAGIC)
		BREAK(0);
	close(r);
}

/* process_madvise() and process_mrelease(), PIDFD_SELF_* among the fds. */
static void fuzz_mm(uint64_t *seed, int fd)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct iovec iov = {
		.iov_base = rnd(seed) % 4 ? page : (void *)(uintptr_t)rnd(seed),
		.iov_len = rnd(seed) % 4 ? sizeof(page) : rnd(seed),
	};
	/* COLD, PAGEOUT, WILLNEED, COLLAPSE, garbage: none loses data */
	static const int advice[] = { 20, 21, 3, 25, -1, 100 };

	if (rnd(seed) & 1)
		syscall(SYS_process_madvise, fd, &iov, rnd(seed) % 4 ? 1 : rnd(seed) % 4,
			advice[rnd(seed) % 6], rnd(seed) % 4 ? 0 : (unsigned int)rnd(seed));
	else	/* EINVAL for a live process, ours included */
		syscall(SYS_process_mrelease, fd, rnd(seed) % 4 ? 0 :
			(unsigned int)rnd(seed));
}

/* pidfs beyond signals: handles, xattrs, namespace ioctls, the mm calls. */
static void fuzz_pidfs(uint64_t *seed)
{
	int fd = pick_fd(seed);

	switch (rnd(seed) % 4) {
	case 0: fuzz_handle(seed, fd); break;
	case 1: fuzz_xattr(seed, fd); break;
	case 2: fuzz_ns_ioctl(seed, fd); break;
	default: fuzz_mm(seed, fd);
	}
}

static void fuzz_other(uint64_t *seed)
{
	int fd = pick_fd(seed), r;
	siginfo_t si;

	atomic_fetch_add(&F->calls, 1);
	switch (rnd(seed) % 10) {
	case 0: {
		pid_t pid = rnd(seed) % 4 ? victims[rnd(seed) % NVICTIMS] :
			    (pid_t)rnd(seed);
		unsigned int fl = rnd(seed) % 4 ? (rnd(seed) & 1 ? PIDFD_THREAD : 0) |
						  (rnd(seed) & 1 ? O_NONBLOCK : 0) :
						  (unsigned int)rnd(seed);

		r = sys_pidfd_open(pid, fl);
		if (r >= 0)
			close(r);
		else if (errno != EINVAL && errno != ESRCH && errno != EMFILE)
			BREAK(errno);
		break;
	}
	case 1:
		r = syscall(SYS_pidfd_getfd, fd, (int)(rnd(seed) % 64),
			    rnd(seed) % 4 ? 0 : (unsigned int)rnd(seed));
		if (r >= 0)
			close(r);
		break;
	case 2:
		waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG |
		       (rnd(seed) & 1 ? __WALL : 0) | (rnd(seed) & 1 ? WNOWAIT : 0));
		break;
	case 3: {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLHUP };

		poll(&p, 1, 0);
		break;
	}
	case 4:
		fcntl(fd, F_GETFL);
		break;
	case 6:
		fuzz_get_info(seed, fd);
		break;
	case 7:
		fuzz_clone3(seed);
		break;
	case 8: case 9:
		fuzz_pidfs(seed);
		break;
	default:
		r = fds[rnd(seed) % NFDS];
		if (r >= 0) {
			char buf[64];

			pread(r, buf, sizeof(buf), rnd(seed) % 4);
		}
	}
}

/* Random bytes to a kill file: only a clean decimal signal may pass. */
static void fuzz_killfile(uint64_t *seed)
{
	static const char *const good[] = { "0", "0\n", "10", "28\n" };
	char path[96], buf[40];
	pid_t v = victims[rnd(seed) % NVICTIMS];
	int fd, n, i, garbage = 0;
	ssize_t w;

	snprintf(path, sizeof(path), rnd(seed) & 1 ? "/proc/%d/kill" :
		 "/proc/%d/task/%d/kill", v, v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	switch (rnd(seed) % 4) {
	case 0:
		n = snprintf(buf, sizeof(buf), "%s", good[rnd(seed) % 4]);
		break;
	case 1:
		n = snprintf(buf, sizeof(buf), "%ld", (long)rnd(seed));
		break;
	default:
		n = rnd(seed) % sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = rnd(seed) % 3 ? (char)('0' + rnd(seed) % 10) :
						 (char)rnd(seed);
		/* A non-digit other than one trailing newline is garbage. */
		for (i = 0; i < n; i++)
			if ((buf[i] < '0' || buf[i] > '9') && !(i == n - 1 && buf[i] == '\n'))
				garbage = 1;
	}
	w = rnd(seed) % 5 ? pwrite(fd, buf, n, 0) :
			    pwrite(fd, buf, n, rnd(seed) % 8);
	atomic_fetch_add(&F->writes, 1);
	/* An empty write sends nothing: 0, or an error (a dead target, an
	 * offset) as write(2) may report; it is never garbage accepted. */
	if (n > 0 && w >= 0 && garbage) {
		int zero = 0;

		atomic_fetch_add(&F->write_breaks, 1);
		if (atomic_compare_exchange_strong(&F->garbage_len, &zero, n + 1))
			memcpy(F->garbage, buf, n);
	}
	close(fd);
}

static void fuzzer(int uid, double end)
{
	uint64_t seed = rnd_seed();
	sigset_t all;
	int i, sig;

	setsid();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (uid && (setgid(uid) || setuid(uid)))
		_exit(2);
	for (sig = 1; sig < 65; sig++)
		signal(sig, SIG_IGN);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	for (i = 0; i < NFDS; i++)
		fds[i] = -1;
	while (now_s() < end) {
		respawn_victims();
		for (i = 0; i < NFDS; i++)
			refill(i, &seed);
		for (i = 0; i < 2000; i++) {
			unsigned long r = rnd(&seed) % 8;

			if (r < 4)
				fuzz_send(&seed);
			else if (r < 7)
				fuzz_other(&seed);
			else if (feat.killfile)
				fuzz_killfile(&seed);
			if (i % 200 == 0)
				respawn_victims();
		}
	}
	for (i = 0; i < NVICTIMS; i++)
		kill(victims[i], SIGKILL);
	_exit(0);
}

/* Start @path as @uid in a session of its own, its output into @log. */
static pid_t run(const char *path, char *const argv[], int uid, const char *log)
{
	pid_t p = fork();

	if (p == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		setsid();
		dup2(devnull, 0);
		if (out >= 0) {
			dup2(out, 1);
			dup2(out, 2);
		}
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(2);
		execv(path, argv);
		_exit(127);
	}
	return p;
}

#define TRINITY_LOG "/tmp/trinity.log"
#define STRESSNG_LOG "/tmp/stress-ng.log"
#define STRESSNG_YAML "/tmp/stress-ng.yaml"

/* The last lines of a log, into our output (the console and KTAP). */
static void show_tail(const char *tag, const char *path, int lines)
{
	char buf[16384], *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len;
	off_t size;

	if (fd < 0) {
		printf("# %s: no output (%s)\n", tag, strerror(errno));
		return;
	}
	size = lseek(fd, 0, SEEK_END);
	len = pread(fd, buf, sizeof(buf) - 1, size > (off_t)sizeof(buf) - 1 ?
		    size - (off_t)sizeof(buf) + 1 : 0);
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	for (p = buf + strlen(buf); p > buf; p--)
		if (p[-1] == '\n' && p[0] && ++n >= lines)
			break;
	for (p = strtok(p, "\n"); p; p = strtok(NULL, "\n"))
		printf("# %s: %s\n", tag, p);
}

/*
 * trinity's count of syscalls done: "Ran N syscalls" at its orderly
 * exit, else the largest "N iterations." progress line (every 10000).
 * -1 when the log has neither.
 */
static long trinity_count(void)
{
	char line[512], *p;
	long n = -1, v;
	FILE *f = fopen(TRINITY_LOG, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if ((p = strstr(line, "Ran ")) && sscanf(p, "Ran %ld syscalls", &v) == 1)
			return fclose(f), v;
		if ((p = strstr(line, " iterations.")) ) {
			while (p > line && p[-1] >= '0' && p[-1] <= '9')
				p--;
			if (sscanf(p, "%ld iterations.", &v) == 1 && v > n)
				n = v;
		}
	}
	fclose(f);
	return n;
}

/* trinity has made its fds and is starting its children. */
static int trinity_started(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen(TRINITY_LOG, "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " fd providers") != NULL;
	fclose(f);
	return found;
}

/* Bogo-ops of @stressor in stress-ng's --yaml report; -1 if absent. */
static long stressng_ops(const char *stressor)
{
	char line[256], name[64] = "";
	long v;
	FILE *f = fopen(STRESSNG_YAML, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " - stressor: %63s", name) == 1)
			continue;
		if (!strcmp(name, stressor) && sscanf(line, " bogo-ops: %ld", &v) == 1)
			return fclose(f), v;
	}
	fclose(f);
	return -1;
}

/*
 * The image has no trinity or stress-ng by design (PIDFD_STRESS_NO_FUZZERS:
 * make test ARCH=arm64, whose packages do not include them), rather than
 * by a mistake in the build of an x86_64 image, which must fail.
 */
static int fuzzers_absent(void)
{
	return getenv("PIDFD_STRESS_NO_FUZZERS") != NULL;
}

int main(void)
{
	static const char *const stressors[] = { "pidfd", "kill", "sigq", "clone" };
	/* The smoke run leaves clone out: even with --clone-max it counted
	 * 0 ops in 10 s on a loaded host. */
	int nstressors = param("stressng_clone", 1) ? 4 : 3;
	double seconds = param("fuzz_seconds", 120), end;
	/* trinity exits by itself after this many syscalls, or at the end */
	long tr_budget = param("trinity_syscalls", 1000000000);
	/* how long past the end it may take to start: seconds under TCG,
	 * minutes on the debug kernel */
	long tr_grace = param("trinity_grace", 300);
	long tr_calls;
	char tsecs[32], count[32];
	pid_t fz[2] = { -1, -1 }, tr = -1, sn = -1;
	int i, failed = 0, tr_status = -1, sn_status = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_features(&feat);
	F = shared(sizeof(*F));
	end = now_s() + seconds;
	snprintf(tsecs, sizeof(tsecs), "%ds", (int)seconds);
	snprintf(count, sizeof(count), "%ld", tr_budget);

	if (access(TRINITY, X_OK) == 0) {
		/*
		 * No socket fds: trinity 2023.01 dies of SIGSEGV while it
		 * builds its socket cache in a guest that lacks most address
		 * families, before its first syscall. The syscalls fuzzed
		 * here take pidfds or paths, not sockets.
		 */
		char *argv[] = { "trinity", "-q", "-l", "off", TRINITY_ARCH "-C", "2",
				 "--disable-fds=sockets",
				 "-c", "pidfd_send_signal", "-c", "pidfd_open",
				 "-c", "pidfd_getfd", "-c", "waitid", "-c", "clone3",
				 "-c", "name_to_handle_at", "-c", "open_by_handle_at",
				 "-N", count, NULL };

		tr = run(TRINITY, argv, 1000, TRINITY_LOG);	/* it refuses root */
	}
	if (access(STRESSNG, X_OK) == 0) {
		/*
		 * --clone-max: its bogo-ops count clones reaped, and by default
		 * it reaps only once 8192 zombies exist, which a short or
		 * loaded run never reaches (0 ops in 10 s, 1 in 30 s).
		 */
		char *argv[] = { "stress-ng", "--pidfd", "1", "--kill", "1",
				 "--sigq", "1", "--timeout", tsecs,
				 "--temp-path", "/tmp", "--metrics-brief",
				 "--yaml", STRESSNG_YAML,
				 "--clone", "1", "--clone-max", "256", NULL };

		if (nstressors == 3)	/* cut the last four: the clone options */
			argv[sizeof(argv) / sizeof(argv[0]) - 5] = NULL;

		sn = run(STRESSNG, argv, 0, STRESSNG_LOG);
	}
	while (now_s() < end) {
		for (i = 0; i < 2; i++) {
			int status;

			/* A fuzzer may SIGSTOP itself (or its group): resume it. */
			if (fz[i] > 0 && waitpid(fz[i], &status, WNOHANG) == 0) {
				kill(-fz[i], SIGCONT);
				continue;
			}
			if (fz[i] > 0)
				atomic_fetch_add(&F->restarts, 1);
			fz[i] = fork();
			if (fz[i] == 0)
				fuzzer(i ? 1000 : 0, end);
		}
		usleep(100000);
	}
	for (i = 0; i < 2; i++)
		if (fz[i] > 0) {
			kill(-fz[i], SIGKILL);
			waitpid(fz[i], NULL, 0);
		}
	if (tr > 0) {
		int done, started = -1;

		/* Once started, 10 s of fuzzing before SIGINT (or its budget). */
		for (i = 0; !(done = waitpid(tr, &tr_status, WNOHANG) == tr) &&
			    i < tr_grace * 10; i++) {
			if (started < 0 && trinity_started())
				started = i;
			if (started >= 0 && i - started >= 100)
				break;
			usleep(100000);
		}
		/* SIGINT: it stops its children and prints its count; under
		 * TCG on a debug kernel that takes seconds, give it 30. */
		if (!done)
			kill(-tr, SIGINT);
		for (i = 0; !done && !(done = waitpid(tr, &tr_status, WNOHANG) == tr) &&
			    i < 300; i++)
			usleep(100000);
		if (!done) {
			kill(-tr, SIGKILL);
			waitpid(tr, &tr_status, 0);
		}
		kill(-tr, SIGKILL);	/* children it left behind */
		show_tail("trinity", TRINITY_LOG, 8);
	}
	if (sn > 0) {
		for (i = 0; i < 300 && waitpid(sn, &sn_status, WNOHANG) == 0; i++)
			usleep(100000);
		if (i == 300) {
			kill(-sn, SIGKILL);
			waitpid(sn, &sn_status, 0);
		}
		show_tail("stress-ng", STRESSNG_LOG, 12);
	}

	printf("# fuzzer: %ld calls, %ld invariant breaks (first at line %d, errno %d), %ld restarts; kill files: %ld writes, %ld garbage accepted\n",
	       atomic_load(&F->calls), atomic_load(&F->breaks),
	       atomic_load(&F->first_break_line), atomic_load(&F->first_break_errno),
	       atomic_load(&F->restarts), atomic_load(&F->writes),
	       atomic_load(&F->write_breaks));
	if (atomic_load(&F->garbage_len)) {
		printf("# kill file: first garbage accepted (%d bytes):",
		       atomic_load(&F->garbage_len) - 1);
		for (i = 0; i < atomic_load(&F->garbage_len) - 1; i++)
			printf(" %02x", F->garbage[i]);
		printf("\n");
	}
	row("fuzz:argument fuzzer", atomic_load(&F->calls), atomic_load(&F->breaks),
	    "-", "%.0f s, root and uid 1000, %ld fuzzer restarts", seconds,
	    atomic_load(&F->restarts));
	if (feat.killfile)
		row("fuzz:kill file bytes", atomic_load(&F->writes),
		    atomic_load(&F->write_breaks), "-", "garbage accepted counts as a failure");
	else
		row("fuzz:kill file bytes", -1, 0, "-", "not in this kernel");
	failed = atomic_load(&F->breaks) || atomic_load(&F->write_breaks);
	/* A fuzzer that did nothing is a failure, not a clean run. */
	if (tr > 0) {
		tr_calls = trinity_count();
		if (tr_calls > 0)
			row("fuzz:trinity", tr_calls, 0, "-",
			    "syscalls run, %.0f s, 7 syscalls; exit status %#x",
			    seconds, tr_status);
		else
			row("fuzz:trinity", 0, 1, "-",
			    "%s; exit status %#x (see " TRINITY_LOG " above)",
			    tr_calls == 0 ? "ran 0 syscalls" :
			    "no syscall count in its output", tr_status);
		failed |= tr_calls <= 0;
	} else {
		row("fuzz:trinity", fuzzers_absent() ? ROW_ABSENT : -1, 0, "-",
		    "trinity not in the image");
	}
	for (i = 0; i < nstressors; i++) {
		char name[48];
		long ops = sn > 0 ? stressng_ops(stressors[i]) : -1;
		int bad = ops <= 0 || sn_status != 0;

		snprintf(name, sizeof(name), "fuzz:stress-ng %s", stressors[i]);
		if (sn <= 0)
			row(name, fuzzers_absent() ? ROW_ABSENT : -1, 0, "-",
			    "stress-ng not in the image");
		else
			row(name, ops < 0 ? 0 : ops, bad, "-",
			    "bogo-ops, %.0f s; exit status %#x%s", seconds, sn_status,
			    ops < 0 ? ", not in its --yaml report" : "");
		failed |= sn > 0 && bad;
	}
	return failed;
}
