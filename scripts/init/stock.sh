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
	rules_ok() {
		echo demo_depth3 >$D/rules || return 1
		r=$(cat $D/rules) || return 1
		echo "$r" | sed 's/^/kuw-guest: # /'
		[ -n "$r" ]
	}
	check "rules answers for demo_depth3" rules_ok
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
