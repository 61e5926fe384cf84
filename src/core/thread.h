/* SPDX-License-Identifier: GPL-3.0-or-later */
/* thread.h: starting the library's worker threads away from their
 * creator's CPU.
 *
 * Left to itself, the scheduler may start a new thread on the CPU of the
 * thread that created it, which goes on computing, and move it only when
 * its load balancer next runs, several milliseconds later (up to 17 ms
 * measured on a virtual machine whose CPUs share no cache the kernel
 * knows of); both run at half speed meanwhile. A worker started with
 * qc__thread_start begins on the CPUs the process may use other than its
 * creator's, and widens its affinity back to all of them as its first
 * act: a hint for its first placement, never a pinning. Where that cannot
 * be said (not Linux, one CPU allowed, the call refused), it is a plain
 * pthread_create.
 *
 *     pthread_t t;
 *     if (qc__thread_start(&t, fn, arg) == 0) { ...; pthread_join(t, NULL); }
 *
 * Returns 0 or pthread_create's error; fn's return value is
 * pthread_join's, as usual. */
#ifndef QCTL_CORE_THREAD_H
#define QCTL_CORE_THREAD_H

#include <pthread.h>

int qc__thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
