// SPDX-License-Identifier: GPL-2.0
/*
 * The pidfd in a fanotify event (FAN_REPORT_PIDFD) refers to the task that
 * caused the event: with FAN_REPORT_TID the thread, as a PIDFD_THREAD
 * pidfd, else its thread group. Read after that task was reaped, it still
 * is a pidfd and reports the exit through PIDFD_INFO_EXIT (upstream 7.2,
 * commits 17171128 and 82c6dd20).
 *
 * The variants are every combination of FAN_REPORT_TID or not, the event
 * caused by the leader or by another thread, and the event read while
 * the task lives or after it was reaped; each expected value follows
 * from the rule above. A kernel that refuses FAN_REPORT_PIDFD with
 * FAN_REPORT_TID (before 7.2) skips those variants; one without
 * PIDFD_INFO_EXIT (upstream 6.12) skips the reaped ones.
 */

#include "pidfd_handle.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/fanotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

/* <fcntl.h> cannot come with <linux/pidfd.h>: see pidfd_handle.h. */
#define sys_fcntl(fd, cmd) syscall(__NR_fcntl, (fd), (cmd))

/* What the thread group exits with, and a thread other than the leader. */
#define GROUP_EXIT_CODE 7
#define THREAD_EXIT_CODE 5

struct actor {
	const char *path;	/* the marked file the actor opens */
	bool reaped;		/* exit once the file was opened */
	int report_fd;		/* gets the opener's tid */
	int release_fd;		/* EOF here: the group exits */
};

