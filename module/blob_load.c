// SPDX-License-Identifier: GPL-2.0
/*
 * Tables of the kernel image and of modules from blobs (kunwind-dump
 * export, written to /dev/kunwind/load or handed to kunwind_load_blob()):
 * validated whole, checked against the running object's build id and built
 * before anything is published, so a bad blob changes nothing.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include "kunwind.h"
#include "kunwind_internal.h"
#include "kuw_arch.h"
#include "blob.h"

/* The build id of the running kernel or of a loaded module, from sysfs. */
static int kuw_blob_check_id(const struct kuw_blob *b, struct kuw_diag *d)
{
	char path[96];
	const u8 *id;
	u32 id_len;
	ssize_t n;
	u8 *notes;
	int ret;

	if (b->kind == KUW_BLOB_VMLINUX)
		strscpy(path, "/sys/kernel/notes", sizeof(path));
	else
		snprintf(path, sizeof(path),
			 "/sys/module/%s/notes/.note.gnu.build-id", b->owner);
	notes = kmalloc(SZ_4K, GFP_KERNEL);
	if (!notes)
		return -KUW_E_NOMEM;
	n = kuw_read_file(path, notes, SZ_4K);
	ret = n > 0 ? kuw_note_build_id(notes, n, &id, &id_len) :
		-KUW_E_NOINFO;
	if (!ret && (id_len != b->id_len || memcmp(id, b->build_id, id_len)))
		ret = -KUW_E_BUILDID;
	kfree(notes);
	if (ret)	/* no id to compare is a mismatch too */
		return kuw_fail(d, "blob", KUW_BLOB_OFF_BUILD_ID,
				KUW_E_BUILDID);
	return 0;
}

/* The entry of "vmlinux" or of a module, by name.  kuw_reg_mutex held. */
static struct kuw_entry *kuw_find_name(const char *name)
{
	struct kuw_entry *e;

	list_for_each_entry(e, &kuw_entries, list)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

/*
 * Replace @owner's entry by a copy with table @t of @src (backed by @buf,
 * built from a section at @addr, @size bytes), or without its table of
 * @src when @t is NULL; the old entry is freed after a grace period,
 * with the table it kept.  Adding over a table there: -KUW_E_EXISTS;
 * dropping one not there: -KUW_E_NOINFO; dropping a trusted table for
 * userspace (@user) where lockdown forbids it: 1 (kuw_lockdown_drop()
 * said why), decided under kuw_reg_mutex with the table in hand.
 */
static int kuw_entry_swap(const char *owner, int src, struct kuw_table *t,
			  const u8 *buf, u64 addr, u64 size, bool user)
{
	struct kuw_entry *old, *e;
	int i, ret = 0;

	e = kuw_entry_alloc(owner);
	if (!e)
		return -KUW_E_NOMEM;
	mutex_lock(&kuw_reg_mutex);
	old = kuw_find_name(owner);
	if (!old)
		ret = -KUW_E_NOOWNER;
	else if (t && old->tab[src])
		ret = -KUW_E_EXISTS;	/* adding over a table */
	else if (!t && !old->tab[src])
		ret = -KUW_E_NOINFO;	/* dropping none */
	else if (!t && user && !old->tab[src]->untrusted &&
		 kuw_lockdown_drop(owner, src))
		ret = 1;		/* a trusted table, locked down */
	if (ret) {
		mutex_unlock(&kuw_reg_mutex);
		kfree(e);
		return ret;
	}
	e->mod = old->mod;
	memcpy(e->text, old->text, sizeof(e->text));
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		if (i == src)
			continue;
		e->tab[i] = old->tab[i];
		e->blob[i] = old->blob[i];
		e->sec_addr[i] = old->sec_addr[i];
		e->sec_size[i] = old->sec_size[i];
		e->how[i] = old->how[i];
		old->tab[i] = NULL;
		old->blob[i] = NULL;
	}
	if (t) {
		e->tab[src] = t;
		e->blob[src] = (void *)buf;
		e->sec_addr[src] = addr;
		e->sec_size[src] = size;
		e->how[src] = "blob";
	}
	list_replace_rcu(&old->list, &e->list);
	kuw_reg_changed();
	mutex_unlock(&kuw_reg_mutex);
	synchronize_rcu();
	kuw_entry_free(old);
	return 0;
}

