#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# debugfs kunwind/backtrace "all": every thread, one block each, against
# the kernel's own /proc/PID/stack (ORC or frame pointers), read right
# after.  /proc/PID/stack leaves out scheduler and lock functions
# (in_sched_functions(), whose text ranges /proc/kallsyms gives), so
# kunwind's whole trace without the frames in those ranges must be
# exactly the kernel's (function+off/size), first frame to last.  Threads that ran
# meanwhile (the two reads differ in time) are retried up to 3 times (a
# thread found running on another CPU at every retry is counted apart).
# Checks:
#  1. every block ends "stop: end of stack" and "reliable: yes" (with
#     KUW_BT_RELIABLE=no: "reliable: no", as a table root gave under
#     lockdown must give), or "task running" (the task ran during its
#     walk), or "task exited" (before its walk).  One legitimate "reliable: no" after a clean end: a frame
#     in assembly without unwind info (x86's lib asm, the return and
#     preemption thunks: a thread preempted by an interrupt in
#     rep_stos_alternative, or through preempt_schedule_thunk), stepped
#     by ORC or a guess ("- orc", "- fp"), which kunwind never vouches
#     for.  Such a block is accepted when /dev/kunwind/rules has no row
#     at any of those frames' look-up addresses; it is counted apart and
#     printed, and any other unreliable clean end fails;
#  2. each sleeping thread's trace agrees with /proc/PID/stack;
#     KUW_BT_SELF_UNRELIABLE=1 (the lockdown guest, where no trusted table
#     covers kunwind itself): the writer's own block may end cleanly and
#     not reliable, its skipped frames being kunwind's;
#  3. the file keeps its result per open file: a second open does not see
#     the first one's walk.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
T=/tmp/kuw-bt
mkdir -p $T

if [ ! -c $C/backtrace ]; then
	ktap_plan 1
	notok "debugfs kunwind/backtrace exists"
	exit 0
fi
ktap_plan 3

walk_all() {
	exec 3<>$C/backtrace
	echo all >&3
	cat <&3 >"$1"
	exec 3>&-
}

walk_all $T/all
tasks=$(grep -c '^task ' $T/all)
ends=$(grep -c '^stop: end of stack' $T/all)
want=${KUW_BT_RELIABLE:-yes}
# of the walks that ended cleanly (the line after "stop: end of stack")
rel=$(grep -A1 '^stop: end of stack' $T/all | grep -c "^reliable: $want")
# a thread running on another CPU (this check's own pipeline) is refused,
# one that ran while it was walked ends "task running" too
run=$(grep -c '^stop: task running$' $T/all)
# one that exited between the list and its walk has no stack left
gone=$(grep -c '^stop: task exited$' $T/all)
# The clean ends that are "reliable: no" where "yes" was wanted: each
# block into $T/unrel.N, then "blk N PID" and, for each of its frames
# left by ORC or a guess ("- orc", "- fp"), "look N SYMBOL OFFSET ADJ":
# the address kunwind looked a row up at (the pc itself after a
# "- pt_regs" crossing, ADJ 0; else a return address, pc - 1, ADJ 1)
rm -f $T/unrel.*
if [ "$want" = yes ]; then
	awk -v t=$T/unrel. -v self="$$" -v selfok="${KUW_BT_SELF_UNRELIABLE:-0}" '
	function flush() {
		if (blk != "" && clean && !rel && selfok == 1 && pid == self) {
			print "self"
		} else if (blk != "" && clean && !rel) {
			n++
			printf "%s", blk >(t n)
			close(t n)
			print "blk " n " " pid
			printf "%s", looks
		}
		blk = ""; looks = ""; clean = 0; rel = 0; prev = ""
	}
	/^task / { flush(); pid = $2 }
	{ blk = blk $0 "\n" }
	/^ *[0-9]+ 0x/ {
		# "N 0xPC SYM+0xOFF/0xSIZE [MODULE] SOURCE ROW" or "... - HOW"
		f = ($4 ~ /^\[/) ? 5 : 4
		how = ($f == "-") ? $(f + 1) : ""
		if (how == "orc" || how == "fp") {
			sym = $3
			sub(/\/.*/, "", sym)
			off = sym
			sub(/^.*\+/, "", off)
			sub(/\+[^+]*$/, "", sym)
			looks = looks "look " (n + 1) " " sym " " off " " \
				(prev == "pt_regs" ? 0 : 1) "\n"
		}
		prev = how
	}
	/^stop: end of stack$/ { clean = 1 }
	/^reliable: yes$/ { rel = 1 }
	END { flush() }' $T/all >$T/unrel
else
	: >$T/unrel
fi
# A block is unreliable for a stated reason when it has such frames and
# no row covers the address kunwind looked up at any of them
# (/dev/kunwind/rules: "none"): assembly without unwind info, x86's lib
# and entry asm (a thread preempted by an interrupt in it, or through
# preempt_schedule_thunk), which ORC or a guess steps and kunwind never
# vouches for.  Any other unreliable clean end fails.
norow=0 other=0 selfu=0 cur='' why=''
# blk_done: judge the block read so far
blk_done() {
	[ -n "$cur" ] || return 0
	if [ -n "$why" ] && [ "$why" != bad ]; then
		norow=$((norow + 1))
		diag "clean end, reliable: no (no row at$why):"
	else
		other=$((other + 1))
		diag "clean end, reliable: no, not stated:"
	fi
	diag <"$T/unrel.$cur"
}
while read -r kind n a b c; do
	case $kind in
	self) selfu=1 ;;
	blk) blk_done; cur=$n why='' ;;
	look)
		o=$(printf '0x%x' $((b - c)))
		exec 7<>$C/rules	# rules answers on the file written to
		echo "$a+$o" >&7 2>/dev/null
		if sed -n 2p <&7 2>/dev/null | grep -q ' none$'; then
			[ "$why" = bad ] || why="$why $a+$o"
		else
			why=bad
		fi ;;
	esac
