#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The unexported kernel functions kunwind found through kallsyms and calls
# with kuw_call() (debugfs kunwind/internals, "NAME 0xADDRESS CALLS" each)
# are the kernel's own, checked against what kunwind did not read itself:
#
#  - addresses: each is the start of that function in the test kernel's
#    System.map, which the host passes in (/boot/System.map, the build's
#    own symbol table, not kallsyms), moved by the KASLR offset (the
#    run-time _stext minus System.map's).  On an IBT kernel the kprobe that
#    finds kallsyms_lookup_name() gives its address past the ENDBR; kunwind
#    must have corrected it.  A guest without System.map (a stock kernel's)
#    skips this check.
#  - calls: each listed one must have been called (CALLS > 0) by the time
#    this runs (after the KUnit suites and the checks before it in
#    /guest), and those counts are kunwind's own, so an independent
#    observer checks them (x86_64): kprobe events on every listed function
#    whose return address ($stack0 at the entry) lies in kunwind.ko count
#    kunwind's calls while /dev/kunwind/ is driven (a rules lookup by
#    symbol: kallsyms_lookup_name(); a backtrace of every thread:
#    get_stack_info() and put_task_stack()).  Those must be seen, and for
#    every function the observer's count must be kunwind's count's growth
#    over the same window.  The consumers' fallbacks (module/serve.c) are
#    the exception: they run only with the consumers switch on, in the
#    switch guest, whose guest-switch/fallbacks.sh asserts their calls.
#
# The functions every x86_64 kunwind looks up must be listed (arm64 has its
# own set, not checked here).
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 4
F=/sys/kernel/debug/kunwind/internals
C=/dev/kunwind
MAP=/boot/System.map
T=/tmp/kuw-internals
mkdir -p $T
if [ ! -r $F ]; then
	notok "internals listed"
	skip "internals match the kernel's System.map" "no $F"
	skip "internals called" "no $F"
	skip "internals' call counts match an independent observer" "no $F"
	exit 0
fi
need=""
[ "$(uname -m)" = x86_64 ] &&
	need="kallsyms_lookup_name kallsyms_lookup_size_offset put_task_stack __kernel_text_address get_stack_info"
missing=""
for n in $need; do
	grep -q "^$n " $F || missing="$missing $n"
done
if [ -z "$missing" ] && grep -q . $F; then
	ok "internals listed"
else
	diag "missing:$missing"
	notok "internals listed"
fi

# --- addresses: System.map of the test kernel, plus the KASLR offset ----
if [ ! -r $MAP ]; then
	skip "internals match the kernel's System.map" "no $MAP in this guest"
