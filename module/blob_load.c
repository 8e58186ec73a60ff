// SPDX-License-Identifier: GPL-2.0
/*
 * Tables of the kernel image from a blob (kunwind-dump export, written to
 * debugfs "load" or handed to kunwind_load_blob()): validated whole and
 * built before anything is published, so a bad blob changes nothing.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "kunwind.h"
#include "kunwind_internal.h"
#include "kuw_arch.h"
#include "blob.h"

/**
 * kuw_registry_load_blob() - add the kernel image's table from a blob
 * @buf: the blob (vmalloc'ed; on success the registry owns it)
 * @len: its length
 * @d: where a rejection was found
 *
 * The blob is parsed and the table built and relocated before anything is
 * published: a bad blob changes nothing.  A new vmlinux entry replaces the
 * old one; the old one is freed after a grace period.
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kuw_registry_load_blob(const u8 *buf, size_t len, struct kuw_diag *d)
{
	struct kuw_entry *old, *e;
	struct kuw_table *t = NULL;
	struct kuw_blob b;
	s64 delta;
	int ret, i;

	ret = kuw_blob_parse(buf, len, &b, d);
	if (ret)
		return ret;
	if (b.obj.arch != KUW_ARCH_THIS)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_ARCH, KUW_E_INVAL);
	if (!kuw_stext)
		return kuw_fail(d, "blob", 0, KUW_E_INVAL);
	delta = (s64)(kuw_stext - b.stext);
	/* the blob's text must be this kernel's text once moved */
	if (b.obj.text_start + delta > kuw_stext ||
	    b.obj.text_end + delta < kuw_etext)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_TEXT_START,
				KUW_E_BADRANGE);
	ret = kuw_table_build(&b.obj, b.src, &b.sec, &t, d);
	if (ret)
		return ret;
	kuw_table_relocate(t, delta);

	mutex_lock(&kuw_reg_mutex);
	old = kuw_find_mod(NULL);
	e = kuw_entry_alloc("vmlinux");
	if (!old || !e) {
		mutex_unlock(&kuw_reg_mutex);
		kfree(e);
		kuw_table_free(t);
		return old ? -KUW_E_NOMEM : -KUW_E_INVAL;
	}
	/*
	 * The new entry takes over every table (and the blob backing it) but
	 * the one of the blob's source; the old entry keeps that one and
	 * frees it after the grace period.
	 */
	memcpy(e->text, old->text, sizeof(e->text));
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		if (i == b.src)
			continue;
		e->tab[i] = old->tab[i];
		e->blob[i] = old->blob[i];
		e->sec_addr[i] = old->sec_addr[i];
		e->sec_size[i] = old->sec_size[i];
		e->how[i] = old->how[i];
		old->tab[i] = NULL;
		old->blob[i] = NULL;
	}
	e->tab[b.src] = t;
	e->blob[b.src] = (void *)buf;
	e->sec_addr[b.src] = b.sec.addr + delta;
	e->sec_size[b.src] = b.sec.size;
	e->how[b.src] = "blob";
	list_replace_rcu(&old->list, &e->list);
	kuw_reg_changed();
	mutex_unlock(&kuw_reg_mutex);
	synchronize_rcu();
	kuw_entry_free(old);
	return 0;
}

/**
 * kunwind_load_blob() - add the kernel image's table from a vmlinux blob
 * @buf: the blob (copied; see include/kunwind/blob.h for the format)
 * @len: its length
 *
 * What debugfs kunwind/load does, for in-kernel users (a blob fetched with
 * request_firmware(), tests).  Process context.  The blob is validated
 * whole first: a bad one changes nothing.
 *
 * Return: 0 or a negative errno (-EINVAL, -ENOMEM, -EBADMSG for a
 * malformed blob, -ERANGE for one of another kernel).
 */
int kunwind_load_blob(const void *buf, size_t len)
{
	struct kuw_diag d = {};
	u8 *copy;
	int ret;

	if (!buf || !len || len > KUW_BLOB_HDR_SIZE + (size_t)KUW_BLOB_MAX_SEC)
		return -EINVAL;
	copy = kvmalloc(len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	ret = kuw_registry_load_blob(copy, len, &d);
	if (ret) {
		pr_warn_ratelimited("blob refused: %s at %s+0x%llx\n",
				    kuw_strerror(d.err ? d.err : ret),
				    d.section ? d.section : "blob",
				    (unsigned long long)d.off);
		kvfree(copy);
	}
	return kunwind_errno(ret);
}
EXPORT_SYMBOL_GPL(kunwind_load_blob);
