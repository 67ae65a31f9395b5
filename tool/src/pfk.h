/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfk.h - the library under pfkill: find processes through /proc directory
 * fds (the match step), then signal and wait on exactly those processes
 * through the same fds (the signal step).  The two steps are separate calls
 * so tests can put a PID reuse between them.
 */
#ifndef PFK_H
#define PFK_H

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD			O_EXCL
#endif
#ifndef PIDFD_SIGNAL_THREAD
#define PIDFD_SIGNAL_THREAD		(1UL << 0)
#endif
#ifndef PIDFD_SIGNAL_THREAD_GROUP
#define PIDFD_SIGNAL_THREAD_GROUP	(1UL << 1)
#endif
#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP	(1UL << 2)
#endif

/* A list of numeric ids given on the command line (-u 0,1000 ...). */
struct pfk_ids {
	unsigned long *v;
	size_t n;
};

/* A list of words (--cgroup, --env). */
struct pfk_strs {
	char **v;
	size_t n;
};

enum pfk_pick { PFK_PICK_ALL, PFK_PICK_NEWEST, PFK_PICK_OLDEST };

/* --nslist names, in procps's order; bit i of ns_mask is pfk_ns_names[i]. */
#define PFK_NS_COUNT 8
/*
 * Without --nslist procps (4.0.2 to master) compares its first six:
 * cgroup, ipc, mnt, net, pid, time, and not user or uts.  So do we.
 */
#define PFK_NS_DEFAULT 0x3fu
extern const char *const pfk_ns_names[PFK_NS_COUNT];
int pfk_ns_index(const char *name);			/* -1 if unknown */
int pfk_read_ns(int dirfd, unsigned long long ino[PFK_NS_COUNT]);

/* What to match.  Zeroed means "everything" (pfk_match_init sets proc_fd). */
struct pfk_filter {
	int proc_fd;			/* procfs root to scan, e.g. /proc */
	regex_t pattern;
	bool has_pattern;
	bool full;			/* -f: match the command line */
	bool negate;			/* -v */
	bool threads;			/* --thread / -w: one entry per thread */
	bool thread_tgid_fd;		/* with threads: also hold /proc/<tgid> */
	bool path_dirs;			/* listing: O_PATH directory fds */
	bool by_path;			/* listing of stat, cmdline and the
					 * owner only: no directory fd */
	bool one_thread_stat;		/* with threads, listing: a process
					 * with one thread is listed through
					 * /proc/<pid>, task/ left unread */
	bool include_ancestors;		/* allow our parent chain to match */
	bool drop_ancestors;		/* -A: out before -n/-o pick, as procps */
	bool keep_cmdline;		/* -a: callers want the command line */
	bool keep_argv;			/* -a -Q: the raw argv, NUL-separated */
	bool argv_only;			/* -f listing: a matching command line
					 * is all the caller needs, no stat */
	/*
	 * The caller releases each batch whole, with pfk_scan_release(), and
	 * holds no other fds it opened meanwhile: the scan may then keep the
	 * fds of the files it read (and of candidates that did not match)
	 * and close them with the batch, far fewer system calls.
	 */
	bool defer_close;
	enum pfk_pick pick;		/* -n / -o */
	struct pfk_ids euid, ruid, rgid, pgrp, session, ppid, tty, pid;
	/*
	 * -p PID:N pairs, index by index (a checked identity): N is the
	 * start time, or with ident_ino the pidfs inode (--format pid:inode).
	 */
	struct pfk_ids ident_pid;
	unsigned long long *ident_val;
	bool ident_ino;
	bool want_ino;			/* each match's pidfs inode (p->ino) */
	bool tty_given;			/* -t: even if no name resolved */
	const char *runstates;		/* -r: stat state letters */
	long older;			/* -O: seconds, 0 = off */
	bool ns_given;			/* --ns */
	unsigned int ns_mask;		/* --nslist, default PFK_NS_DEFAULT */
	unsigned long long ns_ref[PFK_NS_COUNT];
	struct pfk_strs cgroup, env;	/* --cgroup, --env */
	/*
	 * -U, -G: the kernel has ioctl(PIDFD_GET_INFO) and proc_fd is of our
	 * pid namespace (pfk_procfs_is_ours()): read a process's ids with
	 * it, not from status.
	 */
	bool ids_by_pidfd;
	/*
	 * -P with argv_only, on the same terms: the parent from that pidfd,
	 * so that a match's stat stays unread.
	 */
	bool ppid_by_pidfd;
	int handler_sig;		/* -H: SigCgt must hold it; 0 = off */
#define PFK_NO_HANDLER 65		/* -H with signal 0: nothing matches */
#define PFK_STAT_SIGS 31		/* -H up to it reads stat, not status */
};

