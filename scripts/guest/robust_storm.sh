#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load/unload storm (issue 6): robust_payload.ko (two kthreads living in a
# chain of its frames, with .eh_frame and .sframe) is loaded and unloaded
# ROBUST_CYCLES times while robust_test.ko's storm kthread unwinds every
# task over and over on the other CPU and a reader loop here asks debugfs
# kunwind/backtrace for the payload threads' stacks.  Any KASAN, lockdep or
# RCU report fails the run (the host parses the log); here a failed
# insmod/rmmod, a backtrace write that errs, or an unwind fault counts.
# Reports KTAP (/etc/kuw-ktap.sh): the diagnostic "robust: load-unload <n>
# runs, <k> rejected, <f> faults" and one result.  Leaves the payload
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

# the reader: backtraces of the payload's threads while they come and go
rm -f "$stop"
(
	reads=0 errs=0
	while [ ! -e "$stop" ]; do
		pids=
		for d in /proc/[0-9]*; do
			read -r c 2>/dev/null <"$d/comm" || continue
			case $c in
			kuw_robust_pl*) pids="$pids ${d#/proc/}" ;;
			esac
		done
		for p in $pids self; do
			[ "$p" = self ] || p="pid $p"
			# a thread that just exited is refused: not a fault;
			# the result is read on the same open file
			exec 3<>"$bt"
			if echo "$p" 2>/dev/null >&3; then
				grep -q '^stop: ' <&3 || errs=$((errs + 1))
				reads=$((reads + 1))
			fi
			exec 3>&-
		done
	done
	echo "$reads $errs" >"$stop.reader"
) &
reader=$!

i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	if ! insmod "$mod"; then
		diag "cycle $i: insmod failed"
		faults=$((faults + 1))
		continue
	fi
	# let the threads get deep into their chain now and then
	[ $((i % 4)) = 0 ] && usleep 20000
	if ! rmmod robust_payload; then
		diag "cycle $i: rmmod failed"
		faults=$((faults + 1))
	fi
done
touch "$stop"
wait "$reader"
read -r reads errs <"$stop.reader" || { reads=0 errs=1; }
faults=$((faults + errs))
echo 0 >"$par" || faults=$((faults + 1))
# the storm unwinder's own count of faults (see its summary line)
kf=$(cut -d' ' -f4 "$par")
faults=$((faults + ${kf:-1}))
insmod "$mod" || faults=$((faults + 1))
diag "robust: load-unload $n runs, 0 rejected, $faults faults ($reads debugfs backtraces read)"
if [ "$faults" = 0 ]; then
	ok "robust load-unload storm"
else
	notok "robust load-unload storm"
fi
