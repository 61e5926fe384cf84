/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arx_text.h: internal to libqctl (arx.c, arx_json.c). */
#ifndef QCTL_CONTROL_ARX_TEXT_H
#define QCTL_CONTROL_ARX_TEXT_H

#include <ctype.h>
#include <stddef.h>

/* The first n characters of s (at most size - 1) into out, a '?' for each
 * character that is not printable, so that a message stays on one line. */
static inline void qc__field_text(char *out, size_t size, const char *s, size_t n)
{
    if (n > size - 1)
        n = size - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
    out[n] = '\0';
}

#endif