/* Refuse early (before building) a table that is there already. */
static int kuw_blob_absent(const struct kuw_blob *b, struct kuw_diag *d)
{
	struct kuw_entry *e;
	bool there;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_name(b->owner);
	there = e && e->tab[b->src];
	mutex_unlock(&kuw_reg_mutex);
	return there ? kuw_fail(d, "blob", KUW_BLOB_OFF_SRC, KUW_E_EXISTS) : 0;
}

/* Publish a built table, or say why not (and free it). */
static int kuw_blob_publish(const struct kuw_blob *b, struct kuw_table *t,
			    const u8 *buf, s64 delta, bool trusted,
			    struct kuw_diag *d)
{
	int ret;

	t->untrusted = !trusted;
	ret = kuw_entry_swap(b->owner, b->src, t, buf, b->sec.addr + delta,
			     b->sec.size, false);

	if (ret) {
		kuw_table_free(t);
		return kuw_fail(d, "blob", ret == -KUW_E_EXISTS ?
				KUW_BLOB_OFF_SRC : KUW_BLOB_OFF_OWNER, -ret);
	}
	return 0;
}

/**
 * kuw_registry_drop_table() - forget one table of the kernel or a module
 * @owner: "vmlinux" or a module's name
 * @src: enum kuw_src
 * @user: asked by userspace (/dev/kunwind/unload), which lockdown may
 *	forbid (kuw_lockdown_drop()); in-kernel callers are not
 *
 * For replacing a table by a blob (/dev/kunwind/unload): until the
 * next load the object's pcs in that table fall back to the others.
 *
 * Return: 0, -KUW_E_NOOWNER or -KUW_E_NOINFO (no such table), or 1 when
 * lockdown keeps the table (one log line said so).
 */
int kuw_registry_drop_table(const char *owner, int src, bool user)
{
	if (src < 0 || src >= KUW_SRC__COUNT)
		return -KUW_E_INVAL;
	return kuw_entry_swap(owner, src, NULL, NULL, 0, 0, user);
}

/* The kernel image's table: moved by the KASLR offset. */
static int kuw_blob_vmlinux(const u8 *buf, struct kuw_blob *b,
			    bool trusted, struct kuw_diag *d)
{
	struct kuw_table *t = NULL;
	s64 delta;
	int ret;

	if (!kuw_stext)
		return kuw_fail(d, "blob", 0, KUW_E_INVAL);
	ret = kuw_blob_check_id(b, d);
	if (!ret)
		ret = kuw_blob_absent(b, d);
	if (ret)
		return ret;
	delta = (s64)(kuw_stext - b->stext);
	/* the blob's text must be this kernel's text once moved */
	if (b->obj.text_start + delta > kuw_stext ||
	    b->obj.text_end + delta < kuw_etext)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_TEXT_START,
				KUW_E_BADRANGE);
	ret = kuw_table_build(&b->obj, b->src, &b->sec, &t, d);
	if (ret)
		return ret;
	kuw_table_relocate(t, delta);
	return kuw_blob_publish(b, t, buf, delta, trusted, d);
}

/* A module's table: each FDE moved to where its section was loaded. */
static int kuw_blob_module(const u8 *buf, struct kuw_blob *b,
			   bool trusted, struct kuw_diag *d)
{
	struct kuw_table *t = NULL;
	struct kuw_remap *map;
	struct module *mod;
	int ret;

	mod = kuw_module_get(b->owner);
	if (!mod)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_OWNER, KUW_E_NOOWNER);
	ret = kuw_blob_check_id(b, d);
	if (!ret)
		ret = kuw_blob_absent(b, d);
	if (ret) {
		module_put(mod);
		return ret;
	}
	map = kcalloc(b->nsect, sizeof(*map), GFP_KERNEL);
	ret = map ? kuw_module_remap(mod, b, map, d) : -KUW_E_NOMEM;
	if (!ret)
		ret = kuw_table_build(&b->obj, b->src, &b->sec, &t, d);
	kfree(map);
	b->obj.remap = NULL;
	if (!ret)
		ret = kuw_blob_publish(b, t, buf, 0, trusted, d);
	module_put(mod);
	return ret;
}

