/* SPDX-License-Identifier: GPL-3.0-or-later */
/* remote.h: the admin interfaces of servers qctl controls from outside
 * their data path, internal to src/live/ and src/cli/: haproxy's runtime
 * API (its stats socket, UNIX or TCP) and pgbouncer's admin console (the
 * PostgreSQL protocol, simple queries, to the database `pgbouncer`).
 *
 * One exchange is one connection: connect, send, read the whole answer,
 * close, all within a deadline, answered exactly once by a callback.
 *
 *   haproxy    the command line is written followed by "\n" and the
 *              answer read until haproxy closes the connection (the
 *              non-interactive mode of the stats socket: one line of
 *              commands, separated by ';', then close).
 *   pgbouncer  StartupMessage (protocol 3.0, user, database), then the
 *              authentication asked for (none, cleartext password or
 *              MD5), then each query of the request (lines separated by
 *              '\n') as one Query message, the next sent after the
 *              ReadyForQuery of the one before, then Terminate. The
 *              answer handed back is the backend messages after the first
 *              ReadyForQuery (the queries' RowDescription, DataRow,
 *              CommandComplete ...), whole. An ErrorResponse fails the
 *              exchange with its message.
 *
 * The parsers below take any bytes (they are fuzzed: fuzz/fuzz_remote.c)
 * and never read past n; no recursion, no allocation.
 *
 * Bounds: an answer up to 1 MiB (more fails the exchange), a PostgreSQL
 * message up to 1 MiB, field lists of up to 8 names, 64 servers a
 * backend for the parking controller. */
#ifndef QCTL_LIVE_REMOTE_H
#define QCTL_LIVE_REMOTE_H

#include <stddef.h>
#include <sys/socket.h>
#include <uv.h>

#include "qctl/error.h"

#define QC__REMOTE_ANSWER_MAX (1u << 20)
#define QC__REMOTE_FIELDS_MAX 8
#define QC__REMOTE_SERVERS_MAX 64
#define QC__REMOTE_NAME_MAX 128

typedef enum qc__remote_kind { QC__REMOTE_HAPROXY = 1, QC__REMOTE_PG = 2 } qc__remote_kind;

/* Where a server's admin interface listens and, for pgbouncer, who logs
 * in. */
typedef struct qc__remote_addr {
    qc__remote_kind kind;
    int is_unix;
    char path[108];               /* UNIX: the socket's path */
    struct sockaddr_storage tcp;  /* TCP */
    char user[64], password[128], dbname[64];
    char where[160];              /* for messages: the path or HOST:PORT */
} qc__remote_addr;

/* haproxy: SOCKET is a path (it holds a '/') or HOST:PORT.
 * pgbouncer: a libpq-style conninfo "key=value ..." of host (a name, an
 * address or, starting with '/', the directory of the UNIX socket
 * .s.PGSQL.PORT; default 127.0.0.1), port (6432), user (pgbouncer),
 * password (none) and dbname (pgbouncer). QC_EINVAL naming what is wrong. */
int qc__remote_addr_haproxy(const char *sock, qc__remote_addr *a, qc_err *err);
int qc__remote_addr_pg(const char *conninfo, qc__remote_addr *a, qc_err *err);

/* The answer of an exchange: ok = 1 with the answer's bytes (valid during
 * the call only), or ok = 0 with a reason (valid during the call). */
typedef void (*qc__remote_cb)(void *ctx, int ok, const char *answer, size_t len,
                              const char *why);

typedef struct qc__remote_job qc__remote_job;

/* Starts an exchange on loop: request is haproxy's command line (without
 * the newline) or pgbouncer's queries, one a line. Answered by cb once,
 * within timeout seconds (later: ok = 0), unless cancelled. Returns the
 * job (valid until answered or cancelled), or NULL when out of memory
 * (then cb was called with ok = 0). */
qc__remote_job *qc__remote_start(uv_loop_t *loop, const qc__remote_addr *a, const char *request,
                                 double timeout, qc__remote_cb cb, void *ctx);

/* Gives up on j without a callback; its handles close on the loop. */
void qc__remote_cancel(qc__remote_job *j);

/* ---- haproxy's answers ---------------------------------------------------- */

/* 1 when the answer of a `set ...` command line says it was applied:
 * haproxy answers an empty line to each command it applied and a message
 * ("No such server.", "Require 'backend/server'.", "Unknown command ...")
 * to one it refused. Else 0, with the first line of the message in
 * why[0..n) (truncated). */
int qc__haproxy_applied(const char *p, size_t n, char *why, size_t why_n);

/* A target of `show stat`: the row whose pxname is px and svname sv
 * ("BACKEND" for a backend's own row, "FRONTEND" for a frontend's). */
typedef struct qc__haproxy_row {
    char px[QC__REMOTE_NAME_MAX], sv[QC__REMOTE_NAME_MAX];
} qc__haproxy_row;

/* A list of fields summed: "qcur+scur" (at most QC__REMOTE_FIELDS_MAX,
 * each [a-z0-9_]+, at most 63 characters). */
