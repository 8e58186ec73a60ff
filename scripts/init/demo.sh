#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make demo`: kunwind's tables and rules, then an oops deep in
# demo_oops.ko; the host prints the kernel's trace beside kunwind's.
. /etc/kuw-common.sh
D=/sys/kernel/debug/kunwind
out() { sed 's/^/kuw-out: /'; }
G start
if insmod $KUW_MODDIR/kunwind.ko; then G "loaded kunwind.ko"; else G "kunwind.ko did not load"; fi
insmod $KUW_MODDIR/kunit/demo_oops.ko || G "demo_oops.ko did not load"

G "section tables"
if [ -r $D/tables ]; then
	echo "\$ cat $D/tables" | out
	cat $D/tables 2>&1 | out
else
	G "missing $D/tables"
fi

G "section rules"
if [ -e $D/rules ]; then
	# Entry, the faulting pc, a body pc from both table kinds, and vmlinux.
	for f in demo_depth5 demo_depth5+0x3b "demo_depth2+0x20 eh_frame" \
		"demo_depth2+0x20 sframe" vfs_read+0x10; do
		echo "\$ echo $f > $D/rules; cat $D/rules" | out
		if echo "$f" >$D/rules 2>/tmp/err; then
			cat $D/rules 2>&1 | out
		else
			echo "(write refused: $(cat /tmp/err))" | out
		fi
	done
else
	G "missing $D/rules"
fi

G "section oops"
# In a child shell: the oops kills the writer, not /init.
sh -c 'echo 1 > /sys/kernel/debug/kunwind_demo/oops'
sleep 1
G "section end"
finish
