#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of make check-stock's second boot: lockdown raised as in
# scripts/init/stock.sh, the vmlinux blob loaded from the debug vmlinux
# (as there), then an oops deep in
# demo_oops.ko.  The host compares kunwind's trace of it with the
# kernel's (scripts/oops_traces.py).  Alone in its boot: the oops kills
# the writer and taints the kernel.  Reports KTAP (/etc/kuw-ktap.sh).
# shellcheck source=common.sh
. /etc/kuw-common.sh
# shellcheck disable=SC1091
. /etc/kuw-stock.conf
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
kver=$(uname -r)
DV=/usr/lib/debug/boot/vmlinux-$kver
ktap_plan 5
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
check "insmod demo_oops.ko" insmod "$KUW_MODDIR"/kunit/demo_oops.ko
if [ "${KUW_FIRMWARE:-none}" = secureboot ]; then
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	check "locked down (integrity) by Secure Boot since boot" \
		grep -q "\[integrity\]" /sys/kernel/security/lockdown
elif [ "${KUW_LOCKDOWN:-none}" != none ]; then
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	echo "$KUW_LOCKDOWN" >/sys/kernel/security/lockdown
	check "lockdown raised to $KUW_LOCKDOWN" \
		grep -q "\[$KUW_LOCKDOWN\]" /sys/kernel/security/lockdown
else
	skip "lockdown raised" "KUW_LOCKDOWN=none"
fi
if [ "$KUW_DBG" != 1 ]; then
	skip "vmlinux blob loaded" "$KUW_DBG_WHY"
elif kunwind-dump 2>&1 | grep -q '^  load '; then
	check "kunwind-dump load (vmlinux)" kunwind-dump load
else
	check "vmlinux blob exported from $DV and loaded (by hand)" sh -c \
		"kunwind-dump export $DV -o /tmp/v.blob --src debug_frame && cat /tmp/v.blob >$C/load"
fi
diag <$D/tables
demo_oops
finish
