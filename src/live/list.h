/* SPDX-License-Identifier: GPL-3.0-or-later */
/* list.h: the queues of the live programs: doubly linked (the gate's
 * waiting and active sessions, the proxy's per-class queues) and singly
 * linked first-in first-out (the waiting requests of the backend and of
 * the load generator).
 *
 * Each queue is a head and a tail pointer in its owner and a prev/next
 * pair in each node; the fields are named by the caller, so one node can
 * sit on queues of different owners (a node on none has both NULL).
 * Macros rather than functions because the node types differ; each
 * argument is evaluated more than once, so pass plain lvalues. */
#ifndef QCTL_LIVE_LIST_H
#define QCTL_LIVE_LIST_H

/* Appends node at the tail: as on a singly linked queue (QC__FIFO_PUSH,
 * below), its prev the old tail. */
#define QC__LIST_PUSH_TAIL(head, tail, node, prev, next)                                          \
    do {                                                                                           \
        (node)->prev = (tail);                                                                     \
        QC__FIFO_PUSH(head, tail, node, next);                                                     \
    } while (0)

/* Puts node at the head: the tail's push with the ends and the links
 * swapped. */
#define QC__LIST_PUSH_HEAD(head, tail, node, prev, next)                                          \
    QC__LIST_PUSH_TAIL(tail, head, node, next, prev)

/* Unlinks node, which must be on the queue, and clears its links. */
#define QC__LIST_REMOVE(head, tail, node, prev, next)                                             \
    do {                                                                                           \
        if ((node)->prev)                                                                          \
            (node)->prev->next = (node)->next;                                                     \
        else                                                                                       \
            (head) = (node)->next;                                                                 \
        if ((node)->next)                                                                          \
            (node)->next->prev = (node)->prev;                                                     \
        else                                                                                       \
            (tail) = (node)->prev;                                                                 \
        (node)->prev = (node)->next = NULL;                                                        \
    } while (0)

/* Appends node at the tail of a singly linked queue. */
#define QC__FIFO_PUSH(head, tail, node, next)                                                      \
    do {                                                                                           \
        (node)->next = NULL;                                                                       \
        if (tail)                                                                                  \
            (tail)->next = (node);                                                                 \
        else                                                                                       \
            (head) = (node);                                                                       \
        (tail) = (node);                                                                           \
    } while (0)

/* Takes the head (which must exist) off a singly linked queue into out. */
#define QC__FIFO_POP(head, tail, out, next)                                                        \
    do {                                                                                           \
        (out) = (head);                                                                            \
        (head) = (out)->next;                                                                      \
        if (!(head))                                                                               \
            (tail) = NULL;                                                                         \
    } while (0)

#endif