done <$T/unrel
blk_done
diag "backtrace all: $tasks threads, $ends ended cleanly, $rel reliable: $want, $run running elsewhere, $gone exited, $norow unreliable in code without unwind info"
# the walks that stopped for another reason, whole
awk '/^task / { blk = "" } { blk = blk $0 "\n" }
	/^stop: / && !/^stop: (end of stack|task running|task exited)$/ { bad = 1 }
	/^reliable: / { if (bad) printf "%s", blk; bad = 0 }' $T/all | diag
if [ "$tasks" -gt 0 ] && [ $((ends + run + gone)) = "$tasks" ] &&
   [ $((rel + norow + selfu)) = "$ends" ] && [ "$other" = 0 ]; then
	ok "backtrace all: $ends sleeping threads, every walk ends at the end, reliable: $want$([ "$norow" = 0 ] || echo " (but $norow stopped in code without unwind info, stepped by ORC or a guess)")"
else
	notok "backtrace all: $tasks threads, $ends ended, $rel reliable: $want, $run running, $gone exited, $other unreliable without a stated reason"
	[ "$want" = yes ] ||
		grep -B3 '^reliable: ' $T/all | grep -v "^reliable: $want" | head -40 | diag
fi

# /proc/PID/stack leaves out the frames in scheduler and lock functions
# (stack_trace_save_tsk() for another task: in_sched_functions()): the
# text ranges it skips, "start end" pairs of 16 hex digits
SKIP=$(awk '{ v[$3] = $1 } END { print v["__sched_text_start"], v["__sched_text_end"], v["__lock_text_start"], v["__lock_text_end"] }' /proc/kallsyms)

# compare one thread's whole trace: $1 pid, $2 file holding kunwind's
# block.  kunwind's frames outside those ranges must be exactly the
# kernel's, from the first to the last.
agree() {
	[ -r /proc/$1/stack ] || return 2
	sed 's/^\[<[0-9a-f]*>\] //' /proc/$1/stack >$T/k
	[ -s $T/k ] || return 2
	awk -v skip="$SKIP" '
	BEGIN { n = split(skip, r, " ") }
	$1 ~ /^[0-9]+$/ && $2 ~ /^0x/ {
		pc = substr($2, 3)
		while (length(pc) < 16) pc = "0" pc
		for (i = 1; i + 1 <= n; i += 2)
			if (pc >= r[i] && pc < r[i + 1]) next
		if ($4 ~ /^\[/) print $3 " " $4; else print $3
	}' "$2" >$T/u
	cmp -s $T/u $T/k
}

good=0 bad=0 gone=0 busy=0
for pid in $(awk '/^task /{print $2}' $T/all); do
	# this shell wrote "all": it was running then, waiting now
	[ "$pid" = $$ ] && continue
	awk -v p="$pid" '/^task /{on = ($2 == p)} on' $T/all >$T/one
	agree "$pid" $T/one
	r=$?
	try=0
	while { [ $r = 1 ] || [ $r = 3 ]; } && [ $try -lt 3 ]; do
		# it may have run in between: walk it again (a thread that
		# wakes often, like rcu_gp, may be running just then)
		try=$((try + 1))
		exec 3<>$C/backtrace
		echo "pid $pid" >&3
		cat <&3 >$T/one
		exec 3>&-
		agree "$pid" $T/one
		r=$?
		if [ $r = 1 ] &&
		   grep -q '^stop: task running$' $T/one; then
			r=3
			sleep 1
		fi
	done
	case $r in
	0) good=$((good + 1)) ;;
	2) gone=$((gone + 1)) ;;
	3) busy=$((busy + 1)) ;;
	*) bad=$((bad + 1))
	   diag "pid $pid differs: kunwind | /proc/$pid/stack"
	   diag <$T/u
	   sed 's/^/proc /' $T/k | diag ;;
	esac
done
diag "backtrace all vs /proc/PID/stack: $good agree, $bad differ, $gone without a stack, $busy running at every retry"
if [ $good -gt 0 ] && [ $bad = 0 ]; then
	ok "backtrace all agrees with /proc/PID/stack ($good of $((good + bad)) threads)"
else
	notok "backtrace all agrees with /proc/PID/stack ($good agree, $bad differ)"
fi

# per-open state: open A walks self, open B walks pid 1; A still reads its own
exec 4<>$C/backtrace 5<>$C/backtrace
echo self >&4
echo "pid 1" >&5
cat <&4 >$T/a
cat <&5 >$T/b
exec 4>&- 5>&-
if grep -q 'vfs_write' $T/a; then
	if ! cmp -s $T/a $T/b && grep -q '^stop:' $T/b; then
		ok "backtrace keeps its result per open file"
	else
		notok "backtrace keeps its result per open file"
	fi
else
	notok "backtrace keeps its result per open file (self walk missing)"
	head $T/a | diag
fi
