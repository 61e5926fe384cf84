/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/plot.h (not installed): plots through gnuplot when it is installed
 * (SVG, PNG and, with pdfcairo, PDF of the same script, saved as
 * DIR/NAME.gp with paths relative to DIR); when it is not, qc_plot reports
 * QC_ENOTSUP and the caller prints a one-line notice. */
#ifndef QCTL_APP_PLOT_H
#define QCTL_APP_PLOT_H

#include "qctl/error.h"

/* 1 if gnuplot is on PATH, else 0. */
int qc_plot_available(void);

/* Runs the gnuplot commands `body` (which may refer to data files in dir
 * as 'DIR/file'; the saved script names them 'file') inside dir, writing
 * dir/name.svg, dir/name.png and, when gnuplot has the pdfcairo terminal,
 * dir/name.pdf; the script stays as dir/name.gp and reruns from dir.
 * QC_ENOTSUP when gnuplot is missing; QC_EIO when it fails (the message holds its exit status). */
int qc_plot(const char *dir, const char *name, const char *body, qc_err *err);

#endif