static void exit_when_released(struct actor *a)
{
	char c;

	while (read(a->release_fd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(GROUP_EXIT_CODE);
}

/* Open the marked file, report who did, then exit or wait for release. */
static void *open_and_report(void *arg)
{
	struct actor *a = arg;
	pid_t tid = gettid();
	FILE *f;

	f = fopen(a->path, "re");
	if (!f || write(a->report_fd, &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	fclose(f);
	if (a->reaped && tid != getpid())
		/* A thread's own exit status, which its pidfd reports. */
		syscall(SYS_exit, THREAD_EXIT_CODE);
	exit_when_released(a);
	return NULL;
}

/* The test's child: it, or a thread it starts, opens the marked file. */
static void run_actor(struct actor *a, bool by_thread)
{
	pthread_t thread;

	if (!by_thread)
		open_and_report(a);
	if (pthread_create(&thread, NULL, open_and_report, a))
		_exit(1);
	if (!a->reaped)
		pause();	/* the thread exits the group */
	pthread_join(thread, NULL);
	exit_when_released(a);
}

FIXTURE(fanotify) {
	char path[32];
	int fan_fd;
};

FIXTURE_VARIANT(fanotify) {
	bool report_tid;
	bool by_thread;
	bool reaped;
};

FIXTURE_VARIANT_ADD(fanotify, group_leader_live) { false, false, false };
FIXTURE_VARIANT_ADD(fanotify, group_leader_reaped) { false, false, true };
FIXTURE_VARIANT_ADD(fanotify, group_thread_live) { false, true, false };
FIXTURE_VARIANT_ADD(fanotify, group_thread_reaped) { false, true, true };
FIXTURE_VARIANT_ADD(fanotify, tid_leader_live) { true, false, false };
FIXTURE_VARIANT_ADD(fanotify, tid_leader_reaped) { true, false, true };
FIXTURE_VARIANT_ADD(fanotify, tid_thread_live) { true, true, false };
FIXTURE_VARIANT_ADD(fanotify, tid_thread_reaped) { true, true, true };

FIXTURE_SETUP(fanotify)
{
	int fd;

	self->fan_fd = -1;
	snprintf(self->path, sizeof(self->path), "/tmp/pidfd_fanotify.XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_GE(fd, 0);
	close(fd);
}

FIXTURE_TEARDOWN(fanotify)
{
	if (self->fan_fd >= 0)
		close(self->fan_fd);
	unlink(self->path);
}

/*
 * The first event in @buf: its pid and its pidfd record's pidfd (-100 if
 * it has none). The event's file descriptor is closed.
 */
static int event_pidfd(const char *buf, ssize_t len, pid_t *pid)
{
	const struct fanotify_event_metadata *ev = (const void *)buf;
	const struct fanotify_event_info_header *hdr;
	size_t off;

	if (len < (ssize_t)sizeof(*ev) || ev->event_len > len)
		return -100;
	*pid = ev->pid;
	if (ev->fd >= 0)
		close(ev->fd);
	for (off = ev->metadata_len; off + sizeof(*hdr) <= ev->event_len;
	     off += hdr->len) {
		hdr = (const void *)(buf + off);
		if (!hdr->len)
			break;
		if (hdr->info_type == FAN_EVENT_INFO_TYPE_PIDFD)
			return ((const struct fanotify_event_info_pidfd *)hdr)->pidfd;
	}
	return -100;
}

TEST_F(fanotify, pidfd_of_the_actor)
{
	unsigned int flags = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
			     FAN_REPORT_PIDFD;
	struct actor a = { .path = self->path, .reaped = variant->reaped };
	int report[2], release[2], pidfd, status, want_code;
	uint64_t events[512];
	char *buf = (char *)events;
	pid_t child, actor_tid, want_pid, ev_pid;
	struct pidfd_info info;
	ssize_t len;

	if (variant->reaped && !(supported_info() & PIDFD_INFO_EXIT))
		SKIP(return, "no PIDFD_INFO_EXIT (upstream 6.12)");
	if (variant->report_tid)
		flags |= FAN_REPORT_TID;
	self->fan_fd = fanotify_init(flags, O_RDONLY);
	if (self->fan_fd < 0 && errno == EINVAL && variant->report_tid)
		SKIP(return, "FAN_REPORT_PIDFD | FAN_REPORT_TID: EINVAL (before 7.2)");
	if (self->fan_fd < 0 && errno == EPERM)
		SKIP(return, "fanotify_init(): EPERM, not privileged");
	ASSERT_GE(self->fan_fd, 0) TH_LOG("fanotify_init(): errno %d", errno);
	ASSERT_EQ(fanotify_mark(self->fan_fd, FAN_MARK_ADD, FAN_OPEN,
				AT_FDCWD, self->path), 0);

	ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
	ASSERT_EQ(pipe2(release, O_CLOEXEC), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(report[0]);
		close(release[1]);
		a.report_fd = report[1];
		a.release_fd = release[0];
		run_actor(&a, variant->by_thread);
	}
	close(report[1]);
	close(release[0]);
	ASSERT_EQ(read(report[0], &actor_tid, sizeof(actor_tid)),
		  sizeof(actor_tid));
	EXPECT_EQ(actor_tid != child, variant->by_thread);

	if (variant->reaped) {
		close(release[1]);
		ASSERT_EQ(waitpid(child, &status, 0), child);
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(WEXITSTATUS(status), GROUP_EXIT_CODE);
	}
	close(report[0]);

	len = read(self->fan_fd, buf, sizeof(events));
	ASSERT_GT(len, 0) TH_LOG("no event: errno %d", errno);
	pidfd = event_pidfd(buf, len, &ev_pid);
	ASSERT_GE(pidfd, 0) TH_LOG("pidfd record: %d (FAN_NOPIDFD %d, FAN_EPIDFD %d)",
				   pidfd, FAN_NOPIDFD, FAN_EPIDFD);

	/* Whose event: the thread's with FAN_REPORT_TID, else the group's. */
	want_pid = variant->report_tid ? actor_tid : child;
	EXPECT_EQ(ev_pid, want_pid);
	EXPECT_EQ(sys_fcntl(pidfd, F_GETFL) & PIDFD_THREAD,
		  variant->report_tid ? PIDFD_THREAD : 0);

	if (!variant->reaped) {
		EXPECT_EQ(fdinfo_pid(pidfd), ev_pid);
		if (have_get_info()) {
			ASSERT_EQ(get_info(pidfd, PIDFD_INFO_PID, &info), 0);
			EXPECT_EQ(info.pid, ev_pid);
			EXPECT_EQ(info.tgid, child);
		}
		EXPECT_EQ(sys_pidfd_send_signal(pidfd, 0, NULL, 0), 0);
		close(release[1]);
		ASSERT_EQ(waitpid(child, &status, 0), child);
		EXPECT_TRUE(WIFEXITED(status));
	} else {
		want_code = variant->report_tid && variant->by_thread ?
			    THREAD_EXIT_CODE : GROUP_EXIT_CODE;
		EXPECT_EQ(sys_pidfd_send_signal(pidfd, 0, NULL, 0), -1);
		EXPECT_EQ(errno, ESRCH);
		ASSERT_EQ(get_info(pidfd, PIDFD_INFO_EXIT, &info), 0);
		ASSERT_TRUE(info.mask & PIDFD_INFO_EXIT);
		EXPECT_TRUE(WIFEXITED(info.exit_code));
		EXPECT_EQ(WEXITSTATUS(info.exit_code), want_code);
	}
	close(pidfd);
}

/* An event of a task outside the listener's pid namespace has no pidfd. */
TEST(outside_the_pid_namespace)
{
	char path[] = "/tmp/pidfd_fanotify.XXXXXX";
	uint64_t events[512];
	char *buf = (char *)events;
	int fd, fan_fd, ready[2], status;
	pid_t child, ev_pid;
	ssize_t len;
	FILE *f;
	char c;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(pipe2(ready, O_CLOEXEC), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		/* The listener: init of a new pid namespace, so its parent
		 * (the opener) is outside it.
		 */
		close(ready[0]);
		if (unshare(CLONE_NEWPID))
			_exit(errno == EPERM ? KSFT_SKIP : 1);
		if (fork() != 0) {
			wait(&status);
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
		}
		fan_fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_PIDFD,
				       O_RDONLY);
		if (fan_fd < 0 ||
		    fanotify_mark(fan_fd, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, path))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		len = read(fan_fd, buf, sizeof(events));
		if (len <= 0)
			_exit(4);
		if (event_pidfd(buf, len, &ev_pid) != FAN_NOPIDFD)
			_exit(5);
		_exit(ev_pid == 0 ? 0 : 6);
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	close(ready[0]);
	f = fopen(path, "re");
	ASSERT_NE(f, NULL);
	fclose(f);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	unlink(path);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == KSFT_SKIP)
		SKIP(return, "unshare(CLONE_NEWPID): EPERM");
	EXPECT_EQ(WEXITSTATUS(status), 0)
		TH_LOG("listener: 2 setup, 4 no event, 5 a pidfd, 6 a pid");
}

TEST_HARNESS_MAIN
