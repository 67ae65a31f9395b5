// SPDX-License-Identifier: GPL-2.0
/*
 * pidfds from AF_UNIX sockets: SO_PEERPIDFD, SO_PASSPIDFD and SCM_PIDFD
 * (upstream 6.5), and upstream's answer for a peer or sender that has
 * been reaped: a pidfd that reports the exit (SO_PEERPIDFD since 6.16,
 * SCM_PIDFD since 6.17), where older kernels fail. Each case skips when
 * the kernel lacks what it tests: SO_PEERPIDFD (ENOPROTOOPT), pidfds for
 * reaped processes (upstream 6.12 refuses them), PIDFD_GET_INFO.
 *
 * Pidfds are compared by the pid they name (fdinfo "Pid:"), never by
 * inode: a kernel without pidfs has one inode for every pidfd.
 */

#include "pidfd_handle.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "../kselftest_harness.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76		/* asm-generic; alpha, mips alike */
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define CHILD_STATUS 42

/* How many descriptors this process has open. */
static int fd_count(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;	/* the directory's own descriptor */
}

/* The highest descriptor this process has open. */
static int highest_fd(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int fd, max = -1;

	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd != dirfd(dir) && fd > max)
			max = fd;
	}
	closedir(dir);
	return max;
}

static bool fd_cloexec(int fd)
{
	/* fdinfo "flags:" is octal and includes O_CLOEXEC (02000000). */
	char path[64], line[256];
	bool ret = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags:", 6)) {
			ret = strtoul(line + 6, NULL, 8) & 02000000;
			break;
		}
	fclose(f);
	return ret;
}

static int peerpidfd(int sock, int *pidfd)
{
	socklen_t len = sizeof(*pidfd);

	*pidfd = -1;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, pidfd, &len))
		return -errno;
	return len == sizeof(*pidfd) ? 0 : -EPROTO;
}

/* Probe: SO_PEERPIDFD at all (upstream 6.5). */
static bool have_peerpidfd(void)
{
	int sv[2], pidfd, ret;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return false;
	ret = peerpidfd(sv[0], &pidfd);
	if (!ret)
		close(pidfd);
	close(sv[0]);
	close(sv[1]);
	errno = -ret;	/* for the SKIP message */
	return ret == 0;
}

/* A listening socket of @type on a fresh abstract address. */
static int listener(int type, struct sockaddr_un *addr, socklen_t *alen)
{
	static int seq;
	int sock = socket(AF_UNIX, type, 0);

	if (sock < 0)
		return -1;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
		 "pidfd_peer_test.%d.%d", getpid(), seq++);
	*alen = offsetof(struct sockaddr_un, sun_path) + 1 +
		strlen(addr->sun_path + 1);
	if (bind(sock, (struct sockaddr *)addr, *alen) || listen(sock, 4)) {
		close(sock);
		return -1;
	}
	return sock;
}

/*
 * A child that connects to @addr and exits with CHILD_STATUS at once,
 * or, with @hold, once the parent closes the pipe.
 */
static pid_t connect_child(struct sockaddr_un *addr, socklen_t alen, int type,
			   int pipefd[2], bool hold)
{
	pid_t pid;
	char c;

	if (hold && pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int sock = socket(AF_UNIX, type, 0);

		if (sock < 0 || connect(sock, (struct sockaddr *)addr, alen))
			_exit(1);
		if (hold) {
			close(pipefd[1]);
			while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		_exit(CHILD_STATUS);
	}
	if (hold)
		close(pipefd[0]);
	return pid;
}

/*
 * Receive one message: the SCM_PIDFD value (-1000 if none) in @pidfd,
 * SCM_CREDENTIALS in @cred, msg_flags in @msg_flags, and in @first which
 * of the two came first (0 neither, 1 credentials, 2 pidfd).
 */
static ssize_t recv_pidfd(int sock, void *control, size_t clen, int *pidfd,
			  struct ucred *cred, int *msg_flags, int *first)
{
	char data[16];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = clen,
	};
	struct cmsghdr *cm;
	int order = 0;
	ssize_t n;

	*pidfd = -1000;
	n = recvmsg(sock, &msg, 0);
	if (n < 0)
		return -errno;
	*msg_flags = msg.msg_flags;
	if (!control)
		return n;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_PIDFD &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(pidfd, CMSG_DATA(cm), sizeof(int));
			order = order ? order : 2;
		} else if (cm->cmsg_type == SCM_CREDENTIALS && cred &&
			   cm->cmsg_len == CMSG_LEN(sizeof(*cred))) {
			memcpy(cred, CMSG_DATA(cm), sizeof(*cred));
			order = order ? order : 1;
		}
	}
	if (first)
		*first = order;
	return n;
}

