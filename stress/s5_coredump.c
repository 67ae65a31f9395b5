// SPDX-License-Identifier: GPL-2.0
/*
 * The coredump socket under hostile input, for
 * pidfd.stress_coredump_seconds=N (default 60), two rows:
 *
 * - coredump:patterns: random core_pattern strings ("@", "@@", "@@@",
 *   "|" or nothing, then up to 120 bytes of "/a. @%" and random bytes):
 *   each write must be taken or refused with EINVAL exactly as
 *   upstream's rule says (a refused one leaves the old pattern), the
 *   failures column counts the writes that broke it;
 * - coredump:replies: crashes under "@@" against a server that answers
 *   each request at random: random bytes, a well-formed ack of a random
 *   size, mask and spare field, nothing but an early close, or a wait
 *   and then a close. A crash that is still running 30 s after its
 *   server closed, or a well-formed ack answered with a mark other than
 *   the rule's, is a failure.
 *
 * The judge of the kernel is the console: zero splats. A kernel whose
 * supported_mask lacks PIDFD_INFO_COREDUMP has no socket: n/a rows.
 */
#include "stress.h"
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#define CORE_PATTERN	"/proc/sys/kernel/core_pattern"
#define SOCK_PATH	"/tmp/s5_coredump.sock"
#define PIDFD_INFO_COREDUMP	(1UL << 4)
/* Upstream 6.17's <linux/coredump.h> values (patch "...@@path"). */
#define ACK_VER0	16
#define ALL_FLAGS	0xfULL	/* KERNEL, USERSPACE, REJECT, WAIT */
#define ONE_OF		0x7ULL	/* exactly one of KERNEL, USERSPACE, REJECT */
#define MARK_REQACK	0
#define MARK_MINSIZE	1
#define MARK_MAXSIZE	2
#define MARK_UNSUPPORTED 3
#define MARK_CONFLICTING 4

struct ack {
	uint32_t size;
	uint32_t spare;
	uint64_t mask;
};

