/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake memory for the host test runner: kuw_read_mem() (engine.h) reads
 * from a table of regions that tests set up.  A read succeeds only when
 * [addr, addr + len) lies inside one region; otherwise it returns
 * -KUW_E_FAULT.  Regions hold a copy of the bytes given.
 *
 *	kt_mem_clear();
 *	kt_mem_add(0x1000, buf, sizeof(buf));
 *	kt_mem_put64(0x2000, 0x1234);		// one little-endian u64
 *	... code under test calls kuw_read_mem(ctx, addr, dst, len) ...
 *	KT_EXPECT_EQ(kt_mem_reads, 2);
 *
 * Every read is counted in kt_mem_reads and its context remembered in
 * kt_mem_last_ctx (kt_mem_clear() resets both).  kt_mem_fail_at, when not
 * zero, makes any read touching that address fail with -KUW_E_FAULT (a
 * fault injected inside an otherwise mapped region).
 */
#ifndef KUNWIND_TESTS_MEM_H
#define KUNWIND_TESTS_MEM_H

#include "engine.h"

#define KT_MEM_MAX_REGIONS	64

/* Forget every region and reset the counters. */
void kt_mem_clear(void);
/* Add a copy of @len bytes at @addr; 0, or -1 when the table is full. */
int kt_mem_add(u64 addr, const void *bytes, u32 len);
/* Add one 8-byte little-endian value at @addr. */
int kt_mem_put64(u64 addr, u64 val);

extern u32 kt_mem_reads;
extern void *kt_mem_last_ctx;
extern u64 kt_mem_fail_at;

#endif /* KUNWIND_TESTS_MEM_H */
