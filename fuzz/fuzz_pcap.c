/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_pcap.c: libFuzzer harness for the trace readers (pcap, pcapng,
 * CSV, told apart by their first bytes) and the label rules.
 *
 * An input that starts with "LABELS\n" is a label file: it is parsed and
 * applied to a small fixed CSV trace, then the trace is split by
 * activity. Any other input is a capture or CSV read from memory (the
 * reader never sees a file name it could open). A read that succeeds must
 * give a trace that keeps its promises: at least one packet, times finite,
 * >= 0 and non-decreasing, every flow and activity index valid, the flow
 * packet counts adding up; splitting it by flow, host and activity must
 * place every packet once. A violation traps.
 *
 * The reader's source is compiled into this harness (not taken from
 * libqctl) so that it carries the fuzzer's coverage instrumentation,
 * which the library build does not: without it libFuzzer would see only
 * the harness's own branches and mutate blindly. */
#include "../src/traffic/trace.c"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "fuzz_pcap.c:%d: check failed: %s\n", __LINE__, #cond); \
            __builtin_trap();                                                      \
        }                                                                          \
    } while (0)

static void check_split(const qc_trace *tr, qc_trace_split how)
{
    qc_trace_group *g;
    size_t ng;
    if (qc_trace_split_groups(tr, how, &g, &ng, NULL) != 0)
        return;
    size_t total = 0;
    for (size_t i = 0; i < ng; i++) {
        CHECK(g[i].n > 0);
        for (size_t j = 0; j < g[i].n; j++) {
            CHECK(g[i].idx[j] < tr->n);
            CHECK(j == 0 || g[i].idx[j] > g[i].idx[j - 1]);
        }
        total += g[i].n;
    }
    if (how != QC_SPLIT_ACTIVITY)
        CHECK(total == tr->n);
    qc_trace_groups_free(g, ng);
}

static void check_trace(const qc_trace *tr)
{
    CHECK(tr->n >= 1);
    uint64_t per_flow = 0;
    for (size_t f = 0; f < tr->nflows; f++)
        per_flow += tr->flows[f].packets;
    CHECK(per_flow == tr->n);
    for (size_t i = 0; i < tr->n; i++) {
        const qc_trace_pkt *p = &tr->pkt[i];
        CHECK(isfinite(p->t) && p->t >= 0);
        CHECK(i == 0 || p->t >= tr->pkt[i - 1].t);
        CHECK(p->flow < tr->nflows);
        CHECK(p->act == QC_TRACE_NOACT || p->act < tr->nacts);
        CHECK(p->dir <= 1);
    }
    for (size_t f = 0; f < tr->nflows; f++) {
        char name[160];
        qc_trace_flow_name(&tr->flows[f], name, sizeof name);
        CHECK(strlen(name) < sizeof name);
    }
    check_split(tr, QC_SPLIT_NONE);
    check_split(tr, QC_SPLIT_FLOW);
    check_split(tr, QC_SPLIT_HOST);
    check_split(tr, QC_SPLIT_ACTIVITY);
}

static const char base_csv[] = "time,size,flow\n0,100,a\n0.5,200,b\n1,300,a\n2.5,1500,c\n";
static const char labels_prefix[] = "LABELS\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qc_trace tr;
    qc_err err = {0};
    const size_t lp = sizeof labels_prefix - 1;
    if (size >= lp && memcmp(data, labels_prefix, lp) == 0) {
        qc_trace_labels *l;
        if (qc_trace_labels_parse(&l, (const char *)data + lp, size - lp, "fuzz", &err) != 0) {
            CHECK(err.msg[0] != '\0');
            return 0;
        }
        CHECK(qc_trace_read_mem(&tr, base_csv, sizeof base_csv - 1, "base", &err) == 0);
        size_t none = 0;
        if (qc_trace_apply_labels(&tr, l, &none, &err) == 0) {
            CHECK(none <= tr.n);
            check_trace(&tr);
        }
        qc_trace_labels_free(l);
        qc_trace_free(&tr);
        return 0;
    }
    if (qc_trace_read_mem(&tr, data, size, "fuzz", &err) != 0) {
        CHECK(err.msg[0] != '\0');
        CHECK(tr.n == 0 && tr.pkt == NULL);
        return 0;
    }
    check_trace(&tr);
    for (int i = 0; i < tr.nwarn; i++)
        CHECK(tr.warn[i][0] != '\0');
    qc_trace_free(&tr);
    return 0;
}
