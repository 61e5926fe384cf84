/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/plot.h (not installed): plots through gnuplot when it is installed
 * (SVG, PNG and, with pdfcairo, PDF of the same script, saved as
 * DIR/NAME.gp with paths relative to DIR); when it is not, qc_plot reports
 * QC_ENOTSUP and the caller prints a one-line notice. */
#ifndef QCTL_APP_PLOT_H
#define QCTL_APP_PLOT_H

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

#include "qctl/error.h"
#include "qctl/output.h"

/* 1 if gnuplot is on PATH, else 0. */
int qc_plot_available(void);

/* Runs the gnuplot commands `body` (which may refer to data files in dir
 * as 'DIR/file'; the saved script names them 'file') inside dir, writing
 * dir/name.svg, dir/name.png and, when gnuplot has the pdfcairo terminal,
 * dir/name.pdf; the script stays as dir/name.gp and reruns from dir.
 * QC_ENOTSUP when gnuplot is missing; QC_EIO when it fails (the message holds its exit status). */
int qc_plot(const char *dir, const char *name, const char *body, qc_err *err);

/* A plot's data file DIR/FILE opened under its temporary name (committed
 * with qc_ofile_commit); its path, which the gnuplot body names, in
 * path[0..n). NULL with err set. */
FILE *qc_plot_data(qc_ofile *f, const char *dir, const char *file, char *path, size_t n,
                   qc_err *err);

/* qc_plot with the body formatted from fmt (printf-style); qc_vplotf
 * takes the arguments as a va_list. */
int qc_vplotf(const char *dir, const char *name, qc_err *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
int qc_plotf(const char *dir, const char *name, qc_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
