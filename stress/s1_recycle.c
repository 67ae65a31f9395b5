// SPDX-License-Identifier: GPL-2.0
/*
 * PID-recycling storm. In a fresh pid namespace with a small pid_max, a
 * hub (PID 1 there) keeps a few short-lived target processes running;
 * one signaler thread per method holds handles to targets long after
 * they exited (long enough for the PID to come round again) and keeps
 * signaling through them. Each method uses its own signal number.
 *
 * Verification is on the receiving side: every target knows its
 * generation g; a signaler bumps aimed[g][method] before each send, the
 * target's handler bumps recv[g][method] and counts a wrong delivery
 * when recv exceeds aimed (a signal nobody aimed at it), and every
 * other process of the namespace (the hub) counts any storm signal as a
 * stray. On the sending side a send through a handle that returns 0
 * after the hub reaped the target is a failure too (it went somewhere).
 *
 * kill(2) must show wrong deliveries (the race); pidfd_send_signal on a
 * pidfd and on a /proc/<pid> fd, /proc/<pid>/kill and pfkill must not.
 *
 * Parameters (kernel command line, pidfd.stress_<name>=N):
 *   attempts  sends per method before stopping, once PIDs wrapped 10
 *             times (100000)
 *   storm_seconds  upper bound on the storm (180)
 *   pid_max   global pid_max during the storm (512: PIDs 300-511 cycle)
 *   targets   live targets kept running (24)
 *   hold      handles each signaler holds (48)
 *   life_us   a target lives a random time below this (10000)
 *   pace_us   pause of a signaler after each pass over its handles (50000)
 */
#include "stress.h"
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <spawn.h>

enum { M_KILL, M_PIDFD, M_PROCFD, M_KILLFILE, M_PFKILL, NMETHODS };
static const char *const method_name[NMETHODS] = {
	"recycle:kill(2)", "recycle:pidfd_send_signal(pidfd)",
	"recycle:pidfd_send_signal(/proc/<pid> fd)",
	"recycle:/proc/<pid>/kill", "recycle:pfkill",
};
#define SIGBASE	40	/* method m signals with SIGBASE + m (real-time: queued) */
#define RING	(1 << 16)	/* generations kept; handles die long before */
#define MAXSLOTS 256
#define PFKILL	"/tests/tool/bin/pfkill"

struct stats {
	atomic_long attempts, ok, esrch, other, late_ok, recv, wrong, stray;
	atomic_int first_errno;
};

struct shm {
	atomic_int stop;
	atomic_long forks;
	atomic_long slot_gen[MAXSLOTS];		/* -1: empty */
	atomic_uchar reaped[RING];
	atomic_int aimed[RING][NMETHODS];
	atomic_int recv[RING][NMETHODS];
	struct stats st[NMETHODS];
};

struct slot {
	pthread_mutex_t lock;
	long gen;		/* -1: empty */
	pid_t pid;
	int fd[NMETHODS];	/* pidfd, /proc dir, kill file; -1 if n/a */
};

static struct shm *shm;
static struct slot slots[MAXSLOTS];
static int nslots, pid_max, nhandles;
static long want_attempts, pace_us, life_us;
static struct features feat;
static long my_gen = -1;	/* the hub: -1; a target: its generation */

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	int m = sig - SIGBASE;
	long g = my_gen;

	(void)si;
	(void)ctx;
	if (m < 0 || m >= NMETHODS)
		return;
	atomic_fetch_add(&shm->st[m].recv, 1);
	if (g < 0) {
		atomic_fetch_add(&shm->st[m].stray, 1);
		return;
	}
	if (atomic_fetch_add(&shm->recv[g % RING][m], 1) + 1 >
	    atomic_load(&shm->aimed[g % RING][m]))
		atomic_fetch_add(&shm->st[m].wrong, 1);
}

static int method_available(int m)
{
	if (m == M_KILLFILE)
		return feat.killfile;
	if (m == M_PFKILL)
		return access(PFKILL, X_OK) == 0;
	return 1;
}

