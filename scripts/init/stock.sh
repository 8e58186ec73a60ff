#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check-stock` on Debian's stock kernel (no KUnit there):
# kunwind.ko loads, lists the tables of a module built with unwind tables,
# and answers `rules`.  Reports KTAP (/etc/kuw-ktap.sh).
# shellcheck source=common.sh
. /etc/kuw-common.sh
D=/sys/kernel/debug/kunwind
dkms=0
[ -f "$KUW_MODDIR"/dkms/kunwind.ko ] && dkms=2
ktap_plan $((7 + dkms))
diag "kernel $(uname -r)"
check "insmod kunwind.ko on $(uname -r)" insmod "$KUW_MODDIR"/kunwind.ko
check "insmod demo_oops.ko (payload with .eh_frame and .sframe)" \
	insmod "$KUW_MODDIR"/kunit/demo_oops.ko
if [ -r $D/tables ]; then
	diag <$D/tables
	check "tables lists demo_oops" grep -q demo_oops $D/tables
else
	skip "tables lists demo_oops" "$D/tables not present in this kunwind.ko"
fi
if [ -e $D/rules ]; then
	echo demo_depth3 >$D/rules 2>/tmp/rules.err
	cat $D/rules >/tmp/rules 2>>/tmp/rules.err
	cat /tmp/rules /tmp/rules.err | diag
	# The answer names the function and gives a CFA rule for it.
	check "rules answers for demo_depth3" grep -q demo_depth3 /tmp/rules
	check "rules gives a CFA rule" grep -q "cfa=" /tmp/rules
else
	skip "rules answers for demo_depth3" "$D/rules not present in this kunwind.ko"
	skip "rules gives a CFA rule" "$D/rules not present in this kunwind.ko"
fi
check "rmmod demo_oops" rmmod demo_oops
check "rmmod kunwind" rmmod kunwind
if [ "$dkms" != 0 ]; then
	check "insmod dkms-built kunwind.ko" insmod "$KUW_MODDIR"/dkms/kunwind.ko
	check "rmmod dkms-built kunwind" rmmod kunwind
fi
finish
