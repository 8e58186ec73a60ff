#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make demo`: kunwind's tables and rules, then an oops deep in
# demo_oops.ko; the host prints the kernel's trace beside kunwind's.
# Reports KTAP (/etc/kuw-ktap.sh); what the demo shows are the diagnostic
# lines of the results "tables" and "rules ..." (scripts/ktap.py --diag).
# shellcheck source=common.sh
. /etc/kuw-common.sh
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
# Entry, the faulting pc, a body pc from both table kinds, and vmlinux:
# one a line in /etc/kuw-demo-rules (scripts/demo.sh finds the faulting pc
# in the module's code), else the x86_64 defaults.
if [ -f /etc/kuw-demo-rules ]; then
	n=0
	while IFS= read -r f; do
		[ "$n" = 0 ] && set --
		n=$((n + 1))
		set -- "$@" "$f"
	done </etc/kuw-demo-rules
else
	set -- demo_depth5 demo_depth5+0x3b "demo_depth2+0x20 eh_frame" \
		"demo_depth2+0x20 sframe" vfs_read+0x10
fi
ktap_plan $((3 + $# + 1))
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
check "insmod demo_oops.ko" insmod "$KUW_MODDIR"/kunit/demo_oops.ko

if [ -r $D/tables ]; then
	diag "\$ cat $D/tables"
	diag <$D/tables
	ok "tables"
else
	diag "missing $D/tables"
	notok "tables"
fi

for f in "$@"; do
	diag "\$ exec 7<>$C/rules; echo $f >&7; cat <&7"
	exec 7<>$C/rules	# rules answers on the file written to
	if echo "$f" >&7 2>/tmp/err && cat <&7 >/tmp/out 2>&1; then
		diag </tmp/out
		ok "rules $f"
	else
		diag "(refused: $(cat /tmp/err /tmp/out 2>/dev/null))"
		notok "rules $f"
	fi
done

demo_oops
finish
