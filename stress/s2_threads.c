// SPDX-License-Identifier: GPL-2.0
/*
 * Threads and process groups under churn, verified on the receiving side
 * (aimed/received counters per target, as in s1_recycle.c):
 *
 * threads   worker threads come and go; each opens handles on itself
 *           (PIDFD_THREAD pidfd, /proc/self/task/<tid> fd, its task kill
 *           file) and publishes them; signaler threads hold them past the
 *           thread's exit. A thread-directed signal handled by any other
 *           thread (or lost to the group) is a wrong delivery.
 * exec      a child with several threads; the parent holds thread
 *           handles on each; one non-leader thread execs while the parent
 *           signals. The new image may receive only what was aimed at the
 *           leader or at the exec'ing thread; a send through the handle of
 *           a thread that is gone must fail with ESRCH.
 * pgroup    group leaders and members that setpgid() between groups and
 *           exit; signals to each group through PIDFD_SIGNAL_PROCESS_GROUP
 *           on the leader's pidfd. A member may receive a group's signal
 *           only if it set out to join that group at some point.
 *
 * Parameter: pidfd.stress_thread_seconds=N (default 60): threads take half of
 * it, exec and pgroup a quarter each.
 */
#include "stress.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#define SIGT	40	/* thread part: SIGT + method */
enum { T_PIDFD, T_TASKFD, T_TASKKILL, NT };
static const char *const tname[NT] = {
	"threads:PIDFD_THREAD pidfd", "threads:/proc/<pid>/task/<tid> fd",
	"threads:/proc/<pid>/task/<tid>/kill",
};
#define RING	(1 << 16)
#define NSLOTS	16

struct counters {
	atomic_long attempts, ok, esrch, other, wrong, stray, recv, late_ok;
};

static struct features feat;

/* ------------------------------------------------------------------ */
/* Part 1: thread handles against exiting threads.                    */

static struct {
	atomic_int aimed[RING][NT], recv[RING][NT];
	struct counters c[NT];
	atomic_long gens;
	atomic_int stop;
} *T;

static struct tslot {
	pthread_mutex_t lock;
	long gen;
	int fd[NT];
} tslots[NSLOTS];

static __thread long my_tgen = -1;

static void on_thread_signal(int sig, siginfo_t *si, void *ctx)
{
	int m = sig - SIGT;
	long g = my_tgen;

	(void)si;
	(void)ctx;
	if (m < 0 || m >= NT)
		return;
	atomic_fetch_add(&T->c[m].recv, 1);
	if (g < 0)
		atomic_fetch_add(&T->c[m].stray, 1);
	else if (atomic_fetch_add(&T->recv[g % RING][m], 1) + 1 >
		 atomic_load(&T->aimed[g % RING][m]))
		atomic_fetch_add(&T->c[m].wrong, 1);
}

static int tmethod_ok(int m)
{
	return m == T_PIDFD ? feat.thread_pidfd :
	       m == T_TASKFD ? feat.taskfd : feat.taskkill;
}

static void *worker(void *arg)
{
	struct tslot *sl = &tslots[(long)arg];
	uint64_t seed = rnd_seed();
	long g = atomic_fetch_add(&T->gens, 1);
	struct timespec ts = { 0, 1000 * (rnd(&seed) % 2000) };
	char path[96];
	int m;

	for (m = 0; m < NT; m++) {
		atomic_store(&T->aimed[g % RING][m], 0);
		atomic_store(&T->recv[g % RING][m], 0);
	}
	my_tgen = g;
	pthread_mutex_lock(&sl->lock);
	sl->gen = g;
	sl->fd[T_PIDFD] = feat.thread_pidfd ?
		sys_pidfd_open(sys_gettid(), PIDFD_THREAD) : -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", getpid(), sys_gettid());
	sl->fd[T_TASKFD] = feat.taskfd ?
		open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	/* The task directory: its kill file is opened per send (one write each). */
	sl->fd[T_TASKKILL] = feat.taskkill ?
		open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	pthread_mutex_unlock(&sl->lock);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	pthread_mutex_lock(&sl->lock);
	for (m = 0; m < NT; m++)
		if (sl->fd[m] >= 0)
			close(sl->fd[m]);
	sl->gen = -1;
	pthread_mutex_unlock(&sl->lock);
	/* Stay a little while with signals unblocked, then exit. */
	return NULL;
}

static void *spawner(void *arg)
{
	long s = (long)arg;

	while (!atomic_load(&T->stop)) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, (void *)s))
			break;
		pthread_join(t, NULL);
	}
	return NULL;
}

