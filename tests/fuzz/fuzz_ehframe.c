// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: .eh_frame and .debug_frame (walker, CFI interpreter,
 * compiled table, lookup, one step).
 *
 * Input: mode (1 byte: bit 0 .debug_frame, bit 1 KUW_OBJ_RELOCATED,
 * bit 2 arm64), section address (8), text start (8), text end (8), then
 * the section bytes.
 */
#include "common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct kuw_table *t = NULL;
	struct kuw_diag d = { 0 };
	struct kuw_stats st = { 0 };
	struct kuw_obj o = { 0 };
	struct kuw_sec s;
	u8 mode = (u8)fz_take(&in, 1);
#ifdef FZ_FORCE_DEBUG_FRAME
	bool debug = true;
#else
	bool debug = mode & 1;
#endif
	u8 arch;

	o.owner = "fuzz";
	o.arch = mode & 4 ? KUW_ARCH_ARM64 : KUW_ARCH_X86_64;
	o.flags = mode & 2 ? KUW_OBJ_RELOCATED : 0;
	s.addr = fz_take(&in, 8);
	o.text_start = fz_take(&in, 8);
	o.text_end = fz_take(&in, 8);
	s.data = in.p;
	s.size = in.n;
	arch = o.arch;

	{
		struct kuw_sink sink = fz_format_sink;

		sink.ctx = &arch;
		if (kuw_ehf_walk(&o, &s, debug, &sink, &st, &d) && !d.err)
			__builtin_trap();	/* an error must say where */
	}
	memset(&d, 0, sizeof(d));
	if (!kuw_table_build(&o, debug ? KUW_SRC_DEBUG_FRAME :
			     KUW_SRC_EH_FRAME, &s, &t, &d)) {
		struct fz_in tail = { data + 1, size > 33 ? 32 : 0 };

		fz_use_table(t, &tail);
		kuw_table_free(t);
	} else if (!d.err) {
		__builtin_trap();
	}
	return 0;
}
