# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Guest side, sourced by every /init of the test bed (busybox sh).
# Lines the host parses are prefixed "kuw-guest: " so that they stand out
# from kernel messages on the shared serial console.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
export KUW_MODDIR=/lib/kunwind
# Kernel profile (base or debug): checks may scale their work down under
# KASAN and lockdep, which are several times slower under TCG.
KUW_PROFILE=$(cat /etc/kuw-profile 2>/dev/null || echo base)
export KUW_PROFILE
[ -f /boot/vmlinux ] && export KUW_VMLINUX=/boot/vmlinux

G() { echo "kuw-guest: $*"; }
kuw_n=0
ok() { kuw_n=$((kuw_n + 1)); G "ok $kuw_n $*"; }
notok() { kuw_n=$((kuw_n + 1)); G "not ok $kuw_n $*"; }
# check NAME CMD...: one guest test; the command's output is shown on failure.
check() {
	kuw_name=$1
	shift
	if kuw_out=$("$@" 2>&1); then
		ok "$kuw_name"
	else
		notok "$kuw_name"
		echo "$kuw_out" | sed 's/^/kuw-guest: # /'
	fi
}
# The guest ends itself: reboot -f with QEMU's -no-reboot (poweroff -f
# hangs at "System halted" without ACPI).
finish() {
	G "done"
	sync
	reboot -f
	sleep 10
}
