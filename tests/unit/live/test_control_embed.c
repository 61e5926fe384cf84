/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_control_embed.c: `qctl control`'s controller as a library on a
 * loop the test owns (control.h, "on a host's loop"). A static controller
 * applies its setting every 50 ms through a program (cmd: actuator, which
 * appends the setting to a file the test reads: the independent count of
 * what was applied), beside a timer of the test's own; a drain applies the
 * final setting and stops, the close comes from the loop, and a second
 * controller then runs on the same loop and is stopped at once by a
 * second drain. Its admin endpoint answers on the same loop. The process's
 * signal dispositions (but SIGCHLD's, which libuv's child watcher owns
 * while a program runs) and environment are what they were, and the loop
 * closes with no handle left open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "host.h"

#include "live/control.h"

HOST_CLOSED(closed, qc_control, qc_control_status, qc_control_status_get)

/* The settings the program was given, one a line. */
static unsigned lines_of(const char *path, double *last)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned n = 0;
    double v;
    while (fscanf(f, "%lf", &v) == 1) {
        n++;
        *last = v;
    }
    fclose(f);
    return n;
}

static void params(qc_control_params *o, const char *actuator)
{
    qc_control_params_init(o);
    o->loop.kind = QC_CTLLOOP_STATIC;
    o->loop.u_init = 7;
    o->actuator = actuator;
    o->interval = 0.05;
    o->drain_timeout = 2;
    o->final = 3;
    o->quiet = 1;
    o->admin = "127.0.0.1:0";
}

static void test_control_embed(void **state)
{
    (void)state;
    host_snapshot before, after;
    host_snap(&before);
    char dir[] = "/tmp/qc_control_embed.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[128], script[128], actuator[300];
    snprintf(out, sizeof out, "%s/applied", dir);
    snprintf(script, sizeof script, "%s/apply.sh", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho \"$1\" >>%s\n", out);
    fclose(f);
    snprintf(actuator, sizeof actuator, "cmd:/bin/sh %s {}", script);

    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    host_timer_start(&loop, 5);

    qc_control_params o;
    params(&o, actuator);
    qc_err err = {0};
    qc_control *C = NULL;
    assert_int_equal(qc_control_start(&loop, &o, &C, &err), 0);
    assert_non_null(C);
    closed c1 = {0};
    qc_control_close(C, closed_on, &c1); /* registers only: it runs on */
    qc_control_status st;
    qc_control_status_get(C, &st);
    assert_int_equal(st.state, QC_CONTROL_RUNNING);
    assert_true(st.admin_port > 0);

    /* a few intervals applied, the host's timer running beside */
    uint64_t ticks = host_ticks;
    double t0 = host_now(), last = NAN;
    do {
        uv_run(&loop, UV_RUN_ONCE);
        qc_control_status_get(C, &st);
        assert_true(host_now() - t0 < 20);
    } while (st.applied < 4);
    assert_true(host_ticks > ticks);
    assert_int_equal(c1.done, 0);

    qc_control_drain(C); /* the final setting, then stopped */
    host_run_until(&loop, &c1.done, 1, 20);
    assert_int_equal(c1.done, 1);
    assert_int_equal(c1.st.state, QC_CONTROL_STOPPED);
    assert_true(c1.st.applied >= 4);
    unsigned n = lines_of(out, &last);
    assert_true(n >= c1.st.applied); /* every apply reached the program */
    assert_true(last == 3);          /* the final setting last */
    assert_true(uv_is_active((uv_handle_t *)&host_timer));

    /* a second controller on the same loop, stopped at once by a second
     * drain (the command's second signal) */
    params(&o, actuator);
    o.final = NAN;
    assert_int_equal(qc_control_start(&loop, &o, &C, &err), 0);
    closed c2 = {0};
    qc_control_close(C, closed_on, &c2);
    qc_control_drain(C);
    qc_control_drain(C);
    host_run_until(&loop, &c2.done, 1, 5);
    assert_int_equal(c2.st.state, QC_CONTROL_STOPPED);

    /* a start refused: an error, nothing left open */
    params(&o, "nonsense:x");
    C = (qc_control *)&c2;
    assert_true(qc_control_start(&loop, &o, &C, &err) != 0);
    assert_null(C);

    uv_close((uv_handle_t *)&host_timer, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);

    host_snap(&after);
    /* libuv's child watcher (the cmd: actuator's programs) may leave its
     * SIGCHLD handler installed: libuv's, not the controller's */
    after.sa[SIGCHLD] = before.sa[SIGCHLD];
    host_same(&before, &after);
    free(before.env);
    free(after.env);
    unlink(out);
    unlink(script);
    rmdir(dir);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control_embed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
