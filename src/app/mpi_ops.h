/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_ops.h: the message passing a distributed sweep needs, as a table of
 * functions. They live in a module of their own, qctl-mpi.so (mpi/
 * module.c), linked against the MPI library and loaded by `qctl sweep`
 * only when mpirun started it (sweep_mpi.c): every other qctl command
 * starts without loading MPI and the 17 libraries it brings (a third of
 * qctl's start-up time, 86 page faults). Messages are bytes; the module
 * adds nothing of its own. */
#ifndef QC_CLI_MPI_OPS_H
#define QC_CLI_MPI_OPS_H

#define QC_MPI_OPS_VERSION 1
#define QC_MPI_OPS_SYMBOL "qctl_mpi_ops"

typedef struct qc_mpi_ops {
    int version; /* QC_MPI_OPS_VERSION */
    /* MPI_Init; this process's rank and the number of ranks */
    void (*init)(int *rank, int *size);
    void (*send)(const void *buf, int len, int dest, int tag);
    /* blocks until a message from any rank arrives: its source, tag, length */
    void (*probe)(int *source, int *tag, int *len);
    void (*recv)(void *buf, int len, int source, int tag);
    void (*abort)(int code);
    void (*finalize)(void);
} qc_mpi_ops;

#endif