static int set_flag(int sock, int opt, int on)
{
	return setsockopt(sock, SOL_SOCKET, opt, &on, sizeof(on));
}

/* A child that sends one byte on @sock and exits with CHILD_STATUS. */
static pid_t send_child(int sock)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(send(sock, "x", 1, 0) == 1 ? CHILD_STATUS : 1);
	return pid;
}

TEST(socketpair_names_creator)
{
	static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM };
	unsigned int i;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		int sv[2], a, b, own;

		ASSERT_EQ(socketpair(AF_UNIX, types[i], 0, sv), 0);
		/* socketpair() records its caller as the peer of both ends. */
		ASSERT_EQ(peerpidfd(sv[0], &a), 0);
		ASSERT_EQ(peerpidfd(sv[1], &b), 0);
		EXPECT_NE(a, b);
		EXPECT_TRUE(fd_cloexec(a));
		EXPECT_EQ(fdinfo_pid(a), getpid());
		EXPECT_EQ(fdinfo_pid(b), getpid());
		/* The same process as pidfd_open() names. */
		own = sys_pidfd_open(getpid(), 0);
		ASSERT_GE(own, 0);
		EXPECT_EQ(fdinfo_pid(own), fdinfo_pid(a));
		if (have_get_info()) {
			struct pidfd_info x, y;

			ASSERT_EQ(get_info(a, 0, &x), 0);
			ASSERT_EQ(get_info(own, 0, &y), 0);
			EXPECT_EQ(x.pid, y.pid);
			EXPECT_EQ(x.pid, getpid());
		}
		/* A working pidfd: signal 0 reaches us. */
		EXPECT_EQ(sys_pidfd_send_signal(a, 0, NULL, 0), 0);
		close(own);
		close(a);
		close(b);
		close(sv[0]);
		close(sv[1]);
	}
}

/*
 * connect(): the accepting side's peer is the process that connected,
 * the connecting side's peer the process that called listen().
 */
static void connected_peers(struct __test_metadata *_metadata, int type)
{
	struct sockaddr_un addr;
	int lsock, conn, pidfd, self, status;
	socklen_t alen;
	pid_t child;

	lsock = listener(type, &addr, &alen);
	ASSERT_GE(lsock, 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int sock = socket(AF_UNIX, type, 0), fd;

		if (sock < 0 || connect(sock, (struct sockaddr *)&addr, alen))
			_exit(1);
		if (peerpidfd(sock, &fd))
			_exit(2);
		if (fdinfo_pid(fd) != getppid())
			_exit(3);
		if (!fd_cloexec(fd))
			_exit(4);
		_exit(0);
	}
	conn = accept(lsock, NULL, NULL);
	ASSERT_GE(conn, 0);
	ASSERT_EQ(peerpidfd(conn, &pidfd), 0);
	EXPECT_EQ(fdinfo_pid(pidfd), child);
	EXPECT_TRUE(fd_cloexec(pidfd));
	/* The listening socket: its own process. */
	ASSERT_EQ(peerpidfd(lsock, &self), 0);
	EXPECT_EQ(fdinfo_pid(self), getpid());
	close(self);
	/* The child's checks of its side. */
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(pidfd);
	close(conn);
	close(lsock);
}

TEST(connect_stream)
{
	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	connected_peers(_metadata, SOCK_STREAM);
}

TEST(connect_seqpacket)
{
	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	connected_peers(_metadata, SOCK_SEQPACKET);
}

/*
 * optlen: longer is cut to an int; shorter is no error, that many bytes
 * are copied and the descriptor is installed all the same (upstream's
 * code since 6.5); negative is EINVAL.
 */
