#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check`: load kunwind.ko, then every test module (KUnit
# suites run at load), list the suites KUnit registered (the host checks
# each one reported), run the guest-side checks (scripts/guest/*.sh), then
# unload everything and end the guest.
. /etc/kuw-common.sh
G start
G "cpus $(grep -c ^processor /proc/cpuinfo) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
check "insmod kunwind.ko" insmod $KUW_MODDIR/kunwind.ko
for m in $KUW_MODDIR/kunit/*.ko; do
	[ -f "$m" ] || continue
	check "insmod kunit/${m##*/}" insmod "$m"
done
for d in /sys/kernel/debug/kunit/*; do
	[ -d "$d" ] && G "suite ${d##*/}"
done
for h in /guest/*.sh; do
	[ -f "$h" ] || continue
	G "# hook ${h##*/}"
	sh "$h" 2>&1 | sed 's/^/kuw-guest: /'
done
# Unload in the reverse order of loading.
rev=
for m in $KUW_MODDIR/kunit/*.ko; do
	[ -f "$m" ] && m=${m##*/} && rev="${m%.ko} $rev"
done
for m in $rev; do
	check "rmmod $m" rmmod "$m"
done
check "rmmod kunwind" rmmod kunwind
finish
