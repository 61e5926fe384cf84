/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/trace.h: packet traces from captures (pcap, pcapng) and CSV files.
 *
 * A trace is the list of a capture's IP packets in time order, each with
 *   t     seconds since the trace's first packet (t0 holds that instant),
 *   size  bytes of the IP packet, header included, from the IP length
 *         field: the same for a capture on Ethernet, on the Linux "any"
 *         device or of raw IP, undisturbed by Ethernet padding, and true
 *         even when the capture kept only the headers (a small snaplen),
 *   flow  the bidirectional 5-tuple it belongs to (an index into flows),
 *   dir   0 when sent by the flow's initiator (the sender of its first
 *         packet in the trace), 1 when sent towards it,
 *   act   the activity it was labelled with (an index into acts), or
 *         QC_TRACE_NOACT.
 * A pcapng file whose interfaces have different link types (which
 * libpcap refuses) is read block by block, each packet decoded with its
 * interface's link type and time resolution.
 * Link layers read: Ethernet (with any number of VLAN tags), Linux cooked v1
 * and v2, raw IP, BSD loopback; IPv4 and IPv6 (extension headers skipped);
 * ports for TCP and UDP (other protocols have ports 0).
 *
 * A CSV trace has lines `time,size[,flow][,activity]`: with a header line
 * the columns are found by name (time, size, flow, activity), without one
 * by position (three columns are time,size,flow).
 *
 * Damaged input: reading stops at the first record that cannot be read (a
 * truncated file, a record longer than the snaplen, a CSV line that is not
 * numbers); what was read before stays usable, tr->partial is set and a
 * warning says where (packet number and byte offset, or FILE:LINE) and
 * why. The call fails only when nothing usable was read (no IP packet).
 * Header oddities that libpcap silently repairs (a snaplen of 0) and
 * packets out of time order (sorted) are reported as warnings too.
 *
 * Ownership: qc_trace_read fills a caller-owned qc_trace released by
 * qc_trace_free (safe on a zeroed one and after a failed read). Errors: 0
 * or a negative QC_E* code with a message naming the file and position. */
#ifndef QCTL_TRACE_H
#define QCTL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_TRACE_NOACT UINT16_MAX
#define QC_TRACE_MAXWARN 4

typedef struct qc_trace_pkt {
    double t;      /* seconds since the first packet */
    int64_t ns;    /* the same in whole nanoseconds, exact: differences of
                      these are the capture's gaps with no rounding, even
                      years into a capture */
    uint32_t size; /* bytes of the IP packet */
    uint32_t flow; /* index into qc_trace.flows */
    uint16_t act;  /* index into qc_trace.acts, or QC_TRACE_NOACT */
    uint8_t dir;   /* 0 from the initiator, 1 towards it */
    uint8_t proto; /* IP protocol number (CSV: 0) */
} qc_trace_pkt;

typedef struct qc_trace_flow {
    uint8_t af;               /* 4 or 6; 0 for a CSV flow */
    uint8_t proto;            /* 6 TCP, 17 UDP, other IP protocols */
    uint16_t sport, dport;    /* initiator's and responder's ports */
    uint8_t src[16], dst[16]; /* initiator, responder (IPv4: first 4 bytes) */
    uint64_t packets, bytes;
    double first, last;       /* times of its first and last packets */
    char *label;              /* CSV: the flow column's text; else NULL */
} qc_trace_flow;

typedef enum qc_trace_format {
    QC_TRACE_PCAP = 1,
    QC_TRACE_PCAPNG,
    QC_TRACE_CSV
} qc_trace_format;
const char *qc_trace_format_name(qc_trace_format v);
int qc_trace_format_parse(const char *s, qc_trace_format *v, qc_err *err);

typedef struct qc_trace {
    qc_trace_pkt *pkt;
    size_t n;
    qc_trace_flow *flows;
    size_t nflows;
    char **acts; /* activity names */
    size_t nacts;
    double t0;   /* epoch seconds of the first packet (CSV: its time) */
    qc_trace_format format;
    int linktype;     /* libpcap DLT_* (CSV: -1) */
    uint64_t records; /* records read from the file, IP or not */
    uint64_t skipped; /* records that were not IP or too short to decode */
    int partial;      /* 1 when reading stopped before the end of input */
    int nwarn;
    char warn[QC_TRACE_MAXWARN][QC_ERR_MSG_MAX];
    size_t cap, flowcap;
    void *index; /* flow hash table */
} qc_trace;

