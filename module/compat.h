/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compat seam: every difference between the kernel releases kunwind
 * supports (6.1 .. 7.3) that the glue and the test modules meet lives here,
 * as kuw_* wrappers written against the newest kernel's API.  Which variant
 * is compiled is decided by the feature probes of module/compat/probes/
 * (module/compat/compat.mk runs them with the kernel's own flags and writes
 * kuw_probes.h), never by the kernel's version number: distributions
 * backport.  No .c file of the glue tests LINUX_VERSION_CODE.
 *
 * Architecture-specific release differences stay in module/arch/<arch>.*,
 * using the same KUW_HAVE_* results.
 *
 * Each KUW_HAVE_<NAME> is 1 when module/compat/probes/<name>.c compiled,
 * else 0.  Where one of several variants must exist, a kernel offering none
 * stops the build with an #error naming the probes.
 */
#ifndef KUNWIND_COMPAT_H
#define KUNWIND_COMPAT_H

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/timer.h>
#include "kuw_probes.h"

#if KUW_HAVE_SCOPED_WITH_INIT_FS || KUW_HAVE_INIT_TASK_FS_ROOT
#include <linux/fs_struct.h>
#include <linux/path.h>
#include <linux/sched/task.h>
#endif

#if !KUW_HAVE_SANITY
#error "kunwind: the sanity probe failed: see .kuw-probes/sanity.log"
#endif

/* <linux/unaligned.h> since 6.12, <asm/unaligned.h> before */
#if KUW_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#elif KUW_HAVE_ASM_UNALIGNED_H
#include <asm/unaligned.h>
#else
#error "kunwind: no <linux/unaligned.h> nor <asm/unaligned.h> (probes *_unaligned_h)"
#endif

/**
 * struct kuw_range - an address range [start, end)
 * @start: first address
 * @end: one past the last (start when empty)
 */
struct kuw_range {
	unsigned long start;
	unsigned long end;
};

/*
 * struct module's memory: one region per type since 6.4 (mod->mem[MOD_TEXT],
 * mod->mem[MOD_RODATA], ...), one core and one init layout before (text
 * first, then read-only data, then data).
 */
#if KUW_HAVE_MODULE_MEM
static inline struct kuw_range kuw_mod_mem(const struct module *mod,
					   enum mod_mem_type type)
{
	unsigned long b = (unsigned long)mod->mem[type].base;

	return (struct kuw_range){ b, b + mod->mem[type].size };
}

/**
 * kuw_module_text() - a module's core text
 * @mod: the module
 *
 * Return: the range of its text (MOD_TEXT).
 */
static inline struct kuw_range kuw_module_text(const struct module *mod)
{
	return kuw_mod_mem(mod, MOD_TEXT);
}

/**
 * kuw_module_init_text() - a module's init text
 * @mod: the module
 *
 * Return: the range of its init text (MOD_INIT_TEXT); meaningless once
 * the module is live (the loader frees it).
 */
static inline struct kuw_range kuw_module_init_text(const struct module *mod)
{
	return kuw_mod_mem(mod, MOD_INIT_TEXT);
}

/**
 * kuw_module_core_region() - the core memory region holding an address
 * @mod: the module
 * @addr: an address
 * @r: set to the region (text, read-only data, read-only after init or
 *     data) that holds @addr
 *
 * Return: false when @addr is in none of @mod's core memory.
 */
static inline bool kuw_module_core_region(const struct module *mod,
					  unsigned long addr,
					  struct kuw_range *r)
{
	static const enum mod_mem_type core[] = {
		MOD_TEXT, MOD_DATA, MOD_RODATA, MOD_RO_AFTER_INIT,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(core); i++) {
		*r = kuw_mod_mem(mod, core[i]);
		if (addr >= r->start && addr < r->end)
			return true;
	}
	return false;
}

/**
 * kuw_module_rodata() - a module's read-only data (not text, not data,
 * not read-only-after-init data)
 * @mod: the module
 *
 * Where the loader puts the sections it allocates that are neither
 * executable nor writable: .eh_frame and .sframe among them.
 *
 * Return: the range (MOD_RODATA).
 */
static inline struct kuw_range kuw_module_rodata(const struct module *mod)
{
	return kuw_mod_mem(mod, MOD_RODATA);
}
#elif KUW_HAVE_MODULE_LAYOUT
static inline struct kuw_range kuw_module_text(const struct module *mod)
{
	unsigned long b = (unsigned long)mod->core_layout.base;

	return (struct kuw_range){ b, b + mod->core_layout.text_size };
}

static inline struct kuw_range kuw_module_init_text(const struct module *mod)
{
	unsigned long b = (unsigned long)mod->init_layout.base;

	return (struct kuw_range){ b, b + mod->init_layout.text_size };
}

static inline bool kuw_module_core_region(const struct module *mod,
					  unsigned long addr,
					  struct kuw_range *r)
{
	unsigned long b = (unsigned long)mod->core_layout.base;

	*r = (struct kuw_range){ b, b + mod->core_layout.size };
	return addr >= r->start && addr < r->end;
}

/* core layout: text, then read-only data up to ro_size, then the rest */
static inline struct kuw_range kuw_module_rodata(const struct module *mod)
{
	unsigned long b = (unsigned long)mod->core_layout.base;

	return (struct kuw_range){ b + mod->core_layout.text_size,
				   b + mod->core_layout.ro_size };
}
#else
#error "kunwind: struct module: no mem[] nor core_layout (probes module_mem, module_layout)"
#endif

