#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for scripts/check-clients.sh: Debian's own perf and bpftrace (the
# clients overlay, scripts/clients-overlay.sh) take kernel callchains while
# kernel-heavy work runs on both vCPUs, with kunwind's consumers switch
# off, then on; /proc/PID/stack of every task too.  What they print goes
# to the host, which checks every frame against the machine code
# (scripts/framecheck.py): nothing here judges a chain.
#
# Each output is a data block on the console, gzip then base64, one line a
# record:
#   kuw-clients: begin NAME
#   kuw-clients: data LINE...
#   kuw-clients: end NAME BYTES MD5     (of the gzip stream)
# NAME: perf-off, perf-on, kprobe-off, kprobe-on, profile-off, profile-on,
# stack-off, stack-on; "modules" (/proc/modules, each module's .text) for
# the host to place module frames; ftrace-off, ftrace-on (ftrace's
# enabled_functions: the functions the switch redirects, flag I);
# consumers-off, consumers-on (/dev/kunwind/consumers after the runs).
#
# /etc/kuw-clients.conf (scripts/check-clients.sh): KUW_CLIENTS_SECONDS
# (each recording), KUW_CLIENTS_HZ (sampling frequency), KUW_CLIENTS_KPROBE
# (the functions bpftrace probes at their entry, before they saved their
# frame: vfs_read, and kfree for its many callers).
# shellcheck source=common.sh
. /etc/kuw-common.sh
# shellcheck disable=SC1091
. /etc/kuw-clients.conf
C=/dev/kunwind
F=$C/consumers
T=/tmp/clients
mkdir -p $T
sec=${KUW_CLIENTS_SECONDS:-4}
hz=${KUW_CLIENTS_HZ:-250}
kp=${KUW_CLIENTS_KPROBE:-vfs_read kfree}
probes=$(for f in $kp; do printf 'kprobe:%s,' "$f"; done)
ktap_plan 11
diag "kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo), $sec s a recording at $hz Hz, kprobe $kp"

# block NAME FILE: FILE on the console, as above
block() {
	gzip -c "$2" >$T/block.gz
	echo "kuw-clients: begin $1"
	base64 $T/block.gz | awk '{ print "kuw-clients: data " $0; fflush() }'
	echo "kuw-clients: end $1 $(wc -c <$T/block.gz) $(md5sum <$T/block.gz | cut -d' ' -f1)"
}

check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
load_vmlinux_blob
diag </sys/kernel/debug/kunwind/tables
{
	cat /proc/modules
	for m in /sys/module/*/sections/.text; do
		[ -f "$m" ] || continue
		n=${m#/sys/module/}
		echo "text ${n%%/*} $(cat "$m")"
	done
} >$T/modules
block modules $T/modules

# A kernel without eventfd (the test kernels): perf gets a stand-in
# (scripts/clients/eventfd.c)
if ! grep -q ' eventfd_ctx_fileget$' /proc/kallsyms && [ -f /usr/lib/kunwind/eventfd.so ]; then
	diag "no eventfd in this kernel: perf runs with /usr/lib/kunwind/eventfd.so preloaded"
	export LD_PRELOAD=/usr/lib/kunwind/eventfd.so
fi
if perf --version >$T/perf-version 2>&1; then
	ok "perf runs ($(cat $T/perf-version))"
else
	diag <$T/perf-version
	notok "perf runs"
fi
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
bpf=0
if [ -e /proc/sys/kernel/unprivileged_bpf_disabled ]; then
	if bpftrace --version >$T/bpf-version 2>&1; then
		bpf=1
		ok "bpftrace runs ($(cat $T/bpf-version))"
	else
		diag <$T/bpf-version
		notok "bpftrace runs"
	fi
else
	skip "bpftrace runs" "no CONFIG_BPF_SYSCALL in this kernel"
fi

# Kernel-heavy work on both vCPUs: small reads and writes, sysfs walks,
# /proc/PID/stack (a stack walk itself), pipes; each a loop until
# stopped, at the lowest priority: the clients (perf reading kallsyms,
# bpftrace compiling its program) get the CPUs when they want them, the
# loops every cycle left.
load_start() {
	: >$T/load.pids
	for _ in 1 2; do
		sh -c 'renice -n 19 -p $$ >/dev/null; while :; do dd if=/dev/zero of=/dev/null bs=64 count=20000 2>/dev/null; done' &
		echo $! >>$T/load.pids
	done
	sh -c 'renice -n 19 -p $$ >/dev/null; while :; do find /sys >/dev/null 2>&1; done' &
	echo $! >>$T/load.pids
	sh -c 'renice -n 19 -p $$ >/dev/null; while :; do cat /proc/[0-9]*/stack >/dev/null 2>&1; done' &
	echo $! >>$T/load.pids
	sh -c 'renice -n 19 -p $$ >/dev/null; while :; do dd if=/dev/zero bs=512 count=4000 2>/dev/null | cat >/dev/null; done' &
	echo $! >>$T/load.pids
}
load_stop() {
	# the loops first, then what they started
	kill $(cat $T/load.pids) 2>/dev/null
	sleep 1
	killall dd find cat 2>/dev/null
	wait 2>/dev/null
}