/* Upstream's sysctl rule for a socket pattern; others are taken. */
static int pattern_taken(const char *pattern)
{
	const char *path = pattern + 1, *p;

	if (pattern[0] != '@')
		return 1;
	if (*path == '@')
		path++;
	if (*path != '/' || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return 0;
	for (p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
		if (p[-1] == '/' && (p[2] == '\0' || p[2] == '/'))
			return 0;
	return 1;
}

static int read_pattern(char *buf, size_t size)
{
	FILE *f = fopen(CORE_PATTERN, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* One random pattern written; 1 if the kernel broke the rule. */
static int fuzz_pattern(uint64_t *seed)
{
	static const char *const prefixes[] = { "@", "@@", "@@@", "|", "" };
	static const char alphabet[] = "/a. @%";
	char pattern[160], now[256];
	int len, i, ret, taken;
	FILE *f;

	len = snprintf(pattern, sizeof(pattern), "%s",
		       prefixes[rnd(seed) % 5]);
	for (i = rnd(seed) % 121; i > 0; i--) {
		char c = rnd(seed) % 4 ? alphabet[rnd(seed) % 6] :
			 (char)(rnd(seed) % 255 + 1);

		if (c == '\n')
			c = '/';
		pattern[len++] = c;
	}
	pattern[len] = '\0';
	if (!pattern[0] || !strcmp(pattern, "|"))
		return 0;

	if (write_str(CORE_PATTERN, "core"))
		return 1;
	f = fopen(CORE_PATTERN, "w");
	if (!f)
		return 1;
	fprintf(f, "%s\n", pattern);
	ret = fclose(f) ? errno : 0;
	if (read_pattern(now, sizeof(now)))
		return 1;
	/* The kernel stops a pattern at its first newline: none here. */
	taken = pattern_taken(pattern);
	if (taken ? ret != 0 || strcmp(now, pattern) :
	    ret != EINVAL || strcmp(now, "core")) {
		printf("# pattern \"%s\": errno %d, now \"%s\", rule says %s\n",
		       pattern, ret, now, taken ? "taken" : "EINVAL");
		return 1;
	}
	return 0;
}

static int listen_at(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SOCK_PATH };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	unlink(SOCK_PATH);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 16)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

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

static unsigned int expected_mark(const struct ack *a)
{
	if (a->size < ACK_VER0)
		return MARK_MINSIZE;
	if (a->size > sizeof(*a))
		return MARK_MAXSIZE;
	if (a->mask & ~ALL_FLAGS)
		return MARK_UNSUPPORTED;
	if (__builtin_popcountll(a->mask & ONE_OF) != 1)
		return MARK_CONFLICTING;
	if (a->spare)
		return MARK_UNSUPPORTED;
	return MARK_REQACK;
}

/* Read and drop until the end, a reset or @ms of silence. */
static void drain(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[65536];

	while (poll(&p, 1, ms) == 1 && read(fd, buf, sizeof(buf)) > 0)
		;
}

/* One crash and one random reply; 1 if an invariant broke. */
static int fuzz_reply(int listen_fd, uint64_t *seed)
{
	struct pollfd p = { .fd = listen_fd, .events = POLLIN };
	unsigned char junk[64];
	struct ack a = { 0 };
	unsigned int mark = ~0U, want = ~0U;
	int conn = -1, pidfd, fail = 0, i;
	char req[16];
	pid_t pid;

	pid = crash();
	if (pid < 0)
		return 0;
	pidfd = sys_pidfd_open(pid, 0);
	if (poll(&p, 1, 10000) == 1)
		conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (conn >= 0 && read(conn, req, sizeof(req)) == sizeof(req)) {
		switch (rnd(seed) % 4) {
		case 0:		/* random bytes */
			for (i = 0; i < (int)sizeof(junk); i++)
				junk[i] = rnd(seed);
			send(conn, junk, rnd(seed) % sizeof(junk) + 1, MSG_NOSIGNAL);
			break;
		case 1:		/* a well-formed ack */
			a.size = rnd(seed) % 3 ? ACK_VER0 : rnd(seed) % 40;
			a.spare = rnd(seed) % 4 == 0;
			a.mask = rnd(seed) % 8 ? rnd(seed) % 16 : rnd(seed);
			memset(junk, 0, sizeof(junk));
			memcpy(junk, &a, sizeof(a));
			want = expected_mark(&a);
			if (send(conn, junk, a.size > sizeof(a) ? a.size : sizeof(a),
				 MSG_NOSIGNAL) > 0 &&
			    read(conn, &mark, sizeof(mark)) == sizeof(mark) &&
			    mark != want) {
				printf("# ack size %u spare %u mask %#llx: mark %u, rule %u\n",
				       a.size, a.spare, (unsigned long long)a.mask,
				       mark, want);
				fail = 1;
			}
			break;
		case 2:		/* hang up at once */
			break;
		default:	/* say nothing for a while */
			usleep(rnd(seed) % 200000);
		}
		drain(conn, 2000);
	}
	if (conn >= 0)
		close(conn);
	/* The crash must end once its server is gone. */
	p.fd = pidfd;
	if (pidfd >= 0 && poll(&p, 1, 30000) != 1) {
		printf("# crash %d still running 30 s after its server closed\n", pid);
		kill(pid, SIGKILL);
		fail = 1;
	}
	waitpid(pid, NULL, 0);
	if (pidfd >= 0)
		close(pidfd);
	return fail;
}

int main(void)
{
	long seconds = param("coredump_seconds", 60);
	long patterns = 0, bad_patterns = 0, replies = 0, bad_replies = 0;
	uint64_t seed = rnd_seed();
	struct pidfd_info info = { .mask = PIDFD_INFO_SUPPORTED_MASK };
	char saved[256];
	double end;
	int fd, lfd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = sys_pidfd_open(getpid(), 0);
	if (fd < 0 || ioctl(fd, PIDFD_GET_INFO, &info) ||
	    !(info.supported_mask & PIDFD_INFO_COREDUMP) ||
	    read_pattern(saved, sizeof(saved))) {
		row("coredump:patterns", -1, 0, "-", "no coredump socket");
		row("coredump:replies", -1, 0, "-", "no coredump socket");
		return 0;
	}
	close(fd);
	printf("# seed %llu, %ld s\n", (unsigned long long)seed, seconds);

	end = now_s() + seconds / 2.0;
	while (now_s() < end) {
		bad_patterns += fuzz_pattern(&seed);
		patterns++;
	}

	lfd = listen_at();
	if (lfd >= 0 && !write_str(CORE_PATTERN, "@@" SOCK_PATH)) {
		end = now_s() + seconds / 2.0;
		while (now_s() < end) {
			bad_replies += fuzz_reply(lfd, &seed);
			replies++;
		}
	}
	if (lfd >= 0)
		close(lfd);
	unlink(SOCK_PATH);
	write_str(CORE_PATTERN, saved[0] ? saved : "core");

	row("coredump:patterns", patterns, bad_patterns, "-",
	    "random core_pattern writes against upstream's rule");
	row("coredump:replies", replies, bad_replies, "-",
	    "crashes under @@, random replies; every crash ends");
	return bad_patterns || bad_replies;
}
