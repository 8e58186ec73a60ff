#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for scripts/check-reliable.sh: kunwind.ko, the vmlinux blob when
# the host gave one (a stock kernel's, from its -dbg package), then
# scripts/guest/reliable.sh as a subtest (it loads reliable_payload.ko).
. /etc/kuw-common.sh
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
ktap_plan 3
diag "kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
if [ -f "$KUW_MODDIR"/vmlinux.blob ]; then
	check "vmlinux blob loaded" sh -c "cat $KUW_MODDIR/vmlinux.blob >$C/load"
else
	skip "vmlinux blob loaded" "none given (a test kernel keeps its tables; a stock kernel's come from its -dbg package)"
fi
ktap_subtest "reliable.sh" sh /guest/reliable.sh
finish