/* Fork one target into slot s (hub, storm signals blocked). */
static void spawn_target(int s)
{
	long g = atomic_fetch_add(&shm->forks, 1);
	struct slot *sl = &slots[s];
	char path[64];
	sigset_t none;
	pid_t pid;
	int m;

	for (m = 0; m < NMETHODS; m++) {
		atomic_store(&shm->aimed[g % RING][m], 0);
		atomic_store(&shm->recv[g % RING][m], 0);
	}
	atomic_store(&shm->reaped[g % RING], 0);
	pid = fork();
	if (pid == 0) {
		uint64_t seed = rnd_seed();
		/*
		 * One in 32 lives up to a second: pfkill (exec, scan of /proc)
		 * takes longer than the others live; it aims at these.
		 */
		long us = g % 32 ? (long)(rnd(&seed) % life_us) :
				   500000 + (long)(rnd(&seed) % 500000);
		struct timespec ts = { us / 1000000, 1000 * (us % 1000000) };

		my_gen = g;
		snprintf(path, sizeof(path), "t%ld", g);
		prctl(PR_SET_NAME, path);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		_exit(0);
	}
	if (pid < 0) {
		usleep(1000);
		return;
	}
	/* Not reaped yet: opening by number is race-free here. */
	pthread_mutex_lock(&sl->lock);
	sl->gen = g;
	sl->pid = pid;
	sl->fd[M_KILL] = -1;
	sl->fd[M_PFKILL] = -1;
	sl->fd[M_PIDFD] = sys_pidfd_open(pid, 0);
	snprintf(path, sizeof(path), "/proc/%d", pid);
	sl->fd[M_PROCFD] = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	sl->fd[M_KILLFILE] = -1;
	if (feat.killfile) {
		/* The directory: its kill file is opened per send (one write each). */
		sl->fd[M_KILLFILE] = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	pthread_mutex_unlock(&sl->lock);
	atomic_store(&shm->slot_gen[s], g);
}

static void reap_target(pid_t pid)
{
	int s, m;

	for (s = 0; s < nslots; s++) {
		struct slot *sl = &slots[s];

		if (sl->gen < 0 || sl->pid != pid)
			continue;
		atomic_store(&shm->slot_gen[s], -1);
		pthread_mutex_lock(&sl->lock);
		atomic_store(&shm->reaped[sl->gen % RING], 1);
		for (m = 0; m < NMETHODS; m++)
			if (sl->fd[m] >= 0)
				close(sl->fd[m]);
		sl->gen = -1;
		pthread_mutex_unlock(&sl->lock);
		return;
	}
}

struct handle {
	long gen, since;	/* generation; fork count when taken */
	pid_t pid;
	int fd;
};

static int take_handle(int m, struct handle *h, uint64_t *seed)
{
	struct slot *sl = &slots[rnd(seed) % nslots];
	int ok = 0;

	pthread_mutex_lock(&sl->lock);
	if (sl->gen >= 0 && !atomic_load(&shm->reaped[sl->gen % RING])) {
		h->gen = sl->gen;
		h->pid = sl->pid;
		h->fd = -1;
		ok = m == M_KILL || (sl->fd[m] >= 0 &&
				     (h->fd = fcntl(sl->fd[m], F_DUPFD_CLOEXEC, 0)) >= 0);
	}
	pthread_mutex_unlock(&sl->lock);
	h->since = atomic_load(&shm->forks);
	return ok;
}

static void *signaler(void *arg)
{
	int m = (long)arg, sig = SIGBASE + m, j;
	struct stats *st = &shm->st[m];
	struct handle *hs = calloc(nhandles, sizeof(*hs));
	uint64_t seed = rnd_seed();
	/* After a wrap, PIDs below 300 (RESERVED_PIDS) are not handed out. */
	long cycle = pid_max > 400 ? pid_max - 300 : pid_max;

	for (j = 0; j < nhandles; j++) {
		hs[j].gen = -1;
		hs[j].fd = -1;
	}
	while (!atomic_load(&shm->stop)) {
		for (j = 0; j < nhandles && !atomic_load(&shm->stop); j++) {
			struct handle *h = &hs[j];
			int was_reaped, r;
			long g;

			/* Hold a handle until its PID has had time to wrap. */
			if (h->gen < 0 || atomic_load(&shm->forks) - h->since >
					  cycle + (long)(rnd(&seed) % cycle)) {
				if (h->fd >= 0)
					close(h->fd);
				h->fd = -1;
				h->gen = -1;
				if (!take_handle(m, h, &seed)) {
					h->gen = -1;
					continue;
				}
			}
			g = h->gen;
			atomic_fetch_add(&shm->aimed[g % RING][m], 1);
			was_reaped = atomic_load(&shm->reaped[g % RING]);
			switch (m) {
			case M_KILL:
				r = kill(h->pid, sig);
				break;
			case M_KILLFILE:
				r = killat_send(h->fd, sig);
				break;
			default:
				r = sys_pidfd_send_signal(h->fd, sig, NULL, 0);
			}
			atomic_fetch_add(&st->attempts, 1);
			if (r == 0) {
				atomic_fetch_add(&st->ok, 1);
				if (was_reaped && m != M_KILL)
					atomic_fetch_add(&st->late_ok, 1);
			} else if (errno == ESRCH) {
				atomic_fetch_add(&st->esrch, 1);
			} else {
				int zero = 0;

				atomic_fetch_add(&st->other, 1);
				atomic_compare_exchange_strong(&st->first_errno,
							       &zero, errno);
			}
		}
		/* Leave the CPUs to the forks: PIDs must come round. */
		usleep(pace_us);
	}
	return NULL;
}

/* A child of the hub that runs pfkill against live targets by name. */
static void pfkill_runner(void)
{
	uint64_t seed = rnd_seed();
	struct stats *st = &shm->st[M_PFKILL];
	extern char **environ;
	posix_spawn_file_actions_t fa;
	sigset_t none;

	/* pfkill reports targets that exited before it signaled: expected. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (!atomic_load(&shm->stop)) {
		long g = atomic_load(&shm->slot_gen[rnd(&seed) % nslots]);
		char sig[16], name[32];
		char *argv[] = { PFKILL, sig, "-x", name, NULL };
		pid_t pid;
		int status;

		if (g < 0 || g % 32 || atomic_load(&shm->reaped[g % RING])) {
			usleep(2000);
			continue;
		}
		snprintf(sig, sizeof(sig), "-%d", SIGBASE + M_PFKILL);
		snprintf(name, sizeof(name), "t%ld", g);
		atomic_fetch_add(&shm->aimed[g % RING][M_PFKILL], 1);
		if (posix_spawn(&pid, PFKILL, &fa, NULL, argv, environ))
			break;
		if (waitpid(pid, &status, 0) != pid)
			break;
		atomic_fetch_add(&st->attempts, 1);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			atomic_fetch_add(&st->ok, 1);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			atomic_fetch_add(&st->esrch, 1);	/* no match: gone */
		else
			atomic_fetch_add(&st->other, 1);
	}
	_exit(0);
}

