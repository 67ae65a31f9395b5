// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes on pidfds (upstream 6.17, as in 7.1): trusted.*
 * only, for CAP_SYS_ADMIN in the initial user namespace; they belong to
 * the process's struct pid, not to one pidfd, so they survive closing
 * and reopening pidfds and the reap, read through a pidfd still open.
 * Every case skips where setting trusted.* on a pidfd is EOPNOTSUPP
 * (upstream 6.12, our series before it) or the caller is not privileged.
 */

#include "pidfd_handle.h"

#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "../kselftest_harness.h"

/* The unprivileged user guest/init.c creates. */
#define UNPRIV_ID 1000

/* NULL if trusted.* xattrs can be set on a pidfd here, else why not. */
static const char *xattr_unsupported(void)
{
	int fd = sys_pidfd_open(getpid(), 0);
	int ret, err;

	if (fd < 0)
		return "no pidfd_open()";
	ret = fsetxattr(fd, "trusted.pidfd_probe", "1", 1, 0);
	err = errno;
	if (!ret)
		fremovexattr(fd, "trusted.pidfd_probe");
	close(fd);
	if (!ret)
		return NULL;
	if (err == EOPNOTSUPP)
		return "no xattrs on pidfds (EOPNOTSUPP)";
	/* An immutable pidfs inode (before 6.17) refuses with EPERM too. */
	if (err == EPERM)
		return "EPERM: no CAP_SYS_ADMIN, or an immutable pidfs inode";
	return "fsetxattr() on a pidfd failed unexpectedly";
}

/* Does the NUL-separated list of @len bytes hold @name? */
static bool listed(const char *list, ssize_t len, const char *name)
{
	ssize_t i;

	for (i = 0; i < len; i += strlen(list + i) + 1)
		if (!strcmp(list + i, name))
			return true;
	return false;
}

