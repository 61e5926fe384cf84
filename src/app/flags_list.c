/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags_list.c: a command's flags listed from its own parser (run in a
 * child whose first call to the parser writes the table to a pipe and
 * exits), and `qctl help COMMAND`. Completion and the man page are made
 * from this listing (completion.c), so a flag added to a command appears
 * there without another edit. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "flags.h"
#include "flags_int.h"


/* >= 0 in a child of cli_list_flags: where the parser writes its table */
int cli__listing_fd = -1;
/* 1 while cli_flags_parse runs cli_getopt */
int cli__table_parsing = 0;

void cli__list_and_exit(const struct option *lo)
{
    for (size_t i = 0; lo[i].name; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, "%s%s\n", lo[i].name,
                         lo[i].has_arg == no_argument ? "" : "=");
        if (n > 0 && write(cli__listing_fd, line, (size_t)n) < 0)
            break;
    }
    _exit(0);
}

/* What completion says a number row takes: its unit, or the kind of
 * number; NULL for a row that is not a number. */
static const char *row_unit(const cli_flag *f)
{
    switch (f->type) {
    case CLI_DOUBLE: return f->unit ? f->unit : "number";
    case CLI_U64:
    case CLI_UINT: return f->unit ? f->unit : "integer";
    default: return f->unit; /* a CLI_FUNC row may say what it reads */
    }
}

/* The listing of a flag table: "name" for a switch, "name=" for a flag
 * with a value, "name=a,b,c" for a choice (its words, which completion
 * offers instead of file names), "name=#unit" for a number (its unit,
 * which completion shows instead of file names). */
void cli__list_table_and_exit(const cli_flag *t, size_t n, const struct option *lo)
{
    for (size_t i = 0; lo[i].name; i++) {
        const char *words = "", *mark = "";
        for (size_t k = 0; k < n; k++) {
            if (strcmp(t[k].name, lo[i].name) != 0 &&
                !(t[k].alias && strcmp(t[k].alias, lo[i].name) == 0))
                continue;
            if (t[k].type == CLI_CHOICE && t[k].choices)
                words = t[k].choices;
            else if ((words = row_unit(&t[k])) != NULL)
                mark = "#";
            else
                words = "";
        }
        char line[512];
        int m = snprintf(line, sizeof line, "%s%s%s%s\n", lo[i].name,
                         lo[i].has_arg == no_argument ? "" : "=", mark, words);
        if (m > 0 && (size_t)m < sizeof line && write(cli__listing_fd, line, (size_t)m) < 0)
            break;
    }
    _exit(0);
}

const char *cli__last_word(const char *name)
{
    const char *sp = strrchr(name, ' ');
    return sp ? sp + 1 : name;
}

/* A group ("sim") is a row whose name begins other rows' names. */
int cli__is_group(const cli_command_row *t, const cli_command_row *c)
{
    size_t len = strlen(c->name);
    for (; t->name; t++)
        if (strncmp(t->name, c->name, len) == 0 && t->name[len] == ' ')
            return 1;
    return 0;
}

const cli_command_row *cli_command_find(const cli_command_row *t, int argc, char **argv,
                                        int *used)
{
    const cli_command_row *best = NULL;
    for (const cli_command_row *c = t; c->name; c++) {
        char w[64];
        snprintf(w, sizeof w, "%s", c->name);
        int k = 0, ok = 1;
        for (char *save = NULL, *tok = strtok_r(w, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save), k++)
            if (k >= argc || strcmp(tok, argv[k]) != 0) {
                ok = 0;
                break;
            }
        if (ok && (!best || k > *used)) {
            best = c;
            *used = k;
        }
    }
    return best;
}

/* Runs c in a child with argv {last word, extra}, its stdout into buf
 * when capture is set; in listing mode the parser writes its table. */
int cli__run_child(const cli_command_row *c, const char *extra, int listing, char *buf,
                   size_t n)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            dup2(fileno(null), STDERR_FILENO);
            if (listing)
                dup2(fileno(null), STDOUT_FILENO);
        }
        if (listing)
            cli__listing_fd = fd[1];
        else
            dup2(fd[1], STDOUT_FILENO);
        char *argv[3] = {(char *)cli__last_word(c->name), (char *)extra, NULL};
        cli_command = c->name;
        int rc = c->fn(extra ? 2 : 1, argv);
        fflush(stdout);
        _exit(listing ? 100 : rc);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t r;
    while ((r = read(fd[0], buf + len, n - 1 - len)) > 0)
        if ((len += (size_t)r) >= n - 1)
            break;
    close(fd[0]);
    buf[len] = '\0';
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || (listing && WEXITSTATUS(st) != 0))
        return -1;
    return (int)len;
}

int cli_list_flags(const cli_command_row *c, char *buf, size_t n)
{
    if (cli__run_child(c, NULL, 1, buf, n) < 0)
        return -1;
    int count = 0;
    for (const char *p = buf; *p; p++)
        count += *p == '\n';
    return count;
}

const char cli__help_usage[] =
    "usage: qctl help [COMMAND [SUBCOMMAND]]\n"
    "\n"
    "Prints the help of a command (the same as 'qctl COMMAND --help'), or\n"
    "the list of commands.\n";

int cli_help_main(const cli_command_row *t, int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(cli__help_usage, stdout);
        return 0;
    }
    if (argc < 2)
        return -1; /* main prints the list of commands */
    int used = 0;
    const cli_command_row *c = cli_command_find(t, argc - 1, argv + 1, &used);
    if (c == NULL || used != argc - 1) {
        cli_error("help: no command '%s' (see 'qctl --help')", argv[argc - 1]);
        return QC_EXIT_USAGE;
    }
    if (strcmp(c->name, "help") == 0) {
        fputs(cli__help_usage, stdout);
        return 0;
    }
    char *a[3] = {(char *)cli__last_word(c->name), "--help", NULL};
    cli_command = c->name;
    return c->fn(2, a);
}
