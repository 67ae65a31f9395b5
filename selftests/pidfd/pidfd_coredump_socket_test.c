// SPDX-License-Identifier: GPL-2.0
/*
 * The coredump socket, as upstream 7.3 has it: core_pattern "@/path"
 * streams the core to the AF_UNIX socket at /path, "@@/path" asks the
 * server first (struct coredump_req, struct coredump_ack, one mark).
 *
 * The invariants, each checked over every combination its generator
 * makes, the expected answer computed from upstream's rule:
 * - a pattern is taken when written iff it is a file or pipe pattern, or
 *   "@" or "@@" and an absolute path without ".." shorter than
 *   UNIX_PATH_MAX; a refused one leaves the old pattern in place;
 * - an ack gets the mark its size, flags and spare field call for, and
 *   then exactly what it chose: the core (KERNEL), nothing but a dumped
 *   status (USERSPACE), nothing (REJECT, or any refused ack), a task that
 *   waits for the server's close (WAIT, but for REJECT);
 * - the server's peer is the crashing process: SO_PEERCRED names it, and
 *   its SO_PEERPIDFD reports the dump while it runs and after the reap;
 * - no server, a server gone early or one that never acks costs the dump,
 *   never a hang of the crashing task.
 *
 * Why the probe is supported_mask: a kernel that reports
 * PIDFD_INFO_COREDUMP has the socket that came with it upstream (6.16),
 * and consumers (systemd 262) conclude just that. The tests skip without
 * root, without a writable core_pattern, and on a kernel without that
 * bit (upstream before 6.16); on one with it they run, and fail where the
 * socket is missing.
 */

#include "pidfd_handle.h"

#include <limits.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "../kselftest_harness.h"

#if __has_include("linux/coredump.h")
#include <linux/coredump.h>
#else
/* Upstream 6.17, include/uapi/linux/coredump.h. */
enum {
	COREDUMP_KERNEL		= (1ULL << 0),
	COREDUMP_USERSPACE	= (1ULL << 1),
	COREDUMP_REJECT		= (1ULL << 2),
	COREDUMP_WAIT		= (1ULL << 3),
};

struct coredump_req {
	__u32 size;
	__u32 size_ack;
	__u64 mask;
};

struct coredump_ack {
	__u32 size;
	__u32 spare;
	__u64 mask;
};

enum { COREDUMP_REQ_SIZE_VER0 = 16U, COREDUMP_ACK_SIZE_VER0 = 16U };

enum coredump_mark {
	COREDUMP_MARK_REQACK		= 0U,
	COREDUMP_MARK_MINSIZE		= 1U,
	COREDUMP_MARK_MAXSIZE		= 2U,
	COREDUMP_MARK_UNSUPPORTED	= 3U,
	COREDUMP_MARK_CONFLICTING	= 4U,
	__COREDUMP_MARK_MAX		= (1U << 31),
};
#endif

#ifndef PIDFD_COREDUMPED
#define PIDFD_COREDUMPED	0x1U
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD		77
#endif

#define CORE_PATTERN	"/proc/sys/kernel/core_pattern"
#define CORE_PIPE_LIMIT	"/proc/sys/kernel/core_pipe_limit"
#define SOCK_PATH	"/tmp/pidfd_coredump_socket_test.sock"
/* What the kernel sends a server offers, and reads back at most. */
#define ALL_FLAGS	(COREDUMP_KERNEL | COREDUMP_USERSPACE | \
			 COREDUMP_REJECT | COREDUMP_WAIT)
#define ONE_OF		(COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT)
#define UNIX_PATH_LEN	sizeof(((struct sockaddr_un *)0)->sun_path)
/* How long a server waits for the kernel's connection, in ms. */
#define CONNECT_MS	10000

static int read_sysctl(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return -errno;
	len = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[len] = '\0';
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return 0;
}

/* Write @value, newline-ended, in one write(2) at fclose(): 0 or -errno. */
static int write_sysctl(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "%s\n", value);
	return fclose(f) ? -errno : 0;
}

FIXTURE(coredump_socket) {
	char saved_pattern[PATH_MAX];
	char saved_limit[32];
	int listen_fd;
	const char *skip_reason;
};

/*
 * 6.1's kselftest_harness.h runs the test after a SKIP in FIXTURE_SETUP,
 * so the setup only records why and each test skips itself.
 */
