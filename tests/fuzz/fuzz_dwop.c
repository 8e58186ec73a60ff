// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the DW_OP interpreter (kuw_dwop_check, kuw_dwop_eval).
 *
 * Input: flags (1 byte: bit 0 push an initial value, bit 1 the CFA is
 * known), valid-register mask (8), then the expression bytes.  Registers
 * hold 0x7fff0000 + 8 * n; memory answers reads inside
 * [0x7ffe0000, 0x80010000) with bytes derived from the address and
 * faults elsewhere, so dereference chains run both ways.
 * Seeds: tests/fuzz/corpus/fuzz_dwop/, the expressions of this machine's
 * libc and ld.so CFI plus loops and branches (mkcorpus_sfr.py).
 *
 * Build and run alone (from the repository root):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Iinclude/kunwind -Imodule/engine -Itools -Itests/fuzz -o fuzz_dwop \
 *     tests/fuzz/fuzz_dwop.c tests/fuzz/common.c \
 *     $(sed -n 's/^KUW_ENGINE := //p' engine.mk | tr ' ' '\n' | \
 *       sed 's|.*|module/engine/&.c|')
 * (the engine list of engine.mk)
 *   ./fuzz_dwop -max_total_time=60 tests/fuzz/corpus/fuzz_dwop
 * or: tests/fuzz/run.sh fuzz_dwop
 *
 * Beyond "no crash or hang": results are deterministic; an expression the
 * load-time check accepts never fails evaluation for a structural reason
 * (unknown operation, truncated operand, bad branch); errors are valid
 * kuw_err codes.
 */
#include "common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define DFZ_LO	0x7ffe0000ULL
#define DFZ_HI	0x80010000ULL

/* Overrides the weak one of common.c: a deterministic fake memory. */
int kuw_read_mem(void *mem_ctx, u64 addr, void *dst, u32 len)
{
	u8 *p = dst;
	u32 i;

	if (addr < DFZ_LO || addr >= DFZ_HI || len > DFZ_HI - addr)
		return -KUW_E_FAULT;
	for (i = 0; i < len; i++) {
		u64 a = addr + i;

		/* Aligned words near the stack point back into it. */
		p[i] = (u8)((a & 7) == 0 ? 0x08 + (a >> 3) :
			    (a & 7) >= 4 ? 0 : (a >> (8 * (a & 7))));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct kuw_regs regs;
	u8 flags = (u8)fz_take(&in, 1);
	u64 r1 = 0, r2 = 0;
	int c, e1, e2;
	u32 i, len;

	memset(&regs, 0, sizeof(regs));
	regs.valid = fz_take(&in, 8);
	for (i = 0; i < KUW_MAX_REGS; i++)
		regs.r[i] = 0x7fff0000ULL + 8 * i;
	len = in.n > 0xffffffffu ? 0xffffffffu : (u32)in.n;

	c = kuw_dwop_check(in.p, len);
	e1 = kuw_dwop_eval(in.p, len, &regs, 0x7fff8000ULL, flags & 2,
			   0x7fff4000ULL, flags & 1, NULL, &r1);
	e2 = kuw_dwop_eval(in.p, len, &regs, 0x7fff8000ULL, flags & 2,
			   0x7fff4000ULL, flags & 1, NULL, &r2);
	if (c > 0 || c <= -KUW_E__COUNT || e1 > 0 || e1 <= -KUW_E__COUNT)
		__builtin_trap();
	if (e1 != e2 || (!e1 && r1 != r2))
		__builtin_trap();	/* deterministic */
	/*
	 * What the load-time check accepts never fails evaluation for a
	 * structural reason.  (The converse does not hold: the check also
	 * refuses bytes a branch jumps over.)
	 */
	if (!c && (e1 == -KUW_E_BADOP || e1 == -KUW_E_TRUNC ||
		   e1 == -KUW_E_EXPR_BRANCH))
		__builtin_trap();
	return 0;
}