TEST(optlen)
{
	int sv[2], next, pidfd, before;
	char buf[8];
	socklen_t len;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

	memset(buf, 0x55, sizeof(buf));
	len = sizeof(buf);
	ASSERT_EQ(getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, buf, &len), 0);
	EXPECT_EQ(len, sizeof(int));
	memcpy(&pidfd, buf, sizeof(pidfd));
	EXPECT_EQ(fdinfo_pid(pidfd), getpid());
	EXPECT_EQ(buf[4], 0x55);	/* nothing past the int */
	close(pidfd);

	/* Short: the descriptor lands in the lowest free slot anyway. */
	next = dup(0);
	ASSERT_GE(next, 0);
	close(next);
	before = fd_count();
	len = 0;
	ASSERT_EQ(getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, buf, &len), 0);
	EXPECT_EQ(len, 0);
	EXPECT_EQ(fd_count(), before + 1);
	EXPECT_EQ(fdinfo_pid(next), getpid());
	close(next);

	len = (socklen_t)-1;
	before = fd_count();
	EXPECT_EQ(getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, buf, &len), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(fd_count(), before);

	close(sv[0]);
	close(sv[1]);
}

/* No peer pid: ENODATA; SO_PEERPIDFD cannot be set. */
TEST(no_peer)
{
	int sock, pidfd, srv, d, before = fd_count();
	struct sockaddr_un addr;
	socklen_t alen;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	/* Not connected. */
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_GE(sock, 0);
	EXPECT_EQ(peerpidfd(sock, &pidfd), -ENODATA);
	pidfd = 1;
	EXPECT_EQ(setsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd,
			     sizeof(pidfd)), -1);
	EXPECT_EQ(errno, ENOPROTOOPT);
	close(sock);

	/*
	 * A datagram socket connect()ed to another has no peer credentials
	 * (the address is a listener's, freed again).
	 */
	srv = listener(SOCK_STREAM, &addr, &alen);
	ASSERT_GE(srv, 0);
	close(srv);
	srv = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_GE(srv, 0);
	ASSERT_EQ(bind(srv, (struct sockaddr *)&addr, alen), 0);
	d = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_GE(d, 0);
	ASSERT_EQ(connect(d, (struct sockaddr *)&addr, alen), 0);
	EXPECT_EQ(peerpidfd(d, &pidfd), -ENODATA);
	close(d);
	close(srv);

	/* Not AF_UNIX: no peer pid either. */
	sock = socket(AF_NETLINK, SOCK_RAW, 0);
	if (sock >= 0) {
		EXPECT_EQ(peerpidfd(sock, &pidfd), -ENODATA);
		close(sock);
	} else {
		TH_LOG("no AF_NETLINK socket (errno %d), part skipped", errno);
	}
	EXPECT_EQ(fd_count(), before);
}

/* SO_PASSPIDFD reads back as set, and accept() inherits it. */
TEST(passpidfd_flag)
{
	struct sockaddr_un addr;
	int sock, val, lsock, conn, pipefd[2];
	socklen_t len, alen;
	pid_t child;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	sock = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_GE(sock, 0);
	len = sizeof(val);
	ASSERT_EQ(getsockopt(sock, SOL_SOCKET, SO_PASSPIDFD, &val, &len), 0);
	EXPECT_EQ(val, 0);
	ASSERT_EQ(set_flag(sock, SO_PASSPIDFD, 7), 0);
	ASSERT_EQ(getsockopt(sock, SOL_SOCKET, SO_PASSPIDFD, &val, &len), 0);
	EXPECT_EQ(val, 1);
	ASSERT_EQ(set_flag(sock, SO_PASSPIDFD, 0), 0);
	ASSERT_EQ(getsockopt(sock, SOL_SOCKET, SO_PASSPIDFD, &val, &len), 0);
	EXPECT_EQ(val, 0);
	close(sock);

	lsock = listener(SOCK_STREAM, &addr, &alen);
	ASSERT_GE(lsock, 0);
	ASSERT_EQ(set_flag(lsock, SO_PASSPIDFD, 1), 0);
	child = connect_child(&addr, alen, SOCK_STREAM, pipefd, true);
	ASSERT_GT(child, 0);
	conn = accept(lsock, NULL, NULL);
	ASSERT_GE(conn, 0);
	len = sizeof(val);
	ASSERT_EQ(getsockopt(conn, SOL_SOCKET, SO_PASSPIDFD, &val, &len), 0);
	EXPECT_EQ(val, 1);
	close(pipefd[1]);
	EXPECT_EQ(waitpid(child, NULL, 0), child);
	close(conn);
	close(lsock);
}

