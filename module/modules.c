// SPDX-License-Identifier: GPL-2.0
/*
 * Module tables: find each module's .eh_frame and .sframe, build them when
 * the module comes, drop them when it goes.
 *
 * - modules loaded after kunwind: a kprobe on module_finalize(hdr, sechdrs,
 *   mod), which every architecture calls after relocation with the full
 *   ELF section headers, records where .eh_frame and .sframe landed and
 *   their exact sizes; the module notifier builds the tables at
 *   MODULE_STATE_COMING, before the module's init and before its KUnit
 *   suites run (the notifier is registered with a priority above KUnit's).
 *   The kprobe sees raw argument registers: a record is made only when
 *   they are what load_module() passes (kuw_finalize_args()), else the
 *   load is left to sysfs, said in one log line.
 * - modules already loaded (and kunwind itself, and any module whose load
 *   the kprobe missed): /sys/module/<name>/sections/, the public ABI that
 *   gives each loaded section's address (root only).  It gives no sizes:
 *   a section ends at the next section's address at most, and the module
 *   loader zero-fills its memory, so the padding after .eh_frame reads as
 *   a zero-length terminator; .sframe is bounded by its own header.
 *   Under kptr_restrict=2 (or kptr_restrict=1 and an opener without
 *   CAP_SYSLOG) every such file reads 0: those modules get no tables, which
 *   kunwind says in one log line (kuw_sysfs_hidden()).
 * Only public struct module fields are used (name, state, list, and its
 * memory through module/compat.h); no private structure.
 *
 * A module's FDEs of .init.text stay in its table, but the init range is
 * dropped from the entry at MODULE_STATE_LIVE, before the loader frees the
 * init text, so they are never matched again.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/atomic.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/security.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include "compat.h"
#include "kunwind.h"
#include "kunwind_internal.h"
#include "kuw_arch.h"
#include "blob.h"

/* What the module_finalize kprobe saw, consumed at MODULE_STATE_COMING. */
#define KUW_PENDING 8
struct kuw_pending {
	struct module *mod;
	u64 addr[KUW_SRC__COUNT];
	u64 size[KUW_SRC__COUNT];
	u64 init_lo, init_hi;	/* where freed init text was (sysfs) */
};

/*
 * The kprobe handler runs in int3 context (NMI-like for lockdep), so the
 * slots take no lock: a slot is claimed by moving its state FREE or READY
 * -> BUSY with cmpxchg, written or read, then released (READY or FREE).
 */
enum { KUW_SLOT_FREE, KUW_SLOT_BUSY, KUW_SLOT_READY };

static struct kuw_pending kuw_pend[KUW_PENDING];
static atomic_t kuw_pend_state[KUW_PENDING];
static atomic_t kuw_pend_next;

/* Claim a READY slot holding @mod; returns the slot or -1. */
static int kuw_pend_claim(struct module *mod)
{
	int i;

	for (i = 0; i < KUW_PENDING; i++) {
		if (atomic_read_acquire(&kuw_pend_state[i]) != KUW_SLOT_READY ||
		    READ_ONCE(kuw_pend[i].mod) != mod)
			continue;
		if (atomic_cmpxchg(&kuw_pend_state[i], KUW_SLOT_READY,
				   KUW_SLOT_BUSY) != KUW_SLOT_READY)
			continue;
		if (kuw_pend[i].mod == mod)
			return i;
		atomic_set_release(&kuw_pend_state[i], KUW_SLOT_READY);
	}
	return -1;
}

/* The ELF image load_module() checked is at most this large (INT_MAX). */
#define KUW_IMAGE_MAX	0x7fffffffUL

/*
 * Section @i's header and name (its first @len - 1 bytes, NUL-terminated),
 * read without trusting the pointers (copy_from_kernel_nofault(), never
 * past the end of the names' section); @strtab is the header of the
 * section names' section.  Return: 0 or -EFAULT.
 */
static int kuw_finalize_sec(const struct elfhdr *hdr,
			    const struct elf_shdr *sechdrs,
			    const struct elf_shdr *strtab, unsigned int i,
			    struct elf_shdr *sh, char *name, size_t len)
{
	size_t n;

