#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init-lockdown: a cell's guest as a Secure Boot machine runs it, booted
# with lockdown=integrity (or lockdown=confidentiality) on a test kernel
# that trusts the test bed's MOK key (scripts/kconfig/sign.config), every
# module signed with it (kuw_build_modules).  Reports KTAP.
#
# integrity: an unsigned kunwind.ko is refused and the signed one (DKMS's
# build, signed by DKMS, on x86_64) loads, untainted; debugfs is a read-only view; the stock flow goes through
# /dev/kunwind/: the vmlinux table replaced by the loader's blob
# (kunwind-dump load, from the kernel image at the debug package's path),
# every thread's walk against /proc/PID/stack, rules, the consumers
# switch; walks through a table a blob gave under lockdown are never
# reliable (the same thread's walk is reliable through the kernel's own
# table before); last, an oops from demo_oops.ko's init, whose trace the
# host compares with the kernel's (scripts/oops_traces.py).
#
# confidentiality: kunwind.ko refuses to load, with one line naming the
# reason, and leaves nothing behind.
# shellcheck source=common.sh
. /etc/kuw-common.sh
C=/dev/kunwind
D=/sys/kernel/debug/kunwind
T=/tmp/kuw-ld
mkdir -p $T
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
level=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/security/lockdown 2>/dev/null)

if [ "$level" = confidentiality ]; then
	ktap_plan 4
	check "lockdown is confidentiality" grep -q '\[confidentiality\]' /sys/kernel/security/lockdown
	dmesg -c >/dev/null
	if insmod "$KUW_MODDIR"/kunwind.ko 2>$T/err; then
		notok "kunwind.ko refuses to load under confidentiality"
	else
		ok "kunwind.ko refuses to load under confidentiality ($(cat $T/err))"
	fi
	dmesg >$T/dmesg
	diag <$T/dmesg
	# one line of kunwind's per refused load (busybox insmod tries
	# finit_module(), then init_module(): two), beside the kernel's own
	# (rate-limited: one or two)
	n=$(grep -c 'kunwind: not loaded: the kernel is locked down (confidentiality)' $T/dmesg)
	k=$(grep -c 'Lockdown: insmod: use of kprobes is restricted' $T/dmesg)
	if [ "$n" -ge 1 ] && [ "$n" -le 2 ] && [ "$k" -ge 1 ]; then
		ok "one line names the reason, per refused load ($n)"
	else
		notok "one line names the reason, per refused load ($n lines, $k refusals)"
	fi
	if ! grep -q '^kunwind ' /proc/modules && [ ! -e $C ] && [ ! -e $D ]; then
		ok "nothing is left: no module, no /dev/kunwind, no debugfs"
	else
		notok "nothing is left: no module, no /dev/kunwind, no debugfs"
	fi
	finish
fi

ktap_plan 17
check "lockdown is integrity" grep -q '\[integrity\]' /sys/kernel/security/lockdown

# --- signatures -------------------------------------------------------
dmesg -c >/dev/null
if insmod "$KUW_MODDIR"/unsigned/kunwind.ko 2>$T/err; then
	notok "an unsigned kunwind.ko is refused"
	rmmod kunwind
else
	ok "an unsigned kunwind.ko is refused ($(cat $T/err); $(dmesg | grep -m1 -i 'lockdown\|signature\|key' || echo 'no log line'))"
fi
# DKMS's build, signed by DKMS with the MOK key, where the cell made one
# (x86_64); else the test bed's own build, signed with the same key.
ko="$KUW_MODDIR"/kunwind.ko what="the signed kunwind.ko loads"
if [ -f "$KUW_MODDIR"/dkms/kunwind.ko ]; then
	ko="$KUW_MODDIR"/dkms/kunwind.ko
	what="kunwind.ko as DKMS built and signed it loads"
fi
taint0=$(cat /proc/sys/kernel/tainted)
check "$what" insmod "$ko"
taint=$(cat /proc/sys/kernel/tainted)
# 8192: an unsigned module was loaded (TAINT_UNSIGNED_MODULE)
if [ $(((taint ^ taint0) & 8192)) = 0 ]; then
	ok "no unsigned-module taint (tainted $taint0 -> $taint)"
else
	notok "no unsigned-module taint (tainted $taint0 -> $taint)"
fi

# --- debugfs: a read-only view ---------------------------------------
if cat $D/tables >$T/tables 2>$T/err && grep -q '^vmlinux ' $T/tables &&
   [ -z "$(find $D -type f -perm /222 2>/dev/null)" ]; then
	ok "debugfs: tables readable, no file of kunwind's can be written"
else
	notok "debugfs: tables readable, no file of kunwind's can be written"
	cat $T/err $T/tables | diag
	ls -l $D | diag
fi

# --- reliable through the kernel's own table, before any blob -----------
# pid 2 (kthreadd) sleeps in the same place for the whole boot.
bt() {
	exec 3<>$C/backtrace
	echo "$1" >&3
	cat <&3
	exec 3>&-
}
bt "pid 2" >$T/k2
if grep -q '^stop: end of stack' $T/k2 && grep -q '^reliable: yes' $T/k2; then
	ok "kthreadd's walk through the kernel's own table is reliable"
