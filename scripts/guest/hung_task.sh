#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The hung-task detector and /proc/PID/stack as clients: kunit/
# hung_payload.ko holds its kthread "kuw_hung" in D state under
# hp_outer() -> hp_middle() -> hp_wait().  Its /proc/PID/stack is read
# with the consumers switch off and on (answered by kunwind then: its
# counter moves) and must be the same frames both ways, hp_wait to
# hp_outer among them; then hung_task_timeout_secs=1 makes khungtaskd
# report it ("INFO: task kuw_hung:PID blocked for more than"), its stack
# printed by the kernel.  Both stacks are printed between "kuw-stack:"
# markers on the console, where the host checks every frame against the
# machine code (scripts/framecheck.py).  Needs CONFIG_DETECT_HUNG_TASK
# (Debian's kernels); skips without it.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 4
F=/dev/kunwind/consumers
M=${KUW_MODDIR:-/lib/kunwind}/kunit/hung_payload.ko
T=/tmp/kuw-hung
mkdir -p $T

# A test kernel's guest, and check-stock's before lockdown is raised,
# load it first: then it is there.
mine=0
if [ -d /sys/module/hung_payload ]; then
	ok "hung_payload.ko loaded (by the guest; kuw_hung held in D state)"
else
	check "insmod hung_payload.ko (kuw_hung held in D state)" insmod "$M"
	mine=1
fi
# where its text is, for the host's check of the frames
echo "kuw-stack: modtext $(cat /sys/module/hung_payload/sections/.text 2>/dev/null)" >/dev/kmsg
pid=
for _ in 1 2 3 4 5 6 7 8 9 10; do
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = kuw_hung ] && pid=${d#/proc/}
	done
	[ -n "$pid" ] && grep -q '^State:.*D' "/proc/$pid/status" && break
	sleep 0.2
done

# field 4 of a consumer's line: answered by kunwind alone
count() { awk -v n="$1" '$1 == n { print $4 }' $F 2>/dev/null; }
cat "/proc/$pid/stack" >$T/off 2>/dev/null
before=$(count stack_trace_save_tsk)
echo 1 >$F 2>/dev/null
cat "/proc/$pid/stack" >$T/on 2>/dev/null
after=$(count stack_trace_save_tsk)
echo 0 >$F 2>/dev/null
# one console line a frame, for the host (each echo one kmsg record)
for w in off on; do
	while read -r l; do echo "kuw-stack: proc-$w $l"; done <$T/$w
done >/dev/kmsg
# The frames without the [<0>] column, the same both ways.
if [ -n "$pid" ] && grep -q hp_wait $T/off && grep -q hp_outer $T/off &&
   cmp -s $T/off $T/on && [ "${after:-0}" -gt "${before:-0}" ]; then
	ok "/proc/kuw_hung/stack: hp_wait to hp_outer, the same with kunwind answering ($(grep -c . $T/off) frames)"
else
	notok "/proc/kuw_hung/stack: hp_wait to hp_outer, the same with kunwind answering"
	diag <$T/off
	diag <$T/on
fi

if [ ! -w /proc/sys/kernel/hung_task_timeout_secs ]; then
	skip "the hung-task detector reports kuw_hung" "no CONFIG_DETECT_HUNG_TASK"
else
	dmesg -c >/dev/null
	echo 1 >/proc/sys/kernel/hung_task_timeout_secs
	for _ in $(seq 1 40); do
		dmesg | grep -q "task kuw_hung:$pid blocked for more than" && break
		sleep 0.25
	done
	echo 0 >/proc/sys/kernel/hung_task_timeout_secs
	sleep 0.5
	dmesg >$T/report
	check "the hung-task detector reports kuw_hung, with hp_wait in its trace" \
		sh -c "grep -q 'task kuw_hung:$pid blocked for more than' $T/report && grep -q hp_wait $T/report"
fi
if [ $mine = 1 ]; then
	check "rmmod hung_payload" rmmod hung_payload
else
	skip "rmmod hung_payload" "the guest that loaded it unloads it"
fi