	if (copy_from_kernel_nofault(sh, &sechdrs[i], sizeof(*sh)) ||
	    sh->sh_name >= strtab->sh_size)
		return -EFAULT;
	n = min_t(u64, len - 1, strtab->sh_size - sh->sh_name);
	if (copy_from_kernel_nofault(name, (const char *)hdr +
				     strtab->sh_offset + sh->sh_name, n))
		return -EFAULT;
	name[n] = 0;
	return 0;
}

/*
 * kuw_finalize_args() - check module_finalize()'s arguments, as the kprobe
 * sees them in the argument registers, and record the unwind sections
 * @hdr: the module's ELF image (load_module() checked it: info->hdr)
 * @sechdrs: its section headers (hdr + e_shoff), with final addresses
 * @mod: the module being formed
 * @rec: filled with the unwind sections' addresses and sizes
 *
 * The registers are taken for what load_module() passes only when all of
 * this holds: @hdr reads as an ELF header of a relocatable object of this
 * architecture, with section headers of this kernel's size, a section
 * count and a header table within an image load_module() can take;
 * @sechdrs is @hdr + e_shoff; @mod is in
 * MODULE_STATE_UNFORMED (the notifier's COMING comes next), and is the
 * address the image's .gnu.linkonce.this_module section was placed at.
 * Every read of the image and of @mod is copy_from_kernel_nofault().
 *
 * Return: NULL, or why the arguments are not taken.
 */
static const char *kuw_finalize_args(const struct elfhdr *hdr,
				     const struct elf_shdr *sechdrs,
				     struct module *mod,
				     struct kuw_pending *rec)
{
	struct elfhdr eh;
	struct elf_shdr strtab, sh;
	char name[32];
	enum module_state state;
	bool self = false;
	unsigned int i;
	int src;

	if (!hdr || !sechdrs || !mod)
		return "a NULL argument";
	if (copy_from_kernel_nofault(&eh, hdr, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_type != ET_REL ||
	    !elf_check_arch(&eh) || eh.e_shentsize != sizeof(struct elf_shdr))
		return "hdr is not this architecture's module image";
	if (!eh.e_shnum || eh.e_shnum >= SHN_LORESERVE ||
	    eh.e_shstrndx >= eh.e_shnum || eh.e_shoff < sizeof(eh) ||
	    eh.e_shoff > KUW_IMAGE_MAX -
			 (unsigned long)eh.e_shnum * sizeof(struct elf_shdr))
		return "section headers out of the image";
	if ((unsigned long)sechdrs != (unsigned long)hdr + eh.e_shoff)
		return "sechdrs is not hdr + e_shoff";
	/*
	 * Not checked against the module area: with KASLR arm64 places
	 * modules anywhere in vmalloc space (Debian's 6.1); the reads are
	 * fault-safe, and the section check below pins @mod.
	 */
	if (copy_from_kernel_nofault(&state, &mod->state, sizeof(state)) ||
	    state != MODULE_STATE_UNFORMED)
		return "mod is not a module being loaded";
	if (copy_from_kernel_nofault(&strtab, &sechdrs[eh.e_shstrndx],
				     sizeof(strtab)) ||
	    strtab.sh_offset > KUW_IMAGE_MAX ||
	    strtab.sh_size > KUW_IMAGE_MAX - strtab.sh_offset)
		return "section names out of the image";
	for (i = 1; i < eh.e_shnum; i++) {
		if (kuw_finalize_sec(hdr, sechdrs, &strtab, i, &sh, name,
				     sizeof(name)))
			return "a section header or name out of the image";
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		if (!strcmp(name, ".gnu.linkonce.this_module"))
			self = sh.sh_addr == (unsigned long)mod;
		if (!sh.sh_size)
			continue;
		for (src = 0; src < KUW_SRC__COUNT; src++) {
			if (strcmp(name, kuw_src_section(src)))
				continue;
			rec->addr[src] = sh.sh_addr;
			rec->size[src] = sh.sh_size;
		}
	}
	if (!self)
		return "mod is not where the image's .gnu.linkonce.this_module is";
	return NULL;
}

/*
 * module_finalize(hdr, sechdrs, mod) runs after relocation, before the
 * COMING notifier; the section headers carry final addresses and sizes.
 * Atomic context: record them, build later.  Arguments that do not check
 * out (kuw_finalize_args()) give no record: the module's tables are read
 * from sysfs once it is live, as for a load the kprobe missed.
 */
static int kuw_finalize_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct elfhdr *hdr =
		(const struct elfhdr *)regs_get_kernel_argument(regs, 0);
	const struct elf_shdr *sechdrs =
		(const struct elf_shdr *)regs_get_kernel_argument(regs, 1);
	struct module *mod = (struct module *)regs_get_kernel_argument(regs, 2);
	struct kuw_pending rec = { .mod = mod };
	const char *why;
	unsigned int i;
	int slot;

