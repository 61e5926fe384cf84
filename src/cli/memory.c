/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memory.c: the allocator's settings for a command that runs and exits
 * (everything but the servers), set once by main.
 *
 * A fit allocates and frees arrays of a value per packet a dozen times
 * (the trace, its gaps, sizes, ranks, sort scratch, fit data): about 140
 * MB touched on a 10^6-packet capture; a simulation's workspaces a few MB.
 * Two settings make that cheap:
 * - glibc hands blocks of 128 KiB and more back to the kernel when they
 *   are freed, so each new array faulted its pages in again (47,000 page
 *   faults in a fit). Blocks up to 32 MiB (4 10^6 doubles) come from the
 *   heap instead, and the heap keeps up to 1 GiB of freed memory for the
 *   next array; the process is short-lived, so nothing is held for long.
 * - The first touch of each 4 KiB page is still a fault (35,000 of them in
 *   the fit; several microseconds each on a virtual machine), and the
 *   sorts and rank passes walk 10^6-element arrays in an order that misses
 *   the TLB. The heap is grown once by HUGE_HEAP bytes of address space
 *   advised for transparent huge pages (MADV_HUGEPAGE): 2 MiB pages, 1,200
 *   faults in the fit and about half its CPU time; `sim queue --reps 10`
 *   1,017 -> 678 faults. Only pages touched are backed; with THP off
 *   ("never") or the advice refused, the heap is an ordinary heap, and a
 *   heap that had to come from mmap (brk refused) is left alone.
 * The servers keep glibc's defaults: they run for long, and give memory
 * back. Threads' own arenas (replications on -j N) are not covered. */
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include <stdint.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "cli.h"

#define HUGE_HEAP (512u << 20)
#define HUGE_PAGE (2u << 20)

void cli_batch_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#if defined(MADV_HUGEPAGE) && UINTPTR_MAX > 0xffffffffu
    /* One heap allocation (below the mmap threshold) with the top pad
     * raised grows the heap by it; freed, it stays as the heap's top. */
    mallopt(M_TOP_PAD, (int)HUGE_HEAP);
    const uintptr_t b0 = (uintptr_t)sbrk(0);
    void *volatile p = malloc(8u << 20);
    const uintptr_t b1 = (uintptr_t)sbrk(0);
    free(p);
    mallopt(M_TOP_PAD, 128 << 10); /* glibc's default */
    const uintptr_t a = (b0 + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    const uintptr_t e = b1 & ~(uintptr_t)(HUGE_PAGE - 1);
    if (b0 != (uintptr_t)-1 && b1 != (uintptr_t)-1 && e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* advice: ignored if refused */
#endif
#endif
}
