/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags_int.h: what the files of the flag engine share among themselves
 * (flags.c, flags_value.c, flags_config.c, flags_text.c, flags_list.c,
 * completion.c); commands use flags.h. */
#ifndef QCTL_APP_FLAGS_INT_H
#define QCTL_APP_FLAGS_INT_H

#include <getopt.h>
#include <stddef.h>

#include "flags.h"

/* >= 0 in a child of cli_list_flags: where the parser writes its table */
extern int cli__listing_fd;
/* 1 while cli_flags_parse runs cli_getopt */
extern int cli__table_parsing;

/* The getopt view of a table: one long option per row and alias (val:
 * 256 + the row), the letters in shortopts. */
typedef struct cli__table_opts {
    struct option *lo;
    char shortopts[64];
} cli__table_opts;

size_t cli__table_len(const cli_flag *t);
/* The row getopt's answer c names, or -1. */
int cli__table_row(const cli_flag *t, size_t n, int c);
/* Reads s into row f's destination, checked: 0 or an exit status. */
int cli__table_value(const cli_flag *f, const char *s);
/* What getopt refused, said precisely ("did you mean"). */
int cli__bad_table_option(const char *cmd, const cli__table_opts *to, const char *arg);

/* In a child of cli_list_flags: writes the table and exits. */
void cli__list_and_exit(const struct option *lo);
void cli__list_table_and_exit(const cli_flag *t, size_t n, const struct option *lo);

/* --config: the file's words merged ahead of the command line's, then the
 * command line's words put back in getopt's order; --check's output. */
int cli__config_merge(const cli_flag *t, size_t n, const cli__table_opts *to, int argc,
                      char **argv, int *margc, char ***margv);
int cli__config_unmerge(int argc, char **argv, int margc, char **margv, int optind_m);
int cli__check_print(const cli_flag *t, size_t n);

/* The help and listing (flags_list.c), for completion.c. */
const char *cli__last_word(const char *name);
int cli__is_group(const cli_command_row *t, const cli_command_row *c);
int cli__run_child(const cli_command_row *c, const char *extra, int listing, char *buf,
                   size_t n);
extern const char cli__help_usage[];

#endif
