/* SPDX-License-Identifier: GPL-3.0-or-later */
/* station.c: c servers, FCFS or processor sharing (see station.h). */
#include "station.h"

#include <stdlib.h>
#include <string.h>

int qc__station_init(qc__station *st, qc_sim *sim, qc_discipline disc, unsigned c,
                     size_t hint, uint32_t ev_depart)
{
    memset(st, 0, sizeof *st);
    st->sim = sim;
    st->disc = disc;
    st->c = c;
    st->ev_depart = ev_depart;
    st->dep_src = -1;
    if (hint < 16)
        hint = 16;
    if (disc == QC_FCFS) {
        st->insvc = malloc(c * sizeof *st->insvc);
        st->freesrv = malloc(c * sizeof *st->freesrv);
        st->rcap = hint;
        st->ring = malloc(st->rcap * sizeof *st->ring);
        if (!st->insvc || !st->freesrv || !st->ring)
            goto oom;
    } else {
        st->pscap = hint;
        st->ps = malloc(st->pscap * sizeof *st->ps);
        if (!st->ps)
            goto oom;
    }
    qc__station_reset(st);
    return 0;
oom:
    qc__station_free(st);
    return QC_ENOMEM;
}

void qc__station_free(qc__station *st)
{
    free(st->insvc);
    free(st->freesrv);
    free(st->ring);
    free(st->ps);
    memset(st, 0, sizeof *st);
}

void qc__station_reset(qc__station *st)
{
    st->n = 0;
    st->nfree = st->c;
    if (st->freesrv)
        for (unsigned i = 0; i < st->c; i++)
            st->freesrv[i] = st->c - 1 - i; /* server 0 on top */
    st->rhead = st->rlen = 0;
    st->V = 0;
    st->vlast = 0;
    st->ps_handle = -1;
}

/* ---- FCFS ---------------------------------------------------------------- */

int qc__station_departures_source(qc__station *st, int src)
{
    if (st->disc != QC_FCFS || st->c != 1 || src < 0 || (unsigned)src >= st->sim->nsrc)
        return QC_EINVAL;
    st->dep_src = src;
    return 0;
}

int qc__ring_grow(qc__job **ring, size_t *cap, size_t *head, size_t len)
{
    size_t n = *cap ? 2 * *cap : 64;
    qc__job *nr = malloc(n * sizeof *nr);
    if (nr == NULL)
        return QC_ENOMEM;
    for (size_t i = 0; i < len; i++)
        nr[i] = (*ring)[(*head + i) % *cap];
    free(*ring);
    *ring = nr;
    *cap = n;
    *head = 0;
    return 0;
}

int qc__station_grow(qc__station *st)
{
    return qc__ring_grow(&st->ring, &st->rcap, &st->rhead, st->rlen);
}

/* ---- processor sharing ------------------------------------------------------ */

static void sift_up(qc__psjob *h, size_t i)
{
    qc__psjob e = h[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!(e.finish < h[p].finish))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void sift_down(qc__psjob *h, size_t n, size_t i)
{
    qc__psjob e = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].finish < h[c].finish)
            c++;
        if (!(h[c].finish < e.finish))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

int qc__psheap_push(qc__psjob **h, size_t *cap, size_t n, double finish, const qc__job *job)
{
    if (n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        qc__psjob *nh = realloc(*h, c * sizeof *nh);
        if (nh == NULL)
            return QC_ENOMEM;
        *h = nh;
        *cap = c;
    }
    (*h)[n] = (qc__psjob){finish, *job};
    sift_up(*h, n);
    return 0;
}

void qc__psheap_pop(qc__psjob *h, size_t n, qc__job *out)
{
    *out = h[0].job;
    if (n > 0) {
        h[0] = h[n];
        sift_down(h, n, 0);
    }
}

/* Reschedules the one pending PS departure after n or V changed. */
static int ps_schedule(qc__station *st)
{
    if (st->ps_handle >= 0) {
        int rc = qc_sim_cancel(st->sim, st->ps_handle);
        st->ps_handle = -1;
        if (rc != 0)
            return rc;
    }
    if (st->n == 0)
        return 0;
    double left = st->ps[0].finish - st->V;
    if (left < 0)
        left = 0;
    double r = st->n <= st->c ? 1.0 : (double)st->c / (double)st->n;
    int64_t h = qc_sim_after(st->sim, left / r, st->ev_depart, 0);
    if (h < 0)
        return (int)h;
    st->ps_handle = h;
    return 0;
}

/* ---- processor sharing: arrivals and departures ------------------------ */

int qc__station_ps_arrive(qc__station *st, const qc__job *job)
{
    if (qc__psheap_push(&st->ps, &st->pscap, (size_t)st->n, st->V + job->svc, job) != 0)
        return QC_ENOMEM;
    st->n++;
    return ps_schedule(st);
}

int qc__station_ps_depart(qc__station *st, qc__job *out)
{
    st->n--;
    st->ps_handle = -1;
    qc__psheap_pop(st->ps, (size_t)st->n, out);
    if (st->n == 0)
        st->V = 0; /* empty: restart virtual time (no tags left) */
    return ps_schedule(st);
}
