// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open /proc/<pid>/kill for writing, and who may then write to it,
 * over a generated matrix of caller credentials.
 *
 * The rule under test: an opener may open a kill file for writing only if
 * its fs credentials could open for writing a regular file with the kill
 * file's owner, group and mode, under the capability rules of the VFS, and
 * kill(2)'s rule lets it signal the target. A write succeeds only in the
 * opener's process, before any exec, while the open's credentials still
 * pass against the target and kill(2) with the writer's credentials allows
 * the signal.
 *
 * No answer is written down here. Each caller computes what it expects in
 * the same process, with the same credentials, at the same moment: from a
 * regular reference file that has the kill file's owner, group and mode,
 * and from kill(2) with signal 0. All writes are "0", which only checks.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfd.h"
#include "../kselftest_harness.h"

#ifndef __NR_faccessat2
#define __NR_faccessat2 439
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define NO_KILL_FILES	"no /proc/<pid>/kill in this kernel"
#define NEEDS_ROOT	"needs root (changes uids)"

#define PROBE_ARG	"--kill-cred-probe"
#define DEPUTY_ARG	"--kill-cred-deputy"
#define HELPER_NO_SUID	42
#define DEPUTY_SETUP	43

#define USER_UID	1000
#define MAX_LOGGED	20

/* The ids every credential is drawn from; gid n goes with uid n. */
static const uid_t ids[] = { 0, 1000, 2000 };
#define NR_IDS		((int)ARRAY_SIZE(ids))

static const __u32 cap_sets[] = {
	0,
	CAP_TO_MASK(CAP_KILL),
	CAP_TO_MASK(CAP_DAC_OVERRIDE),
	CAP_TO_MASK(CAP_KILL) | CAP_TO_MASK(CAP_DAC_OVERRIDE),
};

static const char * const cap_names[] = {
	"none", "KILL", "DAC_OVERRIDE", "KILL+DAC_OVERRIDE",
};

#define NR_CAP_SETS	((int)ARRAY_SIZE(cap_sets))
/* ruid, euid, suid and fsuid, times the capability sets. */
#define NR_STATES	(NR_IDS * NR_IDS * NR_IDS * NR_IDS * NR_CAP_SETS)

struct target_spec {
	const char *name;
	uid_t ruid, euid;	/* the saved uid is the euid */
	gid_t rgid, egid;
};

static const struct target_spec target_specs[] = {
	{ "root", 0, 0, 0, 0 },
	{ "user", 1000, 1000, 1000, 1000 },
	{ "other", 2000, 2000, 2000, 2000 },
	/* What exec of a set-uid-root program by uid 1000 gives. */
	{ "set-uid", 1000, 0, 1000, 0 },
};

#define NR_TARGETS	((int)ARRAY_SIZE(target_specs))
#define TARGET_USER	1
#define TARGET_SETUID	3

enum idiom {
	IDIOM_DIRECT,
	IDIOM_ACCESS,
	IDIOM_EACCESS,
	IDIOM_SETFSUID,
	IDIOM_DEPUTY,
	NR_IDIOMS,
};

/* Idioms 1-4 run in the caller; the deputy is an exec of a copy. */
#define NR_LOCAL_IDIOMS	IDIOM_DEPUTY

static const char * const idiom_names[] = {
	"direct", "access", "eaccess", "setfsuid-restore", "deputy",
};

/* Where a sequence stopped; STEP_DONE: the write succeeded. */
enum step {
	STEP_ACCESS = 1,
	STEP_OPEN,
	STEP_WRITE,
	STEP_DONE,
};

static const char * const step_names[] = {
	"?", "access", "open", "write", "done",
};

enum record_kind {
	REC_CELL = 1,
	REC_STATE_FAILED,	/* a caller exited with .err as its status */
	REC_NO_SUID,		/* the set-uid copy did not run as root */
	REC_SUMMARY,		/* .state: the number of callers started */
};

/* One cell of the matrix, or a message of the runner. */
struct record {
	unsigned char kind;
	unsigned char target;
	unsigned char idiom;
	unsigned char exp_step;
	unsigned char act_step;
	unsigned char fsuid_not_restored;
	unsigned short state;
	int exp_err;
	int act_err;
};

/* What the processes of a matrix run share; copied by fork(). */
struct matrix_ctx {
	pid_t pids[NR_TARGETS];
	char kill_path[NR_TARGETS][64];
	char ref_path[NR_TARGETS][96];
	char dir[64];
	char helper[96];
	int rec_fd;
};

/* A caller state by its index: ruid, euid, suid, fsuid and caps. */
struct cred_state {
	uid_t ruid, euid, suid, fsuid;
	unsigned int caps;	/* index into cap_sets */
};

