#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the switch guest (rdinit=/init-switch, same initramfs as the
# cell's main guest): kunwind's consumers switch patches the kernel's text
# (ftrace) while the other CPU runs it.  QEMU's multi-threaded TCG does
# not keep such cross-modified code coherent (a caller can spin for good
# on a breakpoint the patch already removed, with an empty ftrace_ops of
# the kernel's too: docs/testbed.md), so the host boots this guest with
# one TCG thread for both vCPUs (kuw_qemu KUW_TCG_SINGLE=1).  It loads
# kunwind.ko, each module under /lib/kunwind/switch (KUnit suites run at
# load) while kunit/churn_payload.ko is loaded and unloaded in a loop,
# runs each /guest-switch/*.sh as a subtest, unloads everything.
# shellcheck source=common.sh
. /etc/kuw-common.sh
mods="" nmods=0
for m in "$KUW_MODDIR"/switch/*.ko; do
	[ -f "$m" ] && mods="$mods $m" && nmods=$((nmods + 1))
done
hooks="" nhooks=0
for h in /guest-switch/*.sh; do
	[ -f "$h" ] && hooks="$hooks $h" && nhooks=$((nhooks + 1))
done
ktap_plan $((1 + nmods + nhooks + nmods + 1))
diag "kunwind switch guest: profile $KUW_PROFILE, cpus $(grep -c ^processor /proc/cpuinfo)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
# Modules come and go meanwhile (kunwind adds and drops their tables
# while the switch's suite walks and flips): churn_payload.ko, loaded and
# unloaded in a loop until the suites are done.
churn="$KUW_MODDIR"/kunit/churn_payload.ko
rm -f /tmp/churn-stop /tmp/churn-n
if [ -f "$churn" ]; then
	(n=0
	 while [ ! -f /tmp/churn-stop ]; do
		insmod "$churn" && rmmod churn_payload && n=$((n + 1))
	 done
	 echo "$n" >/tmp/churn-n) &
fi
for m in $mods; do
	check "insmod switch/${m##*/}" insmod "$m"
done
if [ -f "$churn" ]; then
	touch /tmp/churn-stop
	wait
	diag "churn_payload.ko loaded and unloaded $(cat /tmp/churn-n) times meanwhile"
fi
for h in $hooks; do
	ktap_subtest "${h##*/}" sh "$h"
done
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
