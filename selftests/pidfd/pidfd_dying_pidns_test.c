// SPDX-License-Identifier: GPL-2.0
/*
 * A pid namespace whose init has exited takes no new process, and neither
 * does any namespace below it: a fork() that would give the dying one a
 * pid fails with ENOMEM (upstream 7.2, commit b64a9f67). Before that only
 * the namespace the child is created in was checked, so a namespace
 * created under the dying one, still without an init, let a process from
 * outside fork into both.
 *
 * The namespaces: A, made by a helper with unshare(CLONE_NEWPID), whose
 * init unshares again to make B under it without entering it. The test
 * holds B through PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE on a pidfd of A's
 * init (/proc/<pid>/ns/pid_for_children shows no namespace without an
 * init, the ioctl does), and forks into B with setns() from outside: with
 * A's init alive (the control) and after it was killed and reaped.
 */

#include "pidfd_handle.h"

#include <stdio.h>
#include <stdlib.h>

#include "../kselftest_harness.h"

#ifndef PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE
#define PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 6)
#endif

/*
 * Start A's init through a helper that stays in the caller's namespace to
 * reap it. Returns the helper; *a_init gets A's init as the caller sees it.
 */
static pid_t start_ancestor(pid_t *a_init)
{
	int ready[2], b_made[2];
	pid_t helper, init;
	char c;

	if (pipe(ready))
		return -1;
	helper = fork();
	if (helper == 0) {
		close(ready[0]);
		if (pipe(b_made) || unshare(CLONE_NEWPID))
			_exit(1);
		init = fork();
		if (init == 0) {
			/* B: this init's pid_for_children, without a process. */
			if (unshare(CLONE_NEWPID))
				_exit(1);
			close(b_made[1]);
			pause();
			_exit(0);
		}
		close(b_made[1]);
		if (init < 0 || read(b_made[0], &c, 1) != 0 ||
		    write(ready[1], &init, sizeof(init)) != sizeof(init))
			_exit(1);
		waitpid(init, NULL, 0);
		_exit(0);
	}
	close(ready[1]);
	if (helper < 0 || read(ready[0], &init, sizeof(init)) != sizeof(init)) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	*a_init = init;
	return helper;
}

/*
 * From a child of the caller: setns() into @ns_fd, then fork(). The result
 * as the child's exit code: 0 the fork made B's init, else the errno.
 */
static int fork_into(int ns_fd)
{
	int status;
	pid_t child, grandchild;

	child = fork();
	if (child == 0) {
		if (setns(ns_fd, CLONE_NEWPID))
			_exit(100);
		grandchild = fork();
		if (grandchild == 0)
			_exit(getpid() == 1 ? 0 : 101);
		if (grandchild < 0)
			_exit(errno);
		if (waitpid(grandchild, &status, 0) != grandchild ||
		    !WIFEXITED(status))
			_exit(102);
		_exit(WEXITSTATUS(status));
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int open_child_ns(pid_t init)
{
	int pidfd = sys_pidfd_open(init, 0);
	int ns_fd;

	if (pidfd < 0)
		return -1;
	ns_fd = ioctl(pidfd, PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE, 0);
	close(pidfd);
	return ns_fd;
}

/* The control: while A's init lives, a fork into B makes B's init. */
TEST(ancestor_alive)
{
	pid_t helper, a_init;
	int ns_fd, status;

	helper = start_ancestor(&a_init);
	ASSERT_GT(helper, 0);
	ns_fd = open_child_ns(a_init);
	ASSERT_GE(ns_fd, 0) TH_LOG("errno %d", errno);

	EXPECT_EQ(fork_into(ns_fd), 0);

	close(ns_fd);
	kill(a_init, SIGKILL);
	ASSERT_EQ(waitpid(helper, &status, 0), helper);
}

TEST(ancestor_dead)
{
	pid_t helper, a_init;
	int ns_fd, status;

	if (!have_get_info())
		SKIP(return, "upstream 6.12 (no PIDFD_GET_INFO) predates the fix (7.2)");
	helper = start_ancestor(&a_init);
	ASSERT_GT(helper, 0);
	ns_fd = open_child_ns(a_init);
	ASSERT_GE(ns_fd, 0) TH_LOG("errno %d", errno);
	ASSERT_EQ(kill(a_init, SIGKILL), 0);
	ASSERT_EQ(waitpid(helper, &status, 0), helper);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);

	EXPECT_EQ(fork_into(ns_fd), ENOMEM);

	close(ns_fd);
}

TEST_HARNESS_MAIN