static void state_decode(unsigned int idx, struct cred_state *st)
{
	st->caps = idx % NR_CAP_SETS;
	idx /= NR_CAP_SETS;
	st->fsuid = ids[idx % NR_IDS];
	idx /= NR_IDS;
	st->suid = ids[idx % NR_IDS];
	idx /= NR_IDS;
	st->euid = ids[idx % NR_IDS];
	idx /= NR_IDS;
	st->ruid = ids[idx % NR_IDS];
}

static bool have_kill_files(void)
{
	return access("/proc/self/kill", F_OK) == 0;
}

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Wait for a child that reports through its exit status; 0 is success. */
static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* In forked children, which cannot use ASSERT_*: exit with the line. */
#define CHILD_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "# child: %s:%d: %s (errno %d)\n", \
				__FILE__, __LINE__, #cond, errno);	\
			_exit(1);					\
		}							\
	} while (0)

/* Raw capget()/capset(), version 3: no libcap in the guest. */
static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(__NR_capget, &hdr, data);
}

static int caps_set(__u32 effective, __u32 permitted)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = effective, .permitted = permitted },
	};

	return syscall(__NR_capset, &hdr, data);
}

/* The caps are exactly @caps, effective and permitted, and nothing else. */
static bool caps_are(__u32 caps)
{
	struct __user_cap_data_struct data[2];

	if (caps_get(data))
		return false;
	return data[0].effective == caps && data[0].permitted == caps &&
	       !data[0].inheritable && !data[1].effective &&
	       !data[1].permitted && !data[1].inheritable;
}

/* The kernel's, not glibc's: an emulation would only look at the mode. */
static int eaccess_w(const char *path)
{
	return syscall(__NR_faccessat2, AT_FDCWD, path, W_OK, AT_EACCESS);
}

static void block_all_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
}

/*
 * Become @st from a root of the current user namespace. setfsuid() to an
 * id that is none of the others needs CAP_SETUID, which the state may not
 * have: hold it until the fs uid is set, then set the final capabilities.
 * Lowering the permitted set and an empty inheritable set leave no ambient
 * capability.
 */
static void become(const struct cred_state *st)
{
	__u32 caps = cap_sets[st->caps];
	gid_t gid = st->euid;	/* the gid of the euid's user */
	uid_t r, e, s;
	gid_t rg, eg, sg;

	CHILD_CHECK(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0);
	CHILD_CHECK(setgroups(0, NULL) == 0);
	CHILD_CHECK(setresgid(gid, gid, gid) == 0);
	CHILD_CHECK(setresuid(st->ruid, st->euid, st->suid) == 0);
	CHILD_CHECK(caps_set(caps | CAP_TO_MASK(CAP_SETUID),
			     caps | CAP_TO_MASK(CAP_SETUID)) == 0);
	setfsuid(st->fsuid);
	CHILD_CHECK(setfsuid(-1) == (int)st->fsuid);
	CHILD_CHECK(caps_set(caps, caps) == 0);

	CHILD_CHECK(getresuid(&r, &e, &s) == 0);
	CHILD_CHECK(r == st->ruid && e == st->euid && s == st->suid);
	CHILD_CHECK(setfsuid(-1) == (int)st->fsuid);
	CHILD_CHECK(getresgid(&rg, &eg, &sg) == 0);
	CHILD_CHECK(rg == gid && eg == gid && sg == gid);
	CHILD_CHECK(setfsgid(-1) == (int)gid);
	CHILD_CHECK(getgroups(0, NULL) == 0);
	CHILD_CHECK(caps_are(caps));
}

static bool can_kill(pid_t pid)
{
	return kill(pid, 0) == 0;
}

