#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stress of /dev/kunwind/ (tests/stress/kuw_stress.c, /usr/bin/kuw-stress):
# every node from many threads and processes at once, open files shared
# and not: racing and malformed writes to load, the real vmlinux blob
# unloaded and loaded again while walks run, backtrace self/pid N/all
# under fork, exec and exit storms, rules on one open file from several
# threads, rmmod kunwind while the nodes are open, unprivileged openers,
# perf sampling with kernel callchains and /proc/PID/stack readers.
#
# Two roles, by where it is installed:
#   /guest/stress.sh         the main guest (multi-threaded TCG): all of
#                            the above, the consumers switch only read
#   /guest-switch/stress.sh  the switch guest (one TCG thread: the work
#                            there patches kernel text): the consumers
#                            switch flipped under that load, and the
#                            nesting storm: the function tracer's
#                            func_stack_trace on functions kunwind walks
#                            through and a kprobe with a stacktrace
#                            trigger on the backtrace node's write,
#                            while perf samples with callchains; the
#                            walk's own functions must refuse both (they
#                            are built without the ftrace entry and are
#                            NOKPROBE_SYMBOL())
# Then every slab cache with debugging on is validated (slub_debug: echo 1
# >/sys/kernel/slab/*/validate) and the kernel log since the start must
# hold no report (oops, WARNING, BUG, KASAN, KFENCE, UBSAN, lockdep, SLUB).
#
# /etc/kuw-stress.conf (from the host) may set STRESS_OPS, STRESS_SECONDS,
# STRESS_SWITCH_OPS, STRESS_SWITCH_SECONDS; STRESS_BLOB names a blob to use
# instead of exporting /boot/vmlinux's.  Reports KTAP (/etc/kuw-ktap.sh).
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
# shellcheck disable=SC1091
[ -f /etc/kuw-stress.conf ] && . /etc/kuw-stress.conf
T=/tmp/stress.$$
mkdir -p $T
case $0 in
*/guest-switch/*) role=switch ;;
*) role=main ;;
esac
ktap_plan 4
diag "stress ($role guest): profile ${KUW_PROFILE:-base}, $(grep -c ^processor /proc/cpuinfo) cpus"

# report patterns of the kernel log (timestamps stripped); the host's
# scripts/ktap.py reads the whole serial log with the same list
REPORTS='^(WARNING:|BUG:|BUG [^ ]+ \(|Oops|general protection fault|kernel BUG at|Kernel panic|PANIC:|UBSAN:|KASAN|KFENCE|Internal error:|Unable to handle kernel|list_(add|del) corruption|INFO: (possible|trying to register|lockdep|rcu_|task .* blocked)|rcu: INFO:|SLUB:? .*counted but|.*Watchdog detected hard LOCKUP|watchdog: BUG)'
echo "kuw-stress: begin $$" >/dev/kmsg

# --- the blob: the one given, or /boot/vmlinux's -----------------------------
blob=${STRESS_BLOB:-}
if [ -z "$blob" ] && [ -f "${KUW_VMLINUX:-/boot/vmlinux}" ] &&
   command -v kunwind-dump >/dev/null 2>&1; then
	if kunwind-dump export "${KUW_VMLINUX:-/boot/vmlinux}" -o $T/v.blob >$T/export.log 2>&1; then
		blob=$T/v.blob
	else
		diag "no blob: kunwind-dump export: $(tail -n 1 $T/export.log)"
	fi
fi
bargs=
if [ -n "$blob" ] && [ -f "$blob" ]; then
	# the blob's owner (offset 96) and section (byte 13: 0 eh_frame, 1 debug_frame)
	owner=$(dd if="$blob" bs=1 skip=96 count=55 2>/dev/null | tr -d '\000')
	case $(od -An -tu1 -j13 -N1 "$blob" | tr -d ' ') in
	0) sec=eh_frame ;;
	*) sec=debug_frame ;;
	esac
	diag "blob: $blob ($(wc -c <"$blob") bytes), unloaded as '$owner $sec'"
	bargs="-b $blob"
fi

if [ "$role" = switch ]; then
	ops=${STRESS_SWITCH_OPS:-20000} secs=${STRESS_SWITCH_SECONDS:-60}
else
	ops=${STRESS_OPS:-100000} secs=${STRESS_SECONDS:-150}
fi

# --- the nesting storm (switch guest) ----------------------------------------
TR=/sys/kernel/tracing
[ -f $TR/current_tracer ] || mount -t tracefs nodev $TR 2>/dev/null
[ -f $TR/current_tracer ] || TR=/sys/kernel/debug/tracing
nest=none
nest_on() {
	[ -f $TR/current_tracer ] || { nest="no tracefs"; return; }
	echo 0 >$TR/tracing_on
	echo 512 >$TR/buffer_size_kb
	echo >$TR/trace
	: >$TR/set_ftrace_filter
	# kunwind's walk is neither traced nor kprobed: its functions must
	# refuse the function tracer's filter and a kprobe event
	nwalk=0 nref=0
	for f in kunwind_next_frame kunwind_start; do
		if [ -f $TR/set_ftrace_filter ]; then
			nwalk=$((nwalk + 1))
			echo "$f" >>$TR/set_ftrace_filter 2>/dev/null ||
				nref=$((nref + 1))
		fi
		if [ -f $TR/kprobe_events ]; then
			nwalk=$((nwalk + 1))
			if echo "p:kuwstress/walk $f" >>$TR/kprobe_events 2>/dev/null; then
				echo '-:kuwstress/walk' >>$TR/kprobe_events
			else
				nref=$((nref + 1))
			fi
		fi
	done
	: >$TR/set_ftrace_filter 2>/dev/null
	nf=0
	# what kunwind walks through, and the backtrace node's write
	for f in kuw_bt_write vfs_read vfs_write; do
		echo "$f" >>$TR/set_ftrace_filter 2>/dev/null && nf=$((nf + 1))
	done
	if grep -qw function $TR/available_tracers 2>/dev/null && [ "$nf" -gt 0 ] &&
	   echo function >$TR/current_tracer &&
	   echo 1 >$TR/options/func_stack_trace; then
		nest="function tracer with func_stack_trace on $nf functions"
	else
		nest="no function tracer"
	fi
	if [ -f $TR/kprobe_events ] &&
	   echo 'p:kuwstress/next kuw_bt_write' >>$TR/kprobe_events &&
	   echo stacktrace >$TR/events/kuwstress/next/trigger &&
	   echo 1 >$TR/events/kuwstress/next/enable; then
		nest="$nest; kprobe kuw_bt_write with a stacktrace trigger"
	else
		nest="$nest; no kprobe event"
	fi
	echo 1 >$TR/tracing_on
}
nest_off() {
	[ -f $TR/current_tracer ] || return 0
	echo 0 >$TR/tracing_on
	nstack=$(grep -c '<stack trace>' $TR/trace 2>/dev/null)
	echo 0 >$TR/options/func_stack_trace 2>/dev/null
	echo nop >$TR/current_tracer 2>/dev/null
	: >$TR/set_ftrace_filter 2>/dev/null
	if [ -d $TR/events/kuwstress/next ]; then
		echo 0 >$TR/events/kuwstress/next/enable
		echo '!stacktrace' >$TR/events/kuwstress/next/trigger
		echo '-:kuwstress/next' >>$TR/kprobe_events
	fi
	echo >$TR/trace
	echo 1 >$TR/tracing_on
}

sargs="-p"
if [ "$role" = switch ]; then
	sargs="-p -s"
	nest_on
	diag "nesting storm: $nest"
fi

# --- the run -----------------------------------------------------------------
if ! command -v kuw-stress >/dev/null 2>&1; then
	notok "kuw-stress ran (no /usr/bin/kuw-stress in this guest)"
else
	diag "\$ kuw-stress -d $secs -n $ops $bargs${bargs:+ -u '$owner $sec'} $sargs"
	t0=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086 # options are words
	if [ -n "$bargs" ]; then
		kuw-stress -d "$secs" -n "$ops" $bargs -u "$owner $sec" $sargs >$T/out 2>&1
	else
		kuw-stress -d "$secs" -n "$ops" $sargs >$T/out 2>&1
	fi
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	diag "kuw-stress exit status $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s of guest time"
	# its own results, as diagnostics here, and one result for them all
	sed 's/^/    /' $T/out | diag
	if [ "$rc" = 0 ] && grep -q '^ok [0-9]* stress: ' $T/out && ! grep -q '^not ok' $T/out; then
		ok "kuw-stress: $(sed -n 's/^ok [0-9]* stress: //p' $T/out), every result right"
	else
		notok "kuw-stress: every result right"
	fi
fi

if [ "$role" = switch ]; then
	nest_off
	case $nest in
	"no tracefs"*|"no function tracer; no kprobe event")
		skip "nesting storm: stack traces taken by the tracer and a kprobe under the load" "$nest" ;;
	*)
		diag "kunwind's walk functions: $nref of $nwalk tracer filters and kprobe events refused"
		if [ "${nstack:-0}" -gt 0 ] && [ "$nref" = "$nwalk" ]; then
			ok "nesting storm: $nstack stack traces taken by the tracer and a kprobe under the load; kunwind's walk refused both ($nref of $nwalk)"
		else
			notok "nesting storm: stack traces taken by the tracer and a kprobe under the load ($nstack); kunwind's walk refused both ($nref of $nwalk)"
		fi ;;
	esac
else
	skip "nesting storm: stack traces taken by the tracer and a kprobe under the load" "the switch guest's (it patches kernel text)"
fi

# --- every slab validated ----------------------------------------------------
nslab=0 nval=0
for f in /sys/kernel/slab/*/validate; do
	[ -f "$f" ] || continue
	[ -L "${f%/validate}" ] && continue	# an alias of another cache
	nslab=$((nslab + 1))
	echo 1 >"$f" 2>/dev/null && nval=$((nval + 1))
done
if [ "$nval" = 0 ]; then
	skip "every slab cache validated" "no cache with debugging on of $nslab (a kernel without SLUB_DEBUG, or booted without slub_debug)"
else
	ok "every slab cache validated ($nval of $nslab caches had debugging on)"
fi

# --- the kernel log ------------------------------------------------------------
dmesg >$T/dmesg
if grep -q "kuw-stress: begin $$" $T/dmesg; then
	sed -n "/kuw-stress: begin $$/,\$p" $T/dmesg >$T/since
else
	cp $T/dmesg $T/since	# the ring buffer wrapped: all that is left
fi
sed -E 's/^\[[ 0-9.]*\] ?//' $T/since | grep -v 'kuw-guest: ' |
	grep -v 'task kuw_hung:' | grep -E "$REPORTS" >$T/reports
if [ -s $T/reports ]; then
	head -n 20 $T/reports | diag
	notok "no kernel report (oops, WARNING, BUG, KASAN, KFENCE, UBSAN, lockdep, SLUB) since the stress began: $(wc -l <$T/reports) lines"
else
	ok "no kernel report (oops, WARNING, BUG, KASAN, KFENCE, UBSAN, lockdep, SLUB) since the stress began"
fi
rm -rf $T
exit 0
