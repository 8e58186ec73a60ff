/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms_lookup_name() for the test modules: it is not exported since
 * 5.7; a kprobe on it gives its address (kunwind.ko does the same in
 * module/ksyms.c, which it does not export).  Like kunwind.ko, the test
 * modules call the unexported functions they find only with kuw_call()
 * (module/kuw_call.h): a static call typed from the kernel's header, a
 * direct call on x86 (IBT-safe).  Each such function is a KUW_INTERNAL()
 * at file scope, set with kt_lookup_fn() in process context.
 */
#ifndef KUNWIND_KUNIT_KT_LOOKUP_H
#define KUNWIND_KUNIT_KT_LOOKUP_H

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include "kuw_call.h"

KUW_INTERNAL(kallsyms_lookup_name);

/* The address of @name, or 0.  Process context. */
static unsigned long __maybe_unused kt_lookup_name(const char *name)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

	if (!KUW_FN(kallsyms_lookup_name)) {
		if (register_kprobe(&kp) < 0)
			return 0;
		unregister_kprobe(&kp);
		/*
		 * Past the ENDBR on an IBT kernel, kept (unlike kunwind.ko):
		 * the static call's direct call works there too, which
		 * every test module's look-ups show.
		 */
		if (!kuw_set_fn(kallsyms_lookup_name,
				(unsigned long)kp.addr)->addr)
			return 0;
	}
	return kuw_call(kallsyms_lookup_name, name);
}

/*
 * kt_lookup_fn(fn): look @fn (KUW_INTERNAL(fn)) up and point its static
 * call there.  Process context.  Return: its address, or 0.
 */
#define kt_lookup_fn(fn)	(kuw_set_fn(fn, kt_lookup_name(#fn))->addr)

#endif /* KUNWIND_KUNIT_KT_LOOKUP_H */
