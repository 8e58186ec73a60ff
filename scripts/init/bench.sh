#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make bench`: load kunwind.ko, then every kunit/*bench*.ko; a
# benchmark module measures at load and prints "kunwind-bench: ..." lines.
. /etc/kuw-common.sh
G start
check "insmod kunwind.ko" insmod $KUW_MODDIR/kunwind.ko
for m in $KUW_MODDIR/kunit/*bench*.ko; do
	[ -f "$m" ] || { G "# no benchmark module (kunit/*bench*.ko) yet"; break; }
	check "insmod ${m##*/}" insmod "$m"
done
finish
