#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of make check-ibt (scripts/check-ibt.sh): kunwind on a CPU that
# enforces Indirect Branch Tracking (Bochs, cpu model tigerlake), and the
# negative control that shows the CPU does (kunit/ibt_probe.c).  Reports
# KTAP (/etc/kuw-ktap.sh).  /etc/kuw-ibt.conf (written by the host) says
# which emulator runs it:
#
#   KUW_IBT_EMU=bochs  IBT on: the CPU has it, CR4.CET and ENDBR tracking
#       are on; kunwind.ko loads, (with the debug files) the vmlinux blob,
#       its internals are the kernel's (and which of them the kernel
#       sealed: kunwind reaches those by static calls, direct), every
#       thread's walk against /proc/PID/stack, walks through the
#       function-graph and kretprobe trampolines (the internals that find
#       the real return address), the consumers switch on under a load of
#       stack_trace_save*() callers, the internals' call counts; then the
#       demo oops (the host compares traces), and last the negative
#       control: one indirect call to a sealed function must take a
#       control-protection fault (#CP, "Missing ENDBR"), which kills the
#       writer (the host checks the kernel's message and both traces).
#   KUW_IBT_EMU=qemu   no IBT (TCG has no CET): the CPU state says so, and
#       the same indirect call to the same sealed function returns.
# shellcheck source=common.sh
. /etc/kuw-common.sh
# KUW_IBT_EMU, KUW_DBG, KUW_DBG_WHY, KUW_IBT_SEALS (0: this kernel seals
# nothing, KUW_IBT_SEALS_WHY says why): written by scripts/check-ibt.sh
# shellcheck disable=SC1091
. /etc/kuw-ibt.conf
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
P=/dev/kunwind_ibt_probe
TR=/sys/kernel/tracing
T=/tmp/kuw-ibt
mkdir -p $T
kver=$(uname -r)

if [ "$KUW_IBT_EMU" = qemu ]; then
	ktap_plan 5
else
	ktap_plan 16
fi
diag "kernel $kver, emulator $KUW_IBT_EMU"

# --- the CPU --------------------------------------------------------------
if grep -m1 '^flags' /proc/cpuinfo | grep -qw ibt; then flag=1; else flag=0; fi
check "insmod ibt_probe.ko" insmod "$KUW_MODDIR"/kunit/ibt_probe.ko
head -n 1 $P >$T/cpu 2>&1
diag "cpu: $(cat $T/cpu)"
if [ "$KUW_IBT_EMU" = qemu ]; then
	if [ $flag = 0 ] && grep -q '^ibt 0 cr4.cet 0' $T/cpu; then
		ok "no IBT here: no ibt flag in /proc/cpuinfo, CR4.CET and ENDBR tracking off"
	else
		notok "no IBT here: no ibt flag in /proc/cpuinfo, CR4.CET and ENDBR tracking off"
	fi
else
	if [ $flag = 1 ] && grep -q '^ibt 1 cr4.cet 1' $T/cpu; then
		ok "IBT on: ibt in /proc/cpuinfo, CR4.CET and ENDBR tracking (MSR_IA32_S_CET) on"
	else
		notok "IBT on: ibt in /proc/cpuinfo, CR4.CET and ENDBR tracking (MSR_IA32_S_CET) on"
	fi
fi
# probe_cmd CMD: one write, in a child shell (a fault kills it, not /init)
probe_cmd() {
	sh -c "echo '$1' >$P" 2>$T/probe.err
}
# the positive control: an indirect call to a function that kept its ENDBR
probe_cmd endbr
check "indirect call to a function with ENDBR returns" \
	sh -c "tail -n 1 $P | grep -q 'returned 42'"

probe_cmd "seal $(cat /sys/module/ibt_probe/parameters/target)"
tail -n 1 $P | diag
if [ "$KUW_IBT_EMU" = qemu ]; then
	if [ "${KUW_IBT_SEALS:-1}" = 0 ]; then
		skip "negative control: the indirect call to a sealed function returns without IBT" \
			"$KUW_IBT_SEALS_WHY"
	elif probe_cmd sealed && tail -n 1 $P | grep -q "returned .*no control-protection fault"; then
		ok "negative control: the indirect call to a sealed function returns without IBT"
	else
		cat $T/probe.err | diag
		tail -n 1 $P | diag
		notok "negative control: the indirect call to a sealed function returns without IBT"
	fi
	check "rmmod ibt_probe" rmmod ibt_probe
	finish
fi

