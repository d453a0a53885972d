/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top.h - wheelctl ls and top: every open wheeltimer file on the machine
 */
#ifndef _WHEELCTL_TOP_H
#define _WHEELCTL_TOP_H

#include <stdbool.h>

/* Whether @name is ls or top, which run alone and open no device. */
bool wt_ps_command(const char *name);
/* Runs ls or top with its arguments; returns wheelctl's exit status. */
int wt_ps_run(int argc, char **argv, bool json);

#endif /* _WHEELCTL_TOP_H */