/**
 * kuw_registry_load_blob() - add a table of the kernel or a module from a blob
 * @buf: the blob (vmalloc'ed; on success the registry owns it)
 * @len: its length
 * @trusted: may walks through the table be reliable (kuw_lockdown_blob())
 * @d: where a rejection was found
 *
 * The blob is parsed, its build id compared with the running object's, and
 * the table built at its run-time addresses before anything is published:
 * a bad blob changes nothing.  A module blob is accepted only while that
 * module is loaded and goes with it.  A second table of the same source
 * for the same object is refused.
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kuw_registry_load_blob(const u8 *buf, size_t len, bool trusted,
			   struct kuw_diag *d)
{
	struct kuw_blob b;
	int ret;

	ret = kuw_blob_parse(buf, len, &b, d);
	if (ret)
		return ret;
	if (b.obj.arch != KUW_ARCH_THIS)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_ARCH, KUW_E_INVAL);
	if (b.kind == KUW_BLOB_VMLINUX)
		return kuw_blob_vmlinux(buf, &b, trusted, d);
	return kuw_blob_module(buf, &b, trusted, d);
}

/**
 * kunwind_drop_table() - forget one table of the kernel or a module
 * @owner: "vmlinux" or a module's name
 * @src: enum kuw_src of the table
 *
 * What /dev/kunwind/unload does: a blob may then give the table again
 * (a second table of a source is refused).  Process context.
 *
 * Return: 0, -ENOENT (no such object or table) or -EINVAL.
 */
int kunwind_drop_table(const char *owner, u8 src)
{
	if (!owner)
		return -EINVAL;
	return kunwind_errno(kuw_registry_drop_table(owner, src, false));
}
EXPORT_SYMBOL_GPL(kunwind_drop_table);

/**
 * kuw_blob_total() - the whole blob's size from its header
 * @hdr: the first KUW_BLOB_HDR_SIZE bytes of a blob
 *
 * Return: the size the header announces, or 0 when it cannot be a blob.
 */
size_t kuw_blob_total(const u8 *hdr)
{
	return kuw_blob_size(get_unaligned_le16(hdr + KUW_BLOB_OFF_NSECT),
			     get_unaligned_le32(hdr + KUW_BLOB_OFF_SEC_SIZE));
}

/**
 * kuw_blob_apply() - load a blob, or say in one line why not
 * @buf: the blob (kvmalloc'ed; on success the registry owns it)
 * @len: its length
 *
 * Return: 0 or a negative errno: -EPERM refused by lockdown
 * (kuw_lockdown_blob()), -ESTALE another build's blob, -EEXIST
 * the table is already loaded, -ENOENT its module is not loaded, -EINVAL
 * another architecture's, -ENOMEM, -EBADMSG a malformed blob.
 */
int kuw_blob_apply(u8 *buf, size_t len)
{
	/* the owner as the header has it, unparsed: escaped, 4 bytes each */
	char name[4 * (KUW_BLOB_OWNER_MAX - 1) + 1];
	struct kuw_diag d = {};
	const char *owner = "?";
	bool trusted;
	int ret, n = 1;

	if (len >= KUW_BLOB_HDR_SIZE) {
		owner = (const char *)buf + KUW_BLOB_OFF_OWNER;
		n = strnlen(owner, KUW_BLOB_OWNER_MAX - 1);
	}
	scnprintf(name, sizeof(name), "%*pE", n, owner);
	/* lockdown first: a refused blob is not even parsed */
	ret = kuw_lockdown_blob(name, &trusted);
	if (ret)
		return ret;
	ret = kuw_registry_load_blob(buf, len, trusted, &d);
	if (ret) {
		this_cpu_inc(kuw_counters.load_fail);
		pr_warn_ratelimited("blob for %s refused: %s at %s+0x%llx\n",
				    name, kuw_strerror(d.err ? d.err : ret),
				    d.section ? d.section : "blob",
				    (unsigned long long)d.off);
		return kunwind_errno(ret);
	}
	pr_info("%s: table loaded from blob (%zu bytes)\n", name, len);
	return 0;
}

/**
 * kunwind_load_blob() - add a table of the kernel or a module from a blob
 * @buf: the blob (copied; see include/kunwind/blob.h for the format)
 * @len: its length
 *
 * What /dev/kunwind/load does, for in-kernel users (a blob fetched with
 * request_firmware(), tests).  Process context.  The blob is validated
 * whole and its build id checked first: a bad one changes nothing.
 *
 * Return: 0 or a negative errno (see kuw_blob_apply()).
 */
int kunwind_load_blob(const void *buf, size_t len)
{
	u8 *copy;
	int ret;

	if (!buf || len < KUW_BLOB_HDR_SIZE || len != kuw_blob_total(buf))
		return -EINVAL;
	copy = kvmalloc(len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	ret = kuw_blob_apply(copy, len);
	if (ret)
		kvfree(copy);
	return ret;
}
EXPORT_SYMBOL_GPL(kunwind_load_blob);
