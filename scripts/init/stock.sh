#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check-stock` on Debian's stock kernel (no KUnit there):
# kunwind.ko loads, lists the tables of a module built with unwind tables,
# and answers `rules`.
. /etc/kuw-common.sh
D=/sys/kernel/debug/kunwind
G start
G "kernel $(uname -r)"
check "insmod kunwind.ko on $(uname -r)" insmod $KUW_MODDIR/kunwind.ko
check "insmod demo_oops.ko (payload with .eh_frame and .sframe)" \
	insmod $KUW_MODDIR/kunit/demo_oops.ko
if [ -r $D/tables ]; then
	cat $D/tables 2>&1 | sed 's/^/kuw-guest: # /'
	check "tables lists demo_oops" grep -q demo_oops $D/tables
else
	G "ok # SKIP tables: $D/tables not present in this kunwind.ko yet"
fi
if [ -e $D/rules ]; then
	echo demo_depth3 >$D/rules 2>/tmp/rules.err
	cat $D/rules >/tmp/rules 2>>/tmp/rules.err
	sed 's/^/kuw-guest: # /' /tmp/rules /tmp/rules.err
	# The answer names the function and gives a CFA rule for it.
	check "rules answers for demo_depth3" grep -q demo_depth3 /tmp/rules
	check "rules gives a CFA rule" grep -q "cfa=" /tmp/rules
else
	G "ok # SKIP rules: $D/rules not present in this kunwind.ko yet"
fi
check "rmmod demo_oops" rmmod demo_oops
check "rmmod kunwind" rmmod kunwind
if [ -f $KUW_MODDIR/dkms/kunwind.ko ]; then
	check "insmod dkms-built kunwind.ko" insmod $KUW_MODDIR/dkms/kunwind.ko
	check "rmmod dkms-built kunwind" rmmod kunwind
fi
finish
