// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame_hdr: the linker's sorted search table over .eh_frame.
 *
 *   u8  version          1
 *   u8  eh_frame_ptr_enc
 *   u8  fde_count_enc
 *   u8  table_enc
 *   eh_frame_ptr         (eh_frame_ptr_enc): address of .eh_frame
 *   fde_count            (fde_count_enc)
 *   table[fde_count]     { initial_location, fde_address } (table_enc)
 *
 * datarel in this section is relative to its own start.  The table is
 * trusted only when its encoding is datarel|sdata4 (what every linker
 * writes; fixed 8-byte entries make binary search possible), it is sorted,
 * and each entry points at an FDE of .eh_frame that covers its initial
 * location.  Otherwise the caller builds its own index from .eh_frame.
 */
#include "ehframe.h"
#include "read.h"
#include "dwarf.h"

#define EHHDR_TABLE_ENC	(KUW_DW_EH_PE_datarel | KUW_DW_EH_PE_sdata4)

/**
 * kuw_ehhdr_check() - check .eh_frame_hdr against .eh_frame
 * @o: the object (text range)
 * @hdr: .eh_frame_hdr bytes and address
 * @ehf: .eh_frame bytes and address
 * @nent: number of table entries, when the table is usable
 * @d: where the first problem was found
 *
 * Return: 0 when the table can be used for lookup; -KUW_E_BADENC when it
 * is absent (omit) or not datarel|sdata4; another error when malformed.
 */
int kuw_ehhdr_check(const struct kuw_obj *o, const struct kuw_sec *hdr,
		    const struct kuw_sec *ehf, u32 *nent, struct kuw_diag *d)
{
	static const char name[] = ".eh_frame_hdr";
	struct kuw_ptr_base pb = { .addr_size = 8, .have = KUW_PB_DATA };
	u8 ver, ptr_enc, cnt_enc, tab_enc;
	u64 ptr, cnt, i, loc, fde, prev = 0, start, end, at;
	struct kuw_cur c;
	u32 v = 0;
	int ret;

	if (!o || !hdr || !ehf || (!hdr->data && hdr->size) ||
	    (!ehf->data && ehf->size))
		return -KUW_E_INVAL;
	pb.data = hdr->addr;
	kuw_cur_init(&c, hdr->data, hdr->size, hdr->addr);
	if (kuw_rd_u8(&c, &ver) || kuw_rd_u8(&c, &ptr_enc) ||
	    kuw_rd_u8(&c, &cnt_enc) || kuw_rd_u8(&c, &tab_enc))
		return kuw_fail(d, name, 0, KUW_E_TRUNC);
	if (ver != 1)
		return kuw_fail(d, name, 0, KUW_E_BADVER);
	if (ptr_enc == KUW_DW_EH_PE_omit || (ptr_enc & KUW_DW_EH_PE_indirect))
		return kuw_fail(d, name, 1, KUW_E_BADENC);
	ret = kuw_rd_ptr(&c, ptr_enc, &pb, false, &ptr, NULL);
	if (ret)
		return kuw_fail(d, name, c.pos, -ret);
	if (ptr != ehf->addr)
		return kuw_fail(d, name, 4, KUW_E_BADHDR);
	if (cnt_enc == KUW_DW_EH_PE_omit || (cnt_enc & KUW_DW_EH_PE_indirect))
		return kuw_fail(d, name, 2, KUW_E_BADENC);
	if (tab_enc != EHHDR_TABLE_ENC)
		return kuw_fail(d, name, 3, KUW_E_BADENC);
	at = c.pos;
	ret = kuw_rd_ptr(&c, cnt_enc, &pb, false, &cnt, NULL);
	if (ret)
		return kuw_fail(d, name, at, -ret);
	if (cnt > kuw_cur_left(&c) / 8 || cnt > 0xffffffffULL)
		return kuw_fail(d, name, at, KUW_E_BADLEN);

	for (i = 0; i < cnt; i++) {
		at = c.pos;
		kuw_rd_u32(&c, &v);
		loc = hdr->addr + (u64)(s64)(s32)v;
		kuw_rd_u32(&c, &v);
		fde = hdr->addr + (u64)(s64)(s32)v;
		if (i && loc < prev)
			return kuw_fail(d, name, at, KUW_E_UNSORTED);
		prev = loc;
		if (fde < ehf->addr || fde - ehf->addr >= ehf->size)
			return kuw_fail(d, name, at + 4, KUW_E_BADHDR);
		ret = kuw_ehf_fde_at(o, ehf, fde - ehf->addr, &start, &end,
				     NULL);
		if (ret)
			return kuw_fail(d, name, at + 4, -ret);
		if (loc < start || (loc >= end && !(loc == start && end == start)))
			return kuw_fail(d, name, at, KUW_E_BADHDR);
	}
	if (nent)
		*nent = (u32)cnt;
	return 0;
}
