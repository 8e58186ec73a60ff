#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mutated unwind tables through kunwind's real module load path:
# robust_payload.ko with bytes of its .eh_frame or .sframe changed in the
# file (bit flips, byte sets, 32-bit fields set to edge values) or the
# section header's size cut, then insmod: the kernel's loader relocates
# the section, kunwind's module_finalize kprobe and COMING notifier build
# (or refuse) its tables, the payload's threads run inside its frames and
# a debugfs backtrace walks them with whatever table was accepted, then
# rmmod unpublishes and frees it.  The loader itself refuses some files (a
# mutated relocated field: "existing value is nonzero"): counted apart.
# Reports KTAP (/etc/kuw-ktap.sh): the diagnostic "robust: mutated-modules
# <n> runs, <k> rejected, <f> faults" and one result; leaves the payload
# loaded, as it found it.
#
# ROBUST_KO_RUNS sets the number of mutated modules (default 100).
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 1
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
T=/tmp/robust_ko
ko=/lib/kunwind/kunit/robust_payload.ko
RUNS=${ROBUST_KO_RUNS:-100}
if [ ! -f $ko ] || [ ! -w $C/backtrace ]; then
	skip "robust mutated modules" "no $ko or $D"
	exit 0
fi
mkdir -p $T
rmmod robust_payload 2>/dev/null

# ELF section headers of the .ko, then the mutations, in one awk run
od -An -v -tu1 $ko | awk -v runs="$RUNS" -v seed=11 '
function le(o, k,   v, i) { v = 0; for (i = k - 1; i >= 0; i--) v = v * 256 + b[o + i]; return v }
function r(k) { return int(rand() * k) }
# print "<off> <byte>" pairs that set the k-byte little-endian field at o
function set(o, k, v,   i, s) {
	s = ""
	for (i = 0; i < k; i++) { s = s " " (o + i) " " (v % 256); v = int(v / 256) }
	return s
}
{ for (i = 1; i <= NF; i++) b[n++] = $i + 0 }
END {
	srand(seed)
	shoff = le(40, 8); shnum = le(60, 2); strndx = le(62, 2)
	stroff = le(shoff + 64 * strndx + 24, 8)
	ns = 0
	for (i = 0; i < shnum; i++) {
		h = shoff + 64 * i
		nm = ""
		for (p = stroff + le(h, 4); b[p] != 0; p++) nm = nm sprintf("%c", b[p])
		if (nm == ".eh_frame" || nm == ".sframe") {
			name[ns] = nm; off[ns] = le(h + 24, 8); size[ns] = le(h + 32, 8)
			hdr[ns] = h; ns++
		}
	}
	if (ns == 0) { print "none"; exit }
	for (j = 1; j <= runs; j++) {
		s = j % ns
		k = r(10)
		if (k < 3) {		# bit flip
			o = off[s] + r(size[s])
			line = o " " xor(b[o], lshift(1, r(8)))
		} else if (k < 5) {	# byte set
			o = off[s] + r(size[s])
			line = o " " r(256)
		} else if (k < 8) {	# an aligned 32-bit field: lengths, pointers, counts
			o = off[s] + 4 * r(int(size[s] / 4))
			e = r(6)
			v = e == 0 ? 0 : e == 1 ? 4294967295 : e == 2 ? 2147483648 : \
			    e == 3 ? (le(o, 4) + 1 + r(16)) % 4294967296 : \
			    e == 4 ? size[s] : r(4294967296)
			line = set(o, 4, v)
		} else {		# the section cut short (sh_size)
			line = set(hdr[s] + 32, 8, r(size[s]))
		}
		print j, name[s], line
	}
}' >$T/list
if [ "$(head -n 1 $T/list)" = none ]; then
	diag "no .eh_frame or .sframe in $ko"
	notok "robust mutated modules"
	insmod $ko
	exit 0
fi

runs=0 loader=0 acc=0 rej=0 faults=0 bts=0
while read -r i sec rest; do
	runs=$((runs + 1))
	cp $ko $T/m.ko
	set -- $rest
	while [ $# -ge 2 ]; do
		printf "\\$(printf %03o "$2")" |
			dd of=$T/m.ko bs=1 seek="$1" conv=notrunc 2>/dev/null
		shift 2
	done
	if ! insmod $T/m.ko 2>/dev/null; then
		loader=$((loader + 1))
		continue
	fi
	if grep -q "^robust_payload $sec " $D/tables; then
		acc=$((acc + 1))
	else
		rej=$((rej + 1))
	fi
	# walk the payload's threads with the table just built
	for d in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$d/comm" || continue
		case $c in
		kuw_robust_pl*)
			# the result is read on the same open file
			exec 3<>$C/backtrace
			if echo "pid ${d#/proc/}" 2>/dev/null >&3; then
				grep -q '^stop: ' <&3 || faults=$((faults + 1))
				bts=$((bts + 1))
			fi
			exec 3>&- ;;
		esac
	done
	if ! rmmod robust_payload; then
		diag "run $i: rmmod failed"
		faults=$((faults + 1))
	fi
done <$T/list
insmod $ko || faults=$((faults + 1))
diag "robust: mutated-modules $runs runs, $rej rejected, $faults faults ($acc accepted by kunwind, $loader refused by the module loader, $bts backtraces)"
if [ $faults = 0 ] && [ $((acc + rej)) -gt 0 ]; then
	ok "robust mutated modules: $runs loads, kunwind refused $rej, accepted $acc"
else
	notok "robust mutated modules: $faults faults, $((acc + rej)) loaded"
fi
