/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_proxy_config.c: libFuzzer harness for the --config loader of
 * qctl proxy (src/app/config.c) against a long-option table like the
 * proxy's (flags with and without a value, forbidden keys). Invariants
 * checked: success gives only words "--NAME" or "--NAME=..." of known
 * flags (a bare word exactly for a bare flag) with their key pointing
 * into the table; failure gives a message and no words; nothing leaks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/app/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct option opts[] = {{"backend", required_argument, 0, 1},
                                     {"limiter", required_argument, 0, 2},
                                     {"limit", required_argument, 0, 3},
                                     {"class", required_argument, 0, 4},
                                     {"class-prefix", required_argument, 0, 5},
                                     {"check", no_argument, 0, 6},
                                     {"config", required_argument, 0, 7},
                                     {"draining", no_argument, 0, 8},
                                     {0, 0, 0, 0}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const forbidden[] = {"config", "check", NULL};
    qc__config_args a;
    qc_err err = {0};
    int rc = qc__config_args_parse((const char *)data, size, "fuzz.json", opts, forbidden, &a, &err);
    if (rc) {
        if (a.n != 0 || a.word != NULL || err.msg[0] == 0)
            abort();
        return 0;
    }
    for (int i = 0; i < a.n; i++) {
        const struct option *o = opts;
        while (o->name && o->name != a.key[i])
            o++;
        if (!o->name || strcmp(o->name, "config") == 0 || strcmp(o->name, "check") == 0)
            abort();
        size_t n = strlen(o->name);
        const char *w = a.word[i];
        if (strncmp(w, "--", 2) != 0 || strncmp(w + 2, o->name, n) != 0)
            abort();
        if (o->has_arg == no_argument ? w[2 + n] != 0 : w[2 + n] != '=')
            abort();
    }
    qc__config_args_free(&a);
    return 0;
}
