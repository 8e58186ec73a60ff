// SPDX-License-Identifier: GPL-2.0
/* Fake memory for the host test runner: see mem.h. */
#include "mem.h"
#include "read.h"

struct kt_mem_region {
	u64 addr;
	u32 len;
	u8 *bytes;
};

static struct kt_mem_region kt_mem[KT_MEM_MAX_REGIONS];
static u32 kt_mem_n;

u32 kt_mem_reads;
void *kt_mem_last_ctx;
u64 kt_mem_fail_at;

void kt_mem_clear(void)
{
	u32 i;

	for (i = 0; i < kt_mem_n; i++)
		free(kt_mem[i].bytes);
	kt_mem_n = 0;
	kt_mem_reads = 0;
	kt_mem_last_ctx = NULL;
	kt_mem_fail_at = 0;
}

int kt_mem_add(u64 addr, const void *bytes, u32 len)
{
	struct kt_mem_region *r;

	if (kt_mem_n >= KT_MEM_MAX_REGIONS)
		return -1;
	r = &kt_mem[kt_mem_n];
	r->bytes = malloc(len ? len : 1);
	if (!r->bytes)
		return -1;
	memcpy(r->bytes, bytes, len);
	r->addr = addr;
	r->len = len;
	kt_mem_n++;
	return 0;
}

int kt_mem_put64(u64 addr, u64 val)
{
	u8 b[8];

	kuw_put_le(b, val, sizeof(b));
	return kt_mem_add(addr, b, sizeof(b));
}

int kuw_read_mem(void *mem_ctx, u64 addr, void *dst, u32 len)
{
	u32 i;

	kt_mem_reads++;
	kt_mem_last_ctx = mem_ctx;
	if (addr + len < addr)
		return -KUW_E_FAULT;
	if (kt_mem_fail_at && kt_mem_fail_at >= addr &&
	    kt_mem_fail_at < addr + len)
		return -KUW_E_FAULT;
	/* Latest region first, so a test can overlay an earlier one. */
	for (i = kt_mem_n; i-- > 0;) {
		struct kt_mem_region *r = &kt_mem[i];

		if (addr >= r->addr && addr - r->addr <= r->len &&
		    len <= r->len - (addr - r->addr)) {
			memcpy(dst, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	return -KUW_E_FAULT;
}
