# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Guest side, sourced by every /init of the test bed (busybox sh).
# Each /init reports one KTAP document (helpers: /etc/kuw-ktap.sh, from
# scripts/init/ktap.sh), its lines prefixed "kuw-guest: " so that they stand
# out from kernel messages on the shared serial console; scripts/ktap.py
# parses it with the kernel's KUnit output.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
export KUW_MODDIR=/lib/kunwind
# Kernel profile (base, debug...): checks may scale their work down under
# KASAN and lockdep, which are several times slower under TCG.
KUW_PROFILE=$(cat /etc/kuw-profile 2>/dev/null || echo base)
export KUW_PROFILE
[ -f /boot/vmlinux ] && export KUW_VMLINUX=/boot/vmlinux

# Everything /init and its checks print goes through the kernel log, one
# record per line (printk.devkmsg=on, set by kuw_qemu, lifts the rate
# limit on /dev/kmsg): written to the console directly, a line could be
# cut in two by a kernel message printed meanwhile, and lose its result.
[ -c /dev/kmsg ] && exec >/dev/kmsg 2>&1

KTAP_PREFIX="kuw-guest: "
# shellcheck source=ktap.sh
. /etc/kuw-ktap.sh
# The guest ends itself: reboot -f with QEMU's -no-reboot (poweroff -f
# hangs at "System halted" without ACPI).  The document's plan is its end
# for the host: results missing from it mean the guest died on the way.
finish() {
	sync
	reboot -f
	sleep 10
}

# The vmlinux blob the host gave (a stock kernel's, from its -dbg
# package) through /dev/kunwind/load: one KTAP result, a skip without one
# (a test kernel keeps its own tables).
load_vmlinux_blob() {
	if [ -f "$KUW_MODDIR"/vmlinux.blob ]; then
		check "vmlinux blob loaded (the -dbg package's tables)" \
			sh -c "cat $KUW_MODDIR/vmlinux.blob >/dev/kunwind/load"
	else
		skip "vmlinux blob loaded" "none given: a test kernel keeps its own tables"
	fi
}

# The demo oops (demo_oops.ko loaded): in a child shell, so that it kills
# the writer, not /init; one KTAP result, then a second's pause for the
# trace to reach the console.
demo_oops() {
	diag "\$ echo 1 > /dev/kunwind_demo/oops"
	if sh -c 'echo 1 > /dev/kunwind_demo/oops'; then
		notok "oops: the write returned"
	else
		ok "oops: the writer was killed"
	fi
	sleep 1
}
