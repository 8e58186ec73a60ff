#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of make check-stock's second boot: the vmlinux blob loaded from
# the debug vmlinux (as in scripts/init/stock.sh), then an oops deep in
# demo_oops.ko.  The host compares kunwind's trace of it with the
# kernel's (scripts/oops_traces.py).  Alone in its boot: the oops kills
# the writer and taints the kernel.  Reports KTAP (/etc/kuw-ktap.sh).
# shellcheck source=common.sh
. /etc/kuw-common.sh
# shellcheck disable=SC1091
. /etc/kuw-stock.conf
D=/sys/kernel/debug/kunwind
kver=$(uname -r)
DV=/usr/lib/debug/boot/vmlinux-$kver
ktap_plan 4
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
if [ "$KUW_DBG" != 1 ]; then
	skip "vmlinux blob loaded" "$KUW_DBG_WHY"
elif kunwind-dump 2>&1 | grep -q '^  load '; then
	check "kunwind-dump load (vmlinux)" kunwind-dump load
else
	check "vmlinux blob exported from $DV and loaded (by hand)" sh -c \
		"kunwind-dump export $DV -o /tmp/v.blob --src debug_frame && cat /tmp/v.blob >$D/load"
fi
diag <$D/tables
check "insmod demo_oops.ko" insmod "$KUW_MODDIR"/kunit/demo_oops.ko
demo_oops
finish