/**
 * kuw_hrtimer_setup() - hrtimer_setup(): initialise a timer and its function
 * @timer: the timer
 * @function: its callback
 * @clock_id: the clock
 * @mode: the timer mode
 */
static inline void kuw_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*function)(struct hrtimer *),
				     clockid_t clock_id, enum hrtimer_mode mode)
{
#if KUW_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, function, clock_id, mode);
#elif KUW_HAVE_HRTIMER_INIT
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#else
#error "kunwind: no hrtimer_setup() nor hrtimer_init() (probes hrtimer_setup, hrtimer_init)"
#endif
}

/**
 * kuw_timer_delete_sync() - timer_delete_sync(): deactivate a timer and
 * wait for its handler to finish
 * @timer: the timer
 *
 * Return: 1 when the timer was pending, else 0.
 */
static inline int kuw_timer_delete_sync(struct timer_list *timer)
{
#if KUW_HAVE_TIMER_DELETE_SYNC
	return timer_delete_sync(timer);
#elif KUW_HAVE_DEL_TIMER_SYNC
	return del_timer_sync(timer);
#else
#error "kunwind: no timer_delete_sync() nor del_timer_sync() (probes *_timer_*sync)"
#endif
}

/**
 * kuw_filp_open_init() - filp_open() of a path in PID 1's root
 * @path: an absolute path (kunwind opens sysfs files: /sys/kernel/notes,
 *	  /sys/module/<name>/...)
 * @flags: open flags
 * @mode: mode
 *
 * The path is resolved from PID 1's root, in PID 1's mount namespace, as
 * the kernel's own kernel_read_file_from_path_initns() does, never from
 * the caller's: a caller in a container or a chroot, or one that mounted
 * over /sys in a namespace of its own, does not choose what kunwind reads;
 * and since the kernel threads' root became an empty nullfs (fs/nullfs.c),
 * a kernel thread's (a KUnit case's, a worker's) would find nothing.
 * Where the kernel has scoped_with_init_fs() (<linux/fs_struct.h>), it
 * borrows init's root for the open; before, file_open_root() from
 * init_task's root (PID 1 shares init_task's fs_struct: CLONE_FS).
 *
 * Return: the file, or an ERR_PTR().
 */
static inline struct file *kuw_filp_open_init(const char *path, int flags,
					      umode_t mode)
{
	struct file *f;
#if KUW_HAVE_SCOPED_WITH_INIT_FS
	scoped_with_init_fs()
		f = filp_open(path, flags, mode);
#elif KUW_HAVE_INIT_TASK_FS_ROOT
	struct path root;

	task_lock(&init_task);
	get_fs_root(init_task.fs, &root);
	task_unlock(&init_task);
	f = file_open_root(&root, path, flags, mode);
	path_put(&root);
#else
#error "kunwind: no scoped_with_init_fs() nor init_task's root (probes *init*)"
#endif
	return f;
}

/*
 * ftrace redirection of a kernel function (FTRACE_OPS_FL_IPMODIFY), as
 * livepatch does it: through struct ftrace_regs where the kernel has
 * DYNAMIC_FTRACE_WITH_ARGS (the pc setter was renamed after 6.1), else on
 * full pt_regs (DYNAMIC_FTRACE_WITH_REGS, FTRACE_OPS_FL_SAVE_REGS).
 * KUW_FTRACE_IPMODIFY is 0 on a kernel with neither (no ftrace: the
 * consumers switch is then unavailable, module/consumers.c).
 */
#if KUW_HAVE_FTRACE_IPMODIFY_ARGS || KUW_HAVE_FTRACE_IPMODIFY_ARGS_OLD || \
	KUW_HAVE_FTRACE_IPMODIFY_REGS
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#define KUW_FTRACE_IPMODIFY	1

#if KUW_HAVE_FTRACE_IPMODIFY_ARGS || KUW_HAVE_FTRACE_IPMODIFY_ARGS_OLD
#define KUW_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_IPMODIFY
#define KUW_FTRACE_VARIANT	"ftrace_regs"
#else
#define KUW_FTRACE_OPS_FLAGS	(FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_DYNAMIC | \
				 FTRACE_OPS_FL_SAVE_REGS)
#define KUW_FTRACE_VARIANT	"pt_regs"
#endif

/**
 * kuw_ftrace_set_ip() - make a traced function return into another one
 * @fregs: the registers an ftrace handler was given
 * @ip: where the traced call goes on (a function of the same prototype)
 */
static __always_inline void kuw_ftrace_set_ip(struct ftrace_regs *fregs,
					      unsigned long ip)
{
#if KUW_HAVE_FTRACE_IPMODIFY_ARGS
	ftrace_regs_set_instruction_pointer(fregs, ip);
#elif KUW_HAVE_FTRACE_IPMODIFY_ARGS_OLD
	ftrace_instruction_pointer_set(fregs, ip);
#else
	struct pt_regs *regs = ftrace_get_regs(fregs);	/* <linux/ptrace.h> */

	if (regs)
		instruction_pointer_set(regs, ip);
#endif
}
#else
#define KUW_FTRACE_IPMODIFY	0
#define KUW_FTRACE_VARIANT	"none"
#endif

#endif /* KUNWIND_COMPAT_H */
