/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's environment inside the kernel. */
#ifndef KUNWIND_ENV_KERNEL_H
#define KUNWIND_ENV_KERNEL_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/export.h>
#include <linux/kprobes.h>

#define kuw_noinline		noinline
#define kuw_always_inline	__always_inline
/* a function of the walk's path: never kprobed (README, "Stack use") */
#define kuw_nokprobe(fn)	NOKPROBE_SYMBOL(fn)

/* Load time only: process context, may sleep.  Zeroed. */
static inline void *kuw_alloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

/*
 * Not zeroed: only for memory whose every byte is written before it is
 * read (and before it is handed out).
 */
static inline void *kuw_alloc_raw(size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

static inline void kuw_free(void *p)
{
	kvfree(p);
}

static inline void kuw_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	sort(base, n, size, cmp, NULL);
}

#define kuw_log(fmt, ...) pr_warn("kunwind: " fmt "\n", ##__VA_ARGS__)

#endif /* KUNWIND_ENV_KERNEL_H */