# switch on|off: the consumers switch, and whether the kernel has it
switch() {
	case $1 in on) echo 1 >$F ;; off) echo 0 >$F ;; esac 2>/dev/null
	head -n 1 $F 2>/dev/null | grep -q "^consumers $1"
}
has_switch=0
grep -q "ftrace IPMODIFY" $F 2>/dev/null && has_switch=1
[ $has_switch = 1 ] || diag "$(head -n 1 $F 2>/dev/null): the switch cannot be turned on"

load_start
for sw in off on; do
	if [ $sw = on ] && [ $has_switch = 0 ]; then
		skip "perf record, switch on" "no ftrace with IPMODIFY in this kernel"
		skip "bpftrace, switch on" "no ftrace with IPMODIFY in this kernel"
		skip "/proc/PID/stack, switch on" "no ftrace with IPMODIFY in this kernel"
		continue
	fi
	if ! switch $sw; then
		diag <$F
		for t in "perf record" "bpftrace" "/proc/PID/stack"; do
			notok "$t, switch $sw (the switch did not turn $sw)"
		done
		continue
	fi
	diag <$F
	# what ftrace redirects (IPMODIFY): the host lets those calls land in
	# the redirected function
	block ftrace-$sw /sys/kernel/tracing/enabled_functions
	# perf: every CPU, cpu-clock samples, kernel callchains (the user
	# part of each chain left out: less to print)
	perf record -a -g --kernel-callchains -e cpu-clock -F "$hz" -o $T/perf.data -- sleep "$sec" \
		>$T/perf.log 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		perf script -i $T/perf.data -F comm,tid,cpu,time,event,ip,sym,symoff,dso \
			>$T/perf-$sw.txt 2>>$T/perf.log
		rc=$?
	fi
	if [ $rc = 0 ]; then
		diag <$T/perf.log
		ok "perf record, switch $sw ($(grep -c 'cpu-clock' $T/perf-$sw.txt) samples)"
		block perf-$sw $T/perf-$sw.txt
	else
		diag <$T/perf.log
		notok "perf record, switch $sw (exit status $rc)"
	fi
	rm -f $T/perf.data
	# bpftrace: a kprobe at a function's entry, a profile probe
	if [ $bpf = 1 ]; then
		bok=1
		bpftrace -e "${probes%,} { @[kstack(perf)] = count(); } interval:s:$sec { exit(); }" \
			>$T/kprobe-$sw.txt 2>$T/bpf.log || bok=0
		bpftrace -e "profile:hz:$hz { @[kstack(perf)] = count(); } interval:s:$sec { exit(); }" \
			>$T/profile-$sw.txt 2>>$T/bpf.log || bok=0
		if [ $bok = 1 ]; then
			ok "bpftrace, switch $sw ($(grep -c '^@' $T/kprobe-$sw.txt) kprobe stacks, $(grep -c '^@' $T/profile-$sw.txt) profile stacks)"
			block kprobe-$sw $T/kprobe-$sw.txt
			block profile-$sw $T/profile-$sw.txt
		else
			diag <$T/bpf.log
			notok "bpftrace, switch $sw"
		fi
	else
		skip "bpftrace, switch $sw" "bpftrace does not run on this kernel"
	fi
	# /proc/PID/stack of every task
	for p in /proc/[0-9]*; do
		echo "# ${p#/proc/} $(cat $p/comm 2>/dev/null)"
		cat $p/stack 2>/dev/null
		echo
	done >$T/stack-$sw.txt
	ok "/proc/PID/stack, switch $sw ($(grep -c '^#' $T/stack-$sw.txt) tasks)"
	block stack-$sw $T/stack-$sw.txt
	# the consumers' counters after the runs (the host reads which ones
	# kunwind answered)
	block consumers-$sw $F
done
switch off
diag <$F
load_stop
check "rmmod kunwind" rmmod kunwind
finish