/* Only AF_UNIX has SO_PASSPIDFD: EOPNOTSUPP elsewhere (upstream 6.16). */
TEST(passpidfd_not_unix)
{
	int sock, val = 1, ret;
	socklen_t len = sizeof(val);

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	sock = socket(AF_NETLINK, SOCK_RAW, 0);
	if (sock < 0)
		SKIP(return, "no AF_NETLINK socket (errno %d)", errno);
	ret = set_flag(sock, SO_PASSPIDFD, 1);
	if (ret == 0) {
		close(sock);
		SKIP(return, "SO_PASSPIDFD accepted on AF_NETLINK (before 6.16)");
	}
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(getsockopt(sock, SOL_SOCKET, SO_PASSPIDFD, &val, &len), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	close(sock);
}

/* SCM_PIDFD names the sender, after SCM_CREDENTIALS when both are on. */
TEST(scm_pidfd)
{
	char control[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	int sv[2], pidfd, flags, status, pass, first;
	struct ucred cred;
	siginfo_t si;
	pid_t child;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
		ASSERT_EQ(set_flag(sv[0], SO_PASSPIDFD, 1), 0);
		if (pass)
			ASSERT_EQ(set_flag(sv[0], SO_PASSCRED, 1), 0);
		child = send_child(sv[1]);
		ASSERT_GT(child, 0);
		memset(&cred, 0, sizeof(cred));
		ASSERT_EQ(recv_pidfd(sv[0], control, sizeof(control),
				     &pidfd, &cred, &flags, &first), 1);
		EXPECT_FALSE(flags & MSG_CTRUNC);
		ASSERT_GE(pidfd, 0);
		EXPECT_TRUE(fd_cloexec(pidfd));
		/* Before the reap: the pidfd names the sender. */
		ASSERT_EQ(waitid(P_PID, child, &si, WEXITED | WNOWAIT), 0);
		EXPECT_EQ(fdinfo_pid(pidfd), child);
		if (pass) {
			EXPECT_EQ(cred.pid, child);
			EXPECT_EQ(cred.uid, getuid());
			EXPECT_EQ(first, 1);	/* credentials first */
		} else {
			EXPECT_EQ(cred.pid, 0);		/* none asked for */
			EXPECT_EQ(first, 2);
		}
		ASSERT_EQ(waitpid(child, &status, 0), child);
		close(pidfd);
		close(sv[0]);
		close(sv[1]);
	}
}

/* A message sent before either end asked for credentials has none. */
TEST(scm_pidfd_without_creds)
{
	char control[CMSG_SPACE(sizeof(int))];
	int sv[2], pidfd, flags, before;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(send(sv[1], "x", 1, 0), 1);
	ASSERT_EQ(set_flag(sv[0], SO_PASSPIDFD, 1), 0);
	before = fd_count();
	ASSERT_EQ(recv_pidfd(sv[0], control, sizeof(control), &pidfd,
			     NULL, &flags, NULL), 1);
	EXPECT_EQ(pidfd, -1000);
	EXPECT_FALSE(flags & MSG_CTRUNC);
	EXPECT_EQ(fd_count(), before);
	close(sv[0]);
	close(sv[1]);
}

/*
 * No room for the whole SCM_PIDFD: MSG_CTRUNC and no descriptor made
 * (none leaked either); room for exactly CMSG_LEN(sizeof(int)) is enough.
 */
TEST(scm_pidfd_ctrunc)
{
	char control[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	int sv[2], pidfd, flags, before;
	struct ucred cred;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(set_flag(sv[0], SO_PASSPIDFD, 1), 0);
	before = fd_count();

	/* No control buffer at all. */
	ASSERT_EQ(send(sv[1], "x", 1, 0), 1);
	ASSERT_EQ(recv_pidfd(sv[0], NULL, 0, &pidfd, NULL, &flags, NULL), 1);
	EXPECT_TRUE(flags & MSG_CTRUNC);
	EXPECT_EQ(fd_count(), before);

	/* One byte short of the cmsg. */
	ASSERT_EQ(send(sv[1], "x", 1, 0), 1);
	ASSERT_EQ(recv_pidfd(sv[0], control, CMSG_LEN(sizeof(int)) - 1,
			     &pidfd, NULL, &flags, NULL), 1);
	EXPECT_TRUE(flags & MSG_CTRUNC);
	EXPECT_EQ(pidfd, -1000);
	EXPECT_EQ(fd_count(), before);

	/* Exactly the cmsg, without its padding: delivered whole. */
	ASSERT_EQ(send(sv[1], "x", 1, 0), 1);
	ASSERT_EQ(recv_pidfd(sv[0], control, CMSG_LEN(sizeof(int)),
			     &pidfd, NULL, &flags, NULL), 1);
	EXPECT_FALSE(flags & MSG_CTRUNC);
	ASSERT_GE(pidfd, 0);
	EXPECT_EQ(fdinfo_pid(pidfd), getpid());
	close(pidfd);
	EXPECT_EQ(fd_count(), before);

	/* Room for SCM_CREDENTIALS only: that, MSG_CTRUNC, no pidfd. */
	ASSERT_EQ(set_flag(sv[0], SO_PASSCRED, 1), 0);
	ASSERT_EQ(send(sv[1], "x", 1, 0), 1);
	memset(&cred, 0, sizeof(cred));
	ASSERT_EQ(recv_pidfd(sv[0], control, CMSG_SPACE(sizeof(cred)),
			     &pidfd, &cred, &flags, NULL), 1);
	EXPECT_TRUE(flags & MSG_CTRUNC);
	EXPECT_EQ(cred.pid, getpid());
	EXPECT_EQ(pidfd, -1000);
	EXPECT_EQ(fd_count(), before);

	close(sv[0]);
	close(sv[1]);
}

/* A pidfd that cannot be made arrives as the negative errno. */
TEST(scm_pidfd_emfile)
{
	char control[CMSG_SPACE(sizeof(int))];
	int sv[2], pidfd, flags, fd, highest, n = 0, dups[1024];
	struct rlimit old, rl;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(set_flag(sv[0], SO_PASSPIDFD, 1), 0);
	ASSERT_EQ(send(sv[1], "x", 1, 0), 1);

	/*
	 * dup() takes the lowest free slot: once it returns one above every
	 * descriptor in use, all slots below are taken, and a limit just
	 * above it leaves none free.
	 */
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
	highest = highest_fd();
	ASSERT_GE(highest, 0);
	do {
		fd = dup(sv[1]);
		ASSERT_GE(fd, 0);
		ASSERT_LT(n, 1024);
		dups[n++] = fd;
	} while (fd < highest);
	rl = old;
	rl.rlim_cur = fd + 1;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ASSERT_EQ(dup(sv[1]), -1);
	ASSERT_EQ(errno, EMFILE);

	ASSERT_EQ(recv_pidfd(sv[0], control, sizeof(control), &pidfd, NULL,
			     &flags, NULL), 1);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	EXPECT_EQ(pidfd, -EMFILE);
	EXPECT_FALSE(flags & MSG_CTRUNC);
	while (n > 0)
		close(dups[--n]);
	close(sv[0]);
	close(sv[1]);
}

/* The peer exited but is not reaped: an ordinary pidfd for the zombie. */
TEST(peer_exited_not_reaped)
{
	struct sockaddr_un addr;
	int lsock, conn, pidfd;
	socklen_t alen;
	siginfo_t si;
	pid_t child;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	lsock = listener(SOCK_STREAM, &addr, &alen);
	ASSERT_GE(lsock, 0);
	child = connect_child(&addr, alen, SOCK_STREAM, NULL, false);
	ASSERT_GT(child, 0);
	ASSERT_EQ(waitid(P_PID, child, &si, WEXITED | WNOWAIT), 0);
	conn = accept(lsock, NULL, NULL);
	ASSERT_GE(conn, 0);

	ASSERT_EQ(peerpidfd(conn, &pidfd), 0);
	EXPECT_EQ(fdinfo_pid(pidfd), child);
	EXPECT_TRUE(pidfd_readable(pidfd, 0));
	if (have_get_info()) {
		struct pidfd_info info;

		ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
		EXPECT_EQ(info.pid, child);
		/* Exit information comes with the reap, not the exit. */
		EXPECT_FALSE(info.mask & PIDFD_INFO_EXIT);
	}
	ASSERT_EQ(waitpid(child, NULL, 0), child);
	close(pidfd);
	close(conn);
	close(lsock);
}

/*
 * The peer has been reaped: upstream 6.16 hands out a pidfd all the same,
 * which reports the exit status (PIDFD_INFO_EXIT) and nothing else
 * (ESRCH without it). Upstream 6.12 refuses (EINVAL): skip there.
 */
TEST(peer_reaped)
{
	struct sockaddr_un addr;
	int lsock, conn, pidfd, ret, status, before;
	struct pidfd_info info;
	socklen_t alen;
	pid_t child;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	lsock = listener(SOCK_STREAM, &addr, &alen);
	ASSERT_GE(lsock, 0);
	child = connect_child(&addr, alen, SOCK_STREAM, NULL, false);
	ASSERT_GT(child, 0);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), CHILD_STATUS);
	/* Accepted only after the reap: the connection waited for us. */
	conn = accept(lsock, NULL, NULL);
	ASSERT_GE(conn, 0);

	before = fd_count();
	ret = peerpidfd(conn, &pidfd);
	if (ret == -EINVAL || ret == -ESRCH) {
		EXPECT_EQ(fd_count(), before);
		close(conn);
		close(lsock);
		SKIP(return, "no pidfd for a reaped peer (errno %d, before 6.16)",
		     -ret);
	}
	ASSERT_EQ(ret, 0);
	EXPECT_TRUE(fd_cloexec(pidfd));
	EXPECT_EQ(fdinfo_pid(pidfd), -1);
	EXPECT_TRUE(pidfd_reaped(pidfd, 1000));
	EXPECT_EQ(sys_pidfd_send_signal(pidfd, 0, NULL, 0), -1);
	EXPECT_EQ(errno, ESRCH);
	if (!have_get_info()) {
		close(pidfd);
		close(conn);
		close(lsock);
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	}
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_FALSE(info.mask & PIDFD_INFO_CREDS);
	EXPECT_TRUE(WIFEXITED(info.exit_code));
	EXPECT_EQ(WEXITSTATUS(info.exit_code), CHILD_STATUS);
	EXPECT_EQ(get_info(pidfd, 0, &info), -1);
	EXPECT_EQ(errno, ESRCH);
	close(pidfd);
	close(conn);
	close(lsock);
}

