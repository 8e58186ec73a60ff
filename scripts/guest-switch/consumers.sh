#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The consumers switch from user space (module/consumers.c): debugfs
# kunwind/consumers and the module parameter turn it on and off; with it
# on, /proc/1/stack (stack_trace_save_tsk() of a sleeping task: PID 1 is
# /init, waiting for this script) is answered by kunwind (its counter in
# the consumers file moves) and reads exactly as the kernel's own with the
# switch off; at the end it is left on for /init to unload kunwind with it
# on.  A kernel without ftrace with IPMODIFY skips, saying so.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 3
F=/dev/kunwind/consumers
P=/sys/module/kunwind/parameters/consumers
if ! grep -q "ftrace IPMODIFY" $F 2>/dev/null; then
	diag "$(head -1 $F 2>/dev/null)"
	for t in "/proc/1/stack answered by kunwind" \
		 "/proc/1/stack the same on and off" \
		 "parameter consumers follows the switch"; do
		skip "$t" "no ftrace with IPMODIFY in this kernel"
	done
	exit 0
fi
# field 4 of a consumer's line: answered by kunwind alone
count() { awk -v n="$1" '$1 == n { print $4 }' $F; }

before=$(count stack_trace_save_tsk)
echo 1 >$F
cat /proc/1/stack >/tmp/cons_on
after=$(count stack_trace_save_tsk)
p_on=$(cat $P)
echo 0 >$F
cat /proc/1/stack >/tmp/cons_off
p_off=$(cat $P)
diag <$F
diag </tmp/cons_on
if [ -s /tmp/cons_on ] && [ "$after" -gt "$before" ]; then
	ok "/proc/1/stack answered by kunwind"
else
	diag "stack_trace_save_tsk answered by kunwind: $before before, $after after"
	notok "/proc/1/stack answered by kunwind"
fi
if cmp -s /tmp/cons_on /tmp/cons_off; then
	ok "/proc/1/stack the same on and off"
else
	diag </tmp/cons_off
	notok "/proc/1/stack the same on and off"
fi
echo 1 >$P
p_set=$(head -1 $F)
echo 0 >$P
if [ "$p_on" = Y ] && [ "$p_off" = N ] &&
   [ "$p_set" != "${p_set#consumers on}" ] && grep -q "^consumers off" $F; then
	ok "parameter consumers follows the switch"
else
	diag "parameter: $p_on on, $p_off off; after writing 1 to it: $p_set"
	notok "parameter consumers follows the switch"
fi
# Left on, with a reader of /proc/1/stack in a loop, for /init's "rmmod
# kunwind": unloading while the switch is on and called must give the
# calls back to the kernel first (any oops or warning fails the guest).
echo 1 >$F
# (its own stdio: this script's output is a pipe that must close)
(while [ -d /sys/module/kunwind ]; do cat /proc/1/stack; done) \
	</dev/null >/dev/null 2>&1 &