FIXTURE_SETUP(coredump_socket)
{
	self->listen_fd = -1;
	self->saved_pattern[0] = '\0';
	if (geteuid())
		self->skip_reason = "needs root to set core_pattern";
	else if (read_sysctl(CORE_PATTERN, self->saved_pattern, sizeof(self->saved_pattern)) ||
		 read_sysctl(CORE_PIPE_LIMIT, self->saved_limit, sizeof(self->saved_limit)))
		self->skip_reason = "no core_pattern (CONFIG_COREDUMP)";
	else if (!(supported_info() & PIDFD_INFO_COREDUMP))
		self->skip_reason =
			"no PIDFD_INFO_COREDUMP in supported_mask: no coredump socket either";
}

FIXTURE_TEARDOWN(coredump_socket)
{
	if (self->listen_fd >= 0)
		close(self->listen_fd);
	unlink(SOCK_PATH);
	if (self->saved_pattern[0]) {
		write_sysctl(CORE_PATTERN, self->saved_pattern);
		write_sysctl(CORE_PIPE_LIMIT, self->saved_limit);
	}
}

/* A socket at SOCK_PATH; listening unless @bound_only. */
static int socket_at(bool bound_only)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SOCK_PATH };
	int fd;

	unlink(SOCK_PATH);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (!bound_only && listen(fd, 64))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A child that dies of SIGSEGV (SEGV_MAPERR) at once: it writes to a
 * page it unmapped, which no compiler turns into a trap instruction.
 */
static pid_t crash(void)
{
	pid_t pid = fork();
	char *page;

	if (pid == 0) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED || munmap(page, 4096))
			_exit(1);
		page[0] = 1;
		_exit(1);
	}
	return pid;
}

/* The kernel's connection for a dump, or -1 after CONNECT_MS. */
static int accept_dump(int listen_fd)
{
	struct pollfd pfd = { .fd = listen_fd, .events = POLLIN };

	if (poll(&pfd, 1, CONNECT_MS) != 1)
		return -1;
	return accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
}

/*
 * Read to the end of the connection: the bytes read, the first four into
 * @magic. A kernel that closes its end with our ack unread in it (it
 * only peeked at the size) resets the connection: that is its end too.
 */
static long read_all(int fd, char magic[4])
{
	char buf[65536];
	long total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (total == 0 && n >= 4)
			memcpy(magic, buf, 4);
		total += n;
	}
	return n < 0 && errno != ECONNRESET ? -1 : total;
}

/* Is @pid, not yet reaped, still running (not exited)? */
static bool still_running(pid_t pid)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       si.si_pid == 0;
}

/* The rule a written pattern is checked by, from upstream's sysctl. */
static bool pattern_taken(const char *pattern)
{
	const char *path = pattern + 1, *p;

	if (pattern[0] != '@')
		return true;
	if (*path == '@')
		path++;
	if (*path != '/' || strlen(path) >= UNIX_PATH_LEN)
		return false;
	for (p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
		if (p[-1] == '/' && (p[2] == '\0' || p[2] == '/'))
			return false;
	return true;
}

TEST_F(coredump_socket, pattern_checked_when_written)
{
	static const char *const prefixes[] = { "", "|", "@", "@@", "@@@" };
	static const char *const paths[] = {
		"/tmp/x.sock", "tmp/x.sock", "/tmp/../x.sock", "/tmp/x.sock/..",
		"..", "/..", "/tmp/..x/y..", "/tmp/a b.sock", "", "/", "@/tmp/x",
		NULL, NULL,	/* UNIX_PATH_LEN - 1 and UNIX_PATH_LEN long */
	};
	char shorter[UNIX_PATH_LEN], longest[UNIX_PATH_LEN + 1];
	char pattern[256], now[256];
	int i, j, ret, failed = 0, n = 0;
	const char *path;

	if (self->skip_reason)
		SKIP(return, "%s", self->skip_reason);
	memset(shorter, 'a', sizeof(shorter));
	shorter[0] = '/';
	shorter[UNIX_PATH_LEN - 1] = '\0';
	memset(longest, 'a', sizeof(longest));
	longest[0] = '/';
	longest[UNIX_PATH_LEN] = '\0';

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		for (j = 0; j < ARRAY_SIZE(paths); j++) {
			path = paths[j] ? paths[j] :
			       j == ARRAY_SIZE(paths) - 2 ? shorter : longest;
			snprintf(pattern, sizeof(pattern), "%s%s", prefixes[i], path);
			if (!pattern[0] || !strcmp(pattern, "|"))
				continue;
			ASSERT_EQ(write_sysctl(CORE_PATTERN, "core"), 0);
			ret = write_sysctl(CORE_PATTERN, pattern);
			ASSERT_EQ(read_sysctl(CORE_PATTERN, now, sizeof(now)), 0);
			n++;
			if (pattern_taken(pattern) ? ret || strcmp(now, pattern) :
			    ret != -EINVAL || strcmp(now, "core")) {
				TH_LOG("\"%s\": write %s, core_pattern now \"%s\"; expected %s",
				       pattern, strerror(-ret), now,
				       pattern_taken(pattern) ? "taken" :
				       "EINVAL, \"core\" kept");
				failed++;
			}
		}
	}
	TH_LOG("%d patterns", n);
	EXPECT_EQ(failed, 0);
}