# --- kunwind under IBT --------------------------------------------------------
check "insmod kunwind.ko on $kver" insmod "$KUW_MODDIR"/kunwind.ko
if [ "$KUW_DBG" = 1 ]; then
	if kunwind-dump load >$T/load.out 2>&1; then
		diag <$T/load.out
		ok "kunwind-dump load: the vmlinux blob from the debug vmlinux"
	else
		diag <$T/load.out
		notok "kunwind-dump load: the vmlinux blob from the debug vmlinux"
	fi
else
	skip "kunwind-dump load: the vmlinux blob from the debug vmlinux" "$KUW_DBG_WHY"
fi
diag <$D/tables

# Which of kunwind's internals the kernel sealed: kuw_call() must reach
# those by a direct call (its static call), or the first walk would fault.
n=0 sealed=""
# shellcheck disable=SC2013 # one name a line, no blanks
for name in $(awk '{ print $1 }' $D/internals); do
	probe_cmd "seal $name"
	n=$((n + 1))
	tail -n 1 $P | grep -q " sealed " && sealed="$sealed $name"
done
diag "kunwind's internals the kernel sealed:${sealed:- none} (of $n)"
if [ "${KUW_IBT_SEALS:-1}" = 0 ]; then
	skip "kunwind calls sealed kernel functions" "$KUW_IBT_SEALS_WHY"
elif [ -n "$sealed" ]; then
	ok "kunwind calls sealed kernel functions ($(echo "$sealed" | wc -w) of $n internals)"
else
	notok "kunwind calls sealed kernel functions (none of its $n internals is sealed: nothing tested)"
fi
# Called only for frames no row covers: text without tables (BPF, ftrace
# trampolines), and with no vmlinux blob the trampolines' return addresses
# (ORC steps those frames then).  This guest's walks meet none of them
# with the debug files' tables, so they are reported, not required.
KUW_INTERNALS_OPTIONAL="__kernel_text_address is_ftrace_trampoline"
[ "$KUW_DBG" = 1 ] ||
	KUW_INTERNALS_OPTIONAL="$KUW_INTERNALS_OPTIONAL ftrace_graph_ret_addr rethook_find_ret_addr get_stack_info"
# internals.sh runs before the walks: its calls check is this guest's
# last one, below
export KUW_INTERNALS_CALLS=0
ktap_subtest "internals.sh" sh /guest/internals.sh
unset KUW_INTERNALS_CALLS
ktap_subtest "backtrace_all.sh" sh /guest/backtrace_all.sh

# --- walks through the tracers' trampolines -----------------------------------
[ -f $TR/available_tracers ] || mount -t tracefs nodev $TR 2>/dev/null
# tramp_walk NAME PATTERN: a sleeper started now (the tracer hooks
# do_nanosleep on entry), walked by kunwind: its frames end with the
# kernel's /proc/PID/stack, and PATTERN (the trampoline) is not among them
tramp_walk() {
	sleep 60 &
	pid=$!
	sleep 0.2
	exec 3<>$C/backtrace
	echo "pid $pid" >&3
	cat <&3 >$T/tw
	exec 3>&-
	sed 's/^\[<[0-9a-f]*>\] //' /proc/$pid/stack >$T/twk
	kill $pid
	wait $pid 2>/dev/null
	awk '$1 ~ /^[0-9]+$/ { print $3 }' $T/tw >$T/twu
	nk=$(wc -l <$T/twk)
	if grep -q do_nanosleep $T/twu && ! grep -q "$2" $T/twu &&
		[ "$nk" -gt 0 ] && tail -n "$nk" $T/twu | cmp -s - $T/twk; then
		ok "$1"
	else
		diag <$T/tw
		sed 's/^/proc /' $T/twk | diag
		notok "$1"
	fi
}
if grep -qw function_graph $TR/available_tracers 2>/dev/null; then
	echo do_nanosleep >$TR/set_ftrace_filter
	echo function_graph >$TR/current_tracer
	tramp_walk "function graph: a sleeper's walk through return_to_handler is the kernel's" \
		return_to_handler
	echo nop >$TR/current_tracer
	echo >$TR/set_ftrace_filter
else
	skip "function graph: a sleeper's walk through return_to_handler" "no function_graph tracer"
fi
if echo 'r:kuw_ret do_nanosleep' >$TR/kprobe_events 2>$T/kp.err &&
	echo 1 >$TR/events/kprobes/kuw_ret/enable; then
	tramp_walk "kretprobe: a sleeper's walk through the rethook trampoline is the kernel's" \
		rethook_trampoline
	echo 0 >$TR/events/kprobes/kuw_ret/enable
	echo >$TR/kprobe_events
