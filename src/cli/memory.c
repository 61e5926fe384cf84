/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memory.c: the allocator's settings for a command that allocates and
 * frees large arrays and fills them whole: qctl fit.
 *
 * A fit allocates and frees arrays of a value per packet a dozen times
 * (the trace, its gaps, sizes, ranks, sort scratch, fit data): about 140
 * MB touched on a 10^6-packet capture. Two settings make that cheap:
 * - glibc hands blocks of 128 KiB and more back to the kernel when they
 *   are freed, so each new array faulted its pages in again (47,000 page
 *   faults). Blocks up to 32 MiB (4 10^6 doubles) come from the heap
 *   instead, and the heap keeps up to 1 GiB of freed memory for the next
 *   array; the process is short-lived, so nothing is held for long.
 * - The first touch of each 4 KiB page is still a fault (35,000 of them;
 *   several microseconds each on a virtual machine), and the sorts and
 *   rank passes walk 10^6-element arrays in an order that misses the TLB.
 *   The heap is grown once by HUGE_HEAP bytes of address space advised for
 *   transparent huge pages (MADV_HUGEPAGE): 2 MiB pages, 1,200 faults, and
 *   the fit's CPU time about halves. Only pages touched are backed; with
 *   THP off ("never") or the advice refused, the heap is an ordinary heap,
 *   and a heap that had to come from mmap (brk refused) is left alone.
 * Not for the simulations: their workspaces are large arrays touched
 * sparsely (a chunk's histogram buckets that no response time reaches),
 * which glibc's default serves from fresh mmap'd zero pages, never
 * touched; from this heap calloc clears them whole (a workspace of sim
 * queue took 10 to 20 ms to set up instead of under 1). */
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