TEST_F(coredump_socket, core_modes_lists_socket)
{
	char modes[64];

	if (self->skip_reason)
		SKIP(return, "%s", self->skip_reason);
	ASSERT_EQ(read_sysctl("/proc/sys/kernel/core_modes", modes, sizeof(modes)), 0);
	EXPECT_STREQ(modes, "file\npipe\nsocket");
}

/*
 * What a pidfd says about a dump: NULL, or why not. EXIT is asked for
 * too: without it a reaped task's PIDFD_GET_INFO is ESRCH.
 */
static const char *dump_reported(int pidfd, __u32 *signal, __u32 *code)
{
	struct pidfd_info info;

	if (get_info(pidfd, PIDFD_INFO_EXIT | PIDFD_INFO_COREDUMP |
		     PIDFD_INFO_COREDUMP_SIGNAL | PIDFD_INFO_COREDUMP_CODE, &info))
		return "PIDFD_GET_INFO failed";
	if (!(info.mask & PIDFD_INFO_COREDUMP) ||
	    !(info.coredump_mask & PIDFD_COREDUMPED))
		return "no PIDFD_COREDUMPED";
	*signal = info.coredump_signal;
	*code = info.coredump_code;
	return NULL;
}

TEST_F(coredump_socket, dump_streams_to_server)
{
	char magic[4] = { 0 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	__u32 sig = 0, code = 0;
	const char *why;
	int conn, pidfd, status;
	long size;
	pid_t pid;

	if (self->skip_reason)
		SKIP(return, "%s", self->skip_reason);
	self->listen_fd = socket_at(false);
	ASSERT_GE(self->listen_fd, 0);
	ASSERT_EQ(write_sysctl(CORE_PATTERN, "@" SOCK_PATH), 0);
	ASSERT_EQ(write_sysctl(CORE_PIPE_LIMIT, "0"), 0);

	pid = crash();
	ASSERT_GT(pid, 0);
	conn = accept_dump(self->listen_fd);
	ASSERT_GE(conn, 0) TH_LOG("no connection from the kernel in %d ms", CONNECT_MS);

	/* The peer is the crashing process, and its pidfd says so at once. */
	ASSERT_EQ(getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len), 0);
	EXPECT_EQ(cred.pid, pid);
	len = sizeof(pidfd);
	ASSERT_EQ(getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len), 0);
	EXPECT_EQ(fdinfo_pid(pidfd), pid);
	why = dump_reported(pidfd, &sig, &code);
	EXPECT_FALSE(!!why) TH_LOG("while it dumps: %s", why);

	size = read_all(conn, magic);
	EXPECT_GT(size, 0);
	EXPECT_EQ(memcmp(magic, "\177ELF", 4), 0);
	close(conn);

	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	EXPECT_TRUE(WCOREDUMP(status));

	/* And after the reap, with the signal and its si_code. */
	why = dump_reported(pidfd, &sig, &code);
	EXPECT_FALSE(!!why) TH_LOG("after the reap: %s", why);
	EXPECT_EQ(sig, SIGSEGV);
	EXPECT_EQ(code, SEGV_MAPERR);
	close(pidfd);
}