struct thandle { long gen; int fd; int uses; };

static void *tsignaler(void *arg)
{
	int m = (long)arg, j;
	uint64_t seed = rnd_seed();
	struct thandle h[32];

	memset(h, 0, sizeof(h));
	for (j = 0; j < 32; j++)
		h[j].fd = -1;
	while (!atomic_load(&T->stop)) {
		for (j = 0; j < 32; j++) {
			struct tslot *sl;
			int r;

			if (h[j].fd < 0 || h[j].uses-- <= 0) {
				if (h[j].fd >= 0)
					close(h[j].fd);
				h[j].fd = -1;
				sl = &tslots[rnd(&seed) % NSLOTS];
				pthread_mutex_lock(&sl->lock);
				if (sl->gen >= 0 && sl->fd[m] >= 0) {
					h[j].gen = sl->gen;
					h[j].fd = fcntl(sl->fd[m], F_DUPFD_CLOEXEC, 0);
					h[j].uses = 20 + rnd(&seed) % 200;
				}
				pthread_mutex_unlock(&sl->lock);
				if (h[j].fd < 0)
					continue;
			}
			atomic_fetch_add(&T->aimed[h[j].gen % RING][m], 1);
			if (m == T_TASKKILL)
				r = killat_send(h[j].fd, SIGT + m);
			else
				r = sys_pidfd_send_signal(h[j].fd, SIGT + m, NULL, 0);
			atomic_fetch_add(&T->c[m].attempts, 1);
			if (!r)
				atomic_fetch_add(&T->c[m].ok, 1);
			else if (errno == ESRCH)
				atomic_fetch_add(&T->c[m].esrch, 1);
			else
				atomic_fetch_add(&T->c[m].other, 1);
		}
		usleep(1000);	/* leave the CPUs to the threads coming and going */
	}
	for (j = 0; j < 32; j++)
		if (h[j].fd >= 0)
			close(h[j].fd);
	return NULL;
}

