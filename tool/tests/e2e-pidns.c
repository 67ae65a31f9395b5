// SPDX-License-Identifier: GPL-2.0
/*
 * /proc mounted for another pid namespace than the tool's own: the
 * host's /proc seen from a container, or a container's /proc seen from
 * the host.  Its numbers are not getpid()'s nor pidfd_open()'s: the tool
 * finds itself and its ancestors by that /proc's "self", reads -g 0 and
 * -s 0 from there, and refuses what needs a pidfd opened by number.
 * Everything runs in a PID namespace box of its own (in_new_pidns()).
 */
#include "pfkill-tests.h"

/* Our pid as the /proc mounted at /proc numbers us, or -1. */
static pid_t proc_self(void)
{
	char link[32];
	ssize_t n = readlink("/proc/self", link, sizeof(link) - 1);

	if (n <= 0)
		return -1;
	link[n] = '\0';
	return atoi(link);
}

/*
 * PID 1 of a pid namespace whose /proc is its parent's (the box's): the
 * tool is in the child namespace, where getpid() says 2 or so, and
 * /proc numbers it and us otherwise.
 */
static int in_child_of_box(void)
{
	char name[16], token[32], self[16];
	pid_t me = proc_self();
	struct run r;

	CHECK(getpid() == 1 && me > 1);
	CHECK(setpgid(0, 0) == 0);
	unique_name(name, "cp");
	prctl(PR_SET_NAME, name);
	itoa_buf(self, me);
	CHECK(pfgrep(&r, "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, me) && lines(r.out) == 1);
	/* Its pattern is in its own command line: never itself. */
	snprintf(token, sizeof(token), "%s_self", name);
	CHECK(pfgrep(&r, "-f", token, NULL) == 1);
	/* The deviation (pfkill(1)): procps, by getpid(), lists itself. */
	if (procps_version()) {
		char *argv[] = { "pgrep", "-f", token, NULL };

		CHECK(run_procps(&r, 0, argv) == 0 && lines(r.out) == 1);
	}
	/* We are pfkill's parent: an ancestor, not signaled (0 anyway). */
	CHECK(pfkill(&r, "-0", "-x", name, NULL) == 1);
	CHECK(lines(r.err) == 1 && strstr(r.err, "--include-ancestors"));
	CHECK(pfkill(&r, "-0", "--include-ancestors", "-x", name, NULL) == 0);
	/* -g 0: our group, which /proc numbers by us, its leader. */
	CHECK(pfgrep(&r, "-g", "0", "-x", name, NULL) == 0);
	CHECK(lists_pid(r.out, me) && lines(r.out) == 1);
	CHECK(pfgrep(&r, "-g", self, "-x", name, NULL) == 0);
	return PASS;
}

static int proc_of_parent_box(void)
{
	int ret = in_child_pidns(in_child_of_box);

	if (ret == SKIP && !skip_reason[0])
		snprintf(skip_reason, 256, "no child pid namespace here");
	return ret;
}

/*
 * The tool in a child pid namespace, /proc its parent's (the box's):
 * getpid() there names whoever has that number in the box, and the tool
 * itself and its parent have other numbers.
 */
int t_e2e_proc_of_parent_pidns(void)
{
	return in_new_pidns(proc_of_parent_box);
}

static int set_last_pid(pid_t last)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY), len, ok;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d", (int)last);
	ok = write(fd, buf, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The number the runner's tools take in the box, and the shadow helper
 * in the child namespace (ns_last_pid): under any pid_max (4096 in the
 * guest), above what the box has used.
 */
#define TOOL_PID 1000

/* What child_proc_box() and the namespace under it share. */
static struct {
	char name[16], shadow_name[16];
	pid_t decoy;		/* a box process, by the box's number */
} cb;

/*
 * PID 1 of the child namespace, /proc remounted as its own (for the
 * runner too: it shares our mount namespace).  Two helpers: "name"
 * numbered as the decoy is in the box, "shadow" as TOOL_PID.  Ready
 * once both are there; then waits to be killed, and they with it.
 */
static int child_ns_init(int ready)
{
	pid_t h, shadow;

	SKIP_IF(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
		      MS_NOEXEC, NULL) < 0, "mount proc: %s", strerror(errno));
	SKIP_IF(set_last_pid(cb.decoy - 1) < 0, "ns_last_pid: %s (needs "
		"CONFIG_CHECKPOINT_RESTORE)", strerror(errno));
	h = spawn_simple(cb.name);
	SKIP_IF(set_last_pid(TOOL_PID - 1) < 0, "ns_last_pid: %s",
		strerror(errno));
	shadow = spawn_simple(cb.shadow_name);
	SKIP_IF(h != cb.decoy || shadow != TOOL_PID, "pids %d and %d not "
		"to be had in the child namespace", cb.decoy, TOOL_PID);
	if (write(ready, "x", 1) != 1)
		return FAIL;
	for (;;)
		pause();
}

/*
 * The next process we start gets TOOL_PID in the box (ns_last_pid is the
 * writer's own namespace's, whichever /proc it is written through):
 * checked with a first one that exits at once.
 */
static bool next_is_tool_pid(void)
{
	pid_t probe;

	if (set_last_pid(TOOL_PID - 1) < 0)
		return false;
	probe = fork();
	if (probe == 0)
		_exit(0);
	if (probe < 0 || waitpid(probe, NULL, 0) != probe)
		return false;
	return probe == TOOL_PID && set_last_pid(TOOL_PID - 1) == 0;
}

/* The runner: in the box's pid namespace, with the child's /proc. */
static int run_in_child_proc(void)
{
	struct run r;

	/*
	 * The tool is TOOL_PID, and so is the shadow in this /proc: the
	 * tool is not there, and the shadow is not the tool.
	 */
	SKIP_IF(!next_is_tool_pid(), "pid %d not to be had", TOOL_PID);
	CHECK(pfgrep(&r, "-x", cb.shadow_name, NULL) == 0);
	CHECK(lists_pid(r.out, TOOL_PID) && lines(r.out) == 1);
	SKIP_IF(!next_is_tool_pid(), "pid %d not to be had", TOOL_PID);
	CHECK(pfkill(&r, "-USR1", "-x", cb.shadow_name, NULL) == 0);
	CHECK(pending(TOOL_PID, SIGUSR1));	/* this /proc: the shadow */
	/* Our group has no number there. */
	CHECK(pfgrep(&r, "-g", "0", "-x", cb.shadow_name, NULL) == 3);
	CHECK(lines(r.err) == 1 && strstr(r.err, "pid namespace"));
	/*
	 * A pidfd by the number /proc shows would be the decoy's, in our
	 * namespace: refused, nobody signaled.
	 */
	CHECK(pfkill(&r, "--wait", "--timeout", "1", "-USR2", "-x", cb.name,
		     NULL) == 3);
	CHECK(lines(r.err) == 1 && strstr(r.err, "pid namespace"));
	CHECK(nothing_pending(cb.decoy));	/* this /proc: the helper */
	CHECK(pfwait(&r, "--timeout", "0", "-x", cb.name, NULL) == 3);
	CHECK(lines(r.err) == 1 && strstr(r.err, "pid namespace"));
	CHECK(pfkill(&r, "-m", "-KILL", "-x", cb.name, NULL) == 3);
	CHECK(pfgrep(&r, "--format", "pid:inode", "-x", cb.name, NULL) == 3);
	CHECK(nothing_pending(cb.decoy));
	return PASS;
}

/*
 * The runner unshares the mount namespace and, for one child only, the
 * pid namespace: that child is the new namespace's init, and the
 * runner's own pid namespace is the children's again (setns()), so that
 * the tools it runs are in the box's.
 */
static int child_proc_box(void)
{
	int ready[2], st, ret, box_ns;
	pid_t runner;
	char c;

	unique_name(cb.name, "cd");
	unique_name(cb.shadow_name, "cs");
	cb.decoy = spawn_simple(cb.name);
	CHECK(cb.decoy > 0 && pipe(ready) == 0);
	box_ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	CHECK(box_ns >= 0);
	fflush(stdout);
	runner = fork();
	if (runner == 0) {
		pid_t init;

		if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(SKIP);
		init = fork();
		if (init == 0)
			_exit(child_ns_init(ready[1]));
		close(ready[1]);
		ret = init > 0 && setns(box_ns, CLONE_NEWPID) == 0 &&
		      read(ready[0], &c, 1) == 1 ? run_in_child_proc() : -1;
		if (init > 0) {
			kill(init, SIGKILL);
			waitpid(init, &st, 0);
		}
		/* Not ready: how the namespace's init ended says why. */
		if (ret < 0)
			ret = init > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : FAIL;
		_exit(ret);
	}
	close(ready[1]);
	close(ready[0]);
	close(box_ns);
	CHECK(runner > 0 && waitpid(runner, &st, 0) == runner &&
	      WIFEXITED(st));
	ret = WEXITSTATUS(st);
	if (ret == SKIP && !skip_reason[0])
		snprintf(skip_reason, 256, "no child pid namespace with a "
			 "/proc of its own here");
	/* The box's /proc again: the decoy itself. */
	CHECK(ret == SKIP || nothing_pending(cb.decoy));
	reap(cb.decoy);
	return ret;
}

/*
 * The tool in a pid namespace (the box's) with /proc of a child one: the
 * child's helpers have the numbers of the decoy and of the tool there.
 * The tool's own number names the shadow, which is matched and signaled;
 * a pidfd opened by the helper's number would be the decoy's: refused.
 */
int t_e2e_proc_of_child_pidns(void)
{
	return in_new_pidns(child_proc_box);
}