/* The mark upstream's rule gives an ack of @size, @mask, @spare. */
static enum coredump_mark expected_mark(__u32 size, __u64 mask, __u32 spare)
{
	if (size < COREDUMP_ACK_SIZE_VER0)
		return COREDUMP_MARK_MINSIZE;
	if (size > sizeof(struct coredump_ack))
		return COREDUMP_MARK_MAXSIZE;
	if (mask & ~(__u64)ALL_FLAGS)
		return COREDUMP_MARK_UNSUPPORTED;
	if (__builtin_popcountll(mask & ONE_OF) != 1)
		return COREDUMP_MARK_CONFLICTING;
	if (spare)
		return COREDUMP_MARK_UNSUPPORTED;
	return COREDUMP_MARK_REQACK;
}

/*
 * One crash under "@@": answer with the ack, check the request, the
 * mark, what follows and the exit. NULL, or what went wrong.
 */
static const char *one_request(int listen_fd, __u32 size, __u64 mask,
			       __u32 spare)
{
	enum coredump_mark want = expected_mark(size, mask, spare), mark;
	bool dump = want == COREDUMP_MARK_REQACK && (mask & COREDUMP_KERNEL);
	bool dumped = want == COREDUMP_MARK_REQACK &&
		      (mask & (COREDUMP_KERNEL | COREDUMP_USERSPACE));
	/* REJECT ends the dump before any wait, WAIT or not. */
	bool waits = want == COREDUMP_MARK_REQACK && (mask & COREDUMP_WAIT) &&
		     !(mask & COREDUMP_REJECT);
	char buf[32] = { 0 }, magic[4] = { 0 };
	struct coredump_req req;
	struct coredump_ack ack = { .size = size, .spare = spare, .mask = mask };
	const char *err = NULL;
	int conn, status;
	long got;
	pid_t pid;

	pid = crash();
	if (pid < 0)
		return "fork failed";
	conn = accept_dump(listen_fd);
	if (conn < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return "no connection from the kernel";
	}

	if (read(conn, &req, sizeof(req)) != sizeof(req))
		err = "no coredump_req";
	else if (req.size < COREDUMP_REQ_SIZE_VER0 ||
		 req.size_ack < COREDUMP_ACK_SIZE_VER0 || req.mask != ALL_FLAGS)
		err = "coredump_req not as upstream's";
	memcpy(buf, &ack, sizeof(ack));
	if (!err && write(conn, buf, size > sizeof(ack) ? size : sizeof(ack)) < 0)
		err = "ack not sent";
	if (!err && read(conn, &mark, sizeof(mark)) != sizeof(mark))
		err = "no mark";
	else if (!err && mark != want)
		err = "wrong mark";

	got = err ? 0 : read_all(conn, magic);
	if (!err && (dump ? got <= 0 || memcmp(magic, "\177ELF", 4) : got != 0))
		err = dump ? "no core after REQACK with KERNEL" : "data without KERNEL";
	/*
	 * With WAIT the task is held in the kernel until the close; without
	 * it, it exits with the connection open (a wrong wait hangs here,
	 * and the harness's timeout fails the test).
	 */
	if (waits) {
		if (!err && !still_running(pid))
			err = "WAIT: the task did not wait for the close";
		close(conn);
	}
	if (waitpid(pid, &status, 0) != pid && !err)
		err = "waitpid failed";
	if (!waits)
		close(conn);
	if (!err && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV))
		err = "not killed by SIGSEGV";
	if (!err && !!WCOREDUMP(status) != dumped)
		err = dumped ? "no core dumped status" : "core dumped status";
	return err;
}

