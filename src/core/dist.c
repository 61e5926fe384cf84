/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dist.c: placeholder until the distribution module lands. */
#include "qctl/dist.h"
