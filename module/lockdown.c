// SPDX-License-Identifier: GPL-2.0
/*
 * What kunwind allows on a locked-down kernel (security/lockdown/; what
 * UEFI Secure Boot gives a Debian kernel).  The kernel's lockdown LSM logs
 * the reason of each refusal itself ("Lockdown: COMM: REASON is
 * restricted"); kunwind adds one line naming what it refused.
 *
 *  - integrity: everything works, through /dev/kunwind/ (debugfs, where
 *    only kunwind's read-only files stay readable, is a view).  A table
 *    root gives (a blob) while the kernel is locked down serves traces
 *    only: a walk that used one of its rows is never reliable, so that a
 *    crafted table cannot make livepatch's consistency check switch a task
 *    that sits in a function being patched.  Tables the kernel holds
 *    itself (in-memory .eh_frame/.sframe of vmlinux and modules) stay
 *    trusted; so do blobs loaded before lockdown was raised, as anything
 *    else done before it is.  Only those untrusted tables may be dropped
 *    (/dev/kunwind/unload): a trusted one dropped could be replaced by a
 *    crafted blob, whose walks serve oops, perf and /proc/PID/stack traces
 *    alike, so root would choose what the kernel's own traces say.
 *  - confidentiality: lockdown refuses kprobes, which kunwind needs to find
 *    kallsyms_lookup_name() and the tables of modules loading later, so
 *    kunwind does not load.  Loaded before lockdown was raised, it keeps
 *    working but refuses new blobs: a table's DW_OP expressions read kernel
 *    stacks wherever they point, and the walk's result shows what they
 *    read, as a kprobe would.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/security.h>
#include "engine.h"
#include "kunwind_internal.h"

/**
 * kuw_lockdown_init() - may kunwind load on this kernel?
 *
 * Return: 0, or -EPERM (and one line) under lockdown=confidentiality.
 */
int kuw_lockdown_init(void)
{
	if (security_locked_down(LOCKDOWN_KPROBES)) {
		pr_err("not loaded: the kernel is locked down (confidentiality), which refuses the kprobes kunwind needs\n");
		return -EPERM;
	}
	return 0;
}

/**
 * kuw_lockdown_blob() - may root give kunwind a table now?
 * @owner: whose table ("vmlinux" or a module), for the log line
 * @trusted: set to whether walks through it may be reliable
 *
 * Return: 0, or -EPERM (and one line) under lockdown=confidentiality.
 */
int kuw_lockdown_blob(const char *owner, bool *trusted)
{
	*trusted = true;
	if (security_locked_down(LOCKDOWN_KPROBES)) {
		pr_warn_ratelimited("blob for %s refused: the kernel is locked down (confidentiality); a table reads kernel stacks as a kprobe would\n",
				    owner);
		return -EPERM;
	}
	if (security_locked_down(LOCKDOWN_INTEGRITY_MAX)) {
		pr_info("%s: the kernel is locked down (integrity): its table from a blob serves traces, never a reliable one\n",
			owner);
		*trusted = false;
	}
	return 0;
}

/**
 * kuw_lockdown_drop() - may root drop this trusted table now?
 * @owner: whose table ("vmlinux" or a module)
 * @src: enum kuw_src of the table
 *
 * Asked only for a trusted table (untrusted ones may always go), with
 * kuw_reg_mutex held.
 *
 * Return: 0, or -EPERM (and one line) under lockdown=integrity or above.
 */
int kuw_lockdown_drop(const char *owner, int src)
{
	if (!security_locked_down(LOCKDOWN_INTEGRITY_MAX))
		return 0;
	pr_warn_ratelimited("%s: %s table not dropped: the kernel is locked down (integrity) and the table is trusted; only a table from a blob given while locked down may be dropped\n",
			    owner, kuw_src_section(src));
	return -EPERM;
}
