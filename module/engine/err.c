// SPDX-License-Identifier: GPL-2.0
/* Names of errors, stop reasons and sources; small rule helpers. */
#include "engine.h"

static const char *const kuw_err_names[KUW_E__COUNT] = {
	[KUW_E_OK] = "ok",
	[KUW_E_TRUNC] = "truncated",
	[KUW_E_BADLEN] = "bad length",
	[KUW_E_BADVER] = "unsupported version",
	[KUW_E_BADAUG] = "bad augmentation",
	[KUW_E_BADENC] = "bad pointer encoding",
	[KUW_E_BADCIE] = "bad CIE pointer",
	[KUW_E_BADID] = "bad CIE id",
	[KUW_E_BADALIGN] = "bad alignment factor",
	[KUW_E_BADRANGE] = "address range outside text",
	[KUW_E_OVERLAP] = "overlapping FDEs",
	[KUW_E_BADOP] = "unknown opcode",
	[KUW_E_BADREG] = "register out of range",
	[KUW_E_REMEMBER] = "remember_state stack overflow",
	[KUW_E_RESTORE] = "restore_state without remember_state",
	[KUW_E_BADLOC] = "location outside FDE or going backwards",
	[KUW_E_BADHDR] = "bad header",
	[KUW_E_BADMAGIC] = "bad magic",
	[KUW_E_UNSORTED] = "table not sorted",
	[KUW_E_BADTYPE] = "bad FRE or FDE type",
	[KUW_E_EXPR_STACK] = "expression stack fault",
	[KUW_E_EXPR_DIV0] = "division by zero",
	[KUW_E_EXPR_BRANCH] = "branch outside expression",
	[KUW_E_EXPR_BUDGET] = "expression operation budget exhausted",
	[KUW_E_EXPR_OP] = "unsupported expression operation",
	[KUW_E_TOOBIG] = "table too large",
	[KUW_E_NOMEM] = "out of memory",
	[KUW_E_FAULT] = "memory read fault",
	[KUW_E_NOINFO] = "no unwind info for pc",
	[KUW_E_END] = "end of stack",
	[KUW_E_BADSP] = "stack pointer did not move up",
	[KUW_E_BADSTACK] = "address outside known stacks",
	[KUW_E_LIMIT] = "frame limit reached",
	[KUW_E_BADRA] = "return address not in kernel text",
	[KUW_E_INVAL] = "invalid argument",
	[KUW_E_BADSUM] = "checksum mismatch",
	[KUW_E_NOCFA] = "CFA rule not defined",
	[KUW_E_BADOFF] = "offset does not fit 32 bits",
	[KUW_E_RUNNING] = "task running",
	[KUW_E_BUILDID] = "build id differs from the running object's",
	[KUW_E_EXISTS] = "table already loaded",
	[KUW_E_NOOWNER] = "no such object loaded",
	[KUW_E_NESTED] = "nested walk refused",
};

const char *kuw_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= KUW_E__COUNT)
		return "unknown error";
	return kuw_err_names[err];
}
EXPORT_SYMBOL_GPL(kuw_strerror);
/* the oops hook's trace names its stop reason: the walk's path */
kuw_nokprobe(kuw_strerror);

/* Section names, indexed by enum kuw_src: the one copy. */
static const char *const kuw_src_sections[KUW_SRC__COUNT] = {
	[KUW_SRC_EH_FRAME] = ".eh_frame",
	[KUW_SRC_DEBUG_FRAME] = ".debug_frame",
	[KUW_SRC_SFRAME] = ".sframe",
};

/**
 * kuw_src_section() - the ELF section name of a table source
 * @src: enum kuw_src
 *
 * Return: ".eh_frame", ".debug_frame", ".sframe", or "?".
 */
const char *kuw_src_section(int src)
{
	if (src < 0 || src >= KUW_SRC__COUNT)
		return "?";
	return kuw_src_sections[src];
}

/**
 * kuw_src_name() - a table source's name without the dot
 * @src: enum kuw_src
 *
 * Return: "eh_frame", "debug_frame", "sframe", or "?".
 */
const char *kuw_src_name(int src)
{
	const char *s = kuw_src_section(src);

	return s[0] == '.' ? s + 1 : s;
}
EXPORT_SYMBOL_GPL(kuw_src_name);

const struct kuw_reg_rule *kuw_rule_find(const struct kuw_rule *r, u8 reg)
{
	u32 i;

	for (i = 0; i < r->nregs; i++) {
		if (r->regs[i].reg == reg)
			return &r->regs[i];
		if (r->regs[i].reg > reg)
			break;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(kuw_rule_find);
