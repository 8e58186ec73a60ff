/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's environment on the host (tools and tests): libc. */
#ifndef KUNWIND_ENV_HOST_H
#define KUNWIND_ENV_HOST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Same widths and printf types as the kernel's (u64 is unsigned long long). */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

/* Cold paths out of line, hot helpers always inline (the kernel's macros). */
#define kuw_noinline		__attribute__((__noinline__))
#define kuw_always_inline	inline __attribute__((__always_inline__))
/* the kernel keeps kprobes off the walk's functions; nothing to do here */
#define kuw_nokprobe(fn)	extern int kuw_nokprobe_##fn

/* Engine entry points are exported to other modules; nothing on the host. */
#ifndef EXPORT_SYMBOL_GPL
#define EXPORT_SYMBOL_GPL(sym)
#endif

/* Load time only; zeroed. */
static inline void *kuw_alloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

/*
 * Not zeroed: only for memory whose every byte is written before it is
 * read (and before it is handed out).
 */
static inline void *kuw_alloc_raw(size_t size)
{
	return malloc(size ? size : 1);
}

static inline void kuw_free(void *p)
{
	free(p);
}

static inline void kuw_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

/* Set to false by tests that provoke errors on purpose. */
extern bool kuw_host_log_enabled;
#define kuw_log(fmt, ...)						\
	do {								\
		if (kuw_host_log_enabled)				\
			fprintf(stderr, "kunwind: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

#endif /* KUNWIND_ENV_HOST_H */
