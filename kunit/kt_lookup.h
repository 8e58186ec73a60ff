/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms_lookup_name() for the test modules: it is not exported since
 * 5.7; a kprobe on it gives its address (kunwind.ko does the same in
 * module/ksyms.c, which it does not export).  Like kunwind.ko, the test
 * modules call the unexported functions they find only with kuw_call()
 * (module/kuw_arch.h): typed from the kernel's header, IBT-safe.
 */
#ifndef KUNWIND_KUNIT_KT_LOOKUP_H
#define KUNWIND_KUNIT_KT_LOOKUP_H

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include "kuw_arch.h"

static unsigned long KUW_FN(kallsyms_lookup_name);

/* The address of @name, or 0. */
static unsigned long __maybe_unused kt_lookup_name(const char *name)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

	if (!KUW_FN(kallsyms_lookup_name)) {
		if (register_kprobe(&kp) < 0)
			return 0;
		/* past the ENDBR on an IBT kernel: kuw_call() copes */
		KUW_FN(kallsyms_lookup_name) = (unsigned long)kp.addr;
		unregister_kprobe(&kp);
		if (!KUW_FN(kallsyms_lookup_name))
			return 0;
	}
	return kuw_call(kallsyms_lookup_name, name);
}

#endif /* KUNWIND_KUNIT_KT_LOOKUP_H */
