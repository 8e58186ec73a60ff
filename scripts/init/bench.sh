#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make bench`: load kunwind.ko (it builds the kernel image's
# tables and prints what each build cost), a payload module (one more module
# load to time), then kunit/bench.ko, which measures kunwind against ORC at
# load and prints "kunwind-bench: ..." lines.  kuw_rounds=, kuw_iters= and
# kuw_row_cache= (kunwind.ko's row_cache) on
# the kernel command line reach us as environment variables.  Reports KTAP
# (/etc/kuw-ktap.sh): one result per module loaded.
# shellcheck source=common.sh
. /etc/kuw-common.sh
demo=0
[ -f "$KUW_MODDIR"/kunit/demo_oops.ko ] && demo=1
ktap_plan $((2 + demo))
diag "cpus $(grep -c ^processor /proc/cpuinfo) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko \
	row_cache="${kuw_row_cache:-1}"
if [ "$demo" = 1 ]; then
	check "insmod demo_oops.ko" insmod "$KUW_MODDIR"/kunit/demo_oops.ko
fi
if [ -f "$KUW_MODDIR"/kunit/bench.ko ]; then
	check "insmod bench.ko" insmod "$KUW_MODDIR"/kunit/bench.ko \
		rounds="${kuw_rounds:-100}" iters="${kuw_iters:-10}" consumers=1
else
	diag "no benchmark module kunit/bench.ko"
	notok "insmod bench.ko"
fi
if [ -r /sys/kernel/debug/kunwind/tables ]; then
	sed 's/^/tables: /' /sys/kernel/debug/kunwind/tables | diag
fi
finish
