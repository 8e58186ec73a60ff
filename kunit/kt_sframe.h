/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the suites that walk with the source forced to .sframe: has kunwind
 * refused vmlinux's own .sframe?  A test kernel linked by binutils 2.44
 * (7.3's toolchain) has FDEs of the wrong size in it after `ld -r`, and
 * kunwind.ko rightly refuses the table at load ("kunwind: vmlinux: .sframe
 * rejected: <reason> at .sframe+0x<off>", one line: scripts/guest/kunwind.sh
 * checks it).  A walk with the source forced to .sframe then has no table
 * for vmlinux's frames and steps them with the kernel's unwinder (ORC):
 * the frames are the same, the trace is no longer reliable.  What such a
 * suite still asserts is what its module's own .sframe does: reliable up
 * to the frame the module's table stepped to last.
 */
#ifndef KUNWIND_KUNIT_KT_SFRAME_H
#define KUNWIND_KUNIT_KT_SFRAME_H

#include <linux/module.h>
#include "kunwind.h"
#include "kt_lookup.h"

/*
 * The kernel has a .sframe section (__sframe_start < __sframe_end), and
 * kunwind keeps vmlinux's .eh_frame table but no .sframe table.
 */
static bool __maybe_unused kt_vmlinux_sframe_refused(void)
{
	struct kunwind_table_info info[8];
	unsigned long s = kt_lookup_name("__sframe_start");
	unsigned long e = kt_lookup_name("__sframe_end");
	bool eh = false, sf = false;
	int n, i;

	if (!s || e <= s)
		return false;
	n = kunwind_tables_of("vmlinux", info, ARRAY_SIZE(info));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(info); i++) {
		eh |= info[i].src == KUW_SRC_EH_FRAME;
		sf |= info[i].src == KUW_SRC_SFRAME;
	}
	return eh && !sf;
}

/*
 * The first frame of @pc[0..@n) past the last one in this module (a return
 * address is looked up one byte back): the frame this module's table
 * stepped to last.  @n when no frame is in the module or the last one is.
 */
static unsigned int __maybe_unused kt_past_module(const unsigned long *pc,
						  unsigned int n)
{
	unsigned int i, last = n;

	for (i = 0; i < n; i++)
		if (within_module(pc[i], THIS_MODULE) ||
		    (i && within_module(pc[i] - 1, THIS_MODULE)))
			last = i;
	return last + 1 < n ? last + 1 : n;
}

#endif /* KUNWIND_KUNIT_KT_SFRAME_H */