static long min_fd_attempts(void)
{
	long min = -1;
	int m;

	for (m = M_PIDFD; m <= M_KILLFILE; m++) {
		long a = atomic_load(&shm->st[m].attempts);

		if (method_available(m) && (min < 0 || a < min))
			min = a;
	}
	if (atomic_load(&shm->st[M_KILL].attempts) < min)
		min = atomic_load(&shm->st[M_KILL].attempts);
	return min;
}

static int hub(double seconds)
{
	pthread_t th[NMETHODS];
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	sigset_t storm;
	double start = now_s(), last = start;
	pid_t runner = -1;
	int m, s, failed = 0;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", 0, NULL)) {
		perror("mount /proc in the new namespaces");
		return 1;
	}
	sigemptyset(&storm);
	for (m = 0; m < NMETHODS; m++) {
		sigaction(SIGBASE + m, &sa, NULL);
		sigaddset(&storm, SIGBASE + m);
	}
	for (s = 0; s < nslots; s++) {
		pthread_mutex_init(&slots[s].lock, NULL);
		slots[s].gen = -1;
		atomic_store(&shm->slot_gen[s], -1);
	}
	/* The hub's own threads handle strays; the spawner blocks them. */
	for (m = 0; m < NMETHODS; m++)
		if (m != M_PFKILL && method_available(m))
			pthread_create(&th[m], NULL, signaler, (void *)(long)m);
	pthread_sigmask(SIG_BLOCK, &storm, NULL);
	if (method_available(M_PFKILL)) {
		runner = fork();
		if (runner == 0)
			pfkill_runner();
	}

	for (s = 0; s < nslots; s++)
		spawn_target(s);
	while (!atomic_load(&shm->stop)) {
		siginfo_t si = { 0 };
		double t = now_s();

		if (waitid(P_ALL, 0, &si, WEXITED) == 0 && si.si_pid != runner) {
			reap_target(si.si_pid);
			for (s = 0; s < nslots; s++)
				if (slots[s].gen < 0)
					spawn_target(s);
		}
		if (t - last >= 10) {
			last = t;
			printf("# %.0f s: %ld forks; attempts kill %ld pidfd %ld procfd %ld killfile %ld pfkill %ld\n",
			       t - start, atomic_load(&shm->forks),
			       atomic_load(&shm->st[M_KILL].attempts),
			       atomic_load(&shm->st[M_PIDFD].attempts),
			       atomic_load(&shm->st[M_PROCFD].attempts),
			       atomic_load(&shm->st[M_KILLFILE].attempts),
			       atomic_load(&shm->st[M_PFKILL].attempts));
			fflush(stdout);
		}
		/* Enough sends, and enough forks for PIDs to wrap ten times. */
		if (t - start >= seconds ||
		    (min_fd_attempts() >= want_attempts &&
		     atomic_load(&shm->forks) >= 10 * (pid_max > 400 ? pid_max - 300 : pid_max)))
			atomic_store(&shm->stop, 1);
	}
	for (m = 0; m < NMETHODS; m++)
		if (m != M_PFKILL && method_available(m))
			pthread_join(th[m], NULL);
	while (wait(NULL) > 0)	/* targets live a few ms; the runner stops */
		;
	printf("# storm: %.1f s, %ld forks, pid_max %d, %d targets, %d handles per signaler\n",
	       now_s() - start, atomic_load(&shm->forks), pid_max, nslots,
	       nhandles);
	for (m = 0; m < NMETHODS; m++) {
		struct stats *st = &shm->st[m];
		long fails = atomic_load(&st->wrong) + atomic_load(&st->stray) +
			     atomic_load(&st->late_ok);

		if (!method_available(m)) {
			row(method_name[m], -1, 0, "-", "not in this kernel");
			continue;
		}
		printf("# %s: attempts %ld ok %ld esrch %ld other %ld (first errno %d) late-ok %ld received %ld wrong %ld stray %ld\n",
		       method_name[m], atomic_load(&st->attempts),
		       atomic_load(&st->ok), atomic_load(&st->esrch),
		       atomic_load(&st->other), atomic_load(&st->first_errno),
		       atomic_load(&st->late_ok), atomic_load(&st->recv),
		       atomic_load(&st->wrong), atomic_load(&st->stray));
		if (m == M_KILL) {
			row(method_name[m], atomic_load(&st->attempts), fails, "-",
			    fails ? "expected > 0: the PID-reuse race" :
				    "race not reproduced (more attempts?)");
		} else {
			row(method_name[m], atomic_load(&st->attempts), fails, "-",
			    "%ld delivered, %ld ESRCH", atomic_load(&st->recv),
			    atomic_load(&st->esrch));
			if (fails)
				failed = 1;
		}
	}
	return failed;
}

