/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness, and what differs in it between the trees these
 * tests are built in: the harness of 6.1 records a SKIP() in the fixture
 * setup in ->skip, later ones in ->exit_code, and both run the test body
 * after it, which must then return at once.
 */
#ifndef __PIDFD_HARNESS_H
#define __PIDFD_HARNESS_H

#include "../kselftest_harness.h"

#ifdef XFAIL_ADD	/* the harness of 6.12 */
#define setup_skipped() (_metadata->exit_code == KSFT_SKIP)
#else
#define setup_skipped() (_metadata->skip)
#endif

#endif /* __PIDFD_HARNESS_H */
