#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of scripts/check-qemu-smc.sh: load smc_repro.ko, nothing else (no
# kunwind).  smc_toggles= and smc_func= on the kernel command line reach
# this script as environment variables; insmod returns when the toggles
# are done, and never if the caller got stuck.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
[ -c /dev/kmsg ] && exec >/dev/kmsg 2>&1
echo "smc-guest: cpus $(grep -c ^processor /proc/cpuinfo), insmod smc_repro.ko toggles=${smc_toggles:-100} func=${smc_func:-smc_repro_target}"
if insmod /smc_repro.ko toggles="${smc_toggles:-100}" func="${smc_func:-smc_repro_target}"; then
	echo "smc-guest: insmod returned"
else
	echo "smc-guest: insmod failed"
fi
rmmod smc_repro
echo "smc-guest: end"
sync
reboot -f
sleep 10
