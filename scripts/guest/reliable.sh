#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunwind's reliable walks against the kernel's own, on tasks preempted in
# kernel mode, with kunit/reliable_payload.c: its spinner
# kthreads run a known chain of functions in kernel code (one a leaf that
# saves no frame record) until timer interrupts preempt them; each write to
# /dev/kunwind_reliable/run pins every thread with task_call_func() and
# takes the kernel's reliable walk (stack_trace_save_tsk_reliable()), its
# plain walk and kunwind's, and judges every trace kunwind calls reliable
# against the kernel's answers (see the module's header).  Meaningful on a
# kernel booted with preempt=full (or built preemptible); elsewhere the
# spinners are not started and only the other threads are compared.
#
# Results (KTAP, a subtest of /init):
#  1. the spinners run (skipped where the kernel does not preempt in
#     kernel mode);
#  2. at least one spinner was sampled preempted in kernel mode;
#  3. no wrong reliable trace of kunwind's ("wrong 0");
#  4. arm64 with the kernel's reliable walk (HAVE_RELIABLE_STACKTRACE,
#     6.17+): kunwind walks reliably some preempted task the kernel gives
#     up on (only-kunwind > 0); skipped on x86 and where arm64 has none;
#  5. x86 (ORC): kunwind calls reliable exactly the traces ORC does
#     (only-kunwind 0, only-kernel 0); skipped on arm64;
#     locked down with a blob's table (KUW_BT_RELIABLE=no), 4 is instead
#     "kunwind calls none reliable" and 5 is skipped;
#  6. the judge itself: one more round with traces made wrong on purpose
#     (two neighbouring frames of a reliable trace swapped; a preempted
#     spinner's rp_spin left out and its walk called reliable): it calls
#     every one of them wrong (skipped when there was none to make wrong).
# The closing note quotes the summary line "reliable: tasks N ...".
# RELIABLE_RUNS (default 5) sets the rounds, 200 ms apart, after the
# spinners ran RELIABLE_WARM seconds (default 2).
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
R=/dev/kunwind_reliable
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
T=/tmp/kuw-reliable
RUNS=${RELIABLE_RUNS:-5}
WARM=${RELIABLE_WARM:-2}
mkdir -p $T
ktap_plan 6

ours=
if [ ! -d $R ] && [ -f "${KUW_MODDIR:-/lib/kunwind}/kunit/reliable_payload.ko" ]; then
	insmod "${KUW_MODDIR:-/lib/kunwind}/kunit/reliable_payload.ko" && ours=1
fi
if [ ! -w $R/run ]; then
	notok "reliable_payload.ko loaded (debugfs kunwind_reliable)"
	for t in "a spinner preempted in kernel mode" "kunwind's reliable traces are right" \
		"kunwind reliable where the kernel gives up" "kunwind's reliable verdict is ORC's" \
		"the judge calls wrong traces wrong"; do
		skip "$t" "reliable_payload.ko not loaded"
	done
	exit 0
fi

arch=$(uname -m)
diag "kernel $(uname -r) $arch, $(uname -v)"
diag "command line: $(cat /proc/cmdline)"
[ -r /sys/kernel/debug/sched/preempt ] &&
	diag "preempt model: $(cat /sys/kernel/debug/sched/preempt)"
# Which tables kunwind has: without the vmlinux's, its vmlinux frames are
# stepped by the kernel's unwinder (ORC) or by frame records, never
# reliably: no trace through vmlinux is reliable for kunwind then.
vmtab=0
if [ -r $D/tables ] && grep -q '^vmlinux' $D/tables; then
	vmtab=1
	diag "kunwind tables: vmlinux $(grep '^vmlinux' $D/tables | head -n 1)"
else
	diag "kunwind tables: no vmlinux table (kunwind's vmlinux frames are never reliable)"
fi

echo reset >$R/run
load=0
if echo 2 >$R/load 2>$T/load.err; then
	load=1
	ok "spinners run: $(cat $R/load)"
else
	skip "spinners run" "the kernel does not preempt in kernel mode ($(cat $R/load); boot with preempt=full where the model is dynamic)"
fi
if [ $load = 1 ]; then
	sleep "$WARM"
fi
i=0
while [ $i -lt "$RUNS" ]; do
	echo run >$R/run
	sleep 0.2 2>/dev/null || usleep 200000
	i=$((i + 1))
done
echo selftest >$R/run
[ $load = 0 ] || echo 0 >$R/load
cat $R/run >$T/out
diag <$T/out

