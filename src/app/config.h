/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/config.h (not installed): a command's options from a JSON file,
 * used by src/cli/.
 *
 * The file is one JSON object whose keys are the command's long flag
 * names and whose values are their arguments: a string or a number for a
 * flag that takes a value, true for a bare flag (false leaves it out), an
 * array to repeat a flag. qc__config_args turns it into the argument
 * words "--name=value" / "--name" that the command's getopt loop then
 * parses with the flags of the command line: one code path, so a flag
 * added to the command's long-option table is accepted in a config file
 * with no other change. A key is looked up in that same table.
 *
 * Ownership: the words are owned by *out until qc__config_args_free.
 * Errors: QC_EPARSE for malformed JSON with FILE:LINE:COLUMN from jansson;
 * QC_EINVAL naming the key (and element) for an unknown key, a key the
 * file may not hold (listed in `forbidden`), or a value of the wrong
 * type. *out is empty on error. */
#ifndef QCTL_LIVE_CONFIG_H
#define QCTL_LIVE_CONFIG_H

#include <getopt.h>
#include <stddef.h>

#include "qctl/error.h"

typedef struct qc__config_args {
    char **word;      /* "--name=value" or "--name" */
    const char **key; /* the long option each word sets (into longopts) */
    int n, cap;
} qc__config_args;

/* Parses text[0..len) (file: the name used in messages) against longopts
 * (terminated by a zero entry). forbidden: NULL-terminated names that are
 * flags but not allowed in a file (e.g. "config", "help"), or NULL. */
int qc__config_args_parse(const char *text, size_t len, const char *file,
                          const struct option *longopts, const char *const *forbidden,
                          qc__config_args *out, qc_err *err);

/* Reads the file at path (QC_EIO naming it if it cannot) and parses it. */
int qc__config_args_load(const char *path, const struct option *longopts,
                         const char *const *forbidden, qc__config_args *out, qc_err *err);

void qc__config_args_free(qc__config_args *a);

#endif