else
	# the offset from one known symbol; every internal is then checked
	# against the build's symbol table alone
	run=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
	lnk=$(awk '$3 == "_stext" { print $1; exit }' $MAP)
	# one awk over both files: no fork per symbol (TCG makes forks slow)
	if [ -n "$run" ] && [ -n "$lnk" ] && awk -v run="$run" -v lnk="$lnk" '
		function hex(s,   i, c, v) {
			v = 0; sub(/^0x/, "", s); s = tolower(s)
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", substr(s, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		FNR == NR { want[$1] = $2; next }
		($2 == "T" || $2 == "t") && ($3 in want) && !($3 in at) {
			at[$3] = $1
		}
		END {
			# 64-bit addresses exceed a double: compare the offsets
			# from _stext, which fit
			bad = 0
			for (n in want) {
				if (!(n in at)) {
					printf "# %s: kunwind %s, not in System.map\n", n, want[n]
					bad++
					continue
				}
				if (hex(want[n]) - hex(run) != hex(at[n]) - hex(lnk)) {
					printf "# %s: kunwind %s, System.map %s (KASLR: _stext %s, linked %s)\n", \
						n, want[n], at[n], run, lnk
					bad++
				}
			}
			exit bad != 0
		}' $F $MAP >$T/map.out; then
		ok "internals match the kernel's System.map"
	else
		diag <$T/map.out
		notok "internals match the kernel's System.map"
	fi
fi

# --- calls: kunwind's counts ---------------------------------------------
# KUW_INTERNALS_OPTIONAL: names a guest's paths need not reach;
# KUW_INTERNALS_CALLS=0: no calls check here (the IBT cell checks them
# after its walks: scripts/init/ibt.sh)
uncalled=$(awk -v opt=" ${KUW_INTERNALS_OPTIONAL:-} " '
	$1 == "arch_stack_walk" || $1 == "arch_stack_walk_reliable" ||
	$1 == "perf_callchain_kernel" || $1 == "kvm_get_running_vcpu" ||
	index(opt, " " $1 " ") { next }
	NF < 3 || $3 == 0 { printf " %s", $1 }' $F)
if [ "${KUW_INTERNALS_CALLS:-1}" = 0 ]; then
	skip "internals called" "this guest checks the calls after its walks"
elif [ -z "$uncalled" ] && grep -q . $F; then
	ok "internals called"
else
	diag "never called:$uncalled"
	notok "internals called"
fi

# --- calls: an independent observer --------------------------------------
TR=/sys/kernel/tracing
[ -f $TR/kprobe_events ] || mount -t tracefs nodev $TR 2>/dev/null
[ -f $TR/kprobe_events ] || TR=/sys/kernel/debug/tracing
# kunwind.ko's memory: "kunwind SIZE REFS DEPS STATE ADDRESS"
msize=$(awk '$1 == "kunwind" { print $2 }' /proc/modules)
mbase=$(awk '$1 == "kunwind" { print $6 }' /proc/modules)
watch="kallsyms_lookup_name get_stack_info put_task_stack"
if [ "${KUW_INTERNALS_CALLS:-1}" = 0 ]; then
	skip "internals' call counts match an independent observer" "this guest checks the calls after its walks"
elif [ "$(uname -m)" != x86_64 ]; then
	skip "internals' call counts match an independent observer" "x86_64 only (the return address at the entry is \$stack0)"
elif [ ! -f $TR/kprobe_events ] || [ -z "$mbase" ] || [ -z "$msize" ]; then
	skip "internals' call counts match an independent observer" "no kprobe events or no kunwind in /proc/modules"
else
	names=$(awk '{ print $1 }' $F)
	echo 0 >$TR/tracing_on
	echo >$TR/trace
	made=""
	for n in $names; do
		if echo "p:kuwint/$n $n ra=\$stack0:u64" >>$TR/kprobe_events 2>/dev/null; then
			made="$made $n"
			# a 64-bit kernel address is negative as a shell number:
			# the filter compares unsigned, so give it in hex
			echo "ra >= $mbase && ra < $(printf '0x%x' $((mbase + msize)))" \
				>"$TR/events/kuwint/$n/filter"
		fi
	done
	awk '{ print $1, $3 }' $F >$T/before
	echo 1 >$TR/events/kuwint/enable
	echo 1 >$TR/tracing_on
	# the window: a rule looked up by symbol, every thread walked
	exec 3<>$C/rules
	echo "vfs_read" >&3
	cat <&3 >$T/rules
	exec 3>&-
	exec 3<>$C/backtrace
	echo all >&3
	cat <&3 >$T/bt
	exec 3>&-
	# read while the observer still counts: a read of $F may itself call
	# an internal (kallsyms_show_value() for the opener), once, before
	# it prints the counts, which then include that call (the read
	# before the window: not observed, not in the growth either)
	awk '{ print $1, $3 }' $F >$T/after
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/kuwint/enable
	cat $TR/trace >$T/trace
	cat $TR/kprobe_profile >$T/profile
	for n in $made; do
		echo "-:kuwint/$n" >>$TR/kprobe_events
	done
	echo 1 >$TR/tracing_on
	# per function: the observer's hits from kunwind.ko, kunwind's count's
	# growth, the probe's misses; the watched ones must have been called
	if awk -v made=" $made " -v watch=" $watch " '
		FILENAME == ARGV[1] { b[$1] = $2; next }
		FILENAME == ARGV[2] { a[$1] = $2; next }
		FILENAME == ARGV[3] { miss[$1] = $3; next }
		/^#/ { next }
		{
			for (i = 1; i <= NF; i++)
				if ($i ~ /:$/ && $(i + 1) ~ /^\(/) {
					e = substr($i, 1, length($i) - 1)
					seen[e]++
					break
				}
		}
		END {
			bad = 0
			for (n in a) {
				d = a[n] - b[n]
				s = (n in seen) ? seen[n] : 0
				m = (n in miss) ? miss[n] : 0
				if (!index(made, " " n " ")) {
					printf "# %s: no kprobe event could be placed\n", n
					if (index(watch, " " n " ")) bad++
					continue
				}
				ok = s <= d && s + m >= d
				if (index(watch, " " n " ") && s == 0)
					ok = 0
				printf "# %s: observer %d, kunwind %d (%d missed)%s\n", n, s, d, m, \
					ok ? "" : " MISMATCH"
				if (!ok) bad++
			}
			exit bad != 0
		}' $T/before $T/after $T/profile $T/trace >$T/obs.out; then
		diag <$T/obs.out
		ok "internals' call counts match an independent observer"
	else
		diag <$T/obs.out
		head -n 20 $T/trace | diag
		notok "internals' call counts match an independent observer"
	fi
fi
diag "$(tr '\n' ' ' <$F)"