	why = kuw_finalize_args(hdr, sechdrs, mod, &rec);
	if (why) {
		pr_warn_ratelimited("module_finalize kprobe: arguments refused (%s): this load's tables are read from sysfs once it is live\n",
				    why);
		return 0;
	}
	/* a new load at the same struct module address overrides */
	slot = kuw_pend_claim(mod);
	for (i = 0; slot < 0 && i < 2 * KUW_PENDING; i++) {
		/* a free slot, else the next one round (a load that failed) */
		int n = (unsigned int)atomic_inc_return(&kuw_pend_next) %
			KUW_PENDING;

		if (atomic_cmpxchg(&kuw_pend_state[n], KUW_SLOT_FREE,
				   KUW_SLOT_BUSY) == KUW_SLOT_FREE ||
		    (i >= KUW_PENDING &&
		     atomic_cmpxchg(&kuw_pend_state[n], KUW_SLOT_READY,
				    KUW_SLOT_BUSY) == KUW_SLOT_READY))
			slot = n;
	}
	if (slot < 0)
		return 0;	/* eight loads at once: this one gets no record */
	kuw_pend[slot] = rec;
	atomic_set_release(&kuw_pend_state[slot], KUW_SLOT_READY);
	return 0;
}

static struct kprobe kuw_finalize_kp = {
	.symbol_name = "module_finalize",
	.pre_handler = kuw_finalize_pre,
};

static bool kuw_finalize_kp_on;

static bool kuw_take_pending(struct module *mod, struct kuw_pending *out)
{
	int slot = kuw_pend_claim(mod);

	if (slot < 0)
		return false;
	if (out)
		*out = kuw_pend[slot];
	kuw_pend[slot].mod = NULL;
	atomic_set_release(&kuw_pend_state[slot], KUW_SLOT_FREE);
	return true;
}

static void kuw_mod_ranges(struct kuw_entry *e, struct module *mod,
			   struct kuw_obj *o)
{
	struct kuw_range core = kuw_module_text(mod);
	struct kuw_range init = kuw_module_init_text(mod);
	unsigned long cs = core.start, ce = core.end;
	unsigned long is = init.start, ie = init.end;

	e->mod = mod;
	e->text[KUW_RANGE_CORE][0] = cs;
	e->text[KUW_RANGE_CORE][1] = ce;
	if (is && ie > is && mod->state != MODULE_STATE_LIVE) {
		e->text[KUW_RANGE_INIT][0] = is;
		e->text[KUW_RANGE_INIT][1] = ie;
	}
	o->owner = e->name;
	o->arch = KUW_ARCH_THIS;
	o->flags = KUW_OBJ_RELOCATED;
	o->text_start = cs;
	o->text_end = ce;
	if (is && ie > is) {	/* FDEs of init text, freed or not */
		o->text_start = min(o->text_start, is);
		o->text_end = max(o->text_end, ie);
	}
}

/* ---- /sys/module/<name>/sections ---- */

#define KUW_MAX_SECTS	256
struct kuw_sect {
	char name[48];
	unsigned long addr;
};

struct kuw_dirctx {
	struct dir_context ctx;
	struct kuw_sect *s;
	unsigned int n;
};