else
	skip "kretprobe: a sleeper's walk through the rethook trampoline" \
		"kprobe_events: $(cat $T/kp.err)"
fi

# --- the consumers switch under a load ---------------------------------------
# callers of stack_trace_save_tsk() (/proc/PID/stack), stack_trace_save()
# (ftrace's stacktrace option on an event) and stack_trace_save_regs()
# (the same on a kprobe event, which has regs)
count() { awk -v n="$1" '$1 == n { print $4 }' $C/consumers; }
if grep -q "ftrace IPMODIFY" $C/consumers 2>/dev/null; then
	echo 1 >$C/consumers
	echo 'p:kuw_open do_sys_openat2' >$TR/kprobe_events 2>/dev/null
	echo 1 >$TR/options/stacktrace
	echo 1 >$TR/events/sched/sched_switch/enable
	echo 1 >$TR/events/kprobes/kuw_open/enable 2>/dev/null
	for _ in 1 2 3; do
		cat /proc/[0-9]*/stack >/dev/null 2>&1
	done
	echo 0 >$TR/events/sched/sched_switch/enable
	echo 0 >$TR/events/kprobes/kuw_open/enable 2>/dev/null
	echo 0 >$TR/options/stacktrace
	echo >$TR/kprobe_events
	head -c 2000 $TR/trace | diag
	diag <$C/consumers
	bad=""
	for f in stack_trace_save stack_trace_save_tsk stack_trace_save_regs; do
		[ "$(count $f)" -gt 0 ] 2>/dev/null || bad="$bad $f"
	done
	if [ -z "$bad" ]; then
		ok "consumers on: stack_trace_save, _tsk and _regs answered by kunwind under IBT"
	else
		notok "consumers on: not answered by kunwind:$bad"
	fi
	cat /proc/1/stack >$T/on
	echo 0 >$C/consumers
	cat /proc/1/stack >$T/off
	if [ -s $T/on ] && cmp -s $T/on $T/off; then
		ok "consumers: /proc/1/stack the same on and off"
	else
		diag <$T/on
		diag <$T/off
		notok "consumers: /proc/1/stack the same on and off"
	fi
else
	diag "$(head -1 $C/consumers 2>/dev/null)"
	skip "consumers on: stack_trace_save* answered by kunwind" "no ftrace with IPMODIFY"
	skip "consumers: /proc/1/stack the same on and off" "no ftrace with IPMODIFY"
fi

# --- every internal called ------------------------------------------------
# "NAME 0xADDR CALLS" once kunwind counts them; only listed before.  The
# fallbacks (the kernel's own walk when kunwind's stops early) and perf's
# callchain are called only when something needs them: reported, not
# required.
diag <$D/internals
if awk 'NF >= 3 { n++ } END { exit n == 0 }' $D/internals; then
	zero=$(awk 'NF >= 3 && $3 == 0 { print $1 }' $D/internals | tr '\n' ' ')
	need=""
	for z in $zero; do
		case $z in
		arch_stack_walk | arch_stack_walk_reliable | perf_callchain_kernel) continue ;;
		esac
		# optional on this guest's paths (above)
		case " $KUW_INTERNALS_OPTIONAL " in
		*" $z "*) ;;
		*) need="$need $z" ;;
		esac
	done
	diag "internals never called: ${zero:-none}"
	if [ -z "$need" ]; then
		ok "every internal the walks use was called under IBT"
	else
		notok "internals never called:$need"
	fi
else
	skip "every internal the walks use was called under IBT" \
		"no call counts in debugfs kunwind/internals (listed only)"
fi

# --- the demo oops, then the negative control ---------------------------------
check "insmod demo_oops.ko" insmod "$KUW_MODDIR"/kunit/demo_oops.ko
demo_oops
# The fault kills the writer (ibt=fatal: BUG()); the kernel goes on.
diag "\$ echo sealed > $P"
if [ "${KUW_IBT_SEALS:-1}" = 0 ]; then
	skip "negative control: the indirect call to a sealed function faulted" "$KUW_IBT_SEALS_WHY"
elif probe_cmd sealed; then
	tail -n 1 $P | diag
	notok "negative control: the indirect call to a sealed function faulted (it returned)"
elif tail -n 1 $P | grep -q '^sealed: calling '; then
	ok "negative control: the indirect call to a sealed function faulted (the writer was killed)"
else
	# refused before the call: no sealed target
	cat $T/probe.err | diag
	tail -n 1 $P | diag
	notok "negative control: the indirect call to a sealed function faulted (not called)"
fi
sleep 1
finish
