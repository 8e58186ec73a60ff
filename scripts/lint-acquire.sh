#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A static check of the end of a walk of another task on arm64 (the arm64
# cell, scripts/check-arm64.sh, on the kunwind.ko it built): the check that
# the task did not run meanwhile (kuw_task_ran() in module/unwind.c, inlined
# where kuw_stop() is) reads on_cpu with an acquire load before the context
# switch counts.  finish_task() releases on_cpu after the switch away was
# counted; a plain load could be satisfied after the count loads, which
# might then miss that switch, and a walk of a task that ran and left its
# CPU meanwhile would end cleanly.  QEMU's TCG on an x86 host does not
# reorder loads, so no guest run can show it: the machine code is checked.
#
# Each site is found by its shape, not by symbol (the compiler inlines):
# after an smp_rmb() (dmb ishld), the two 64-bit loads of nvcsw and nivcsw
# (one base register, offsets 8 apart) summed by an add.  Between the dmb
# and those loads there must be an acquire load (ldar or ldapr: on_cpu).
# At least one site must be found.
#
# Usage: scripts/lint-acquire.sh KUNWIND.KO [OBJDUMP]
# Prints each site (function, address, verdict); exit 1 when a site reads
# on_cpu without acquire or none is found, 2 when it cannot run.
set -u
ko=${1:?usage: lint-acquire.sh KUNWIND.KO [OBJDUMP]}
od=${2:-aarch64-linux-gnu-objdump}
command -v "$od" >/dev/null || { echo "lint-acquire: no $od" >&2; exit 2; }
[ -r "$ko" ] || { echo "lint-acquire: cannot read $ko" >&2; exit 2; }
"$od" -d --no-show-raw-insn "$ko" | awk '
# a symbol line: "0000000000001234 <name>:"
/^[0-9a-f]+ <.*>:$/ { fn = $2; win = 0; next }
# an instruction: "    1234:	mnemonic	operands"
/^ *[0-9a-f]+:\t/ {
	split($0, f, "\t")
	addr = f[1]; sub(/^ */, "", addr); sub(/:$/, "", addr)
	op = f[2]; args = f[3]; sub(/[ \t]*\/\/.*$/, "", args)
	if (op == "dmb" && args == "ishld") {
		win = 24; acq = 0; n = 0
		next
	}
	if (win <= 0)
		next
	win--
	if (op == "ldar" || op == "ldapr" || op == "ldarb" || op == "ldaprb" ||
	    op == "ldarh" || op == "ldaprh")
		acq = 1
	# a 64-bit load from [xB, #off]: remembered with whether an
	# acquire load came before it (since the dmb)
	if (op == "ldr" && args ~ /^x[0-9]+, \[x[0-9]+(, #[0-9]+)?\]$/) {
		d = args; sub(/,.*/, "", d)
		b = args; sub(/^[^[]*\[/, "", b); sub(/[],].*/, "", b)
		o = 0
		if (args ~ /#/) { o = args; sub(/.*#/, "", o); sub(/\]$/, "", o); o += 0 }
		n++; ld_d[n] = d; ld_b[n] = b; ld_o[n] = o; ld_acq[n] = acq
		next
	}
	# their sum: add xD, xA, xC, with xA and xC loaded from one base,
	# offsets 8 apart
	if (op == "add" && args ~ /^x[0-9]+, x[0-9]+, x[0-9]+$/) {
		split(args, r, /, /)
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++) {
				if (ld_b[i] != ld_b[j] || ld_o[j] != ld_o[i] + 8)
					continue
				if (!((r[2] == ld_d[i] && r[3] == ld_d[j]) ||
				      (r[2] == ld_d[j] && r[3] == ld_d[i])))
					continue
				sites++
				ok = ld_acq[i] && ld_acq[j]
				v = "WITHOUT an acquire load before them"
				if (ok)
					v = "after an acquire load: ok"
				printf "%s %s: switch counts at [%s, #%d] %s\n", fn, addr, ld_b[i], ld_o[i], v
				if (!ok) bad++
				win = 0
			}
	}
}
END {
	if (!sites) {
		print "no site found: no smp_rmb() followed by two adjacent 64-bit loads summed"
		exit 1
	}
	exit bad ? 1 : 0
}'