typedef struct qc__remote_fields {
    char name[QC__REMOTE_FIELDS_MAX][64];
    unsigned n;
} qc__remote_fields;
int qc__remote_fields_parse(const char *s, qc__remote_fields *f, qc_err *err);

/* The sum of the fields in the `show stat` CSV p[0..n) (header "# pxname,
 * svname,..." then one row a proxy or server) on the row r; an empty
 * field counts as no value. 1 with *v, or 0 with *why (static): the
 * header missing or malformed, the row or a field missing or empty, a
 * value not a number. */
int qc__haproxy_stat_value(const char *p, size_t n, const qc__haproxy_row *r,
                           const qc__remote_fields *f, double *v, const char **why);

/* The sum of the fields in the `show info` answer p[0..n) ("Name: value"
 * lines). Same returns. */
int qc__haproxy_info_value(const char *p, size_t n, const qc__remote_fields *f, double *v,
                           const char **why);

/* The servers of backend px in a `show stat` answer, in order: name,
 * sessions (scur), queue (qcur) and status ("UP", "MAINT", "DRAIN",
 * "DOWN", ... as haproxy writes it, up to 31 characters), and the
 * backend row's qcur in *queue. 1 with *count (at most max; the rest is
 * cut), or 0 with *why. */
typedef struct qc__haproxy_server {
    char name[QC__REMOTE_NAME_MAX];
    double scur, qcur;
    char status[32];
} qc__haproxy_server;
int qc__haproxy_servers(const char *p, size_t n, const char *px, qc__haproxy_server *s,
                        unsigned max, unsigned *count, double *queue, const char **why);

/* What a sensor reads (sensor.h gives the two forms):
 *   haproxy:SOCKET:TARGET:FIELD     TARGET BACKEND/SERVER, BACKEND or info
 *   pgbouncer:CONNINFO:DB:FIELD
 * The spec is split at its last two ':' (SOCKET may be HOST:PORT). */
typedef struct qc__remote_probe {
    qc__remote_addr addr;
    int info;           /* haproxy: `show info` rather than `show stat` */
    qc__haproxy_row row; /* haproxy: the row of `show stat` */
    char db[64];        /* pgbouncer: the database */
    const char *key;    /* pgbouncer: its key column ("database", "name") */
    char request[64];   /* the command or query sent */
} qc__remote_probe;

/* Splits spec "PREFIX:HEAD:A:B" at its last two ':' into head (n bytes),
 * a and b (QC__REMOTE_NAME_MAX bytes each). QC_EINVAL naming spec. */
int qc__remote_split(const char *spec, const char *prefix, char *head, size_t n, char *a,
                     char *b, qc_err *err);

/* Parses a sensor spec (haproxy: or pgbouncer:) into p and its fields. */
int qc__remote_probe_parse(const char *spec, qc__remote_probe *p, qc__remote_fields *f,
                           qc_err *err);
/* The value of an answer to p->request. 1 with *v, or 0 with *why. */
int qc__remote_probe_value(const qc__remote_probe *p, const qc__remote_fields *f,
                           const char *ans, size_t n, double *v, const char **why);

/* ---- the PostgreSQL protocol ------------------------------------------- */

/* One backend message at p[0..n): 1 with its type, body and total length
 * (1 + its length field), 0 when more bytes are needed, -1 when malformed
 * (a length under 4 or over 1 MiB). */
typedef struct qc__pg_msg {
    char type;
    const char *body;
    size_t body_len, total;
} qc__pg_msg;
int qc__pg_next(const char *p, size_t n, qc__pg_msg *m);

/* The text of an ErrorResponse's message field ('M') into out (n > 0),
 * "" when absent. */
void qc__pg_error_text(const qc__pg_msg *m, char *out, size_t n);

/* In the messages p[0..n) of one query's answer (RowDescription, DataRow
 * ..., CommandComplete, which must be there: a cut answer is refused), the sum of the fields over the rows whose column
 * key equals value (every row when key is NULL); *rows the rows summed.
 * 1 with *v, or 0 with *why (static): malformed messages, a column
 * missing, no row matching, a value not a number. */
int qc__pg_table_sum(const char *p, size_t n, const char *key, const char *value,
                     const qc__remote_fields *f, double *v, unsigned *rows, const char **why);

/* The same table, every row: the largest row's sum of the fields (*rows
 * the rows read). Same returns. */
int qc__pg_table_max(const char *p, size_t n, const qc__remote_fields *f, double *v,
                     unsigned *rows, const char **why);

/* The length of the first query's answer in p[0..n) (through its
 * CommandComplete), where the next query's answer starts; 0 when it is
 * not whole. */
size_t qc__pg_answer_len(const char *p, size_t n);

/* In the first table of p[0..n), the text of column `field` on the row
 * whose column key equals value, into out[0..out_n) (NUL-terminated).
 * 1, or 0 with *why (static). */
int qc__pg_table_text(const char *p, size_t n, const char *key, const char *value,
                      const char *field, char *out, size_t out_n, const char **why);

/* The MD5 password answer "md5" hex(md5(hex(md5(password user)) salt))
 * into out[36]. */
void qc__pg_md5_password(const char *user, const char *password, const unsigned char salt[4],
                         char out[36]);

#endif