/* 180 crashes: minutes under TCG. */
TEST_F_TIMEOUT(coredump_socket, request_acks, 900)
{
	static const __u32 sizes[] = { 8, 15, 16, 17, 24 };
	/* Every combination of the four flags, and two unknown ones. */
	static const __u64 extra[] = { 1ULL << 4, 1ULL << 63 };
	const int masks = 16 + ARRAY_SIZE(extra);
	int failed = 0, n, i, spare;
	const char *err;
	__u32 size;
	__u64 mask;

	if (self->skip_reason)
		SKIP(return, "%s", self->skip_reason);
	self->listen_fd = socket_at(false);
	ASSERT_GE(self->listen_fd, 0);
	ASSERT_EQ(write_sysctl(CORE_PATTERN, "@@" SOCK_PATH), 0);
	ASSERT_EQ(write_sysctl(CORE_PIPE_LIMIT, "0"), 0);

	for (n = 0; n < ARRAY_SIZE(sizes) * masks * 2; n++) {
		size = sizes[n / (masks * 2)];
		i = n / 2 % masks;
		spare = n % 2;
		mask = i < 16 ? i : COREDUMP_KERNEL | extra[i - 16];
		err = one_request(self->listen_fd, size, mask, spare);
		if (err) {
			TH_LOG("ack size %u mask %#llx spare %d: %s (mark %u expected)",
			       size, (unsigned long long)mask, spare, err,
			       expected_mark(size, mask, spare));
			failed++;
		}
		/* A kernel without the socket: one failure says it all. */
		if (!strcmp(err ?: "", "no connection from the kernel"))
			ASSERT_EQ(failed, 0);
	}
	TH_LOG("%d acks", n);
	EXPECT_EQ(failed, 0);
}

/* One crash whose server does @what; the exit status, -1 on error. */
static int crash_against(int listen_fd, const char *what)
{
	struct coredump_req req;
	int conn = -1, status;
	pid_t pid = crash();

	if (pid < 0)
		return -1;
	if (listen_fd >= 0 && strcmp(what, "none")) {
		conn = accept_dump(listen_fd);
		if (conn >= 0 && !strcmp(what, "request, then close"))
			read(conn, &req, sizeof(req));
		if (conn >= 0)
			close(conn);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

TEST_F(coredump_socket, no_server_no_hang)
{
	int status;

	if (self->skip_reason)
		SKIP(return, "%s", self->skip_reason);
	/* No socket at the path. */
	unlink(SOCK_PATH);
	ASSERT_EQ(write_sysctl(CORE_PATTERN, "@" SOCK_PATH), 0);
	status = crash_against(-1, "none");
	EXPECT_TRUE(WIFSIGNALED(status) && !WCOREDUMP(status));

	/* A socket that does not listen. */
	self->listen_fd = socket_at(true);
	ASSERT_GE(self->listen_fd, 0);
	status = crash_against(self->listen_fd, "none");
	EXPECT_TRUE(WIFSIGNALED(status) && !WCOREDUMP(status));
	close(self->listen_fd);

	/* A server that hangs up at once: the dump may be cut, not hang. */
	self->listen_fd = socket_at(false);
	ASSERT_GE(self->listen_fd, 0);
	status = crash_against(self->listen_fd, "close");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);

	/* "@@" and a server that reads the request and hangs up. */
	ASSERT_EQ(write_sysctl(CORE_PATTERN, "@@" SOCK_PATH), 0);
	status = crash_against(self->listen_fd, "request, then close");
	EXPECT_TRUE(WIFSIGNALED(status) && !WCOREDUMP(status));
}

TEST_F(coredump_socket, core_pipe_limit_waits_for_close)
{
	char magic[4];
	int conn, status, limit;
	pid_t pid;

	if (self->skip_reason)
		SKIP(return, "%s", self->skip_reason);
	self->listen_fd = socket_at(false);
	ASSERT_GE(self->listen_fd, 0);
	ASSERT_EQ(write_sysctl(CORE_PATTERN, "@" SOCK_PATH), 0);

	for (limit = 0; limit <= 1; limit++) {
		ASSERT_EQ(write_sysctl(CORE_PIPE_LIMIT, limit ? "1" : "0"), 0);
		pid = crash();
		ASSERT_GT(pid, 0);
		conn = accept_dump(self->listen_fd);
		ASSERT_GE(conn, 0);
		EXPECT_GT(read_all(conn, magic), 0);
		if (limit) {
			/* Dumped, shut down, and held until the close. */
			usleep(100000);
			EXPECT_TRUE(still_running(pid));
			close(conn);
			ASSERT_EQ(waitpid(pid, &status, 0), pid);
		} else {
			/* Gone without the close. */
			ASSERT_EQ(waitpid(pid, &status, 0), pid);
			close(conn);
		}
		EXPECT_TRUE(WIFSIGNALED(status) && WCOREDUMP(status));
	}
}

TEST_HARNESS_MAIN
