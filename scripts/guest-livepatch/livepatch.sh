#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Livepatch as a real client of the reliable unwinder, with kunwind's
# answer to stack_trace_save_tsk_reliable() (the consumers switch with
# consumers_reliable=1) off, then on.  Run by scripts/init/livepatch.sh
# (make check-livepatch), kunwind.ko loaded, on a kernel with
# CONFIG_LIVEPATCH booted preemptible (preempt=full where the model is
# dynamic), on one TCG thread (a patch is enabled while the other vCPU
# runs the function it patches).
#
# Load: kunit/lpt_target.ko's threads (per CPU: sleepers and preempted
# callers of lpt_func, spinners preempted elsewhere; LIVEPATCH_LOAD="S P N",
# default "1 2 2").  With each hook setting:
#   - kunit/lpt_patch.ko: enabled (insmod), then disabled (enabled=0) and
#     removed: the patch and the unpatch transitions, LIVEPATCH_ROUNDS
#     times (default 1);
#   - the kernel's samples/livepatch/livepatch-sample.ko (when given):
#     enabled, /proc/cmdline checked, disabled, removed.
# Each transition is timed from the write that starts it to
# /sys/kernel/livepatch/<patch>/transition reading 0 (polled every 0.1 s;
# lpt_patch's callbacks time it in the kernel too), and the tasks it
# waited on are those /proc/PID/patch_state shows still in the old state
# after the kernel's first pass (the last ones are named, and the stacks
# of some are printed once).  A transition still on after LIVEPATCH_STALL
# seconds (default 20) has stalled: the load is stopped (its threads exit,
# which ends the transition) and started again for the next one.
#
# The invariant, independent of any unwinder (kunit/lpt_target.c): no
# task runs the old lpt_func after it was switched to the patched state,
# nor the new one after it was switched back, nor is inside either when a
# transition that leaves it completes: "violations V" must be 0.
#
# Results (KTAP): the load runs; per hook: (on) kunwind answers the
# reliable walk, lpt_patch patched and unpatched, the sample patched and
# unpatched, (on) kunwind answered some of livepatch's walks, no
# violation; then: tasks were preempted and slept inside the patched
# functions; the check sees a switch (the sample's transitions, which do
# not patch lpt_func, switch tasks running it: counted apart; skipped
# without the sample); kunwind ends transitions the kernel alone does not
# end (skipped where the kernel alone ended them); no violation at all.
# With the hook off a stall is measured, not failed; with it on, a stall
# fails.  Lines "# lp-row: ..." are the table the host prints (kernel,
# hook, patch, direction, time, tasks waited on, the reliable walks
# kunwind answered and left to the kernel meanwhile, violations).
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
M=${KUW_MODDIR:-/lib/kunwind}
L=/dev/kunwind_lpt
LP=/sys/kernel/livepatch
C=/dev/kunwind/consumers
R=/sys/module/kunwind/parameters/consumers_reliable
STALL=${LIVEPATCH_STALL:-20}
LOAD=${LIVEPATCH_LOAD:-"1 2 2"}
HOOKS=${LIVEPATCH_HOOKS:-"off on"}
ROUNDS=${LIVEPATCH_ROUNDS:-1}
SAMPLE=$M/livepatch-sample.ko
T=/tmp/kuw-lp
mkdir -p $T
kernel="$(uname -r) $(uname -m)"

# the load; per hook: (on: the hook), lpt_patch patched, unpatched, the
# sample, (on: kunwind answered walks), no violation; the evidence, the
# check sees switches, kunwind ends stalls, no violation
np=5
for h in $HOOKS; do
	np=$((np + 4))
	[ "$h" != on ] || np=$((np + 2))
done
ktap_plan $np

# now: uptime in centiseconds
now() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*//;s/^$/0/'
}
# secs CS: "12.34"
secs() {
	printf '%d.%02d' $(($1 / 100)) $(($1 % 100))
}
# field NAME: the number after NAME in the load's counters (its last
# line: "violations V" is the total, after each function's own)
field() {
	sed -n "s/^\\(.* \\)*$1 \\([0-9-]*\\).*/\\2/p" $T/stats | tail -n 1
}
stats() {
	cat $L >$T/stats 2>/dev/null
}
viol() {
	stats
	field violations
}

# pending FROM: the pids whose patch_state is FROM (still in the old state)
pending() {
	grep -l -x -- "$1" /proc/[0-9]*/patch_state 2>/dev/null |
		sed 's,^/proc/\([0-9]*\)/patch_state$,\1,'
}
# names PID...: their comm, space-separated
names() {
	for p in "$@"; do
		# (read, not cat: no process per task while polling)
		read -r c 2>/dev/null </proc/"$p"/comm && printf '%s ' "$c"
	done
}