enum pfk_result {
	PFK_MATCHED,		/* matched, not signaled (yet) */
	PFK_SIGNALED,		/* the signal was delivered to this process */
	PFK_GONE,		/* it exited before the signal: nobody signaled */
	PFK_DENIED,		/* EPERM */
	PFK_FAILED,		/* any other error, errno kept in ->err */
	PFK_EXITED,		/* --wait: signaled and then exited */
	PFK_ESCALATED,		/* --then signal delivered */
	PFK_ALIVE,		/* --timeout expired and it still runs */
};

/*
 * What few matches need: a name of 16 bytes or more (a workqueue worker's
 * "kworker/0:1H-kblockd"), the command line (-a), the pidfs inode
 * (--format pid:inode), the group leader's fd (--pgroup).  Allocated on
 * first use (pfk_proc_extra()), freed with the process's record.
 */
struct pfk_proc_extra {
	char *long_name;		/* the name, escaped */
	char *cmdline;			/* only with filter->keep_cmdline */
	unsigned long long ino;		/* pidfs inode of ->pidfd; 0: not known */
	unsigned int argv_len;		/* with keep_argv: raw argv bytes */
	int group_fd;			/* --pgroup: dirfd of the group leader */
};

/*
 * One matched process (or thread), held by its /proc directory fd.  Kill
 * mode with -e, --json, --wait and the like holds one of these for every
 * match at once (it signals after the whole scan, as pkill does; plain
 * kill mode keeps only the fd and the pid), so it is kept to 64 bytes:
 * what every match needs inline, the rest behind ->x, NULL for most.  A
 * record must start zeroed but for its fds (-1); pfk_proc_release()
 * frees it.
 */
struct pfk_proc {
	int dirfd;			/* /proc/<pid> or /proc/<tgid>/task/<tid> */
	int pidfd;			/* pidfd for --wait / thread signals, or -1 */
	int tgid_fd;			/* -w kill mode: /proc/<tgid>, or -1 */
	pid_t pid;			/* the tid with --thread */
	pid_t tgid;
	pid_t pgrp;
	int exit_status;		/* as wait(2) encodes it, if has_status */
	unsigned int err : 12;		/* errno (Linux's all fit in 12 bits) */
	unsigned int result : 4;	/* enum pfk_result */
	unsigned int state : 8;		/* stat field 3: R S D Z T ... */
	unsigned int escalated : 1;	/* --then: the second signal reached it */
	unsigned int has_status : 1;	/* pfk_wait() read how it ended */
	unsigned int wait_failed : 1;	/* pfk_wait() could not hold it (->err) */
	unsigned long long starttime;	/* clock ticks after boot, stat field 22 */
	struct pfk_proc_extra *x;	/* the rarely needed rest, or NULL */
	char name[16];			/* comm, escaped as procps shows it, if
					 * under 16 bytes (else x->long_name) */
};

/* p->x, allocated (zeroed, group_fd -1) if there is none yet; NULL: ENOMEM. */
struct pfk_proc_extra *pfk_proc_extra(struct pfk_proc *p);

/* Free p->x and close what it holds; p's own fds stay open. */
void pfk_proc_free_extra(struct pfk_proc *p);

/* The name (comm, up to 63 bytes, escaped), wherever it is kept. */
static inline const char *pfk_proc_name(const struct pfk_proc *p)
{
	return p->x && p->x->long_name ? p->x->long_name : p->name;
}

/* The command line kept for -a, or NULL. */
static inline const char *pfk_proc_cmdline(const struct pfk_proc *p)
{
	return p->x ? p->x->cmdline : NULL;
}

/* The pidfs inode of p->pidfd, 0 if not known. */
static inline unsigned long long pfk_proc_ino(const struct pfk_proc *p)
{
	return p->x ? p->x->ino : 0;
}

/* Features of the running kernel, probed once. */
struct pfk_features {
	bool procfd_signal;	/* pidfd_send_signal() on /proc/<pid> (5.1) */
	bool pidfd_open;	/* pidfd_open() (5.3) */
	bool pidfd_thread;	/* pidfd_open(tid, PIDFD_THREAD) */
	bool signal_flags;	/* PIDFD_SIGNAL_THREAD/_THREAD_GROUP/_PROCESS_GROUP */
	bool taskfd_signal;	/* /proc/<pid>/task/<tid> fds are thread handles */
	bool mrelease;		/* process_mrelease() (5.15) */
	bool pidfd_info;	/* ioctl(PIDFD_GET_INFO) on pidfds (6.13) */
	bool pidfs;		/* pidfds are pidfs files: st_ino names one
				 * process for the whole boot (6.9) */
};

