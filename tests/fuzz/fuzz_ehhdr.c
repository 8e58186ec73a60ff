// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: .eh_frame_hdr checked against .eh_frame.
 *
 * Input: .eh_frame_hdr address (8), .eh_frame address (8), text start (8),
 * text end (8), header length (4), the header bytes, then the .eh_frame
 * bytes.
 */
#include "common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct kuw_diag d = { 0 };
	struct kuw_obj o = { 0 };
	struct kuw_sec hdr, ehf;
	u64 hlen;
	u32 nent = 0;
	int ret;

	o.owner = "fuzz";
	o.arch = KUW_ARCH_X86_64;
	hdr.addr = fz_take(&in, 8);
	ehf.addr = fz_take(&in, 8);
	o.text_start = fz_take(&in, 8);
	o.text_end = fz_take(&in, 8);
	hlen = fz_take(&in, 4);
	if (hlen > in.n)
		hlen = in.n;
	hdr.data = in.p;
	hdr.size = hlen;
	ehf.data = in.p + hlen;
	ehf.size = in.n - hlen;
	ret = kuw_ehhdr_check(&o, &hdr, &ehf, &nent, &d);
	if (ret && !d.err)
		__builtin_trap();
	if (!ret && (u64)nent * 8 > hdr.size)
		__builtin_trap();	/* more entries than bytes */
	return 0;
}
