/* SPDX-License-Identifier: GPL-3.0-or-later */
/* module.c: qctl-mpi.so, the MPI calls of a distributed sweep (mpi_ops.h),
 * loaded by `qctl sweep` under mpirun. */
#include <mpi.h>

#include "../../app/mpi_ops.h"

static void init(int *rank, int *size)
{
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

static void send(const void *buf, int len, int dest, int tag)
{
    MPI_Send(buf, len, MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

static void probe(int *source, int *tag, int *len)
{
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_CHAR, len);
    *source = st.MPI_SOURCE;
    *tag = st.MPI_TAG;
}

static void recv(void *buf, int len, int source, int tag)
{
    MPI_Recv(buf, len, MPI_CHAR, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void abort_all(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

static void finalize(void)
{
    MPI_Finalize();
}

__attribute__((visibility("default"))) const qc_mpi_ops qctl_mpi_ops = {
    QC_MPI_OPS_VERSION, init, send, probe, recv, abort_all, finalize,
};