/* Reads the capture or CSV at path (the format is told by the first
 * bytes: a pcap or pcapng magic number, else text). On error tr is left
 * empty (freeing it is still safe) and the message says why, e.g.
 *   FILE: not a capture or CSV: unknown magic number 0x00010203
 *   FILE: no packets (the capture holds only its header)
 *   FILE: link type 105 (IEEE802_11) is not supported */
int qc_trace_read(qc_trace *tr, const char *path, qc_err *err);

/* The same from a buffer (for fuzzing and tests); name is used in
 * messages. */
int qc_trace_read_mem(qc_trace *tr, const void *buf, size_t len, const char *name,
                      qc_err *err);

void qc_trace_free(qc_trace *tr);

/* Writes "tcp 10.0.0.1:5000 > 10.0.0.2:80" (or the CSV label) to buf. */
void qc_trace_flow_name(const qc_trace_flow *f, char *buf, size_t size);

/* The index of activity name in tr->acts, adding it if new; negative
 * QC_ENOMEM, or QC_ERANGE past 65534 activities. */
int qc_trace_activity(qc_trace *tr, const char *name, qc_err *err);

/* ---- labels: mapping flows and times to activities ------------------
 *
 * A label file has one rule per line, `ACTIVITY TERM...`, whose terms
 * must all hold for a packet to match; the first matching rule wins:
 *   proto tcp|udp|N        the packet's IP protocol
 *   port N                 either port of its flow
 *   host ADDR              either address of its flow
 *   flow PROTO A:P B:P     the flow, either way round ([v6]:port)
 *   time T0 T1             T0 <= t < T1, seconds since the first packet
 *   label TEXT             a CSV flow label
 *   any                    every packet
 * '#' starts a comment. Packets no rule matches keep QC_TRACE_NOACT. */
typedef struct qc_trace_labels qc_trace_labels;

/* Parses label rules from text (name is used in FILE:LINE messages). */
int qc_trace_labels_parse(qc_trace_labels **out, const char *text, size_t len,
                          const char *name, qc_err *err);
int qc_trace_labels_load(qc_trace_labels **out, const char *path, qc_err *err);
void qc_trace_labels_free(qc_trace_labels *l);

/* Sets the activity of every packet of tr by the rules; *unlabelled (if
 * not NULL) receives the number of packets no rule matched. */
int qc_trace_apply_labels(qc_trace *tr, const qc_trace_labels *l, size_t *unlabelled,
                          qc_err *err);

/* ---- splitting ------------------------------------------------------ */

typedef enum qc_trace_split {
    QC_SPLIT_NONE = 0, /* one group, "all" */
    QC_SPLIT_FLOW,     /* one group per flow */
    QC_SPLIT_HOST,     /* one per initiating host (a user's machine) */
    QC_SPLIT_ACTIVITY  /* one per activity; unlabelled packets left out */
} qc_trace_split;
const char *qc_trace_split_name(qc_trace_split v);
int qc_trace_split_parse(const char *s, qc_trace_split *v, qc_err *err);

typedef struct qc_trace_group {
    char name[96]; /* activity, address or flow name */
    size_t *idx;   /* packet indices, in time order */
    size_t n;
} qc_trace_group;

/* Groups the packets of tr. *groups is malloc'd (free it with
 * qc_trace_groups_free); groups come in order of their first packet. */
int qc_trace_split_groups(const qc_trace *tr, qc_trace_split how, qc_trace_group **groups,
                          size_t *ngroups, qc_err *err);
void qc_trace_groups_free(qc_trace_group *g, size_t n);

/* Writes tr as CSV `time,size,flow,activity` (atomically). */
int qc_trace_write_csv(const qc_trace *tr, const char *path, qc_err *err);

/* ---- a trace as an arrival process ----------------------------------
 * The packet times of the capture or CSV at path, from 0, non-decreasing:
 * *t is malloc'd (free it), *n >= 1. Warnings of a partial read are
 * dropped; use qc_trace_read to see them. */
int qc_trace_times(const char *path, double **t, size_t *n, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