static bool kuw_filldir(struct dir_context *ctx, const char *name, int len,
			loff_t off, u64 ino, unsigned int type)
{
	struct kuw_dirctx *c = container_of(ctx, struct kuw_dirctx, ctx);

	if (c->n >= KUW_MAX_SECTS)
		return false;
	if (len <= 0 || len >= (int)sizeof(c->s[0].name) ||
	    (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.'))))
		return true;
	memcpy(c->s[c->n].name, name, len);
	c->s[c->n].name[len] = 0;
	c->n++;
	return true;
}

/**
 * kuw_read_file() - read a small sysfs file
 * @path: the file, resolved from PID 1's root (kuw_filp_open_init(): the
 *	  caller may be a kernel thread, a KUnit case calling
 *	  kunwind_load_blob() or kunwind_reread_module())
 * @buf: where to put its bytes
 * @len: at most this many
 *
 * Return: bytes read, or a negative errno.
 */
ssize_t kuw_read_file(const char *path, void *buf, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = kuw_filp_open_init(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len, &pos);
	filp_close(f, NULL);
	return n;
}

/*
 * /sys/module/<name>/sections/ files read 0 when kallsyms_show_value()
 * says no for their opener's credentials: kptr_restrict=2, or 1 without
 * CAP_SYSLOG.  Every module read from sysfs then has no tables: said
 * once, in one line.
 */
static void kuw_sysfs_hidden(const char *mod)
{
	pr_warn_once("/sys/module/%s/sections/ shows address 0 (kptr_restrict=2, or kptr_restrict=1 without CAP_SYSLOG): modules loaded before kunwind, kunwind itself and module blobs get no unwind tables\n",
		     mod);
}

static int kuw_read_addr(const char *mod, const char *sec, unsigned long *v)
{
	char path[128], buf[32];
	ssize_t n;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", mod, sec);
	n = kuw_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n ? n : -EINVAL;
	buf[n] = 0;
	ret = kstrtoul(strim(buf), 16, v);
	if (!ret && !*v) {	/* no section of a loaded module is at 0 */
		kuw_sysfs_hidden(mod);
		return -EPERM;
	}
	return ret;
}

/* The lowest section address above @a, at most @limit. */
static unsigned long kuw_next_sect(const struct kuw_dirctx *c,
				   unsigned long a, unsigned long limit)
{
	unsigned int j;

	for (j = 0; j < c->n; j++)
		if (c->s[j].addr > a && c->s[j].addr < limit)
			limit = c->s[j].addr;
	return limit;
}

/**
 * kuw_sysfs_table_end() - may a table section be read where sysfs says?
 * @mod: the module
 * @src: enum kuw_src: which section
 * @addr: its address as /sys/module/<name>/sections/ gave it
 *
 * .eh_frame and .sframe are allocated, neither writable nor executable:
 * the loader puts them in the module's read-only data, which nothing
 * writes after the load.  An address anywhere else (text, data, data
 * read-only after init, another module, 0) is not such a section: sysfs
 * can be mounted over by root, and a table built from writable data could
 * be rewritten under the walks that read it.
 *
 * Return: the end of @mod's read-only data when @addr lies in it (the
 * section's size is at most that end minus @addr), else 0: refused.
 */
unsigned long kuw_sysfs_table_end(struct module *mod, int src,
				  unsigned long addr)
{
	struct kuw_range ro = kuw_module_rodata(mod);

	if (src < 0 || src >= KUW_SRC__COUNT || !addr ||
	    addr < ro.start || addr >= ro.end)
		return 0;
	return ro.end;
}
EXPORT_SYMBOL_GPL(kuw_sysfs_table_end);

/*
 * Addresses of @mod's loaded sections from sysfs; for each table source,
 * the section's address and an upper bound of its size, within the
 * module's read-only data (kuw_sysfs_table_end()).
 */
static int kuw_sysfs_sections(struct module *mod, struct kuw_pending *rec)
{
	struct kuw_dirctx c = { .ctx.actor = kuw_filldir };
	char path[96];
	struct file *dir;
	bool found = false;
	unsigned int i;
	int ret, src;

	c.s = kvcalloc(KUW_MAX_SECTS, sizeof(*c.s), GFP_KERNEL);
	if (!c.s)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/sys/module/%s/sections", mod->name);
	dir = kuw_filp_open_init(path, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(dir)) {
		ret = PTR_ERR(dir);
		goto out;
	}
	ret = iterate_dir(dir, &c.ctx);
	filp_close(dir, NULL);
	if (ret)
		goto out;
	/* most modules have no unwind table: read no address then */
	for (i = 0; i < c.n && !found; i++)
		for (src = 0; src < KUW_SRC__COUNT; src++)
			if (!strcmp(c.s[i].name, kuw_src_section(src)))
				found = true;
	if (!found)
		goto out;
	for (i = 0; i < c.n; i++)
		if (kuw_read_addr(mod->name, c.s[i].name, &c.s[i].addr))
			c.s[i].addr = 0;
	for (src = 0; src < KUW_SRC__COUNT; src++) {
		unsigned long a = 0, bound;

		for (i = 0; i < c.n; i++)
			if (!strcmp(c.s[i].name, kuw_src_section(src)))
				a = c.s[i].addr;
		bound = kuw_sysfs_table_end(mod, src, a);
		if (!bound)
			continue;
		bound = kuw_next_sect(&c, a, bound);
		rec->addr[src] = a;
		rec->size[src] = bound - a;
		/*
		 * .eh_frame entries are 4-byte multiples and the padding up
		 * to the next section is zeros: whole zero words, read as a
		 * terminator.
		 */
		if (src == KUW_SRC_EH_FRAME)
			rec->size[src] &= ~3ULL;
	}
	/*
	 * Init text is gone once a module is live, but its FDEs are still in
	 * .eh_frame: sysfs keeps the old address, so they still validate.
	 */
	for (i = 0; i < c.n; i++) {
		if (strcmp(c.s[i].name, ".init.text") || !c.s[i].addr)
			continue;
		rec->init_lo = c.s[i].addr;
		rec->init_hi = kuw_next_sect(&c, c.s[i].addr,
					     c.s[i].addr + SZ_16M);
	}
out:
	kvfree(c.s);
	return ret;
}

/*
 * May walks through tables read from sysfs be reliable?  Not once the
 * kernel is locked down (integrity): root, whom lockdown holds apart from
 * the kernel, can mount over /sys/module/<name>/sections/ and choose
 * where a table is read (within the module's read-only data, but there
 * any bytes that parse), and livepatch trusts a reliable trace to switch
 * a task.  Such tables serve traces, never a reliable one; tables read
 * before lockdown was raised stay trusted, as blobs loaded before it
 * (kuw_lockdown_blob()).  The kprobe's records, from the section headers
 * the loader itself placed, are the kernel's own and stay trusted.
 */
static bool kuw_sysfs_trusted(struct module *mod)
{
	if (!security_locked_down(LOCKDOWN_INTEGRITY_MAX))
		return true;
	pr_info_once("%s: the kernel is locked down (integrity): tables read from /sys/module/*/sections/ (modules loaded before kunwind, kunwind itself) serve traces, never a reliable one\n",
		     mod->name);
	return false;
}

/*
 * Register @mod (once): tables from the kprobe's record, else from sysfs.
 * Process context, kuw_reg_mutex not held.
 */
static int kuw_add_mod(struct module *mod, bool sysfs)
{
	struct kuw_pending rec = {};
	struct kuw_entry *e;
	struct kuw_obj o = {};
	const char *how = "kprobe";
	int src;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_mod(mod);
	mutex_unlock(&kuw_reg_mutex);
	if (e)
		return 0;
	if (!kuw_take_pending(mod, &rec) || rec.mod != mod) {
		memset(&rec, 0, sizeof(rec));
		if (sysfs && !kuw_sysfs_sections(mod, &rec))
			how = "sysfs";
	}
	e = kuw_entry_alloc(mod->name);
	if (!e)
		return -ENOMEM;
	kuw_mod_ranges(e, mod, &o);
	if (rec.init_lo && rec.init_hi > rec.init_lo) {
		o.text_start = min(o.text_start, rec.init_lo);
		o.text_end = max(o.text_end, rec.init_hi);
	}
	if (!strcmp(how, "sysfs") && !kuw_sysfs_trusted(mod))
		how = "sysfs-untrusted";
	for (src = 0; src < KUW_SRC__COUNT; src++) {
		kuw_build(e, &o, src, rec.addr[src], rec.size[src], how);
		if (e->tab[src] && strcmp(how, "sysfs-untrusted") == 0)
			e->tab[src]->untrusted = 1;
	}

	mutex_lock(&kuw_reg_mutex);
	if (kuw_find_mod(mod)) {	/* raced with the notifier */
		mutex_unlock(&kuw_reg_mutex);
		kuw_entry_free(e);
		return 0;
	}
	list_add_tail_rcu(&e->list, &kuw_entries);
	mutex_unlock(&kuw_reg_mutex);
	return 0;
}

/**
 * kuw_registry_add_module() - register a module now (tests, init)
 * @mod: a module in state COMING or LIVE
 *
 * Return: 0 or -errno.
 */
int kuw_registry_add_module(struct module *mod)
{
	return kuw_add_mod(mod, true);
}

/**
 * kuw_module_get() - pin a loaded module kunwind knows, by name
 * @name: the module's name
 *
 * Return: the module with a reference held (module_put() it), or NULL.
 */
struct module *kuw_module_get(const char *name)
{
	struct module *mod = NULL;
	struct kuw_entry *e;

	mutex_lock(&kuw_reg_mutex);
	list_for_each_entry(e, &kuw_entries, list)
		if (e->mod && !strcmp(e->name, name) && try_module_get(e->mod)) {
			mod = e->mod;
			break;
		}
	mutex_unlock(&kuw_reg_mutex);
	return mod;
}

/**
 * kuw_module_remap() - where a module blob's sections are in a loaded module
 * @mod: the module (pinned)
 * @b: the parsed module blob; b->obj becomes the module's text, with @map
 * @map: b->nsect entries to fill
 * @d: where a rejection was found
 *
 * Each section of the blob's map is looked up by name in
 * /sys/module/<name>/sections/ and must lie in the module's text.  Init
 * sections of a module already live are left out (their text is freed),
 * and so is a section the module does not have loaded: their FDEs are
 * dropped by the table build.
 *
 * Return: 0, or a negative enum kuw_err when no section is loaded.
 */
int kuw_module_remap(struct module *mod, struct kuw_blob *b,
		     struct kuw_remap *map, struct kuw_diag *d)
{
	struct kuw_range core = kuw_module_text(mod);
	struct kuw_range init = kuw_module_init_text(mod);
	unsigned long cs = core.start, ce = core.end;
	unsigned long is = init.start, ie = init.end;
	bool live = READ_ONCE(mod->state) == MODULE_STATE_LIVE;
	struct kuw_blob_sect m;
	unsigned long a;
	u32 i, n = 0;

	for (i = 0; i < b->nsect; i++) {
		kuw_blob_sect_at(b, i, &m);
		if (live && !strncmp(m.name, ".init", 5))
			continue;
		if (kuw_read_addr(mod->name, m.name, &a))
			continue;
		if (!((a >= cs && a + m.size <= ce) ||
		      (!live && a >= is && a + m.size <= ie)))
			return kuw_fail(d, "blob", KUW_BLOB_HDR_SIZE +
					i * KUW_BLOB_SECT_SIZE,
					KUW_E_BADRANGE);
		map[n].link_start = m.addr;
		map[n].link_end = m.addr + m.size;
		map[n].delta = a - m.addr;
		n++;
	}
	if (!n)
		return kuw_fail(d, "blob", KUW_BLOB_HDR_SIZE, KUW_E_NOOWNER);
	b->obj.flags = KUW_OBJ_RELOCATED;
	b->obj.text_start = live || !is ? cs : min(cs, is);
	b->obj.text_end = live || !is ? ce : max(ce, ie);
	b->obj.remap = map;
	b->obj.nremap = n;
	return 0;
}

static void kuw_del_mod(struct module *mod)
{
	struct kuw_entry *e;
	unsigned int i;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_mod(mod);
	if (e) {
		list_del_rcu(&e->list);
		kuw_reg_changed();
	}
	mutex_unlock(&kuw_reg_mutex);
	for (i = 0; i < KUW_PENDING; i++)	/* a load that never came */
		if (!kuw_take_pending(mod, NULL))
			break;
	if (!e)
		return;
	synchronize_rcu();	/* no unwinder still reads its tables */
	kuw_entry_free(e);
}

/**
 * kunwind_reread_module() - rebuild a module's tables from sysfs
 * @name: a loaded module's name
 *
 * Drops the module's tables and builds them again from
 * /sys/module/<name>/sections, the path taken for modules loaded before
 * kunwind (tests compare it with the kprobe path).  Process context; the
 * module has no tables for a moment.
 *
 * Return: 0, -ENOENT when kunwind knows no such module, or -errno.
 */
int kunwind_reread_module(const char *name)
{
	struct module *mod = kuw_module_get(name);
	int ret;

	if (!mod)
		return -ENOENT;
	kuw_del_mod(mod);
	ret = kuw_add_mod(mod, true);
	module_put(mod);
	return ret;
}
EXPORT_SYMBOL_GPL(kunwind_reread_module);

static void kuw_mod_live(struct module *mod)
{
	struct kuw_entry *e;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_mod(mod);
	if (e) {
		/* the loader frees init text after a grace period */
		WRITE_ONCE(e->text[KUW_RANGE_INIT][1], 0);
		WRITE_ONCE(e->text[KUW_RANGE_INIT][0], 0);
		kuw_reg_changed();
	}
	mutex_unlock(&kuw_reg_mutex);
	if (!e)		/* the kprobe missed it: sysfs exists by now */
		kuw_add_mod(mod, true);
}

static int kuw_module_notify(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct module *mod = data;

	switch (val) {
	case MODULE_STATE_COMING:
		kuw_add_mod(mod, false);
		break;
	case MODULE_STATE_LIVE:
		kuw_mod_live(mod);
		break;
	case MODULE_STATE_GOING:
		kuw_del_mod(mod);
		break;
	}
	return NOTIFY_OK;
}

/* Above KUnit's (0): a module's suites run from its COMING notifier. */
static struct notifier_block kuw_module_nb = {
	.notifier_call = kuw_module_notify,
	.priority = 10,
};

/*
 * Modules loaded before kunwind (and kunwind itself).  The module list's
 * head is not exported; walk the ring from our own node and skip the head,
 * the one node outside the module area (kuw_arch_in_module_area()).  Pin each with try_module_get()
 * under RCU, register them after.
 */
static void kuw_scan_loaded(void)
{
	struct module **pin, *m;
	struct list_head *p;
	unsigned int n = 0, i;

	pin = kvcalloc(1024, sizeof(*pin), GFP_KERNEL);
	if (!pin)
		return;
	rcu_read_lock();
	for (p = rcu_dereference(list_next_rcu(&THIS_MODULE->list));
	     p != &THIS_MODULE->list && n < 1023;
	     p = rcu_dereference(list_next_rcu(p))) {
		if (!kuw_arch_in_module_area((unsigned long)p))
			continue;
		m = list_entry(p, struct module, list);
		if (m->state == MODULE_STATE_UNFORMED)
			continue;
		if (try_module_get(m))
			pin[n++] = m;
	}
	rcu_read_unlock();
	pin[n++] = THIS_MODULE;
	for (i = 0; i < n; i++) {
		kuw_add_mod(pin[i], true);
		if (pin[i] != THIS_MODULE)
			module_put(pin[i]);
	}
	kvfree(pin);
}

/**
 * kuw_modules_init() - follow module loads and register every loaded module
 *
 * Return: 0 or -errno.
 */
int kuw_modules_init(void)
{
	int ret;

	ret = register_kprobe(&kuw_finalize_kp);
	if (ret)
		pr_warn("no kprobe on module_finalize (%d): new modules are read from sysfs once live\n",
			ret);
	else
		kuw_finalize_kp_on = true;
	ret = register_module_notifier(&kuw_module_nb);
	if (ret) {
		if (kuw_finalize_kp_on)
			unregister_kprobe(&kuw_finalize_kp);
		kuw_finalize_kp_on = false;
		return ret;
	}
	kuw_scan_loaded();
	return 0;
}

/**
 * kuw_modules_exit() - stop following modules
 */
void kuw_modules_exit(void)
{
	if (kuw_finalize_kp_on) {
		unregister_kprobe(&kuw_finalize_kp);
		kuw_finalize_kp_on = false;
	}
	unregister_module_notifier(&kuw_module_nb);
}