TEST(set_get_list_remove)
{
	char buf[64], list[256];
	int pipefd[2], fd;
	ssize_t len;
	const char *why;
	pid_t pid;

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	fd = sys_pidfd_open(pid, 0);
	ASSERT_GE(fd, 0);

	EXPECT_EQ(flistxattr(fd, list, sizeof(list)), 0);
	ASSERT_EQ(fsetxattr(fd, "trusted.a", "hello", 5, 0), 0);
	/* The size alone, the value, a buffer one byte short. */
	EXPECT_EQ(fgetxattr(fd, "trusted.a", NULL, 0), 5);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(fgetxattr(fd, "trusted.a", buf, sizeof(buf)), 5);
	EXPECT_EQ(memcmp(buf, "hello", 5), 0);
	EXPECT_EQ(fgetxattr(fd, "trusted.a", buf, 4), -1);
	EXPECT_EQ(errno, ERANGE);
	/* Not set: ENODATA. */
	EXPECT_EQ(fgetxattr(fd, "trusted.b", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);

	/* XATTR_CREATE over one, XATTR_REPLACE of none. */
	EXPECT_EQ(fsetxattr(fd, "trusted.a", "x", 1, XATTR_CREATE), -1);
	EXPECT_EQ(errno, EEXIST);
	EXPECT_EQ(fsetxattr(fd, "trusted.b", "x", 1, XATTR_REPLACE), -1);
	EXPECT_EQ(errno, ENODATA);
	ASSERT_EQ(fsetxattr(fd, "trusted.a", "bye", 3, XATTR_REPLACE), 0);
	EXPECT_EQ(fgetxattr(fd, "trusted.a", buf, sizeof(buf)), 3);
	EXPECT_EQ(memcmp(buf, "bye", 3), 0);
	/* An empty value is a value. */
	ASSERT_EQ(fsetxattr(fd, "trusted.empty", "", 0, XATTR_CREATE), 0);
	EXPECT_EQ(fgetxattr(fd, "trusted.empty", buf, sizeof(buf)), 0);

	len = flistxattr(fd, list, sizeof(list));
	ASSERT_EQ(len, (ssize_t)sizeof("trusted.a") + sizeof("trusted.empty"));
	EXPECT_TRUE(listed(list, len, "trusted.a"));
	EXPECT_TRUE(listed(list, len, "trusted.empty"));
	EXPECT_EQ(flistxattr(fd, NULL, 0), len);
	EXPECT_EQ(flistxattr(fd, list, len - 1), -1);
	EXPECT_EQ(errno, ERANGE);

	ASSERT_EQ(fremovexattr(fd, "trusted.a"), 0);
	EXPECT_EQ(fgetxattr(fd, "trusted.a", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);
	EXPECT_EQ(fremovexattr(fd, "trusted.a"), -1);
	EXPECT_EQ(errno, ENODATA);
	len = flistxattr(fd, list, sizeof(list));
	EXPECT_EQ(len, (ssize_t)sizeof("trusted.empty"));

	close(pipefd[1]);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(fd);
}

/* No handler for any other namespace: EOPNOTSUPP, nothing listed. */
TEST(other_namespaces_unsupported)
{
	static const char *const names[] = {
		"user.a", "security.a", "system.a", "pidfd.a",
	};
	char buf[64];
	const char *why;
	unsigned int i;
	int fd;

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_EQ(fsetxattr(fd, names[i], "v", 1, 0), -1);
		EXPECT_EQ(errno, EOPNOTSUPP) {
			TH_LOG("set %s: %s", names[i], strerror(errno));
		}
		EXPECT_EQ(fgetxattr(fd, names[i], buf, sizeof(buf)), -1);
		EXPECT_EQ(errno, EOPNOTSUPP) {
			TH_LOG("get %s: %s", names[i], strerror(errno));
		}
	}
	EXPECT_EQ(flistxattr(fd, buf, sizeof(buf)), 0);
	close(fd);
}

/*
 * Without CAP_SYS_ADMIN in the initial user namespace, as uid 1000 or as
 * root of a new user namespace: EPERM to set or remove, ENODATA to get
 * one that is set, and the list hides it.
 */
TEST(unprivileged_refused)
{
	int pipefd[2], fd, i, status;
	const char *why;
	pid_t pid, child;

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	fd = sys_pidfd_open(pid, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fsetxattr(fd, "trusted.a", "v", 1, 0), 0);

	for (i = 0; i < 2; i++) {
		child = fork();
		ASSERT_GE(child, 0);
		if (child == 0) {
			char buf[64];

			if (i == 0 && (setgroups(0, NULL) ||
				       setresgid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) ||
				       setresuid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID)))
				_exit(100);
			if (i == 1 && unshare(CLONE_NEWUSER))
				_exit(101);
			if (fsetxattr(fd, "trusted.b", "v", 1, 0) != -1 ||
			    errno != EPERM)
				_exit(1);
			if (fsetxattr(fd, "trusted.a", "w", 1, 0) != -1 ||
			    errno != EPERM)
				_exit(2);
			if (fremovexattr(fd, "trusted.a") != -1 ||
			    errno != EPERM)
				_exit(3);
			if (fgetxattr(fd, "trusted.a", buf, sizeof(buf)) != -1 ||
			    errno != ENODATA)
				_exit(4);
			if (flistxattr(fd, buf, sizeof(buf)) != 0)
				_exit(5);
			_exit(0);
		}
		ASSERT_EQ(waitpid(child, &status, 0), child);
		ASSERT_TRUE(WIFEXITED(status));
		if (WEXITSTATUS(status) >= 100) {
			TH_LOG("case %d could not drop privileges", i);
			continue;
		}
		EXPECT_EQ(WEXITSTATUS(status), 0) {
			TH_LOG("case %d (%s): step %d", i,
			       i ? "new user namespace" : "uid 1000",
			       WEXITSTATUS(status));
		}
	}
	/* Still there, unchanged. */
	EXPECT_EQ(fgetxattr(fd, "trusted.a", NULL, 0), 1);

	close(pipefd[1]);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(fd);
}

/*
 * The xattrs are the process's: every pidfd for it sees them, also one
 * opened after all others were closed, and one still open after the
 * reap; another process does not.
 */
