// SPDX-License-Identifier: GPL-2.0
/* Names of errors, stop reasons and sources; small rule helpers. */
#include "engine.h"

static const char *const kuw_err_names[KUW_E__COUNT] = {
#define KUW_X_NAME(n, s) [KUW_E_##n] = s,
	KUW_ERRORS(KUW_X_NAME)
#undef KUW_X_NAME
};

const char *kuw_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= KUW_E__COUNT)
		return "unknown error";
	return kuw_err_names[err];
}

const char *kuw_src_name(int src)
{
	switch (src) {
	case KUW_SRC_EH_FRAME:
		return "eh_frame";
	case KUW_SRC_DEBUG_FRAME:
		return "debug_frame";
	case KUW_SRC_SFRAME:
		return "sframe";
	}
	return "?";
}

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