else
	notok "kthreadd's walk through the kernel's own table is reliable"
	diag <$T/k2
fi

# --- tables read from sysfs under lockdown: never reliable -------------
# kunwind.ko loaded after lockdown was raised: its own table comes from
# /sys/module/kunwind/sections/, which root can mount over, so it is
# untrusted; a walk of the writer itself steps out of kunwind's frames by
# it (the skipped part of the walk) and may not be reliable, though it
# ends cleanly.
if grep -q '^kunwind \.eh_frame .* sysfs-untrusted$' $D/tables &&
   ! grep -q '^kunwind .* sysfs$' $D/tables; then
	ok "kunwind's own table, read from sysfs under lockdown, is untrusted"
else
	notok "kunwind's own table, read from sysfs under lockdown, is untrusted"
	diag <$D/tables
fi
bt self >$T/self
if grep -q '^stop: end of stack' $T/self && grep -q '^reliable: no' $T/self; then
	ok "a walk through the untrusted table ends cleanly, not reliable"
else
	notok "a walk through the untrusted table ends cleanly, not reliable"
	diag <$T/self
fi

# --- the stock flow: the loader gives vmlinux's table ------------------
kver=$(uname -r)
mkdir -p /usr/lib/debug/boot
ln -sf /boot/vmlinux /usr/lib/debug/boot/vmlinux-"$kver"
# the kernel's own tables go (.eh_frame, and .sframe where it has one):
# the walks below must take the blob's rows
drop=ok
for sec in eh_frame sframe; do
	grep -q "^vmlinux \.$sec " $D/tables || continue
	echo "vmlinux $sec" >$C/unload || drop=fail
done
if [ $drop = ok ] && ! grep -q '^vmlinux ' $D/tables; then
	ok "the kernel's own vmlinux tables dropped (/dev/kunwind/unload)"
else
	notok "the kernel's own vmlinux tables dropped (/dev/kunwind/unload)"
	diag <$D/tables
fi
dmesg -c >/dev/null
check "kunwind-dump load gives vmlinux's table through /dev/kunwind/load" \
	sh -c "kunwind-dump load 2>&1 | tee /dev/stderr | grep -q '^loaded vmlinux from '"
dmesg >$T/dmesg
diag <$T/dmesg
if grep -q '^vmlinux \.eh_frame .* blob$' $D/tables &&
   grep -q 'vmlinux: the kernel is locked down (integrity): its table from a blob serves traces, never a reliable one' $T/dmesg; then
	ok "the blob's table is in, with one line: never reliable under lockdown"
else
	notok "the blob's table is in, with one line: never reliable under lockdown"
	diag <$D/tables
fi

bt "pid 2" >$T/b2
if grep -q '^stop: end of stack' $T/b2 && grep -q '^reliable: no' $T/b2 &&
   [ "$(grep -v '^reliable' $T/b2 | awk '{print $1, $2, $3}')" = \
     "$(grep -v '^reliable' $T/k2 | awk '{print $1, $2, $3}')" ]; then
	ok "kthreadd's walk through the blob: the same frames, not reliable"
else
	notok "kthreadd's walk through the blob: the same frames, not reliable"
	diag <$T/k2
	diag <$T/b2
fi

export KUW_BT_RELIABLE=no
ktap_subtest "backtrace_all.sh (vmlinux blob, lockdown)" \
	sh /guest/backtrace_all.sh
unset KUW_BT_RELIABLE

# --- rules ------------------------------------------------------------
echo vfs_read >$C/rules 2>$T/err
cat $C/rules >$T/rules 2>>$T/err
if sed -n 2p $T/rules | grep -q ' cfa=' &&
   grep -q '^row vfs_read.* vmlinux$' $T/rules; then
	ok "rules for vfs_read, from the blob's table"
else
	notok "rules for vfs_read, from the blob's table"
	cat $T/err $T/rules | diag
fi

# --- the consumers switch ------------------------------------------------
if [ -f /guest-switch/consumers.sh ]; then
	ktap_subtest "consumers.sh (lockdown)" sh /guest-switch/consumers.sh
else
	skip "consumers.sh (lockdown)" "not in this initramfs"
fi

# --- the oops, last: it taints and kills insmod ----------------------------
if [ -f "$KUW_MODDIR"/kunit/demo_oops.ko ]; then
	diag "\$ insmod demo_oops.ko oops_on_load=1"
	if sh -c "insmod $KUW_MODDIR/kunit/demo_oops.ko oops_on_load=1"; then
		notok "oops: insmod returned"
	else
		ok "oops: insmod was killed"
	fi
	sleep 1
else
	skip "oops" "no demo_oops.ko"
fi
bt self >$T/self 2>&1
check "kunwind still answers after the oops" grep -q '^stop:' $T/self
finish
