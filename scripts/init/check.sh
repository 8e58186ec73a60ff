#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check`: load kunwind.ko, then every test module (KUnit
# suites run at load), list the suites KUnit registered (the host checks
# each one reported), run each guest-side check (scripts/guest/*.sh) as a
# KTAP subtest, then unload everything and end the guest.
#
# As /init-switch (the switch guest, booted with rdinit=/init-switch on one
# TCG thread: docs/testbed.md, kuw_switch_guest in scripts/lib.sh) the
# same with the modules under /lib/kunwind/switch and the checks under
# /guest-switch, while kunit/churn_payload.ko is loaded and unloaded in a
# loop (kunwind adds and drops its tables while the suites walk and flip
# the consumers switch).
# shellcheck source=common.sh
. /etc/kuw-common.sh
case $0 in
*/init-switch) sub=switch guests=/guest-switch churn="$KUW_MODDIR"/kunit/churn_payload.ko ;;
*) sub=kunit guests=/guest churn= ;;
esac
mods="" nmods=0
for m in "$KUW_MODDIR/$sub"/*.ko; do
	[ -f "$m" ] && mods="$mods $m" && nmods=$((nmods + 1))
done
hooks="" nhooks=0
for h in "$guests"/*.sh; do
	[ -f "$h" ] && hooks="$hooks $h" && nhooks=$((nhooks + 1))
done
# insmod kunwind, each module, each check, rmmod each module, rmmod kunwind,
# kunwind under kptr_restrict=2
ktap_plan $((1 + nmods + nhooks + nmods + 1 + 1))
diag "kunwind guest checks ($sub): profile $KUW_PROFILE, cpus $(grep -c ^processor /proc/cpuinfo), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
rm -f /tmp/churn-stop /tmp/churn-n
if [ -f "$churn" ]; then
	(n=0
	 while [ ! -f /tmp/churn-stop ]; do
		insmod "$churn" && rmmod churn_payload && n=$((n + 1))
	 done
	 echo "$n" >/tmp/churn-n) &
fi
for m in $mods; do
	check "insmod $sub/${m##*/}" insmod "$m"
done
if [ -f "$churn" ]; then
	touch /tmp/churn-stop
	wait
	diag "churn_payload.ko loaded and unloaded $(cat /tmp/churn-n) times meanwhile"
fi
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
# kptr_restrict=2 makes every /sys/module/*/sections/ file read 0, so that
# kunwind finds no table of a module loaded before it (its own included):
# a kunwind loaded then says so in exactly one kernel log line.  Last, so
# that the checks above see the log of one load.
kptr_hidden() {
	was=$(cat /proc/sys/kernel/kptr_restrict)
	n0=$(dmesg | grep -v 'kuw-guest: ' | grep -c 'kunwind: .*kptr_restrict=2')
	echo 2 >/proc/sys/kernel/kptr_restrict &&
		insmod "$KUW_MODDIR"/kunwind.ko && rmmod kunwind
	r=$?
	echo "$was" >/proc/sys/kernel/kptr_restrict
	dmesg | grep -v 'kuw-guest: ' | grep 'kunwind: .*kptr_restrict=2'
	n1=$(dmesg | grep -v 'kuw-guest: ' | grep -c 'kunwind: .*kptr_restrict=2')
	[ "$r" = 0 ] && [ $((n1 - n0)) = 1 ]
}
check "kptr_restrict=2: kunwind says in one log line that sysfs hides module addresses" kptr_hidden
finish
