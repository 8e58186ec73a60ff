#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The unexported kernel functions kunwind found through kallsyms and calls
# with kuw_call() (debugfs kunwind/internals, "NAME 0xADDRESS CALLS" each)
# are the kernel's own: each address is the start of that function in
# /proc/kallsyms.  On an IBT kernel the kprobe that finds
# kallsyms_lookup_name() gives its address past the ENDBR; kunwind must
# have corrected it.  The functions every x86_64 kunwind looks up must be
# listed (arm64 has its own set, not checked here).  Each listed one must
# have been called (CALLS > 0) by the time this runs: after the KUnit
# suites and the checks before it in /guest; each call is a static call
# (direct on x86), so a count shows such a call ran and returned.  The
# consumers' fallbacks (module/serve.c) are the exception: they run only
# with the consumers switch on, in the switch guest, whose
# guest-switch/fallbacks.sh asserts their calls.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 3
F=/sys/kernel/debug/kunwind/internals
if [ ! -r $F ]; then
	notok "internals listed"
	skip "internals match kallsyms" "no $F"
	skip "internals called" "no $F"
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
# one awk over both files: no fork per symbol (TCG makes forks slow)
if awk '
	FNR == NR { want[$1] = $2; next }
	($2 == "T" || $2 == "t") && ($3 in want) {
		a = want[$3]; sub(/^0x/, "", a)
		while (length(a) < length($1)) a = "0" a
		if (a == $1) good[$3] = 1; else seen[$3] = $1
	}
	END {
		bad = 0
		for (n in want)
			if (!(n in good)) {
				printf "# %s: kunwind %s, kallsyms %s\n", n, want[n], \
					(n in seen) ? seen[n] : "none"
				bad++
			}
		exit bad != 0
	}' $F /proc/kallsyms >/tmp/kuw-internals.out; then
	ok "internals match kallsyms"
else
	diag <"/tmp/kuw-internals.out"
	notok "internals match kallsyms"
fi
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
diag "$(tr '\n' ' ' <$F)"
