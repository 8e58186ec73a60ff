// SPDX-License-Identifier: GPL-2.0
/*
 * The row text format shared by kunwind-dump and debugfs (SPEC-NOTES):
 * "0x<pc> cfa=<reg>+<n> <reg>=<rule> ... ra=<rule>", the notation of
 * readelf --debug-dump=frames-interp, then " ra_signed=1" when AArch64's
 * return address is signed.  SFrame v3 flexible FDEs add "(<reg>+<n>)"
 * (loaded from register + n: a CFA, or where a register is saved) and
 * "<reg>+<n>" (a register's value is register + n).
 */
#include "engine.h"
#include "arch.h"

static const char *const kuw_x86_64_names[KUW_X86_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra",
};

static const char *const kuw_arm64_names[KUW_A64_NREGS] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7",
	"x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
	"x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
	"x24", "x25", "x26", "x27", "x28", "x29", "ra", "sp", "pc",
};

/**
 * kuw_reg_name() - name of a DWARF register column in the row format
 * @arch: enum kuw_arch
 * @reg: DWARF register number
 *
 * The return-address column is named "ra".  Return: a static string, "?"
 * for a column the architecture does not track.
 */
const char *kuw_reg_name(u8 arch, u8 reg)
{
	if (arch == KUW_ARCH_ARM64)
		return reg < KUW_A64_NREGS ? kuw_arm64_names[reg] : "?";
	return reg < KUW_X86_NREGS ? kuw_x86_64_names[reg] : "?";
}

struct kuw_buf {
	char *p;
	u32 len;
	u32 pos;
};

static __printf(2, 3) void kuw_put(struct kuw_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->pos >= b->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->pos, b->len - b->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->pos += n;
}

static void kuw_put_off(struct kuw_buf *b, s64 off)
{
	if (off < 0)
		kuw_put(b, "-%llu", (u64)-off);
	else
		kuw_put(b, "+%llu", (u64)off);
}

/**
 * kuw_format_row() - write one row in the row text format
 * @buf: output buffer, always NUL-terminated when @len > 0
 * @len: size of @buf
 * @arch: enum kuw_arch
 * @pc: the row's start address
 * @r: the row's rules
 *
 * Return: the line's length (>= @len when it was truncated), or -KUW_E_INVAL.
 */
int kuw_format_row(char *buf, u32 len, u8 arch, u64 pc,
		   const struct kuw_rule *r)
{
	struct kuw_buf b = { .p = buf, .len = len };
	u32 i;

	if (!buf || !len || !r)
		return -KUW_E_INVAL;
	buf[0] = 0;
	kuw_put(&b, "0x%llx cfa=", pc);
	if (r->cfa_kind == KUW_CFA_EXPR) {
		kuw_put(&b, "exp");
	} else if (r->cfa_kind == KUW_CFA_DEREF) {
		kuw_put(&b, "(%s", kuw_reg_name(arch, r->cfa_reg));
		kuw_put_off(&b, r->cfa_off);
		kuw_put(&b, ")");
	} else {
		kuw_put(&b, "%s", kuw_reg_name(arch, r->cfa_reg));
		kuw_put_off(&b, r->cfa_off);
	}
	for (i = 0; i < r->nregs && i < KUW_MAX_REGS; i++) {
		const struct kuw_reg_rule *rr = &r->regs[i];

		kuw_put(&b, " %s=", kuw_reg_name(arch, rr->reg));
		switch (rr->kind) {
		case KUW_R_SAME:
			kuw_put(&b, "s");
			break;
		case KUW_R_UNDEF:
			kuw_put(&b, "u");
			break;
		case KUW_R_OFFSET:
			kuw_put(&b, "c");
			kuw_put_off(&b, rr->off);
			break;
		case KUW_R_VAL_OFFSET:
			kuw_put(&b, "v");
			kuw_put_off(&b, rr->off);
			break;
		case KUW_R_REG:
			kuw_put(&b, "%s", kuw_reg_name(arch, rr->src));
			break;
		case KUW_R_EXPR:
			kuw_put(&b, "exp");
			break;
		case KUW_R_VAL_EXPR:
			kuw_put(&b, "vexp");
			break;
		case KUW_R_AT_REG:
			kuw_put(&b, "(%s", kuw_reg_name(arch, rr->src));
			kuw_put_off(&b, rr->off);
			kuw_put(&b, ")");
			break;
		case KUW_R_VAL_REG:
			kuw_put(&b, "%s", kuw_reg_name(arch, rr->src));
			kuw_put_off(&b, rr->off);
			break;
		default:
			kuw_put(&b, "?");
			break;
		}
	}
	/* AArch64: the return address carries a PAC signature */
	if (r->flags & KUW_RF_MANGLED_RA)
		kuw_put(&b, " ra_signed=1");
	return b.pos;
}
EXPORT_SYMBOL_GPL(kuw_format_row);