# field NAME: the number after NAME in the summary line
sum=$(grep '^reliable: tasks ' $T/out)
field() { echo "$sum" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }
spin=$(grep '^spinners: sampled' $T/out)
pre=$(echo "$spin" | sed -n 's/.* preempted \([0-9]*\).*/\1/p')
leaf=$(echo "$spin" | sed -n 's/.* in-leaf \([0-9]*\).*/\1/p')
missed=$(echo "$spin" | sed -n 's/.* rp_spin-missed-by-kernel \([0-9]*\).*/\1/p')
wrong=$(field wrong)
onlyu=$(field only-kunwind)
onlyk=$(field only-kernel)
tasks=$(field tasks)
krel=no
grep -q '^kernel reliable: stack_trace_save_tsk_reliable' $T/out && krel=yes

if [ $load = 0 ]; then
	skip "a spinner preempted in kernel mode" "no spinners"
elif [ "${pre:-0}" -gt 0 ]; then
	ok "a spinner preempted in kernel mode ($pre samples, $leaf in the frameless leaf; rp_spin missing from the kernel's plain walk in $missed)"
else
	notok "a spinner preempted in kernel mode (none of the spinners' samples)"
fi

if [ -z "$sum" ] || [ "${tasks:-0}" = 0 ]; then
	notok "kunwind's reliable traces are right (no summary, or no task sampled)"
elif [ "$wrong" = 0 ]; then
	ok "kunwind's reliable traces are right ($sum)"
else
	notok "kunwind's reliable traces are right ($sum)"
fi

# Locked down, with the vmlinux table from a blob loaded then
# (KUW_BT_RELIABLE=no, scripts/init/stock.sh): kunwind calls nothing
# reliable, where the kernel may.
if [ "${KUW_BT_RELIABLE:-yes}" = no ]; then
	if [ -n "$sum" ] && [ "${onlyu:-0}" = 0 ] && [ "$(field both)" = 0 ]; then
		ok "locked down: kunwind calls no walk through a blob's table reliable ($sum)"
	else
		notok "locked down: kunwind calls no walk through a blob's table reliable ($sum)"
	fi
	skip "kunwind's reliable verdict is ORC's" "locked down: kunwind's blob tables are never reliable"
	arch=locked
fi
case $arch in
locked) ;;
aarch64)
	if [ $krel = no ]; then
		skip "kunwind reliable where the kernel gives up" "no HAVE_RELIABLE_STACKTRACE in this kernel (arm64 before 6.17)"
	elif [ $vmtab = 0 ]; then
		skip "kunwind reliable where the kernel gives up" "kunwind has no vmlinux table (load the -dbg blob)"
	elif [ $load = 0 ] || [ "${pre:-0}" = 0 ]; then
		skip "kunwind reliable where the kernel gives up" "no spinner was preempted"
	elif [ "${onlyu:-0}" -gt 0 ]; then
		ok "kunwind reliable where the kernel gives up ($onlyu traces)"
	else
		notok "kunwind reliable where the kernel gives up (none of $pre preempted spinners' samples)"
	fi
	skip "kunwind's reliable verdict is ORC's" "arm64"
	;;
*)
	skip "kunwind reliable where the kernel gives up" "x86: ORC's reliable walk crosses kernel-mode pt_regs"
	if [ $krel = no ]; then
		skip "kunwind's reliable verdict is ORC's" "no HAVE_RELIABLE_STACKTRACE in this kernel"
	elif [ $vmtab = 0 ]; then
		skip "kunwind's reliable verdict is ORC's" "kunwind has no vmlinux table (load the -dbg blob)"
	elif [ "${onlyu:-0}" = 0 ] && [ "${onlyk:-0}" = 0 ]; then
		ok "kunwind's reliable verdict is ORC's ($(field both) both reliable)"
	else
		notok "kunwind's reliable verdict is ORC's (only kunwind $onlyu, only the kernel $onlyk)"
	fi
	;;
esac
st=$(grep '^selftest: ' $T/out)
made=$(echo "$st" | sed -n 's/.* made wrong \([0-9]*\).*/\1/p')
called=$(echo "$st" | sed -n 's/.* called wrong \([0-9]*\).*/\1/p')
if [ "${made:-0}" = 0 ] && [ "$called" = 0 ]; then
	skip "the judge calls wrong traces wrong" "no trace to make wrong (none reliable for kunwind, no preempted spinner)"
elif [ "$called" = "$made" ]; then
	ok "the judge calls wrong traces wrong ($called of $made)"
else
	notok "the judge calls wrong traces wrong (${called:-?} of ${made:-?})"
fi
[ -z "$ours" ] || rmmod reliable_payload
exit 0
