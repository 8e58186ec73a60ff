#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check-arm64` (scripts/check-arm64.sh): the arm64 test
# kernel boots, loads and unloads hello.ko (whose init prints a kernel
# trace through its own frames), prints every task's trace with sysrq t,
# and ends the guest (common.sh: reboot -f; QEMU's -no-reboot turns the
# PSCI reset into an exit).
. /etc/kuw-common.sh
G start
G "uptime $(cut -d' ' -f1 /proc/uptime) machine $(uname -m) cpus $(grep -c ^processor /proc/cpuinfo)"
G "pauth $(grep -o -w -m1 paca /proc/cpuinfo || echo none)"
check "insmod hello.ko" insmod $KUW_MODDIR/hello.ko
check "hello in /proc/modules" grep -q "^hello " /proc/modules
check "rmmod hello" rmmod hello
if [ -w /proc/sysrq-trigger ]; then
	G "# sysrq t"
	echo t >/proc/sysrq-trigger
fi
finish