/*
 * The sender has been reaped before the receiver reads: upstream 6.17
 * delivers a pidfd that reports its exit. Upstream 6.12 delivers the
 * negative errno (EINVAL) in its place: skip there.
 */
TEST(scm_sender_reaped)
{
	char control[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	int sv[2], pidfd, flags, status, before;
	struct pidfd_info info;
	struct ucred cred;
	pid_t child;

	if (!have_peerpidfd())
		SKIP(return, "no SO_PEERPIDFD (errno %d)", errno);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(set_flag(sv[0], SO_PASSPIDFD, 1), 0);
	ASSERT_EQ(set_flag(sv[0], SO_PASSCRED, 1), 0);
	child = send_child(sv[1]);
	ASSERT_GT(child, 0);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), CHILD_STATUS);

	before = fd_count();
	memset(&cred, 0, sizeof(cred));
	ASSERT_EQ(recv_pidfd(sv[0], control, sizeof(control), &pidfd,
			     &cred, &flags, NULL), 1);
	EXPECT_FALSE(flags & MSG_CTRUNC);
	/* SCM_CREDENTIALS still gives the number it had. */
	EXPECT_EQ(cred.pid, child);
	ASSERT_NE(pidfd, -1000);
	if (pidfd < 0) {
		EXPECT_EQ(fd_count(), before);
		close(sv[0]);
		close(sv[1]);
		SKIP(return, "no pidfd for a reaped sender (%d, before 6.17)",
		     pidfd);
	}
	EXPECT_EQ(fd_count(), before + 1);
	EXPECT_TRUE(fd_cloexec(pidfd));
	EXPECT_EQ(fdinfo_pid(pidfd), -1);
	if (!have_get_info()) {
		close(pidfd);
		close(sv[0]);
		close(sv[1]);
		SKIP(return, "no PIDFD_GET_INFO (errno %d)", errno);
	}
	ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
	ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
	EXPECT_TRUE(WIFEXITED(info.exit_code));
	EXPECT_EQ(WEXITSTATUS(info.exit_code), CHILD_STATUS);
	EXPECT_EQ(get_info(pidfd, 0, &info), -1);
	EXPECT_EQ(errno, ESRCH);
	close(pidfd);
	close(sv[0]);
	close(sv[1]);
}

TEST_HARNESS_MAIN