static int part_threads(double seconds)
{
	struct sigaction sa = { .sa_sigaction = on_thread_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	pthread_t sp[NSLOTS], sg[NT];
	int m, s, failed = 0;

	T = shared(sizeof(*T));
	for (m = 0; m < NT; m++)
		sigaction(SIGT + m, &sa, NULL);
	for (s = 0; s < NSLOTS; s++) {
		pthread_mutex_init(&tslots[s].lock, NULL);
		tslots[s].gen = -1;
		pthread_create(&sp[s], NULL, spawner, (void *)(long)s);
	}
	for (m = 0; m < NT; m++)
		if (tmethod_ok(m))
			pthread_create(&sg[m], NULL, tsignaler, (void *)(long)m);
	usleep(seconds * 1e6);
	atomic_store(&T->stop, 1);
	for (m = 0; m < NT; m++)
		if (tmethod_ok(m))
			pthread_join(sg[m], NULL);
	for (s = 0; s < NSLOTS; s++)
		pthread_join(sp[s], NULL);
	printf("# threads: %ld worker threads in %.0f s\n", atomic_load(&T->gens),
	       seconds);
	for (m = 0; m < NT; m++) {
		struct counters *c = &T->c[m];
		long fails = atomic_load(&c->wrong) + atomic_load(&c->stray);

		if (!tmethod_ok(m)) {
			row(tname[m], -1, 0, "-", "not in this kernel");
			continue;
		}
		printf("# %s: attempts %ld ok %ld esrch %ld other %ld received %ld wrong %ld stray %ld\n",
		       tname[m], atomic_load(&c->attempts), atomic_load(&c->ok),
		       atomic_load(&c->esrch), atomic_load(&c->other),
		       atomic_load(&c->recv), atomic_load(&c->wrong),
		       atomic_load(&c->stray));
		row(tname[m], atomic_load(&c->attempts), fails, "-",
		    "%ld delivered, %ld ESRCH", atomic_load(&c->recv),
		    atomic_load(&c->esrch));
		failed |= fails != 0;
	}
	return failed;
}

/* ------------------------------------------------------------------ */
/* Part 2: a non-leader thread execs while its threads are signaled.   */

#define NX	6		/* threads of the child: 0 is the leader */
#define SIG_OTHER 44		/* through handles of non-leader, non-exec threads */
#define SIG_EXEC  45		/* through the exec'ing thread's handles */
#define SIG_LEAD  46		/* through the leader's thread handle */

struct xshm {
	atomic_int tid[NX], acked[NX], go, exec_done, cycle_over;
	atomic_int execer;
	atomic_long aimed[NX][3], recv_old[NX][3], recv_new[3];
	atomic_long attempts, ok, esrch, late_ok, wrong, cycles;
};
static struct xshm *X;
static __thread int my_xidx = -1;

static int xsig_index(int sig)
{
	return sig == SIG_OTHER ? 0 : sig == SIG_EXEC ? 1 : sig == SIG_LEAD ? 2 : -1;
}

static void on_x_old(int sig, siginfo_t *si, void *ctx)
{
	int k = xsig_index(sig), i = my_xidx;

	(void)si;
	(void)ctx;
	if (k < 0)
		return;
	if (i < 0 || atomic_fetch_add(&X->recv_old[i][k], 1) + 1 >
		     atomic_load(&X->aimed[i][k]))
		atomic_fetch_add(&X->wrong, 1);
}

static void on_x_new(int sig, siginfo_t *si, void *ctx)
{
	int k = xsig_index(sig), e = atomic_load(&X->execer);

	(void)si;
	(void)ctx;
	if (k < 0)
		return;
	atomic_fetch_add(&X->recv_new[k], 1);
	/* Only the exec'ing thread's and the leader's signals may cross. */
	if (k == 0 ||
	    (k == 1 && atomic_load(&X->recv_old[e][1]) + atomic_load(&X->recv_new[1]) >
			       atomic_load(&X->aimed[e][1])) ||
	    (k == 2 && atomic_load(&X->recv_old[0][2]) + atomic_load(&X->recv_new[2]) >
			       atomic_load(&X->aimed[0][2])))
		atomic_fetch_add(&X->wrong, 1);
}

static void after_exec(int memfd)
{
	struct sigaction sa = { .sa_sigaction = on_x_new, .sa_flags = SA_SIGINFO };
	sigset_t none;

	X = mmap(NULL, sizeof(*X), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (X == MAP_FAILED)
		_exit(3);
	atomic_store(&X->exec_done, 1);
	sigaction(SIG_OTHER, &sa, NULL);
	sigaction(SIG_EXEC, &sa, NULL);
	sigaction(SIG_LEAD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	usleep(20000);
	/* The parent keeps signaling: stop handling, or the handler livelocks us. */
	sigfillset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	_exit(0);
}

static char *self_exe, memfd_arg[16];

static void *xthread(void *arg)
{
	int i = (long)arg;
	uint64_t seed = rnd_seed();
	char *argv[] = { self_exe, "--after-exec", memfd_arg, NULL };
	sigset_t x;

	my_xidx = i;
	atomic_store(&X->tid[i], sys_gettid());
	while (!atomic_load(&X->go))
		sched_yield();
	if (i != atomic_load(&X->execer))
		for (;;)
			pause();
	usleep(rnd(&seed) % 4000);
	/* Blocked across the exec: the new image installs handlers first. */
	sigemptyset(&x);
	sigaddset(&x, SIG_OTHER);
	sigaddset(&x, SIG_EXEC);
	sigaddset(&x, SIG_LEAD);
	pthread_sigmask(SIG_BLOCK, &x, NULL);
	execv(argv[0], argv);
	_exit(5);
}

/* A cycle that does not end: show where every thread of the child is. */
static void dump_stuck(pid_t child)
{
	char cmd[256];

	printf("# exec cycle stuck after 20 s: execer %d exec_done %d tids",
	       atomic_load(&X->execer), atomic_load(&X->exec_done));
	for (int i = 0; i < NX; i++)
		printf(" %d", atomic_load(&X->tid[i]));
	printf("\n");
	fflush(stdout);
	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do echo \"# $t $(grep State $t/status)\"; "
		 "sed 's/^/#   /' $t/stack 2>/dev/null; done", child);
	if (system(cmd))
		printf("# (no /proc view of %d)\n", child);
}

static int part_exec(double seconds)
{
	double end = now_s() + seconds;
	long attempts = 0, ok = 0, esrch = 0, late_ok = 0, wrong = 0, cycles = 0;
	long stuck = 0;
	long got[3] = { 0, 0, 0 };

	while (now_s() < end) {
		uint64_t seed = rnd_seed();
		int h[NX][2], i, k, e = 1 + rnd(&seed) % (NX - 1), status;
		pid_t child;

		double cycle_end = now_s() + 20;

		memset(X, 0, sizeof(*X));
		atomic_store(&X->execer, e);
		child = fork();
		if (child == 0) {
			struct sigaction sa = { .sa_sigaction = on_x_old,
						.sa_flags = SA_SIGINFO | SA_RESTART };
			pthread_t t;
			long j;

			sigaction(SIG_OTHER, &sa, NULL);
			sigaction(SIG_EXEC, &sa, NULL);
			sigaction(SIG_LEAD, &sa, NULL);
			my_xidx = 0;
			atomic_store(&X->tid[0], sys_gettid());
			for (j = 1; j < NX; j++)
				pthread_create(&t, NULL, xthread, (void *)j);
			for (;;)
				pause();
		}
		/* Handles on every thread, opened while it waits for "go". */
		for (i = 0; i < NX; i++) {
			char path[96];
			int tid;

			while (!(tid = atomic_load(&X->tid[i])) && now_s() < cycle_end)
				sched_yield();
			h[i][0] = sys_pidfd_open(tid, PIDFD_THREAD);
			snprintf(path, sizeof(path), "/proc/%d/task/%d", child, tid);
			h[i][1] = feat.taskfd ?
				open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		}
		atomic_store(&X->go, 1);
		for (;;) {
			pid_t w = waitpid(child, &status, WNOHANG);
			int done = atomic_load(&X->exec_done);

			if (w == child)
				break;
			if (now_s() > cycle_end) {
				dump_stuck(child);
				kill(child, SIGKILL);
				stuck++;
				cycle_end += 3600;
			}
			for (i = 0; i < NX; i++)
				for (k = 0; k < 2; k++) {
					int sig = i == 0 ? SIG_LEAD : i == e ? SIG_EXEC :
						  SIG_OTHER, r;

					if (h[i][k] < 0)
						continue;
					atomic_fetch_add(&X->aimed[i][xsig_index(sig)], 1);
					r = sys_pidfd_send_signal(h[i][k], sig, NULL, 0);
					attempts++;
					if (!r) {
						ok++;
						/* a thread gone in the exec must not be hit */
						if (done && i != 0)
							late_ok++;
					} else if (errno == ESRCH) {
						esrch++;
					}
				}
			usleep(200);	/* a flood would only livelock the child */
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			printf("# exec child: status %#x\n", status);
		for (i = 0; i < NX; i++)
			for (k = 0; k < 2; k++)
				if (h[i][k] >= 0)
					close(h[i][k]);
		cycles++;
		wrong += atomic_load(&X->wrong);
		for (k = 0; k < 3; k++)
			got[k] += atomic_load(&X->recv_new[k]);
	}
	printf("# exec: %ld cycles, attempts %ld ok %ld esrch %ld late-ok %ld wrong %ld; new image got other %ld exec %ld leader %ld\n",
	       cycles, attempts, ok, esrch, late_ok, wrong, got[0], got[1], got[2]);
	row("threads:exec while signaled", attempts, wrong + late_ok + stuck, "-",
	    "%ld exec cycles, %ld stuck > 20 s; new image got %ld via the exec'ing thread, %ld via the leader",
	    cycles, stuck, got[1], got[2]);
	return wrong + late_ok + stuck != 0;
}

/* ------------------------------------------------------------------ */
/* Part 3: process groups whose members move and exit.                 */

#define NG	4
#define SIG_G	50	/* group i: SIG_G + i */
#define MAXMEM	4096

static struct {
	atomic_int joined[MAXMEM][NG];	/* member set out to join group i */
	atomic_int leader_pid[NG];
	atomic_long members, recv, wrong, stop;
} *G;
static long my_member = -1;

static void on_group_signal(int sig, siginfo_t *si, void *ctx)
{
	int i = sig - SIG_G;
	long mm = my_member;

	(void)si;
	(void)ctx;
	if (i < 0 || i >= NG)
		return;
	atomic_fetch_add(&G->recv, 1);
	if (mm <= -10) {	/* a group leader: its own group only */
		if (i != -(mm + 10))
			atomic_fetch_add(&G->wrong, 1);
	} else if (mm < 0 || !atomic_load(&G->joined[mm % MAXMEM][i]))
		atomic_fetch_add(&G->wrong, 1);
}

static void member(long mm)
{
	uint64_t seed = rnd_seed();
	int n = 1 + rnd(&seed) % 4;
	sigset_t none;

	my_member = mm;
	memset((void *)G->joined[mm % MAXMEM], 0, sizeof(G->joined[0]));
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (n--) {
		int i = rnd(&seed) % NG, pg = atomic_load(&G->leader_pid[i]);

		if (pg <= 0)
			continue;
		atomic_store(&G->joined[mm % MAXMEM][i], 1);	/* before */
		setpgid(0, pg);
		usleep(rnd(&seed) % 2000);
	}
	_exit(0);
}

static int part_pgroup(double seconds)
{
	struct sigaction sa = { .sa_sigaction = on_group_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	double end = now_s() + seconds;
	long attempts = 0, ok = 0, esrch = 0, other = 0, mm = 0;
	int fd[NG], i, live = 0, first_errno = 0;
	pid_t leader[NG];
	sigset_t all;

	if (!feat.scopes) {
		row("pgroup:PIDFD_SIGNAL_PROCESS_GROUP", -1, 0, "-", "not in this kernel");
		return 0;
	}
	G = shared(sizeof(*G));
	sigemptyset(&all);
	for (i = 0; i < NG; i++) {
		sigaction(SIG_G + i, &sa, NULL);
		sigaddset(&all, SIG_G + i);
		leader[i] = -1;
		fd[i] = -1;
	}
	/* Our own group is never targeted; strays would kill us: count them. */
	sigprocmask(SIG_BLOCK, &all, NULL);
	while (now_s() < end) {
		uint64_t seed = rnd_seed();
		pid_t w;
		int status;

		for (i = 0; i < NG; i++) {
			if (leader[i] > 0)
				continue;
			/* A new group: its leader lives 5-50 ms. */
			leader[i] = fork();
			if (leader[i] == 0) {
				sigset_t none;

				my_member = -(10 + i);
				setpgid(0, 0);
				sigemptyset(&none);
				sigprocmask(SIG_SETMASK, &none, NULL);
				usleep(5000 + rnd(&seed) % 45000);
				_exit(0);
			}
			setpgid(leader[i], leader[i]);
			fd[i] = sys_pidfd_open(leader[i], 0);
			atomic_store(&G->leader_pid[i], leader[i]);
			live++;
		}
		while (live < 3 * NG) {
			pid_t p = fork();

			if (p == 0)
				member(mm);
			mm++;
			live++;
		}
		for (i = 0; i < NG; i++) {
			int r;

			if (fd[i] < 0)
				continue;
			r = sys_pidfd_send_signal(fd[i], SIG_G + i, NULL,
						  PIDFD_SIGNAL_PROCESS_GROUP);
			attempts++;
			if (!r)
				ok++;
			else if (errno == ESRCH)
				esrch++;
			else if (!other++)
				first_errno = errno;
		}
		while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
			live--;
			for (i = 0; i < NG; i++)
				if (leader[i] == w) {
					/*
					 * Keep the pidfd of the dead leader one
					 * more round: its group may live on.
					 */
					leader[i] = -1;
					atomic_store(&G->leader_pid[i], 0);
					close(fd[i]);
					fd[i] = -1;
				}
		}
	}
	atomic_store(&G->stop, 1);
	while (wait(NULL) > 0)
		;
	{
		sigset_t pend;

		sigpending(&pend);
		for (i = 0; i < NG; i++)
			if (sigismember(&pend, SIG_G + i))
				atomic_fetch_add(&G->wrong, 1);
	}
	printf("# pgroup: %ld members, attempts %ld ok %ld esrch %ld other %ld (first errno %d) received %ld wrong %ld\n",
	       mm, attempts, ok, esrch, other, first_errno,
	       atomic_load(&G->recv), atomic_load(&G->wrong));
	row("pgroup:PIDFD_SIGNAL_PROCESS_GROUP", attempts,
	    atomic_load(&G->wrong), "-", "%ld members moved between %d groups",
	    mm, NG);
	return atomic_load(&G->wrong) != 0;
}

int main(int argc, char **argv)
{
	double seconds = param("thread_seconds", 60);
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	int failed = 0, memfd;

	if (argc == 3 && !strcmp(argv[1], "--after-exec"))
		after_exec(atoi(argv[2]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	setrlimit(RLIMIT_SIGPENDING, &rl);
	probe_features(&feat);
	self_exe = "/proc/self/exe";
	failed |= part_threads(seconds / 2);

	memfd = memfd_create("xshm", 0);
	if (memfd < 0 || ftruncate(memfd, sizeof(*X))) {
		perror("memfd");
		return 1;
	}
	X = mmap(NULL, sizeof(*X), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	snprintf(memfd_arg, sizeof(memfd_arg), "%d", memfd);
	if (feat.thread_pidfd)
		failed |= part_exec(seconds / 4);
	else
		row("threads:exec while signaled", -1, 0, "-", "not in this kernel");
	failed |= part_pgroup(seconds / 4);
	return failed;
}
