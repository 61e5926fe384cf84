/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.c: atomic file output, JSON helpers and the gnuplot runner. */
#include "qctl/output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

json_t *qc_json_real_new(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

json_t *qc_json_ci_new(const qc_ci *ci)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "value", qc_json_real_new(ci->mean));
    json_object_set_new(o, "ci_low", qc_json_real_new(ci->lo));
    json_object_set_new(o, "ci_high", qc_json_real_new(ci->hi));
    json_object_set_new(o, "half_width", qc_json_real_new(ci->half));
    json_object_set_new(o, "level", json_real(ci->level));
    json_object_set_new(o, "n", json_integer((json_int_t)ci->n));
    return o;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int qc_ofile_open(qc_ofile *f, const char *path, qc_err *err)
{
    memset(f, 0, sizeof *f);
    size_t n = strlen(path) + 32;
    f->path = dupstr(path);
    f->tmp = malloc(n);
    if (f->path == NULL || f->tmp == NULL) {
        qc_ofile_abort(f);
        return qc_err_set(err, QC_ENOMEM, "%s: out of memory", path);
    }
    snprintf(f->tmp, n, "%s.tmp-%ld", path, (long)getpid());
    f->fp = fopen(f->tmp, "w");
    if (f->fp == NULL) {
        int e = errno;
        qc_ofile_abort(f);
        return qc_err_set(err, QC_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

static void ofile_release(qc_ofile *f)
{
    free(f->path);
    free(f->tmp);
    memset(f, 0, sizeof *f);
}

void qc_ofile_abort(qc_ofile *f)
{
    if (f->fp) {
        fclose(f->fp);
        remove(f->tmp);
    }
    ofile_release(f);
}

int qc_ofile_commit(qc_ofile *f, qc_err *err)
{
    int bad = ferror(f->fp) != 0;
    if (fclose(f->fp) != 0)
        bad = 1;
    f->fp = NULL;
    if (bad || rename(f->tmp, f->path) != 0) {
        int e = errno;
        remove(f->tmp);
        qc_err_set(err, QC_EIO, "%s: write failed: %s", f->path, strerror(e));
        ofile_release(f);
        return QC_EIO;
    }
    ofile_release(f);
    return 0;
}

int qc_json_write(const json_t *v, const char *path, qc_err *err)
{
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10);
    if (path == NULL || strcmp(path, "-") == 0) {
        if (json_dumpf(v, stdout, flags) != 0 || fputc('\n', stdout) == EOF)
            return qc_err_set(err, QC_EIO, "stdout: write failed");
        fflush(stdout);
        return 0;
    }
    qc_ofile f;
    int rc = qc_ofile_open(&f, path, err);
    if (rc != 0)
        return rc;
    if (json_dumpf(v, f.fp, flags) != 0) {
        qc_ofile_abort(&f);
        return qc_err_set(err, QC_EIO, "%s: write failed", path);
    }
    fputc('\n', f.fp);
    return qc_ofile_commit(&f, err);
}

int qc_mkdir_p(const char *dir, qc_err *err)
{
    char *p = dupstr(dir);
    if (p == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                qc_err_set(err, QC_EIO, "%s: cannot create directory: %s", p, strerror(e));
                free(p);
                return QC_EIO;
            }
            *s = c;
            if (c == '\0')
                break;
        }
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return qc_err_set(err, QC_EIO, "%s: not a directory", dir);
    return 0;
}

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
