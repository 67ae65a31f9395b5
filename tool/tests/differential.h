/* SPDX-License-Identifier: GPL-2.0 */
/* differential.h - the zoo (differential-zoo.c), shared with differential.c. */
#ifndef PFKILL_DIFFERENTIAL_H
#define PFKILL_DIFFERENTIAL_H

/*
 * A zoo of processes this test starts, and placeholders rows use to name
 * them.  Every row restricts itself to the zoo (-P, -g, -s, -t of our own
 * pty, -F of our own pid file) and uses the zoo's unique names.
 */
struct zoo {
	char a[16], au[16], b[16], t[16], t1[16], ctl[16], z[16], tree[16];
	char weird[64], self[16], esc[16], escargv[32], nsx[16];
	pid_t h[24];
	int nh;
	pid_t tree_pid, zombie, netns;
	int lockfd, ptm;
	bool root, cg;
	char cgdir[96], pf[64], lpf[64], badpf[64], tty[32];
	char v_me[16], v_tree[16], v_pgid[16], v_sid[16], v_ns[16], v_up[16];
	char v_metree[40], v_plus[16], v_upme[40];
};

extern struct zoo zoo;
int zoo_start(void);
void zoo_stop(void);
const char *zoo_arg(const char *w);
bool zoo_bounded(const char *out);

#endif
