#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check-arm64` (scripts/check-arm64.sh): the arm64 test
# kernel boots, loads and unloads hello.ko (whose init prints the kernel's
# trace through its own frames), then kunwind.ko and the portable test
# modules: kunwind's tables, backtraces of itself and of every thread
# against /proc/PID/stack (scripts/guest/backtrace_all.sh), the KUnit
# suites (smoke; unwind and context: the chain of kunit/chain.c against the
# kernel's frame-record unwinder; registry), the stress of /dev/kunwind/
# (scripts/guest/stress.sh); prints every task's trace
# with sysrq t, and ends the guest (reboot -f; QEMU's -no-reboot turns the
# PSCI reset into an exit).
. /etc/kuw-common.sh
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
ktap_plan 17
diag "start"
diag "uptime $(cut -d' ' -f1 /proc/uptime) machine $(uname -m) cpus $(grep -c ^processor /proc/cpuinfo)"
diag "pauth $(grep -o -w -m1 paca /proc/cpuinfo || echo none)"
check "insmod hello.ko" insmod $KUW_MODDIR/hello.ko
check "hello in /proc/modules" grep -q "^hello " /proc/modules
check "rmmod hello" rmmod hello

check "insmod kunwind.ko" insmod $KUW_MODDIR/kunwind.ko
diag <$D/tables
check "tables: vmlinux .eh_frame and .sframe" \
	sh -c "grep -q '^vmlinux .eh_frame ' $D/tables && grep -q '^vmlinux .sframe ' $D/tables"
check "insmod demo_oops.ko" insmod $KUW_MODDIR/kunit/demo_oops.ko
check "tables: demo_oops .eh_frame (module_finalize kprobe)" \
	grep -q '^demo_oops .eh_frame .* kprobe$' $D/tables
bt_self() {
	exec 8<>$C/backtrace
	echo self >&8 && cat <&8 >/tmp/bt
	exec 8>&-
	diag </tmp/bt
	grep -q '^stop: end of stack' /tmp/bt && grep -q '^reliable: yes' /tmp/bt
}
check "backtrace self: to the end of the stack, reliable" bt_self
ktap_subtest "backtrace all vs /proc/PID/stack" sh /guest/backtrace_all.sh
check "insmod smoke_test.ko (KUnit)" insmod $KUW_MODDIR/kunit/smoke_test.ko
# churn_payload first: the registry suite unloads and reloads it
for m in unwind_test context_test churn_payload registry_test leaf_test; do
	check "insmod $m.ko" insmod $KUW_MODDIR/kunit/$m.ko
done
# scripts/ktap.py fails a suite registered here that never reported
for d in /sys/kernel/debug/kunit/*; do
	[ -d "$d" ] && diag "kunit suite registered: ${d##*/}"
done
# every node of /dev/kunwind/ at once (scripts/guest/stress.sh)
ktap_subtest "stress.sh" sh /guest/stress.sh
# the kernel functions kunwind calls, with their calls so far (not checked)
diag <$D/internals
check "rmmod the test modules, demo_oops, kunwind" \
	sh -c "rmmod leaf_test && rmmod registry_test && rmmod churn_payload &&
	       rmmod context_test && rmmod unwind_test &&
	       rmmod smoke_test && rmmod demo_oops && rmmod kunwind"
if [ -w /proc/sysrq-trigger ]; then
	diag "sysrq t"
	echo t >/proc/sysrq-trigger
fi
diag "done"
finish
