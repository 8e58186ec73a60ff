#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check`: load kunwind.ko, then every test module (KUnit
# suites run at load), list the suites KUnit registered (the host checks
# each one reported), run each guest-side check (scripts/guest/*.sh) as a
# KTAP subtest, then unload everything and end the guest.
# shellcheck source=common.sh
. /etc/kuw-common.sh
mods="" nmods=0
for m in "$KUW_MODDIR"/kunit/*.ko; do
	[ -f "$m" ] && mods="$mods $m" && nmods=$((nmods + 1))
done
hooks="" nhooks=0
for h in /guest/*.sh; do
	[ -f "$h" ] && hooks="$hooks $h" && nhooks=$((nhooks + 1))
done
# insmod kunwind, each module, each check, rmmod each module, rmmod kunwind
ktap_plan $((1 + nmods + nhooks + nmods + 1))
diag "kunwind guest checks: profile $KUW_PROFILE, cpus $(grep -c ^processor /proc/cpuinfo), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
for m in $mods; do
	check "insmod kunit/${m##*/}" insmod "$m"
done
for d in /sys/kernel/debug/kunit/*; do
	[ -d "$d" ] && diag "kunit suite registered: ${d##*/}"
done
for h in $hooks; do
	ktap_subtest "${h##*/}" sh "$h"
done
# Unload in the reverse order of loading.
rev=""
for m in $mods; do
	m=${m##*/}
	rev="${m%.ko} $rev"
done
for m in $rev; do
	check "rmmod $m" rmmod "$m"
done
check "rmmod kunwind" rmmod kunwind
finish
