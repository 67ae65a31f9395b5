// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the parsing helpers (signals, numbers, PID:N, users and
 * groups) and the kernel feature probes.
 */
#include "pfkill-tests.h"

int t_parse_signal(void)
{
	CHECK(pfk_parse_signal("9") == SIGKILL);
	CHECK(pfk_parse_signal("KILL") == SIGKILL);
	CHECK(pfk_parse_signal("SIGKILL") == SIGKILL);
	CHECK(pfk_parse_signal("sigterm") == SIGTERM);
	CHECK(pfk_parse_signal("0") == 0);
	CHECK(pfk_parse_signal("RTMIN") == SIGRTMIN);
	CHECK(pfk_parse_signal("RTMIN+2") == SIGRTMIN + 2);
	CHECK(pfk_parse_signal("SIGRTMAX-1") == SIGRTMAX - 1);
	CHECK(pfk_parse_signal("RTMIN+99") == -1);
	CHECK(pfk_parse_signal("65") == -1);
	CHECK(pfk_parse_signal("99999999999999999999") == -1);
	CHECK(pfk_parse_signal("KILLX") == -1);
	CHECK(pfk_parse_signal("") == -1);
	CHECK(pfk_parse_signal("-9") == -1);
	CHECK(strcmp(pfk_signal_name(SIGUSR1), "USR1") == 0);
	return PASS;
}

int t_parse_numbers(void)
{
	unsigned long v;
	long ms;

	CHECK(pfk_parse_ulong("42", 100, &v) == 0 && v == 42);
	CHECK(pfk_parse_ulong("101", 100, &v) < 0);
	CHECK(pfk_parse_ulong("-1", 100, &v) < 0);
	CHECK(pfk_parse_ulong("+1", 100, &v) < 0);
	CHECK(pfk_parse_ulong("1x", 100, &v) < 0);
	CHECK(pfk_parse_ulong("99999999999999999999999", ULONG_MAX, &v) < 0);
	CHECK(pfk_parse_duration_ms("5", &ms) == 0 && ms == 5000);
	CHECK(pfk_parse_duration_ms("1.5s", &ms) == 0 && ms == 1500);
	CHECK(pfk_parse_duration_ms("250ms", &ms) == 0 && ms == 250);
	CHECK(pfk_parse_duration_ms("2m", &ms) == 0 && ms == 120000);
	CHECK(pfk_parse_duration_ms("1h", &ms) == 0 && ms == 3600000);
	CHECK(pfk_parse_duration_ms("0.001", &ms) == 0 && ms == 1);
	CHECK(pfk_parse_duration_ms("5x", &ms) < 0);
	CHECK(pfk_parse_duration_ms("1.", &ms) < 0);
	CHECK(pfk_parse_duration_ms("", &ms) < 0);
	CHECK(pfk_parse_duration_ms("-1", &ms) < 0);
	CHECK(pfk_parse_duration_ms("99999999999", &ms) < 0);
	CHECK(pfk_parse_duration_ms("1000h", &ms) < 0);
	return PASS;
}

/* -p PID:N, as util-linux's ul_parse_pid_str() takes PID:inode. */
int t_parse_ident(void)
{
	static const char *const bad[] = {
		"0:1", "-1:1", "+1:1", " 1:1", "2147483648:1", "1x:1", ":1",
		"1:", "1", "1: 1", "1:+1", "1:-1", "1:0x10", "1:2:3", "1:2x",
		"1:18446744073709551616", "1:1 ", "123456789012345678901234:1",
	};
	unsigned long pid;
	unsigned long long n;

	CHECK(pfk_parse_ident("123:456", &pid, &n) == 0 && pid == 123 &&
	      n == 456);
	CHECK(pfk_parse_ident("2147483647:18446744073709551615", &pid, &n) ==
	      0 && pid == 2147483647 && n == ULLONG_MAX);
	/* A start time may be 0 (the caller refuses inode 0). */
	CHECK(pfk_parse_ident("2:0", &pid, &n) == 0 && pid == 2 && n == 0);
	CHECK(pfk_parse_ident("007:08", &pid, &n) == 0 && pid == 7 && n == 8);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (pfk_parse_ident(bad[i], &pid, &n) == 0) {
			diag("\"%s\" taken as %lu:%llu", bad[i], pid, n);
			return FAIL;
		}
	return PASS;
}

int t_lookup_ids(void)
{
	unsigned long v;

	if (has_root_entries()) {
		CHECK(pfk_lookup_user("root", &v) == 0 && v == 0);
		CHECK(pfk_lookup_group("root", &v) == 0 && v == 0);
	}
	CHECK(pfk_lookup_user("1234", &v) == 0 && v == 1234);
	CHECK(pfk_lookup_user("no_such_user_pfk", &v) < 0);
	/* procps takes any number that fits a long; it just matches nobody */
	CHECK(pfk_lookup_user("-1", &v) == 0 && v == (unsigned long)-1);
	CHECK(pfk_lookup_user("99999999999999999999", &v) < 0);
	CHECK(pfk_lookup_group("no_such_group_pfk", &v) < 0);
	CHECK(pfk_lookup_tty("?", &v) == 0 && v == 0);
	CHECK(pfk_lookup_tty("no/such/tty", &v) < 0);
	return PASS;
}

int t_probe_features(void)
{
	struct pfk_features f;

	pfk_probe_features(&f);
	diag("procfd_signal=%d pidfd_open=%d pidfd_thread=%d signal_flags=%d "
	     "taskfd_signal=%d", f.procfd_signal, f.pidfd_open, f.pidfd_thread,
	     f.signal_flags, f.taskfd_signal);
	/* Every kernel we target (5.1+) has the base feature. */
	CHECK(f.procfd_signal);
	return PASS;
}

/*
 * The PIDFD_GET_INFO probe: present from Linux 6.13 (a kernel that says
 * it is that new must have it), absent where seccomp makes the ioctl
 * ENOTTY as on an older kernel.
 */
int t_probe_pidfd_info(void)
{
	struct pfk_features f;
	struct utsname u;
	int major = 0, minor = 0;

	pfk_probe_features(&f);
	CHECK(uname(&u) == 0);
	sscanf(u.release, "%d.%d", &major, &minor);
	diag("kernel %s: pidfd_info=%d", u.release, f.pidfd_info);
	if (major > 6 || (major == 6 && minor >= 13))
		CHECK(f.pidfd_info);
	SKIP_IF(old_kernel_filter() < 0, "seccomp not available");
	pfk_probe_features(&f);
	CHECK(!f.pidfd_info);
	CHECK(f.procfd_signal && !f.pidfd_thread);
	return PASS;
}

/*
 * The pidfs probe: a kernel that says it is 6.9 or newer has pidfs;
 * seccomp's pretence of an older one (fstatfs() refused) has not.
 */
int t_probe_pidfs(void)
{
	struct pfk_features f;
	struct utsname u;
	int major = 0, minor = 0;

	pfk_probe_features(&f);
	CHECK(uname(&u) == 0);
	sscanf(u.release, "%d.%d", &major, &minor);
	diag("kernel %s: pidfs=%d", u.release, f.pidfs);
	if (major > 6 || (major == 6 && minor >= 9))
		CHECK(f.pidfs);
	SKIP_IF(old_kernel_filter() < 0, "seccomp not available");
	pfk_probe_features(&f);
	CHECK(!f.pidfs);
	return PASS;
}