static bool can_open_w(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * kill(@pid, 0) with the credentials access(2) checks with: it keeps the
 * euid, so kill(2) sees the same uids, and it has no effective capability
 * unless the real uid is the namespace's root, in which case it has the
 * permitted ones (as this state already has). Drop them for the call and
 * take them back from the permitted set.
 */
static bool can_kill_as_access(pid_t pid, __u32 caps)
{
	bool ret;

	if (getuid() == 0 || !caps)
		return can_kill(pid);
	CHILD_CHECK(caps_set(0, caps) == 0);
	ret = can_kill(pid);
	CHILD_CHECK(caps_set(caps, caps) == 0);
	return ret;
}

/* The reference's sequence stops at @step with @err, unless it has. */
static void expect_stop(struct record *rec, enum step step, int err)
{
	if (rec->exp_step == STEP_DONE) {
		rec->exp_step = step;
		rec->exp_err = err;
	}
}

/* The kill file's sequence stops at @step with @err. */
static void actual_stop(struct record *rec, enum step step, int err)
{
	if (rec->act_step == STEP_DONE) {
		rec->act_step = step;
		rec->act_err = err;
	}
}

/*
 * Run one idiom on a kill file and on its reference side by side. The
 * reference answer of each step is taken at the moment the kill file's
 * step runs: the reference file for the file permission, kill(2) for the
 * signal. @kill_access is kill(2) as access(2) would judge it.
 */
static void run_idiom(struct record *rec, const char *kill_path,
		      const char *ref_path, pid_t pid, bool kill_access)
{
	int fd = -1, old = -1;

	rec->exp_step = STEP_DONE;
	rec->act_step = STEP_DONE;
	rec->fsuid_not_restored = 0;

	switch (rec->idiom) {
	case IDIOM_ACCESS:
		if (access(ref_path, W_OK) || !kill_access)
			expect_stop(rec, STEP_ACCESS, EACCES);
		if (access(kill_path, W_OK))
			actual_stop(rec, STEP_ACCESS, errno);
		break;
	case IDIOM_EACCESS:
		if (eaccess_w(ref_path) || !can_kill(pid))
			expect_stop(rec, STEP_ACCESS, EACCES);
		if (eaccess_w(kill_path))
			actual_stop(rec, STEP_ACCESS, errno);
		break;
	case IDIOM_SETFSUID:
		old = setfsuid(getuid());
		break;
	}

	if (!can_open_w(ref_path) || !can_kill(pid))
		expect_stop(rec, STEP_OPEN, EACCES);
	if (rec->act_step == STEP_DONE) {
		fd = open(kill_path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			actual_stop(rec, STEP_OPEN, errno);
	}

	if (rec->idiom == IDIOM_SETFSUID) {
		/* Without CAP_SETUID, not to an fs uid of its own. */
		setfsuid(old);
		rec->fsuid_not_restored = setfsuid(-1) != old;
	}

	if (!can_kill(pid))
		expect_stop(rec, STEP_WRITE, EPERM);
	if (rec->act_step == STEP_DONE && write(fd, "0", 1) != 1)
		actual_stop(rec, STEP_WRITE, errno);
	if (fd >= 0)
		close(fd);
}

static void send_record(int fd, const struct record *rec)
{
	CHILD_CHECK(write(fd, rec, sizeof(*rec)) == sizeof(*rec));
}

/*
 * One caller state: idioms 1-3 on every target in this process, the
 * setfsuid idiom in a child per target (a restore that does not take
 * would change the state for the next one), then exec the deputy.
 */
static void caller_main(const struct matrix_ctx *ctx, unsigned int idx)
{
	struct record rec = { .kind = REC_CELL, .state = idx };
	bool kill_access[NR_TARGETS];
	char fd_arg[16], idx_arg[16], pid_arg[NR_TARGETS][16];
	char *argv[5 + NR_TARGETS + 1];
	struct cred_state st;
	unsigned int t, i;
	pid_t child;

	state_decode(idx, &st);
	become(&st);

	/* Before any kill file is open: this changes the credentials. */
	for (t = 0; t < NR_TARGETS; t++)
		kill_access[t] = can_kill_as_access(ctx->pids[t],
						    cap_sets[st.caps]);

	for (rec.idiom = IDIOM_DIRECT; rec.idiom < IDIOM_SETFSUID;
	     rec.idiom++) {
		for (t = 0; t < NR_TARGETS; t++) {
			rec.target = t;
			run_idiom(&rec, ctx->kill_path[t], ctx->ref_path[t],
				  ctx->pids[t], kill_access[t]);
			send_record(ctx->rec_fd, &rec);
		}
	}

	rec.idiom = IDIOM_SETFSUID;
	for (t = 0; t < NR_TARGETS; t++) {
		child = fork();
		CHILD_CHECK(child >= 0);
		if (child == 0) {
			rec.target = t;
			run_idiom(&rec, ctx->kill_path[t], ctx->ref_path[t],
				  ctx->pids[t], kill_access[t]);
			send_record(ctx->rec_fd, &rec);
			_exit(0);
		}
		CHILD_CHECK(child_status(child) == 0);
	}

	snprintf(fd_arg, sizeof(fd_arg), "%d", ctx->rec_fd);
	snprintf(idx_arg, sizeof(idx_arg), "%u", idx);
	i = 0;
	argv[i++] = (char *)ctx->helper;
	argv[i++] = DEPUTY_ARG;
	argv[i++] = fd_arg;
	argv[i++] = idx_arg;
	argv[i++] = (char *)ctx->dir;
	for (t = 0; t < NR_TARGETS; t++) {
		snprintf(pid_arg[t], sizeof(pid_arg[t]), "%d", ctx->pids[t]);
		argv[i++] = pid_arg[t];
	}
	argv[i] = NULL;
	execv(ctx->helper, argv);
	fprintf(stderr, "# child: exec %s: %s\n", ctx->helper,
		strerror(errno));
	_exit(DEPUTY_SETUP);
}

static void kill_file_path(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "/proc/%d/kill", pid);
}

static void ref_file_path(char *buf, size_t len, const char *dir,
			  unsigned int t)
{
	snprintf(buf, len, "%s/ref-%s", dir, target_specs[t].name);
}

/*
 * The set-uid copy of this program, run by a caller: it swaps its ids the
 * standard way, real uid root and effective uid the caller's, and opens
 * each kill file and its reference directly.
 */
static int deputy_main(char **argv)
{
	struct record rec = { .kind = REC_CELL, .idiom = IDIOM_DEPUTY };
	char kill_path[64], ref_path[128];
	uid_t caller = getuid(), r, e, s;
	int fd = atoi(argv[2]);
	unsigned int t;
	pid_t pid;

	if (geteuid() != 0)
		return HELPER_NO_SUID;
	rec.state = atoi(argv[3]);
	if (setreuid(0, caller) || getresuid(&r, &e, &s) || r || e != caller)
		return DEPUTY_SETUP;

	for (t = 0; t < NR_TARGETS; t++) {
		pid = atoi(argv[5 + t]);
		kill_file_path(kill_path, sizeof(kill_path), pid);
		ref_file_path(ref_path, sizeof(ref_path), argv[4], t);
		rec.target = t;
		run_idiom(&rec, kill_path, ref_path, pid, false);
		if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
			return DEPUTY_SETUP;
	}
	return 0;
}

/* Does the set-uid copy run as root for a caller of uid 1000? */
static int probe_setuid(const struct matrix_ctx *ctx)
{
	pid_t child = fork();

	if (child < 0)
		return -1;
	if (child == 0) {
		CHILD_CHECK(setgroups(0, NULL) == 0);
		CHILD_CHECK(setresgid(USER_UID, USER_UID, USER_UID) == 0);
		CHILD_CHECK(setresuid(USER_UID, USER_UID, USER_UID) == 0);
		execl(ctx->helper, ctx->helper, PROBE_ARG, (char *)NULL);
		_exit(DEPUTY_SETUP);
	}
	return child_status(child);
}

static void runner_message(int fd, enum record_kind kind, unsigned int state,
			   int status)
{
	struct record rec = {
		.kind = kind,
		.state = state,
		.act_err = status,
	};

	send_record(fd, &rec);
}

#define MAX_PARALLEL	4

/*
 * Run every caller state, as many at a time as there are CPUs (up to
 * MAX_PARALLEL), and report the callers that failed. The cells come from
 * the callers themselves.
 */
static void run_matrix(const struct matrix_ctx *ctx)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int parallel, idx, i, n = 0;
	pid_t pids[MAX_PARALLEL] = { 0 };
	unsigned int states[MAX_PARALLEL];
	int status;
	pid_t pid;

	parallel = ncpu < 1 ? 1 : ncpu > MAX_PARALLEL ? MAX_PARALLEL : ncpu;
	status = probe_setuid(ctx);
	if (status == HELPER_NO_SUID) {
		runner_message(ctx->rec_fd, REC_NO_SUID, 0, 0);
		_exit(0);
	}
	CHILD_CHECK(status == 0);

	for (idx = 0; idx < NR_STATES || n; ) {
		if (idx < NR_STATES && n < parallel) {
			pid = fork();
			CHILD_CHECK(pid >= 0);
			if (pid == 0)
				caller_main(ctx, idx);
			for (i = 0; pids[i]; i++)
				;
			pids[i] = pid;
			states[i] = idx++;
			n++;
			continue;
		}
		pid = wait(&status);
		CHILD_CHECK(pid > 0);
		for (i = 0; i < parallel && pids[i] != pid; i++)
			;
		CHILD_CHECK(i < parallel);
		pids[i] = 0;
		n--;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			runner_message(ctx->rec_fd, REC_STATE_FAILED, states[i],
				       status);
	}
	runner_message(ctx->rec_fd, REC_SUMMARY, idx, 0);
	_exit(0);
}

