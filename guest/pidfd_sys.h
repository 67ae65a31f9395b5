/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pidfd system calls for the guest programs (guest/, bench/,
 * stress/, system/, and tests/ through pidfd_conformance.h): raw
 * wrappers, since glibc 2.36 lacks some of them, and the series' UAPI
 * (upstream 6.9/6.15 values) for headers that predate it, so that every
 * program builds against stock and patched headers alike and finds out
 * at run time what the kernel has. The syscall numbers' fallbacks are
 * the generic table's, the same on x86_64, i386 and arm64. Also the one
 * reader of the kernel command line (pidfd_cmdline_value()).
 */
#ifndef PIDFD_SYS_H
#define PIDFD_SYS_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef PIDFD_SIGNAL_THREAD
#define PIDFD_SIGNAL_THREAD (1UL << 0)
#endif
#ifndef PIDFD_SIGNAL_THREAD_GROUP
#define PIDFD_SIGNAL_THREAD_GROUP (1UL << 1)
#endif
#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1UL << 2)
#endif
#ifndef PIDFD_SELF_THREAD
#define PIDFD_SELF_THREAD -10000
#endif
#ifndef PIDFD_SELF_THREAD_GROUP
#define PIDFD_SELF_THREAD_GROUP -10001
#endif

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(SYS_pidfd_open, pid, flags);
}

static inline int sys_pidfd_send_signal(int fd, int sig, siginfo_t *info,
					unsigned int flags)
{
	return syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

static inline pid_t sys_gettid(void)
{
	return syscall(SYS_gettid);
}

/*
 * The value of "key=value" on the kernel command line, copied into @buf
 * (@size bytes), or NULL when it is not there. The last one counts when
 * the key is given twice, as for the kernel's own parameters.
 */
static inline char *pidfd_cmdline_value(const char *key, char *buf,
					size_t size)
{
	char line[4096], *word, *save, *found = NULL;
	size_t keylen = strlen(key), n;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return NULL;
	len = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[len > 0 ? len : 0] = '\0';
	for (word = strtok_r(line, " \n", &save); word;
	     word = strtok_r(NULL, " \n", &save))
		if (!strncmp(word, key, keylen) && word[keylen] == '=')
			found = word + keylen + 1;
	if (!found || !size)
		return NULL;
	n = strlen(found);
	if (n >= size)
		n = size - 1;
	memcpy(buf, found, n);
	buf[n] = '\0';
	return buf;
}

#endif /* PIDFD_SYS_H */
