/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms_lookup_name() for the test modules: it is not exported since
 * 5.7; a kprobe on it gives its address (kunwind.ko does the same in
 * module/ksyms.c, which it does not export).
 */
#ifndef KUNWIND_KUNIT_KT_LOOKUP_H
#define KUNWIND_KUNIT_KT_LOOKUP_H

#include <linux/kprobes.h>

static unsigned long (*kt_kallsyms_lookup_name)(const char *name);

/* The address of @name, or 0. */
static unsigned long __maybe_unused kt_lookup_name(const char *name)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

	if (!kt_kallsyms_lookup_name) {
		if (register_kprobe(&kp) < 0)
			return 0;
		kt_kallsyms_lookup_name = (void *)kp.addr;
		unregister_kprobe(&kp);
		if (!kt_kallsyms_lookup_name)
			return 0;
	}
	return kt_kallsyms_lookup_name(name);
}

#endif /* KUNWIND_KUNIT_KT_LOOKUP_H */
