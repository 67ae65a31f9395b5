// SPDX-License-Identifier: GPL-2.0
/* Covers: handing a handle to another process (SCM_RIGHTS) and across pid namespaces. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_conformance.h"
#include "kselftest_harness.h"


static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = "F", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;

	memset(cbuf, 0, sizeof(cbuf));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/*
 * Start the delegate before the handle exists, so the only way it can get
 * one is the socket.  With @unpriv it drops to uid 1000 first.  It tries
 * @sig and exits 0 if the result is @expect_errno (0: success).
 */
static pid_t start_delegate(int sock, int sig, int unpriv, int expect_errno)
{
	pid_t pid = fork();
	int fd, ret;

	if (pid != 0)
		return pid;
	pfc_child_setup();
	if (unpriv)
		CHILD_ASSERT(pfc_drop_to_unprivileged() == 0);
	fd = recv_fd(sock);
	CHILD_ASSERT(fd >= 0);
	errno = 0;
	ret = sys_pidfd_send_signal(fd, sig, NULL, 0);
	if (expect_errno)
		CHILD_ASSERT(ret == -1 && errno == expect_errno);
	else
		CHILD_ASSERT(ret == 0);
	_exit(0);
}

TEST(scm_rights_receiver_can_signal)
{
	int sv[2], rfd, pidfd, status;
	struct pfc_report r;
	pid_t victim, delegate;

	victim = pfc_fork_receiver(SIGUSR1, &rfd);
	ASSERT_GT(victim, 0);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	delegate = start_delegate(sv[1], SIGUSR1, 0, 0);
	ASSERT_GT(delegate, 0);

	pidfd = sys_pidfd_open(victim, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(0, send_fd(sv[0], pidfd));
	/* From now on only the delegate holds a handle. */
	close(pidfd);

	status = pfc_reap(delegate);
	ASSERT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("delegate: status %#x", status);
	}
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_EQ(SIGUSR1, r.ret) {
		TH_LOG("victim dequeued %d (errno %d)", r.ret, r.err);
	}
	ASSERT_EQ(SI_USER, r.code);
	/* Sent by the delegate, not by us. */
	ASSERT_EQ(delegate, r.pid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(victim)));
	close(sv[0]);
	close(sv[1]);
}

/* A handle passed to an unprivileged process conveys no permission. */
TEST(scm_rights_grants_no_privilege)
{
	int sv[2], pidfd, status;
	pid_t victim, delegate;
	siginfo_t info;

	if (getuid() != 0)
		SKIP(return, "needs root");
	victim = pfc_fork_sleeper();
	ASSERT_GT(victim, 0);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	delegate = start_delegate(sv[1], SIGKILL, 1, EPERM);
	ASSERT_GT(delegate, 0);

	pidfd = sys_pidfd_open(victim, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(0, send_fd(sv[0], pidfd));

	status = pfc_reap(delegate);
	EXPECT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("delegate: status %#x", status);
	}
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PIDFD, pidfd, &info, WEXITED | WNOHANG));
	ASSERT_EQ(0, info.si_pid) {
		TH_LOG("the root victim was killed by uid %d", PFC_UNPRIV_ID);
	}
	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0));
	ASSERT_NE(-1, pfc_reap(victim));
	close(pidfd);
	close(sv[0]);
	close(sv[1]);
}

/*
 * A process in a child pid namespace that holds (inherited) handles to a
 * process outside it gets EINVAL, for real signals and for sig 0.  The
 * target is us, with SIGUSR1 blocked so a wrong delivery stays visible.
 */
TEST(child_ns_cannot_signal_ancestor)
{
	int pidfd, procfd, status;
	pid_t child;

	ASSERT_EQ(0, pfc_block(SIGUSR1));
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	procfd = pfc_open_proc_dir(getpid(), O_RDONLY);
	ASSERT_GE(procfd, 0);
	if (unshare(CLONE_NEWPID) == -1)
		SKIP(return, "unshare(CLONE_NEWPID): %s", strerror(errno));

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		pfc_child_setup();
		CHILD_ASSERT(getpid() == 1);
		errno = 0;
		CHILD_ASSERT(sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0) == -1 &&
			     errno == EINVAL);
		errno = 0;
		CHILD_ASSERT(sys_pidfd_send_signal(pidfd, 0, NULL, 0) == -1 &&
			     errno == EINVAL);
		errno = 0;
		CHILD_ASSERT(sys_pidfd_send_signal(procfd, SIGUSR1, NULL, 0) == -1 &&
			     errno == EINVAL);
		_exit(0);
	}
	status = pfc_reap(child);
	ASSERT_TRUE(pfc_exited_ok(status)) {
		TH_LOG("child in the new namespace: status %#x", status);
	}
	ASSERT_EQ(0, pfc_pending_mask() & PFC_SIGBIT(SIGUSR1)) {
		TH_LOG("a signal crossed into the ancestor namespace");
	}
	close(procfd);
	close(pidfd);
}

/*
 * The other direction works: we signal PID 1 of a child namespace.  The
 * receiver cannot see us, so the kernel reports si_pid 0.
 */
TEST(parent_can_signal_into_child_ns)
{
	struct pfc_report r;
	int rfd, pidfd = -1;
	pid_t pid;

	pid = pfc_clone3_receiver(SIGUSR1, CLONE_NEWPID, &rfd, &pidfd);
	if (pid < 0 && (errno == ENOSYS || errno == EPERM))
		SKIP(return, "clone3(CLONE_NEWPID): %s", strerror(errno));
	ASSERT_GT(pid, 0) {
		TH_LOG("clone3(CLONE_PIDFD|CLONE_NEWPID): %s", strerror(errno));
	}
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(0, sys_pidfd_send_signal(pidfd, SIGUSR1, NULL, 0)) {
		TH_LOG("into the child namespace: %s", strerror(errno));
	}
	ASSERT_EQ(0, pfc_read_report(rfd, &r));
	ASSERT_EQ(SIGUSR1, r.ret) {
		TH_LOG("receiver dequeued %d (errno %d)", r.ret, r.err);
	}
	ASSERT_EQ(SI_USER, r.code);
	ASSERT_EQ(1, r.self);
	ASSERT_EQ(0, r.pid);
	ASSERT_TRUE(pfc_exited_ok(pfc_reap(pid)));
	close(pidfd);
}

TEST_HARNESS_MAIN