load_on=0
load_start() {
	[ $load_on = 1 ] && return 0
	if echo "start $LOAD" >$L 2>$T/load.err; then
		load_on=1
		return 0
	fi
	return 1
}
load_stop() {
	echo stop >$L
	load_on=0
}

# wait_transition PATCH FROM: after the write that started PATCH's
# transition at $t0, poll until it is over; sets w_time (seconds),
# w_first (tasks left after the kernel's first pass), w_last (the names
# of the last ones), w_stalled (1: it did not end in STALL seconds; the
# load was stopped to end it)
wait_transition() {
	lp=$1 from=$2 shown=0
	w_stalled=0 w_last=
	# shellcheck disable=SC2046 # one word per pid
	set -- $(pending "$from")
	w_first=$#
	w_names=$(names "$@")
	while [ "$(cat $LP/"$lp"/transition 2>/dev/null || echo 0)" = 1 ]; do
		t=$(now)
		# shellcheck disable=SC2046 # one word per pid
		set -- $(pending "$from")
		[ $# = 0 ] || w_names=$(names "$@")
		if [ $shown = 0 ] && [ $((t - t0)) -ge 150 ] && [ $# -gt 0 ]; then
			shown=1
			diag "$lp: still waiting after $(secs $((t - t0)))s on $#: $w_names"
			n=0
			for p in "$@"; do
				n=$((n + 1))
				[ $n -le 3 ] || break
				diag "  /proc/$p/stack ($(cat /proc/"$p"/comm 2>/dev/null)):"
				head -n 8 /proc/"$p"/stack 2>/dev/null | sed 's/^/    /' | diag
			done
		fi
		if [ $((t - t0)) -ge $((STALL * 100)) ]; then
			w_stalled=1
			w_time=$(secs $((t - t0)))
			w_last=$w_names
			if [ $# = 0 ]; then
				diag "$lp: stalled after ${w_time}s, every task of /proc switched (left: idle tasks, or the transition's end: RCU Tasks); stopping the load"
			else
				diag "$lp: stalled after ${w_time}s on $#: $w_names; stopping the load"
			fi
			load_stop
			t1=$(now)
			while [ "$(cat $LP/"$lp"/transition 2>/dev/null || echo 0)" = 1 ] &&
				[ $(($(now) - t1)) -lt $((STALL * 100)) ]; do
				sleep 0.1
			done
			diag "$lp: $(cat $LP/"$lp"/transition 2>/dev/null || echo gone) after stopping the load ($(secs $(($(now) - t1)))s)"
			return 0
		fi
		sleep 0.1
	done
	w_time=$(secs $(($(now) - t0)))
	w_last=$w_names
}

# rel: "CALLS KUNWIND FALLBACK" of the consumer stack_trace_save_tsk_reliable
rel() {
	awk '$1 == "stack_trace_save_tsk_reliable" { print $3, $4, $5; f = 1 }
		END { if (!f) print "0 0 0" }' $C 2>/dev/null
}
# walks: the reliable walks kunwind answered and left to the kernel since
# "rel0=$(rel)" (hook on), "-" with the hook off
walks() {
	if [ "$hook" = on ]; then
		# shellcheck disable=SC2086,SC2046 # six numbers
		set -- $rel0 $(rel)
		echo "$(($5 - $2)) kunwind, $(($6 - $3)) kernel"
	else
		echo -
	fi
}
# took: the last transition's time for a list, ">T!" when it stalled;
# notes the stall (stalled_off, stalled_on) or an end with the hook on
took() {
	if [ $w_stalled = 1 ]; then
		echo ">$w_time!"
	else
		echo "$w_time"
	fi
}
note() {
	if [ $w_stalled = 1 ]; then
		if [ "$hook" = on ]; then stalled_on=1; else stalled_off=1; fi
	elif [ "$hook" = on ]; then
		ended_on=1
	fi
}
# row HOOK PATCH DIRECTION VIOLATIONS
row() {
	note
	if [ $w_stalled = 1 ]; then
		tm=">${w_time}s stalled"
	else
		tm="${w_time}s"
	fi
	diag "lp-row: $kernel|$1|$2|$3|$tm|$w_first${w_last:+ (last: $w_last)}|$(walks)|$4"
}

# ---- the load ----
if [ ! -c $L ] && ! insmod "$M/kunit/lpt_target.ko"; then
	notok "lpt_target.ko loaded"
	exit 0
fi
diag "kernel $kernel, $(uname -v)"
diag "command line: $(cat /proc/cmdline)"
[ -r /sys/kernel/debug/sched/preempt ] &&
	diag "preempt model: $(cat /sys/kernel/debug/sched/preempt)"
diag "$(head -n 1 $C 2>/dev/null)"
if load_start; then
	stats
	ok "lpt_target's load runs ($(head -n 1 $T/stats))"
else
	diag "start $LOAD: $(cat $T/load.err); the kernel does not preempt in kernel mode: sleepers only"
	LOAD="1 0 0"
	if load_start; then
		ok "lpt_target's load runs, sleepers only ($(head -n 1 $L))"
	else
		notok "lpt_target's load runs ($(cat $T/load.err))"
	fi
fi
sleep 2

stalled_off=0 stalled_on=0 ended_on=0
for hook in $HOOKS; do
	v0=$(viol)
	if [ "$hook" = on ]; then
		echo 1 >$R 2>/dev/null
		echo 1 >$C 2>/dev/null
		st=$(awk '$1 == "stack_trace_save_tsk_reliable" { print $2 }' $C)
		if [ "$st" = on ]; then
			ok "hook on: kunwind answers stack_trace_save_tsk_reliable ($(head -n 1 $C))"
		else
			diag <$C
			notok "hook on: kunwind answers stack_trace_save_tsk_reliable (state ${st:-missing})"
		fi
	else
		echo 0 >$C 2>/dev/null
	fi
	diag "hook $hook: $(head -n 1 $C 2>/dev/null)"
	relh=$(rel)

	# lpt_patch: patched and unpatched, LIVEPATCH_ROUNDS times
	pe='' pd='' fe='' fd='' r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		load_start
		sleep 1
		v1=$(viol)
		rel0=$(rel)
		t0=$(now)
		if ! insmod "$M/kunit/lpt_patch.ko"; then
			fe="insmod failed"
			break
		fi
		wait_transition lpt_patch 0
		stats
		diag "lpt_patch patched, hook $hook: ${w_time}s (kernel: $(field last-transition-us) us), $w_first tasks left after the first pass${w_last:+, last: $w_last}"
		row "$hook" lpt_patch patch "$(($(viol) - v1))"
		pe="$pe $(took)"
		[ $w_stalled = 0 ] || [ "$hook" = off ] || fe="stalled"
		# and back
		load_start
		sleep 1
		v1=$(viol)
		rel0=$(rel)
		t0=$(now)
		echo 0 >$LP/lpt_patch/enabled
		wait_transition lpt_patch 1
		stats
		diag "lpt_patch unpatched, hook $hook: ${w_time}s (kernel: $(field last-transition-us) us), $w_first tasks left after the first pass${w_last:+, last: $w_last}"
		row "$hook" lpt_patch unpatch "$(($(viol) - v1))"
		pd="$pd $(took)"
		[ $w_stalled = 0 ] || [ "$hook" = off ] || fd="stalled"
		n=0
		while ! rmmod lpt_patch 2>/dev/null && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		if [ -d /sys/module/lpt_patch ]; then
			fd="${fd:+$fd, }not removed"
			break
		fi
	done
	if [ -z "$fe" ]; then
		ok "hook $hook: lpt_patch enabled, transitions in (s):$pe"
	else
		notok "hook $hook: lpt_patch enabled ($fe; transitions in (s):$pe)"
	fi
	if [ -z "$fe$fd" ]; then
		ok "hook $hook: lpt_patch disabled and removed, transitions in (s):$pd"
	else
		notok "hook $hook: lpt_patch disabled and removed (${fd:-not enabled}; transitions in (s):$pd)"
	fi

	# the kernel's sample livepatch (cmdline_proc_show)
	load_start
	sleep 1
	if [ ! -f "$SAMPLE" ]; then
		skip "hook $hook: livepatch-sample patched and unpatched" "no samples/livepatch/livepatch-sample.ko"
	else
		rel0=$(rel)
		t0=$(now)
		sr=
		if insmod "$SAMPLE"; then
			wait_transition livepatch_sample 0
			sw1=$w_stalled st1=$w_time
			row "$hook" livepatch-sample patch -
			grep -q "this has been live patched" /proc/cmdline || sr="/proc/cmdline not patched"
			load_start
			sleep 1
			rel0=$(rel)
			t0=$(now)
			echo 0 >$LP/livepatch_sample/enabled
			wait_transition livepatch_sample 1
			row "$hook" livepatch-sample unpatch -
			n=0
			while ! rmmod livepatch_sample 2>/dev/null && [ $n -lt 50 ]; do
				sleep 0.1
				n=$((n + 1))
			done
			[ ! -d /sys/module/livepatch_sample ] || sr="${sr:+$sr, }still loaded"
			grep -q "this has been live patched" /proc/cmdline && sr="${sr:+$sr, }/proc/cmdline still patched"
			if [ "$hook" = on ] && { [ $sw1 = 1 ] || [ $w_stalled = 1 ]; }; then
				sr="${sr:+$sr, }stalled"
			fi
		else
			sr="insmod failed"
		fi
		if [ -z "$sr" ]; then
			ok "hook $hook: livepatch-sample patched (${st1}s$([ "$sw1" = 1 ] && echo ", stalled, the kernel alone")) and unpatched (${w_time}s$([ "$w_stalled" = 1 ] && echo ", stalled, the kernel alone"))"
		else
			notok "hook $hook: livepatch-sample patched and unpatched ($sr)"
		fi
	fi

	if [ "$hook" = on ]; then
		# shellcheck disable=SC2086,SC2046 # six numbers
		set -- $relh $(rel)
		if [ $(($5 - $2)) -gt 0 ]; then
			ok "hook on: kunwind answered livepatch's reliable walks ($(($5 - $2)) of $(($4 - $1)) calls; $(($6 - $3)) left to the kernel)"
		else
			notok "hook on: kunwind answered livepatch's reliable walks (0 of $(($4 - $1)) calls)"
		fi
	fi
	v=$(($(viol) - v0))
	if [ "$v" = 0 ]; then
		ok "hook $hook: no task ran a function it was switched away from"
	else
		diag <$T/stats
		notok "hook $hook: no task ran a function it was switched away from ($v violations)"
	fi
done
echo 0 >$C 2>/dev/null
load_stop
stats
diag <$T/stats
diag <$C

pre=$(sed -n 's/^old .* preempted \([0-9]*\).*/\1/p' $T/stats)
slept=$(sed -n 's/^old .* slept \([0-9]*\).*/\1/p' $T/stats)
npre=$(sed -n 's/^new .* preempted \([0-9]*\).*/\1/p' $T/stats)
if [ "$LOAD" = "1 0 0" ] && [ "${slept:-0}" -gt 0 ]; then
	ok "tasks slept inside lpt_func (slept $slept; no preemption in kernel mode here)"
elif [ "${pre:-0}" -gt 0 ] && [ "${slept:-0}" -gt 0 ] && [ "${npre:-0}" -gt 0 ]; then
	ok "tasks were preempted and slept inside the patched functions (old: preempted $pre, slept $slept; new: preempted $npre)"
else
	notok "tasks were preempted and slept inside the patched functions (old: preempted ${pre:-?}, slept ${slept:-?}; new: preempted ${npre:-?})"
fi
sw=$(sed -n 's/^old .* switched-by-another \([0-9]*\).*/\1/p' $T/stats)
if [ ! -f "$SAMPLE" ]; then
	skip "the check sees a switch inside lpt_func" "no other patch (livepatch-sample.ko) to make one"
elif [ "${sw:-0}" -gt 0 ]; then
	ok "the check sees a switch inside lpt_func: the sample's transitions (which do not patch it) switched tasks running it $sw times"
else
	notok "the check sees a switch inside lpt_func (the sample's transitions switched none of the tasks running it)"
fi
case " $HOOKS " in
*" off "*)
	case " $HOOKS " in
	*" on "*) ;;
	*) HOOKS=none ;;
	esac
	;;
*) HOOKS=none ;;
esac
case $HOOKS in
none) skip "kunwind ends the transitions the kernel alone does not end" "not both hooks" ;;
*)
	if [ $stalled_off = 0 ]; then
		skip "kunwind ends the transitions the kernel alone does not end" "the kernel alone ended every transition"
	elif [ $stalled_on = 0 ] && [ $ended_on = 1 ]; then
		ok "kunwind ends the transitions the kernel alone does not end"
	else
		notok "kunwind ends the transitions the kernel alone does not end"
	fi
	;;
esac
v=$(field violations)
if [ "$v" = 0 ]; then
	ok "no violation: $(sed -n 's/^\(phase .*\)$/\1/p' $T/stats)"
else
	notok "no violation ($v)"
fi
rmmod lpt_target
exit 0