int main(void)
{
	double seconds = param("storm_seconds", 180);
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	char old_max[32] = "", buf[32];
	int fd, status;
	pid_t child;

	setvbuf(stdout, NULL, _IOLBF, 0);
	want_attempts = param("attempts", 100000);
	pid_max = param("pid_max", 512);
	nslots = param("targets", 24);
	pace_us = param("pace_us", 50000);
	life_us = param("life_us", 10000);
	if (life_us < 1 || life_us > 999999)
		life_us = 10000;
	nhandles = param("hold", 48);
	if (nslots < 1 || nslots > MAXSLOTS)
		nslots = 24;
	probe_features(&feat);
	shm = shared(sizeof(*shm));
	setrlimit(RLIMIT_SIGPENDING, &rl);

	fd = open("/proc/sys/kernel/pid_max", O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, old_max, sizeof(old_max) - 1);

		old_max[n > 0 ? n : 0] = 0;
		close(fd);
	}
	snprintf(buf, sizeof(buf), "%d", pid_max);
	if (write_str("/proc/sys/kernel/pid_max", buf))
		printf("# cannot set pid_max to %d: %s\n", pid_max, strerror(errno));
	printf("# storm: up to %ld attempts per method or %.0f s, pid_max %d\n",
	       want_attempts, seconds, pid_max);

	if (unshare(CLONE_NEWPID | CLONE_NEWNS)) {
		perror("unshare");
		return 1;
	}
	child = fork();
	if (child == 0)
		_exit(hub(seconds));
	waitpid(child, &status, 0);
	if (old_max[0])
		write_str("/proc/sys/kernel/pid_max", old_max);
	if (!WIFEXITED(status)) {
		printf("# hub died: status %#x\n", status);
		return 1;
	}
	return WEXITSTATUS(status);
}
