// SPDX-License-Identifier: GPL-2.0
/*
 * ibt_probe: the IBT cell's negative control (make check-ibt), x86_64
 * only, for the test bed alone.  It shows whether the CPU really enforces
 * Indirect Branch Tracking, so that a cell where kunwind's kuw_call()s
 * pass proves something: kunwind reaches the kernel's sealed functions
 * with direct calls only (static calls, module/kuw_call.h); the plain
 * indirect call that IBT forbids is made here.
 *
 * /dev/kunwind_ibt_probe takes one command a write:
 *
 *   sealed      one plain indirect call to @target (default
 *               nr_context_switches(): not exported, never address-taken,
 *               called only directly, so objtool lists it in
 *               .ibt_endbr_seal and the kernel overwrote its ENDBR at boot
 *               with a poison NOP: 0f 1f 40 d6 on 7.3, 66 0f 1f 00 on
 *               6.12).  On a CPU with IBT on: a control-protection
 *               fault, "Missing ENDBR: <target>",
 *               then BUG() (ibt=fatal, the default): the writer dies.
 *               Without IBT (QEMU's TCG) it returns its value.  Refused
 *               (EINVAL) when @target does not start with the poison:
 *               the control would prove nothing.
 *   endbr       the same indirect call to a function of this module whose
 *               address is taken (it keeps its ENDBR): returns under IBT
 *               too (the positive control: the harness itself works)
 *   seal NAME   what the kernel function NAME starts with: "endbr",
 *               "sealed" (the poison), or "other"
 *
 * A read gives the CPU's state ("ibt 1 cr4.cet 1": the feature and
 * CR4.CET; the supervisor ENDBR enable is not read here: no MSR access
 * in the project, make lint) and the last
 * command's result.  Loaded, it does nothing (make check loads every test
 * module on its kernel).
 *
 * The one indirect call of a looked-up kernel function not made with
 * kuw_call(): on purpose, that is what it tests (scripts/lint-internals.sh
 * exempts this file, and only it).
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <asm/msr-index.h>
#include <asm/special_insns.h>
#include "kt_lookup.h"

static char *target = "nr_context_switches";
module_param(target, charp, 0444);
MODULE_PARM_DESC(target, "the sealed kernel function \"sealed\" calls (u64 fn(void))");

static DEFINE_MUTEX(ip_lock);
static char ip_last[256];

/*
 * What apply_seal_endbr() writes over a sealed ENDBR (gen_endbr_poison()):
 * "nopl -42(%rax)" on 7.3, "osp nopl (%rax)" on older kernels (6.12).
 */
#define IP_ENDBR	0xfa1e0ff3U	/* endbr64: f3 0f 1e fa */
#define IP_POISON	0xd6401f0fU	/* 0f 1f 40 d6 */
#define IP_POISON_OLD	0x001f0f66U	/* 66 0f 1f 00 */

/* What the function at @addr starts with. */
static const char *ip_kind(unsigned long addr, u32 *first)
{
	*first = 0;
	if (copy_from_kernel_nofault(first, (void *)addr, sizeof(*first)))
		return "unreadable";
	if ((*first & ~0x01000000U) == IP_ENDBR)	/* endbr32 too */
		return "endbr";
	if (*first == IP_POISON || *first == IP_POISON_OLD)
		return "sealed";
	return "other";
}

/* the positive control's callee: its address is taken, it keeps ENDBR */
static noinline u64 ip_endbr_callee(void)
{
	return 42;
}

/*
 * One indirect call, compiled as the kernel compiles any (a call through
 * a register, or the retpoline thunk, patched to one on an eIBRS CPU).
 * OPTIMIZER_HIDE_VAR() keeps the compiler from making it direct.
 */
static noinline u64 ip_call(unsigned long addr)
{
	u64 (*fn)(void) = (u64 (*)(void))addr;

	OPTIMIZER_HIDE_VAR(fn);
	return fn();
}

static void ip_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(ip_last, sizeof(ip_last), fmt, ap);
	va_end(ap);
	pr_info("ibt_probe: %s\n", ip_last);
}

static ssize_t ip_write(struct file *f, const char __user *ubuf, size_t len,
			loff_t *pos)
{
	char buf[96], *cmd;
	unsigned long addr;
	const char *kind;
	u32 first;
	u64 ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	cmd = strim(buf);
	mutex_lock(&ip_lock);
	if (!strcmp(cmd, "endbr")) {
		addr = (unsigned long)&ip_endbr_callee;
		kind = ip_kind(addr, &first);
		ip_say("endbr: calling ip_endbr_callee at %pS (%s, %08x) indirectly",
		       (void *)addr, kind, first);
		ret = ip_call(addr);
		ip_say("endbr: ip_endbr_callee returned %llu", ret);
	} else if (!strcmp(cmd, "sealed")) {
		addr = kt_lookup_name(target);
		kind = addr ? ip_kind(addr, &first) : "unknown";
		if (strcmp(kind, "sealed")) {
			ip_say("sealed: %s is %s, not sealed: not called", target, kind);
			mutex_unlock(&ip_lock);
			return -EINVAL;
		}
		ip_say("sealed: calling %s at %pS (%08x: its ENDBR sealed) indirectly",
		       target, (void *)addr, first);
		/*
		 * Under IBT the fault's BUG() kills this writer in the call:
		 * the lock is not held across it, so that reads still work.
		 */
		mutex_unlock(&ip_lock);
		ret = ip_call(addr);
		mutex_lock(&ip_lock);
		ip_say("sealed: %s returned %llu: no control-protection fault",
		       target, ret);
	} else if (!strncmp(cmd, "seal ", 5)) {
		cmd = skip_spaces(cmd + 5);
		addr = kt_lookup_name(cmd);
		kind = addr ? ip_kind(addr, &first) : "unknown";
		ip_say("seal %s %s %08x", cmd, kind, addr ? first : 0);
	} else {
		mutex_unlock(&ip_lock);
		return -EINVAL;
	}
	mutex_unlock(&ip_lock);
	return len;
}

static ssize_t ip_read(struct file *f, char __user *ubuf, size_t len,
		       loff_t *pos)
{
	char buf[384];
	bool ibt = cpu_feature_enabled(X86_FEATURE_IBT);
	int n;

	mutex_lock(&ip_lock);
	n = scnprintf(buf, sizeof(buf), "ibt %d cr4.cet %d\n%s%s",
		      ibt, !!(__read_cr4() & X86_CR4_CET),
		      ip_last, ip_last[0] ? "\n" : "");
	mutex_unlock(&ip_lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static const struct file_operations ip_fops = {
	.owner = THIS_MODULE,
	.read = ip_read,
	.write = ip_write,
	.llseek = default_llseek,
};

static struct miscdevice ip_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kunwind_ibt_probe",
	.fops = &ip_fops,
	.mode = 0600,
};

module_misc_device(ip_dev);
MODULE_DESCRIPTION("kunwind test bed: an indirect call to a sealed function (IBT negative control)");
MODULE_LICENSE("GPL");
