// SPDX-License-Identifier: GPL-2.0
/*
 * The system plan's crashing service (case coredump): dies at once of
 * SIGSEGV with si_code SEGV_MAPERR, by writing to a page it unmapped (a
 * NULL store may compile to a trap instruction: SIGILL).
 */
#include <sys/mman.h>

int main(void)
{
	char *page = mmap(0, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED || munmap(page, 4096))
		return 1;
	page[0] = 1;
	return 1;
}
