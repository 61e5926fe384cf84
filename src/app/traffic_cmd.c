/* SPDX-License-Identifier: GPL-3.0-or-later */
/* traffic_cmd.c: capture loading and summaries shared by `qctl fit` and
 * `qctl gen` (traffic_cmd.h); their plots are traffic_plot.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/dlt.h>

#include "cmdline.h"
#include "guard.h"
#include "qctl/output.h"
#include "result.h"
#include "traffic_cmd.h"

int cli_load_trace(const char *path, const char *labels, int quiet, qc_trace *tr)
{
    qc_err err = {0};
    int rc = qc_trace_read(tr, path, &err);
    if (rc != 0) {
        cli_error("%s", err.msg);
        return cli_input_exit(rc);
    }
    if (!quiet)
        for (int i = 0; i < tr->nwarn; i++)
            fprintf(stderr, "qctl: warning: %s\n", tr->warn[i]);
    if (labels) {
        qc_trace_labels *l;
        if ((rc = qc_trace_labels_load(&l, labels, &err)) != 0) {
            cli_error("--labels: %s", err.msg);
            qc_trace_free(tr);
            return cli_input_exit(rc);
        }
        size_t none = 0;
        rc = qc_trace_apply_labels(tr, l, &none, &err);
        qc_trace_labels_free(l);
        if (rc != 0) {
            cli_error("--labels: %s", err.msg);
            qc_trace_free(tr);
            return QC_EXIT_FAIL;
        }
        if (none && !quiet)
            fprintf(stderr, "qctl: warning: %s: %zu of %zu packets match no rule of %s\n", path,
                    none, tr->n, labels);
    }
    return 0;
}

static const char *format_name(const qc_trace *tr)
{
    return qc_trace_format_name(tr->format == 0 ? QC_TRACE_PCAP : tr->format);
}

static const char *link_name(const qc_trace *tr)
{
    if (tr->linktype < 0)
        return "none";
    switch (tr->linktype) {
    case DLT_EN10MB:
        return "ethernet";
    case DLT_LINUX_SLL:
        return "linux-sll";
    case 276:
        return "linux-sll2";
    case DLT_NULL:
    case DLT_LOOP:
        return "loopback";
    default:
        return "raw-ip";
    }
}

json_t *cli_trace_json(const char *path, const qc_trace *tr)
{
    json_t *o = json_object(), *w = json_array();
    json_object_set_new(o, "file", json_string(cli_input_name(path)));
    json_object_set_new(o, "format", json_string(format_name(tr)));
    json_object_set_new(o, "link", json_string(link_name(tr)));
    json_object_set_new(o, "packets", json_integer((json_int_t)tr->n));
    json_object_set_new(o, "records", json_integer((json_int_t)tr->records));
    json_object_set_new(o, "skipped", json_integer((json_int_t)tr->skipped));
    json_object_set_new(o, "flows", json_integer((json_int_t)tr->nflows));
    json_object_set_new(o, "duration", qc_json_real_new(tr->n ? tr->pkt[tr->n - 1].t : 0));
    json_object_set_new(o, "partial", json_boolean(tr->partial));
    for (int i = 0; i < tr->nwarn; i++)
        json_array_append_new(w, json_string(tr->warn[i]));
    json_object_set_new(o, "warnings", w);
    return o;
}

void cli_print_trace(const char *path, const qc_trace *tr)
{
    printf("%s: %s (%s), %zu IP packets in %zu flows over %.6g s", path, format_name(tr),
           link_name(tr), tr->n, tr->nflows, tr->n ? tr->pkt[tr->n - 1].t : 0.0);
    if (tr->skipped)
        printf(", %llu records skipped (not IP)", (unsigned long long)tr->skipped);
    if (tr->partial)
        printf(", read up to a damaged record");
    printf("\n");
}

char *cli_model_path(const char *dir, const char *name)
{
    const size_t n = strlen(dir) + strlen(name) + 8;
    char *p = malloc(n);
    if (p == NULL)
        return NULL;
    int w = snprintf(p, n, "%s/", dir);
    for (const char *s = name; *s; s++) {
        const char c = *s;
        const int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || (c == '.' && s != name);
        p[w++] = ok ? c : '_';
    }
    snprintf(p + w, n - (size_t)w, ".json");
    return p;
}