/*
 * The root of a child user namespace that maps 0, 1000 and 2000 to
 * themselves: tell the parent whether unshare() worked, and wait until it
 * has written the maps.
 */
static void enter_child_userns(int up, int down)
{
	int err = 0;
	char c;

	if (unshare(CLONE_NEWUSER))
		err = errno;
	CHILD_CHECK(write(up, &err, sizeof(err)) == sizeof(err));
	if (err)
		_exit(0);
	CHILD_CHECK(read_full(down, &c, 1) == 0);
	CHILD_CHECK(getuid() == 0 && geteuid() == 0);
}

static int write_id_map(pid_t pid, const char *file)
{
	static const char map[] = "0 0 1\n1000 1000 1\n2000 2000 1\n";
	char path[64];
	ssize_t ret;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, map, sizeof(map) - 1);
	close(fd);
	return ret == sizeof(map) - 1 ? 0 : -1;
}

/*
 * A process with @spec's credentials that blocks every signal and sleeps
 * until it is killed.
 */
static pid_t target_start(const struct target_spec *spec)
{
	pid_t parent = getpid(), pid;
	int ready[2];
	char c;

	if (pipe2(ready, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		block_all_signals();
		CHILD_CHECK(setgroups(0, NULL) == 0);
		CHILD_CHECK(setresgid(spec->rgid, spec->egid, spec->egid) == 0);
		CHILD_CHECK(setresuid(spec->ruid, spec->euid, spec->euid) == 0);
		/*
		 * A process its user started is dumpable; the euid change
		 * made this one not, as it would a set-uid program's.
		 */
		if (spec->ruid == spec->euid)
			CHILD_CHECK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0);
		/* After the uid change, which clears it. */
		CHILD_CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == 0);
		CHILD_CHECK(getppid() == parent);
		CHILD_CHECK(write(ready[1], "r", 1) == 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read_full(ready[0], &c, 1)) {
		close(ready[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(ready[0]);
	return pid;
}

static void target_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* A regular file with the owner, group and mode of @kill_path. */
static int make_reference(const char *kill_path, const char *ref_path,
			  struct stat *st)
{
	int fd;

	if (stat(kill_path, st))
		return -1;
	fd = open(ref_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	/* The mode after the owner: chown() clears set-id bits. */
	if (fchown(fd, st->st_uid, st->st_gid) ||
	    fchmod(fd, st->st_mode & 07777)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Copy this program to @dst, set-uid root. */
static int make_setuid_copy(const char *dst)
{
	char buf[65536];
	int src, out;
	ssize_t n;

	src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		close(src);
		return -1;
	}
	while ((n = read(src, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	close(src);
	if (n || fchown(out, 0, 0) || fchmod(out, 04755)) {
		close(out);
		return -1;
	}
	return close(out);
}

FIXTURE(matrix) {
	struct matrix_ctx ctx;
	struct stat st[NR_TARGETS];
};

/*
 * Nothing here can skip: in 6.1's harness a SKIP() in the setup does not
 * stop the test, and the two harnesses record a skip differently. The
 * tests skip themselves and start the targets.
 */
FIXTURE_SETUP(matrix)
{
	self->ctx.dir[0] = '\0';
}

FIXTURE_TEARDOWN(matrix)
{
	unsigned int t;

	for (t = 0; t < NR_TARGETS; t++) {
		target_stop(self->ctx.pids[t]);
		if (self->ctx.ref_path[t][0])
			unlink(self->ctx.ref_path[t]);
	}
	if (self->ctx.dir[0]) {
		unlink(self->ctx.helper);
		rmdir(self->ctx.dir);
	}
}

/*
 * Start the targets and put the references and the set-uid copy in a
 * root-owned 0755 directory, where every caller can reach them.
 */
static void matrix_prepare(struct __test_metadata *_metadata,
			   struct matrix_ctx *ctx, struct stat *kill_st)
{
	struct stat ref;
	unsigned int t;

	snprintf(ctx->dir, sizeof(ctx->dir), "/tmp/pidfd_kill_cred.XXXXXX");
	if (!mkdtemp(ctx->dir))
		ctx->dir[0] = '\0';
	ASSERT_NE(0, ctx->dir[0]);
	ASSERT_EQ(0, chmod(ctx->dir, 0755));
	snprintf(ctx->helper, sizeof(ctx->helper), "%s/deputy", ctx->dir);
	ASSERT_EQ(0, make_setuid_copy(ctx->helper));

	for (t = 0; t < NR_TARGETS; t++) {
		ctx->pids[t] = target_start(&target_specs[t]);
		ASSERT_GT(ctx->pids[t], 0);
		kill_file_path(ctx->kill_path[t], sizeof(ctx->kill_path[t]),
			       ctx->pids[t]);
		ref_file_path(ctx->ref_path[t], sizeof(ctx->ref_path[t]),
			      ctx->dir, t);
		ASSERT_EQ(0, make_reference(ctx->kill_path[t],
					    ctx->ref_path[t], &kill_st[t]));
		ASSERT_EQ(0, stat(ctx->ref_path[t], &ref));
		ASSERT_TRUE(S_ISREG(ref.st_mode));
		ASSERT_EQ(kill_st[t].st_uid, ref.st_uid);
		ASSERT_EQ(kill_st[t].st_gid, ref.st_gid);
		ASSERT_EQ(kill_st[t].st_mode & 07777, ref.st_mode & 07777);
	}
}

static const char *errno_name(int err)
{
	switch (err) {
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EINVAL:
		return "EINVAL";
	case ESRCH:
		return "ESRCH";
	case ENOENT:
		return "ENOENT";
	case EBADF:
		return "EBADF";
	}
	return "another errno";
}

static void describe_state(char *buf, size_t len, unsigned int idx,
			   bool userns)
{
	struct cred_state st;

	state_decode(idx, &st);
	snprintf(buf, len, "ruid=%u euid=%u suid=%u fsuid=%u caps=%s userns=%s",
		 st.ruid, st.euid, st.suid, st.fsuid, cap_names[st.caps],
		 userns ? "child" : "init");
}

static void describe_outcome(char *buf, size_t len, unsigned int step,
			     int err)
{
	if (step == STEP_DONE)
		snprintf(buf, len, "0");
	else if (step < STEP_DONE)
		snprintf(buf, len, "%s %s (%d)", step_names[step],
			 errno_name(err), err);
	else
		snprintf(buf, len, "step %u", step);
}

struct tally {
	int cells[2];		/* [0]: idioms 1-4, [1]: deputy */
	int succeed[2];		/* expected to write */
	int refused[2];		/* expected to stop */
	int mismatches;
	int not_restored;	/* setfsuid restores that did not take */
	int failed_states;
	int states;		/* from the runner's summary */
	bool summary;
	bool no_suid;
};

static void tally_record(struct __test_metadata *_metadata, struct tally *tl,
			 const struct record *rec, bool userns)
{
	char state[128], got[48], want[48];
	bool deputy = rec->idiom == IDIOM_DEPUTY;

	switch (rec->kind) {
	case REC_NO_SUID:
		tl->no_suid = true;
		return;
	case REC_SUMMARY:
		tl->summary = true;
		tl->states = rec->state;
		return;
	case REC_STATE_FAILED:
		describe_state(state, sizeof(state), rec->state, userns);
		if (tl->failed_states++ < MAX_LOGGED)
			TH_LOG("%s: caller failed, wait status %#x%s", state,
			       rec->act_err,
			       rec->act_err == HELPER_NO_SUID << 8 ?
			       " (setuid not honoured)" : "");
		return;
	case REC_CELL:
		break;
	default:
		TH_LOG("bad record kind %u", rec->kind);
		tl->failed_states++;
		return;
	}

	if (rec->target >= NR_TARGETS || rec->idiom >= NR_IDIOMS ||
	    rec->state >= NR_STATES) {
		TH_LOG("bad cell %u/%u/%u", rec->state, rec->target,
		       rec->idiom);
		tl->failed_states++;
		return;
	}
	tl->cells[deputy]++;
	if (rec->exp_step == STEP_DONE)
		tl->succeed[deputy]++;
	else
		tl->refused[deputy]++;
	tl->not_restored += rec->fsuid_not_restored;

	if (rec->exp_step == rec->act_step &&
	    (rec->exp_step == STEP_DONE || rec->exp_err == rec->act_err))
		return;
	if (tl->mismatches++ >= MAX_LOGGED)
		return;
	describe_state(state, sizeof(state), rec->state, userns);
	describe_outcome(got, sizeof(got), rec->act_step, rec->act_err);
	describe_outcome(want, sizeof(want), rec->exp_step, rec->exp_err);
	TH_LOG("%s target=%s idiom=%s%s: kill file %s, reference %s", state,
	       target_specs[rec->target].name, idiom_names[rec->idiom],
	       rec->fsuid_not_restored ? " (fsuid not restored)" : "",
	       got, want);
}

static void matrix_run(struct __test_metadata *_metadata,
		       struct matrix_ctx *ctx, const struct stat *kill_st,
		       bool userns)
{
	int rec_pipe[2], up[2], down[2], err;
	struct tally tl = { 0 };
	struct record rec;
	unsigned int t;
	struct stat st;
	pid_t runner;

	/* The write end goes to every caller and through exec to deputies. */
	ASSERT_EQ(0, pipe(rec_pipe));
	ASSERT_EQ(0, fcntl(rec_pipe[0], F_SETFD, FD_CLOEXEC));
	ASSERT_EQ(0, pipe2(up, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(down, O_CLOEXEC));
	ctx->rec_fd = rec_pipe[1];

	runner = fork();
	ASSERT_GE(runner, 0);
	if (runner == 0) {
		close(rec_pipe[0]);
		if (userns)
			enter_child_userns(up[1], down[0]);
		run_matrix(ctx);
	}
	close(rec_pipe[1]);
	close(up[1]);
	close(down[0]);

	if (userns) {
		if (read_full(up[0], &err, sizeof(err)))
			err = EIO;
		if (err) {
			child_status(runner);
			SKIP(return, "unshare(CLONE_NEWUSER): %s",
			     strerror(err));
		}
		ASSERT_EQ(0, write_id_map(runner, "uid_map"));
		ASSERT_EQ(0, write_id_map(runner, "gid_map"));
		ASSERT_EQ(1, write(down[1], "m", 1));
	}
	close(up[0]);
	close(down[1]);

	while (!read_full(rec_pipe[0], &rec, sizeof(rec)))
		tally_record(_metadata, &tl, &rec, userns);
	close(rec_pipe[0]);
	ASSERT_EQ(0, child_status(runner));
	if (tl.no_suid)
		SKIP(return, "setuid not honoured in %s", ctx->dir);

	EXPECT_TRUE(tl.summary);
	EXPECT_EQ(NR_STATES, tl.states);
	EXPECT_EQ(0, tl.failed_states);
	EXPECT_EQ(NR_STATES * NR_TARGETS * NR_LOCAL_IDIOMS, tl.cells[0]);
	EXPECT_EQ(NR_STATES * NR_TARGETS, tl.cells[1]);
	/* A matrix where every cell agrees trivially proves nothing. */
	EXPECT_LT(0, tl.succeed[0]);
	EXPECT_LT(0, tl.refused[0]);
	EXPECT_LT(0, tl.succeed[1]);
	EXPECT_LT(0, tl.refused[1]);
	EXPECT_EQ(0, tl.mismatches) {
		TH_LOG("%d of %d cells differ from their reference (%d shown)",
		       tl.mismatches, tl.cells[0] + tl.cells[1],
		       tl.mismatches < MAX_LOGGED ? tl.mismatches :
		       MAX_LOGGED);
	}
	TH_LOG("%d + %d deputy cells, %d to write, %d fsuid not restored",
	       tl.cells[0], tl.cells[1], tl.succeed[0] + tl.succeed[1],
	       tl.not_restored);

	/* The references stood for the kill files all along. */
	for (t = 0; t < NR_TARGETS; t++) {
		ASSERT_EQ(0, stat(ctx->kill_path[t], &st));
		EXPECT_EQ(kill_st[t].st_uid, st.st_uid);
		EXPECT_EQ(kill_st[t].st_gid, st.st_gid);
		EXPECT_EQ(kill_st[t].st_mode, st.st_mode);
	}
}

TEST_F_TIMEOUT(matrix, init_userns, 120)
{
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	matrix_prepare(_metadata, &self->ctx, self->st);
	matrix_run(_metadata, &self->ctx, self->st, false);
}

TEST_F_TIMEOUT(matrix, child_userns, 120)
{
	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	matrix_prepare(_metadata, &self->ctx, self->st);
	matrix_run(_metadata, &self->ctx, self->st, true);
}

static void expect_same_stat(struct __test_metadata *_metadata,
			     const struct stat *a, const struct stat *b)
{
	EXPECT_EQ(a->st_mtim.tv_sec, b->st_mtim.tv_sec);
	EXPECT_EQ(a->st_mtim.tv_nsec, b->st_mtim.tv_nsec);
	EXPECT_EQ(a->st_ctim.tv_sec, b->st_ctim.tv_sec);
	EXPECT_EQ(a->st_ctim.tv_nsec, b->st_ctim.tv_nsec);
	EXPECT_EQ(a->st_size, b->st_size);
	EXPECT_EQ(a->st_mode, b->st_mode);
	EXPECT_EQ(a->st_uid, b->st_uid);
	EXPECT_EQ(a->st_gid, b->st_gid);
}

/*
 * "echo 0 > /proc/<pid>/kill" opens with O_TRUNC: that is no change to
 * the file, whose times, size, mode and owner stay as they were.
 */
TEST(o_trunc_changes_nothing)
{
	/* Longer than a tick, so a changed time would show. */
	struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };
	struct stat before, after, by_name;
	char path[64];
	int keep, fd;
	pid_t pid;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	pid = target_start(&target_specs[TARGET_USER]);
	ASSERT_GT(pid, 0);
	kill_file_path(path, sizeof(path), pid);

	/* Pins the inode: a new one would have new times anyway. */
	keep = open(path, O_PATH | O_CLOEXEC);
	ASSERT_GE(keep, 0);
	ASSERT_EQ(0, fstat(keep, &before));
	ASSERT_EQ(0, nanosleep(&nap, NULL));

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, fstat(keep, &after));
	ASSERT_EQ(0, stat(path, &by_name));
	expect_same_stat(_metadata, &before, &after);
	expect_same_stat(_metadata, &before, &by_name);

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(1, write(fd, "0", 1));
	close(fd);
	close(keep);
	target_stop(pid);
}

/*
 * A target that runs as a set-uid program does (ruid 1000, euid and suid
 * 0) until it is cued to become root entirely. It reports its pending
 * signals when asked.
 */
struct cued_target {
	pid_t pid;
	int cue;
	int answer;
};

static void cued_target_main(int cue, int answer)
{
	unsigned long long pending = 0;
	sigset_t set;
	char c;
	int sig;

	CHILD_CHECK(write(answer, "r", 1) == 1);
	while (!read_full(cue, &c, 1)) {
		if (c == 'r') {
			CHILD_CHECK(setresuid(0, 0, 0) == 0);
			CHILD_CHECK(write(answer, "r", 1) == 1);
			continue;
		}
		CHILD_CHECK(sigpending(&set) == 0);
		for (sig = 1; sig < 64; sig++)
			if (sigismember(&set, sig) == 1)
				pending |= 1ULL << (sig - 1);
		CHILD_CHECK(write(answer, &pending, sizeof(pending)) ==
			    sizeof(pending));
	}
	_exit(0);
}

static int cued_target_start(struct cued_target *t)
{
	pid_t parent = getpid();
	int cue[2], answer[2];
	char c;

	if (pipe2(cue, O_CLOEXEC) || pipe2(answer, O_CLOEXEC))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		block_all_signals();
		close(cue[1]);
		close(answer[0]);
		CHILD_CHECK(setgroups(0, NULL) == 0);
		CHILD_CHECK(setresgid(USER_UID, 0, 0) == 0);
		CHILD_CHECK(setresuid(USER_UID, 0, 0) == 0);
		CHILD_CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == 0);
		CHILD_CHECK(getppid() == parent);
		cued_target_main(cue[0], answer[1]);
	}
	close(cue[0]);
	close(answer[1]);
	t->cue = cue[1];
	t->answer = answer[0];
	return read_full(t->answer, &c, 1);
}

/*
 * A root daemon acting for user 1000 with seteuid(): it opens the
 * target's kill file as that user, then takes root back and writes 15.
 * If the target became root in between, the open's credentials no longer
 * pass and the write fails, although root may signal root.
 */
static void check_daemon(struct __test_metadata *_metadata, bool raise)
{
	unsigned long long sigterm = 1ULL << (SIGTERM - 1), pending;
	struct cued_target t;
	pid_t daemon;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	ASSERT_EQ(0, cued_target_start(&t));

	daemon = fork();
	ASSERT_GE(daemon, 0);
	if (daemon == 0) {
		char path[64], c;
		struct stat st;
		int fd;

		kill_file_path(path, sizeof(path), t.pid);
		CHILD_CHECK(seteuid(USER_UID) == 0);
		CHILD_CHECK(getuid() == 0);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		CHILD_CHECK(fd >= 0);
		/* The owner of the file is the user the target runs for. */
		CHILD_CHECK(fstat(fd, &st) == 0);
		CHILD_CHECK(st.st_uid == USER_UID);
		if (raise) {
			CHILD_CHECK(write(t.cue, "r", 1) == 1);
			CHILD_CHECK(read_full(t.answer, &c, 1) == 0);
		}
		CHILD_CHECK(seteuid(0) == 0);
		errno = 0;
		if (raise)
			CHILD_CHECK(write(fd, "15", 2) == -1 && errno == EPERM);
		else
			CHILD_CHECK(write(fd, "15", 2) == 2);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(daemon));

	ASSERT_EQ(1, write(t.cue, "p", 1));
	ASSERT_EQ(0, read_full(t.answer, &pending, sizeof(pending)));
	/* Refused, the signal must not be there; allowed, it must. */
	EXPECT_EQ(raise ? 0 : sigterm, pending & sigterm);
	close(t.cue);
	close(t.answer);
	target_stop(t.pid);
}

TEST(target_changes_credentials_after_open)
{
	check_daemon(_metadata, true);
}

TEST(target_keeps_credentials_after_open)
{
	check_daemon(_metadata, false);
}

/*
 * The idiom of a set-uid-root program acting on its caller's process:
 * setfsuid(getuid()) for the open, the fs uid restored before the write.
 */
TEST(restore_fsuid_between_open_and_write)
{
	char path[64];
	pid_t pid, child;

	if (!have_kill_files())
		SKIP(return, NO_KILL_FILES);
	if (geteuid() != 0)
		SKIP(return, NEEDS_ROOT);
	pid = target_start(&target_specs[TARGET_USER]);
	ASSERT_GT(pid, 0);
	kill_file_path(path, sizeof(path), pid);

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int fd;

		CHILD_CHECK(setgroups(0, NULL) == 0);
		CHILD_CHECK(setresgid(USER_UID, 0, 0) == 0);
		CHILD_CHECK(setresuid(USER_UID, 0, 0) == 0);
		setfsuid(getuid());
		CHILD_CHECK(setfsuid(-1) == USER_UID);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		CHILD_CHECK(fd >= 0);
		setfsuid(0);
		CHILD_CHECK(setfsuid(-1) == 0);
		CHILD_CHECK(write(fd, "0", 1) == 1);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(child));
	target_stop(pid);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], PROBE_ARG))
		return geteuid() == 0 ? 0 : HELPER_NO_SUID;
	if (argc == (int)(5 + NR_TARGETS) && !strcmp(argv[1], DEPUTY_ARG))
		return deputy_main(argv);
	return test_harness_run(argc, argv);
}
