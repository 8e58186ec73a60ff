// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's home for the libFuzzer targets: every memory read fails
 * (the section bytes are all a target may trust), and logging is off.
 * Both are weak so a target may bring its own.
 */
#include "common.h"

__attribute__((weak)) bool kuw_host_log_enabled;

__attribute__((weak)) int kuw_read_mem(void *mem_ctx, u64 addr, void *dst,
				       u32 len)
{
	return -KUW_E_FAULT;
}

static u8 fz_arch = KUW_ARCH_X86_64;

static int fz_fde(void *ctx, const struct kuw_fde_info *f)
{
	fz_arch = ctx ? *(u8 *)ctx : KUW_ARCH_X86_64;
	return f->end < f->start;	/* a walker must never report that */
}

static int fz_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	char buf[512];

	if (r->nregs > KUW_MAX_REGS)
		__builtin_trap();
	kuw_format_row(buf, sizeof(buf), fz_arch, pc, r);
	return 0;
}

const struct kuw_sink fz_format_sink = { fz_fde, fz_row, NULL };

static void fz_lookup(const struct kuw_table *t, u64 pc)
{
	const struct kuw_rule *r;
	struct kuw_regs regs;
	char buf[512];
	u64 row_pc;
	u8 i;

	if (kuw_table_lookup(t, pc, &r, &row_pc))
		return;
	if (row_pc > pc || r->nregs > KUW_MAX_REGS)
		__builtin_trap();	/* lookup contract */
	kuw_format_row(buf, sizeof(buf), t->arch, row_pc, r);
	/* One step from a register set: reads fail, must end cleanly. */
	memset(&regs, 0, sizeof(regs));
	for (i = 0; i < KUW_MAX_REGS; i++)
		regs.r[i] = 0x7fff0000ull + 8 * i;
	regs.valid = ~0ull;
	kuw_step(t->arch, t->sec, t->sec_size, r, &regs, NULL);
}

void fz_use_table(const struct kuw_table *t, struct fz_in *in)
{
	int k;

	if (!t)
		return;
	fz_lookup(t, t->start);
	fz_lookup(t, t->start + (t->end - t->start) / 2);
	fz_lookup(t, t->end - 1);
	fz_lookup(t, t->end);
	fz_lookup(t, t->start - 1);
	for (k = 0; k < 8 && in->n >= 4; k++)
		fz_lookup(t, t->start + fz_take(in, 4));
}

void fz_obj_sec(struct fz_in *in, bool arm64, bool relocated,
		struct kuw_obj *o, struct kuw_sec *s)
{
	memset(o, 0, sizeof(*o));
	o->owner = "fuzz";
	o->arch = arm64 ? KUW_ARCH_ARM64 : KUW_ARCH_X86_64;
	o->flags = relocated ? KUW_OBJ_RELOCATED : 0;
	s->addr = fz_take(in, 8);
	o->text_start = fz_take(in, 8);
	o->text_end = fz_take(in, 8);
	s->data = in->p;
	s->size = in->n;
}

bool fz_build(const struct kuw_obj *o, int src, const struct kuw_sec *s,
	      const u8 *data, size_t size)
{
	struct kuw_table *t = NULL;
	struct kuw_diag d = { 0 };
	struct fz_in tail = { data + 1, size > 33 ? 32 : 0 };

	if (kuw_table_build(o, src, s, &t, &d)) {
		if (!d.err)
			__builtin_trap();	/* an error must say where */
		return false;
	}
	fz_use_table(t, &tail);
	kuw_table_free(t);
	return true;
}