/* statfs(2) f_type of a pidfd on a kernel with pidfs (PID_FS_MAGIC). */
#define PFK_PIDFS_MAGIC 0x50494446

void pfk_probe_features(struct pfk_features *f);

/* --- match step --- */

struct pfk_scan;

void pfk_filter_init(struct pfk_filter *flt, int proc_fd);
void pfk_filter_free(struct pfk_filter *flt);

/*
 * Start a walk over flt->proc_fd.  Returns NULL with errno set on failure.
 * The filter must outlive the scan.
 */
struct pfk_scan *pfk_scan_open(const struct pfk_filter *flt);

/*
 * Fill up to max entries of out[] with matching processes, each holding an
 * open dirfd.  Returns how many, 0 when the walk is done, -1 on error.
 * Out of fds (or memory) midway, it returns the batch so far, short of
 * max, and examines that candidate again in the next call; with no batch
 * held it retries once and then counts the candidate as unexamined.
 */
ssize_t pfk_scan_next(struct pfk_scan *scan, struct pfk_proc *out, size_t max);
void pfk_scan_close(struct pfk_scan *scan);

/*
 * The caller still holds n handles of batches it took (kill mode keeps
 * them until the scan is done).  Out of fds or memory, pfk_scan_next()
 * then returns even an empty batch, the walk not done, so that the
 * caller can release those and call again.
 */
void pfk_scan_hold(struct pfk_scan *scan, size_t n);

/*
 * Only what existed when the walk began is matched: a process (or
 * thread) whose start time is a later clock tick than pfk_scan_open()'s
 * is not (see procmatch.c).  A caller that acts on a batch before the
 * walk is done calls this first: it returns once that tick is over (at
 * most a tick, 10 ms), so what its acts make be born is never matched.
 */
void pfk_scan_settle(const struct pfk_scan *scan);

/* True once the walk has seen every candidate. */
bool pfk_scan_done(const struct pfk_scan *scan);

/* Processes that matched but were left out as our ancestors. */
size_t pfk_scan_ancestor_hits(const struct pfk_scan *scan);

/*
 * Running out of fds or memory says nothing about a process: such an
 * error is never taken for "it exited".
 */
static inline bool pfk_resource_error(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM;
}

/*
 * Candidates the scan could not examine, even retried with the batch
 * released (see pfk_scan_next()); *err the last such errno.  They were
 * neither matched nor skipped: the caller's result is incomplete.
 */
size_t pfk_scan_unexamined(const struct pfk_scan *scan, int *err);

/*
 * procps 4.0.7's output escaping (library/escape.c), by the codeset of
 * LC_CTYPE: in UTF-8 every byte of a control character (C0, DEL, C1) or
 * of a sequence that is not well-formed becomes '?', the rest is kept;
 * in every other locale controls, DEL and bytes from 0x80 up become '?'.
 * In place, same length.
 */
void pfk_escape(char *s, size_t len);


/*
 * Read <dir>/stat into the identity fields of p (name, ppid ...).  p must
 * be initialized (p->x NULL or its own); a long name goes to p->x:
 * pfk_proc_release(), or pfk_proc_free_extra().
 */
int pfk_read_stat(int dirfd, struct pfk_proc *p, pid_t *ppid, pid_t *session,
		  unsigned long *tty);

void pfk_proc_release(struct pfk_proc *p);

/*
 * Does the procfs at proc_fd show our own pid namespace, whose numbers
 * pidfd_open() takes?  Only then can a number read there be opened.
 */
bool pfk_procfs_is_ours(int proc_fd);

/*
 * Release a batch pfk_scan_next() returned (as pfk_proc_release() each),
 * closing its fds, and those the scan deferred, in runs (close_range()).
 */
void pfk_scan_release(struct pfk_scan *scan, struct pfk_proc *procs, size_t n);

/* --- signal step --- */

enum pfk_scope {
	PFK_SCOPE_PROCESS,	/* the whole thread group */
	PFK_SCOPE_THREAD,	/* the one thread (--thread) */
	PFK_SCOPE_PGROUP,	/* the process group the process is in */
};

/*
 * Send sig to p through its handle.  Sets and returns p->result.  Never
 * uses kill(2): a process that has exited is PFK_GONE, whoever got its PID.
 */
enum pfk_result pfk_signal(struct pfk_proc *p, int sig, enum pfk_scope scope,
			   const struct pfk_features *feat);

/* The same with a siginfo (-q: SI_QUEUE and a value), NULL for none. */
enum pfk_result pfk_signal_info(struct pfk_proc *p, int sig, siginfo_t *info,
				enum pfk_scope scope,
				const struct pfk_features *feat);

