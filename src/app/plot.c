/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plot.c: the gnuplot runner (see app/plot.h). */
#include "app/plot.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int qc_plot_available(void)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return 0;
    char buf[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n + 9 < sizeof buf) {
            memcpy(buf, path, n);
            memcpy(buf + n, "/gnuplot", 9);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += n;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Runs gnuplot on a script file inside dir (the script names its data and
 * images relative to dir); 0 when it exits 0. */
static int run_gnuplot(const char *dir, const char *script)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Writes body with every quoted reference to a file in dir ('DIR/x' or
 * "DIR/x") made relative to dir ('x'), so that the saved script reruns from
 * the report folder whatever the directory qctl ran in. */
static void put_relative(FILE *fp, const char *body, const char *dir)
{
    size_t dn = strlen(dir);
    while (dn > 1 && dir[dn - 1] == '/')
        dn--;
    for (const char *s = body; *s;) {
        if ((*s == '\'' || *s == '"') && strncmp(s + 1, dir, dn) == 0 && s[1 + dn] == '/') {
            fputc(*s, fp);
            s += 1 + dn;
            while (*s == '/')
                s++;
            continue;
        }
        fputc(*s++, fp);
    }
}

int qc_plot(const char *dir, const char *name, const char *body, qc_err *err)
{
    if (!qc_plot_available())
        return qc_err_set(err, QC_ENOTSUP, "gnuplot not found on PATH; plots skipped");
    size_t n = strlen(dir) + strlen(name) + 16;
    char *script = malloc(n);
    if (script == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    snprintf(script, n, "%s/%s.gp", dir, name);
    FILE *fp = fopen(script, "w");
    if (fp == NULL) {
        int e = errno;
        qc_err_set(err, QC_EIO, "%s: cannot write: %s", script, strerror(e));
        free(script);
        return QC_EIO;
    }
    /* The script is kept beside the images so a user can restyle a plot:
     * `gnuplot NAME.gp` in that folder redraws the SVG, the PNG and, where
     * gnuplot has the pdfcairo terminal, a PDF for a paper. */
    fprintf(fp,
            "# qctl plot %s: run `gnuplot %s.gp` in this folder to redraw\n"
            "# %s.svg, %s.png and (with the pdfcairo terminal) %s.pdf\n"
            "set terminal svg size 800,500 dynamic enhanced font 'sans,12'\n"
            "set output '%s.svg'\n"
            "set grid\n",
            name, name, name, name, name, name);
    put_relative(fp, body, dir);
    fprintf(fp,
            "\nset terminal pngcairo size 800,500 enhanced font 'sans,10'\n"
            "set output '%s.png'\n"
            "replot\nunset output\n"
            "if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {\n"
            "    set terminal pdfcairo size 16cm,10cm enhanced font 'sans,9'\n"
            "    set output '%s.pdf'\n"
            "    replot\n"
            "    unset output\n"
            "}\n",
            name, name);
    int bad = ferror(fp) != 0;
    bad |= fclose(fp) != 0;
    int rc = 0;
    if (bad) {
        rc = qc_err_set(err, QC_EIO, "%s: write failed", script);
    } else {
        char *base = strrchr(script, '/') + 1;
        int st = run_gnuplot(dir, base);
        if (st != 0)
            rc = qc_err_set(err, QC_EIO, "gnuplot failed on %s (status %d)", script, st);
    }
    free(script);
    return rc;
}

FILE *qc_plot_data(qc_ofile *f, const char *dir, const char *file, char *path, size_t n,
                   qc_err *err)
{
    snprintf(path, n, "%s/%s", dir, file);
    return qc_ofile_open(f, path, err) == 0 ? f->fp : NULL;
}

int qc_vplotf(const char *dir, const char *name, qc_err *err, const char *fmt, va_list ap)
{
    /* the body is as long as it needs (paths, one line per series) */
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *body = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (body)
        vsnprintf(body, (size_t)n + 1, fmt, again);
    va_end(again);
    if (body == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int rc = qc_plot(dir, name, body, err);
    free(body);
    return rc;
}

int qc_plotf(const char *dir, const char *name, qc_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = qc_vplotf(dir, name, err, fmt, ap);
    va_end(ap);
    return rc;
}
