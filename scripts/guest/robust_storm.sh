#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load/unload storm: robust_payload.ko (two kthreads living in a chain of
# its frames, with .eh_frame and .sframe) is loaded and unloaded
# ROBUST_CYCLES times while robust_test.ko's storm kthread unwinds every
# task over and over on the other CPU, a reader loop here asks
# /dev/kunwind/backtrace for the payload threads' stacks (and its own),
# and the loop itself walks a payload thread after every fourth load.
# Any KASAN, lockdep or RCU report fails the run (the host parses the
# log).  Here it fails on a failed insmod/rmmod, a backtrace write that
# errs other than for a thread that just exited, a walk's result without
# its stop line, an unwind fault the storm kthread counted, and on a storm
# that did not happen: no backtrace read, no payload thread walked through
# the payload's own frames (by the loop and by the reader), no storm
# unwind, no storm frame in robust_payload.
# Reports KTAP (/etc/kuw-ktap.sh): the diagnostic "robust: load-unload <n>
# runs, ..." with every count, and one result.  Leaves the payload
# loaded, as it found it.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 1
n=${ROBUST_CYCLES:-100}
mod=/lib/kunwind/kunit/robust_payload.ko
par=/sys/module/robust_test/parameters/storm
bt=/dev/kunwind/backtrace
stop=/tmp/robust_storm.stop
if [ ! -f "$mod" ] || [ ! -w "$par" ] || [ ! -w "$bt" ]; then
	diag "missing $mod, $par or $bt"
	notok "robust load-unload storm"
	exit 0
fi
faults=0
rmmod robust_payload 2>/dev/null
echo 1 >"$par" || faults=$((faults + 1))

# payload_pids: the pids of the payload's threads now
payload_pids() {
	for d in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$d/comm" || continue
		case $c in
		kuw_robust_pl*) echo "${d#/proc/}" ;;
		esac
	done
}

# walk WHAT OUT: write WHAT to a fresh open file of $bt, its result in OUT;
# fails when the write is refused
walk() {
	exec 3<>"$bt" || return 2
	if echo "$1" 2>/dev/null >&3; then
		cat <&3 >"$2"
		exec 3>&-
		return 0
	fi
	exec 3>&-
	return 1
}

# the reader: backtraces of the payload's threads while they come and go
rm -f "$stop" "$stop.reader"
(
	reads=0 errs=0 gone=0 inpl=0
	while [ ! -e "$stop" ]; do
		for p in $(payload_pids) self; do
			[ "$p" = self ] || p="pid $p"
			# a thread that just exited is refused: not a fault;
			# the result is read on the same open file
			if walk "$p" /tmp/robust_storm.r; then
				reads=$((reads + 1))
				grep -q '^stop: ' /tmp/robust_storm.r || errs=$((errs + 1))
				! grep -q '\[robust_payload\]' /tmp/robust_storm.r ||
					inpl=$((inpl + 1))
			else
				gone=$((gone + 1))
			fi
		done
	done
	echo "$reads $errs $gone $inpl" >"$stop.reader"
) &
reader=$!

i=0 loaded=0 walked=0 walkpl=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	if ! insmod "$mod"; then
		diag "cycle $i: insmod failed"
		faults=$((faults + 1))
		continue
	fi
	loaded=$((loaded + 1))
	# let the threads get deep into their chain now and then, and walk one
	if [ $((i % 4)) = 0 ]; then
		usleep 20000 2>/dev/null || sleep 1
		for p in $(payload_pids); do
			if walk "pid $p" /tmp/robust_storm.w; then
				walked=$((walked + 1))
				grep -q '^stop: ' /tmp/robust_storm.w || faults=$((faults + 1))
				! grep -q '\[robust_payload\]' /tmp/robust_storm.w ||
					walkpl=$((walkpl + 1))
			else
				diag "cycle $i: pid $p refused while its module is loaded"
				faults=$((faults + 1))
			fi
			break
		done
	fi
	if ! rmmod robust_payload; then
		diag "cycle $i: rmmod failed"
		faults=$((faults + 1))
	fi
done
touch "$stop"
wait "$reader"
read -r reads errs gone inpl <"$stop.reader" || { reads=0 errs=1 gone=0 inpl=0; }
faults=$((faults + errs))
# the storm unwinder's counts: running, unwinds, frames in robust_payload,
# faults (robust_storm_get()); read before it stops
read -r _ su spl sf <"$par" || { su=0 spl=0 sf=1; }
echo 0 >"$par" || faults=$((faults + 1))
faults=$((faults + ${sf:-1}))
insmod "$mod" || faults=$((faults + 1))
diag "robust: load-unload $n runs, $loaded loaded, $faults faults; backtraces read: $reads by the reader ($inpl through robust_payload's frames, $gone refused: thread gone), $walked payload threads walked by the loop ($walkpl through its frames); storm kthread: $su unwinds, $spl frames in robust_payload"
if [ "$faults" = 0 ] && [ "$loaded" = "$n" ] && [ "$reads" -gt 0 ] &&
   [ "$walkpl" -gt 0 ] && [ "$su" -gt 0 ] && [ "$spl" -gt 0 ]; then
	ok "robust load-unload storm"
else
	notok "robust load-unload storm"
fi
