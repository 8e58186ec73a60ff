/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seam between the engine and its home.  The engine includes only this
 * header; it maps types, string functions, sorting, load-time allocation and
 * logging to the kernel (env_kernel.h) or to libc (env_host.h).
 * Fault-safe memory reads are kuw_read_mem(), declared in engine.h and
 * defined by each home.
 */
#ifndef KUNWIND_ENV_H
#define KUNWIND_ENV_H

#ifdef __KERNEL__
#include "env_kernel.h"
#else
#include "env_host.h"
#endif

#endif /* KUNWIND_ENV_H */