TEST(persist_across_pidfds_and_reap)
{
	int pipefd[2], pipefd2[2], fd, fd2, other;
	char buf[64], list[64];
	const char *why;
	pid_t pid, pid2;

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	pid = fork_waiter(pipefd, 0);
	ASSERT_GT(pid, 0);
	pid2 = fork_waiter(pipefd2, 0);
	ASSERT_GT(pid2, 0);

	fd = sys_pidfd_open(pid, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fsetxattr(fd, "trusted.keep", "value", 5, 0), 0);
	/* A second pidfd, opened while the first is open. */
	fd2 = sys_pidfd_open(pid, PIDFD_NONBLOCK);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(fgetxattr(fd2, "trusted.keep", buf, sizeof(buf)), 5);
	close(fd2);
	close(fd);

	/* No pidfd left open: a new one still finds it. */
	fd = sys_pidfd_open(pid, 0);
	ASSERT_GE(fd, 0);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(fgetxattr(fd, "trusted.keep", buf, sizeof(buf)), 5);
	EXPECT_EQ(memcmp(buf, "value", 5), 0);

	/* Not another process's. */
	other = sys_pidfd_open(pid2, 0);
	ASSERT_GE(other, 0);
	EXPECT_EQ(flistxattr(other, list, sizeof(list)), 0);
	ASSERT_EQ(fsetxattr(other, "trusted.other", "o", 1, 0), 0);
	EXPECT_EQ(fgetxattr(other, "trusted.keep", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);
	EXPECT_EQ(fgetxattr(fd, "trusted.other", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);
	/* The second waiter holds the first one's pipe too: end it first. */
	close(pipefd2[1]);
	EXPECT_EQ(waitpid(pid2, NULL, 0), pid2);
	close(other);

	/* Reaped: still there through the open pidfd, and settable. */
	close(pipefd[1]);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	EXPECT_EQ(fgetxattr(fd, "trusted.keep", buf, sizeof(buf)), 5);
	EXPECT_EQ(fsetxattr(fd, "trusted.late", "x", 1, 0), 0);
	EXPECT_EQ(flistxattr(fd, list, sizeof(list)),
		  (ssize_t)sizeof("trusted.keep") + sizeof("trusted.late"));
	EXPECT_EQ(fremovexattr(fd, "trusted.keep"), 0);
	EXPECT_EQ(fgetxattr(fd, "trusted.keep", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);
	close(fd);
}

/*
 * Getting a name from a process that never had one set: ENODATA, as
 * for any unset name (upstream since the simple_xattrs rework; 6.17 and
 * 6.18 answered 0 there).
 */
TEST(get_before_any_set)
{
	const char *why;
	char buf[8];
	int fd;

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	fd = sys_pidfd_open(getppid(), 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fgetxattr(fd, "trusted.never", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);
	EXPECT_EQ(fremovexattr(fd, "trusted.never"), -1);
	EXPECT_EQ(errno, ENODATA);
	close(fd);
}

/*
 * A thread's pidfd names the thread's own struct pid: its xattrs are
 * not the process's.
 */
TEST(thread_pidfd_has_its_own)
{
	struct parked thread;
	const char *why;
	int tfd, pfd;
	char buf[8];

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(park(&thread), 0);
	tfd = sys_pidfd_open(thread.tid, PIDFD_THREAD);
	if (tfd < 0)
		SKIP(goto out, "no thread pidfds (errno %d)", errno);
	pfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(fsetxattr(tfd, "trusted.t", "t", 1, 0), 0);
	EXPECT_EQ(fgetxattr(pfd, "trusted.t", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODATA);
	EXPECT_EQ(fgetxattr(tfd, "trusted.t", buf, sizeof(buf)), 1);
	close(tfd);
	close(pfd);
out:
	unpark(&thread);
}

/*
 * The inode is no longer S_IMMUTABLE (it would refuse xattrs with
 * EPERM): mode, owner and times changes now reach pidfs' setattr,
 * which refuses them with EOPNOTSUPP (upstream 6.17).
 */
TEST(attribute_changes_still_refused)
{
	const char *why;
	int fd;

	why = xattr_unsupported();
	if (why)
		SKIP(return, "%s", why);
	fd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fchmod(fd, 0600), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(fchown(fd, 0, 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(futimens(fd, NULL), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	close(fd);
}

TEST_HARNESS_MAIN