/*
 * Wait until every process in procs[] whose result is PFK_MATCHED,
 * PFK_SIGNALED or PFK_ESCALATED has exited (result becomes PFK_EXITED;
 * PFK_GONE for a match that had gone before we could look), or timeout_ms
 * passes (-1: forever).  Returns how many are still alive.  One it could
 * not get a pidfd for is PFK_FAILED with wait_failed and err set.  Processes
 * (not threads) seen to exit get their exit status where the kernel has
 * it (see pfk_pidfd_status()).
 */
size_t pfk_wait(struct pfk_proc *procs, size_t n, long timeout_ms,
		enum pfk_scope scope, const struct pfk_features *feat);

/*
 * Hold a pidfd for p (as pfk_wait() would open it) from now on: 0, or -1
 * with errno (ESRCH: gone).  The kernel keeps an exit status only for a
 * process that had a pidfd when it was reaped, so --wait opens it before
 * it signals.
 */
int pfk_open_pidfd(struct pfk_proc *p, enum pfk_scope scope);

/*
 * --format pid:inode: hold p's process by a pidfd (pfk_open_pidfd()) and
 * set p->ino to that pidfd's inode, so a check of the inode and the
 * signal are on one handle.  Only where feat->pidfs: elsewhere every
 * pidfd has one shared inode.  0, or -1 with errno (ESRCH: gone).
 */
int pfk_open_ident(struct pfk_proc *p);

/* The ids status shows: Uid's real and effective, Gid's real; PPid. */
struct pfk_cred {
	unsigned long ruid, euid, rgid;
	pid_t ppid;
};

/*
 * pidfd_open(pid, 0): a pidfd for whichever process has that number
 * now.  The caller must prove that it is the one it means (procmatch.c:
 * a read through its /proc handle afterwards).  -1 with errno on error.
 */
int pfk_pidfd_open(pid_t pid);

/*
 * The ids of the process behind pidfd, as status shows them (mapped
 * into our user and pid namespaces), with ioctl(PIDFD_GET_INFO)
 * (Linux 6.13).
 * 0, or -1 with errno (ESRCH: reaped).
 */
int pfk_pidfd_cred(int pidfd, struct pfk_cred *c);

/*
 * How the process behind pidfd ended, as wait(2) encodes it, read with
 * ioctl(PIDFD_GET_INFO, PIDFD_INFO_EXIT) (Linux 6.15; the kernel records
 * it when the process is reaped, by whichever parent).  0, or -1 with
 * errno: ENODATA not reaped yet (or a kernel that keeps no status, 6.13
 * and 6.14, while it is still there), ESRCH reaped without a status kept,
 * ENOTTY or EINVAL no such ioctl.
 */
int pfk_pidfd_status(int pidfd, int *status);

/*
 * With feat->pidfd_info, pfk_wait() sets has_status and exit_status of
 * each process it saw exit; a process not yet reaped by its parent is
 * given this long more (its pidfd reports POLLHUP when it is reaped).
 */
#define PFK_STATUS_GRACE_MS 200

/*
 * -m: release the memory of p, which we have sent SIGKILL, through a
 * pidfd checked against p's handle.  0, or -1 with errno (ESRCH: gone).
 */
int pfk_mrelease(struct pfk_proc *p);

const char *pfk_result_name(enum pfk_result r);

/* --- parsing helpers shared by the CLI and the tests --- */

/*
 * What procps's signal_name_to_number() makes of s: >= 0 for a word
 * procps takes as a signal (that may still be out of range), else -1.
 */
int pfk_signal_word(const char *s);
int pfk_parse_signal(const char *s);			/* -1 if invalid */
const char *pfk_signal_name(int sig);			/* "TERM", or NULL */
int pfk_parse_ulong(const char *s, unsigned long max, unsigned long *out);
int pfk_parse_long(const char *s, long *out);	/* procps strict_atol */
int pfk_parse_duration_ms(const char *s, long *ms);	/* "5", "1.5s", "200ms" */
/*
 * "PID:N", as util-linux's ul_parse_pid_str() takes PID:inode: a PID
 * from 1 up, then decimal digits only.  0, or -1 if malformed.  Whether
 * N may be 0 (a start time may, an inode never) is the caller's rule.
 */
int pfk_parse_ident(const char *s, unsigned long *pid, unsigned long long *n);
int pfk_lookup_user(const char *s, unsigned long *uid);
int pfk_lookup_group(const char *s, unsigned long *gid);
int pfk_lookup_tty(const char *s, unsigned long *tty_nr);
int pfk_ids_add(struct pfk_ids *ids, unsigned long id);
bool pfk_ids_has(const struct pfk_ids *ids, unsigned long id);
int pfk_strs_add(struct pfk_strs *l, const char *s);

#endif
