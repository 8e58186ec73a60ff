#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel functions the consumers fall back to (module/serve.c) were
# called: kunit/consumers_test.c's cs_fallback makes arch_stack_walk()
# (stack_trace_save_regs()'s fallback) and perf_callchain_kernel() run
# once each, through their static calls; debugfs kunwind/internals
# ("NAME 0xADDRESS CALLS") counts them.  arch_stack_walk_reliable() is
# listed, not asserted: no case makes kunwind's walk of a sleeping task
# unreliable.  A kernel without ftrace with IPMODIFY has no switch: skips.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 2
F=/sys/kernel/debug/kunwind/internals
calls() { awk -v n="$1" '$1 == n { print $3 }' $F; }
diag "$(tr '\n' ' ' <$F 2>/dev/null)"
for n in arch_stack_walk perf_callchain_kernel; do
	if ! grep -q "ftrace IPMODIFY" /dev/kunwind/consumers 2>/dev/null; then
		skip "$n called" "no ftrace with IPMODIFY in this kernel"
	elif [ "$(calls $n)" -gt 0 ] 2>/dev/null; then
		ok "$n called"
	else
		notok "$n called"
	fi
done
