/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64 facts of the kernel glue's arch seam (module/kuw_arch.h). */
#ifndef KUNWIND_ARCH_X86_64_H
#define KUNWIND_ARCH_X86_64_H

#include "arch.h"

#define KUW_ARCH_THIS	KUW_ARCH_X86_64
#define KUW_REG_PC	KUW_X86_RA
#define KUW_REG_SP	KUW_X86_RSP
#define KUW_REG_FP	KUW_X86_RBP

#endif /* KUNWIND_ARCH_X86_64_H */
