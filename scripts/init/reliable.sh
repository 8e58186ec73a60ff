#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for scripts/check-reliable.sh: kunwind.ko, the vmlinux blob when
# the host gave one (a stock kernel's, from its -dbg package), then
# scripts/guest/reliable.sh as a subtest (it loads reliable_payload.ko).
. /etc/kuw-common.sh
ktap_plan 3
diag "kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
load_vmlinux_blob
ktap_subtest "reliable.sh" sh /guest/reliable.sh
finish
