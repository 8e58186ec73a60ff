#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init-lockdown: a cell's guest as a Secure Boot machine runs it, booted
# with lockdown=integrity (or lockdown=confidentiality) on a test kernel
# that trusts the test bed's MOK key (scripts/kconfig/sign.config), every
# module signed with it (kuw_build_modules).  Reports KTAP.
#
# integrity: an unsigned kunwind.ko is refused and the signed one (DKMS's
# build, signed by DKMS, on x86_64) loads, untainted; debugfs is a
# read-only view; /dev/kunwind/unload refuses the kernel's own (trusted)
# vmlinux tables and drops kunwind's untrusted one (read from sysfs under
# lockdown); every thread's walk against /proc/PID/stack; the loader's
# vmlinux blob refused (the kernel's table stays), a blob's owner logged
# escaped; rules, the consumers switch; last, an oops from demo_oops.ko's init,
# whose trace the host compares with the kernel's
# (scripts/oops_traces.py).
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

# --- unload: only what is untrusted already ----------------------------
# A trusted table (the kernel's own .eh_frame/.sframe) dropped could be
# replaced by a crafted blob, whose walks would then serve the kernel's
# traces: refused, EPERM, one line.  On a stock kernel (no table of
# vmlinux in memory) the loader's vmlinux blob goes in as ever
# (check-stock); here the blob flow runs on kunwind's own table, which
# sysfs gave under lockdown: untrusted, so it may go and come back.
dmesg -c >/dev/null
kept=ok
for sec in eh_frame sframe; do
	grep -q "^vmlinux \.$sec " $D/tables || continue
	echo "vmlinux $sec" >$C/unload 2>$T/err && kept="$sec dropped"
	grep -q 'not permitted' $T/err || kept="$kept, $sec: $(cat $T/err)"
done
dmesg | grep -v 'kuw-guest: ' >$T/dmesg
if [ "$kept" = ok ] && grep -q '^vmlinux \.eh_frame ' $D/tables &&
   [ "$(grep -c 'kunwind: vmlinux: \.eh_frame table not dropped: the kernel is locked down (integrity)' $T/dmesg)" = 1 ]; then
	ok "the kernel's own vmlinux tables cannot be dropped (EPERM, one line)"
else
	notok "the kernel's own vmlinux tables cannot be dropped (EPERM, one line): $kept"
	diag <$T/dmesg
	diag <$D/tables
fi
gone=ok
for sec in eh_frame sframe; do
	grep -q "^kunwind \.$sec " $D/tables || continue
	echo "kunwind $sec" >$C/unload 2>$T/err || gone="$gone, $sec: $(cat $T/err)"
done
if [ "$gone" = ok ] && ! grep -q '^kunwind ' $D/tables; then
	ok "kunwind's own untrusted tables (from sysfs) may be dropped"
else
	notok "kunwind's own untrusted tables (from sysfs) may be dropped: $gone"
	diag <$D/tables
fi

# every thread through the kernel's own (trusted) table; the writer's
# walk skips kunwind's own frames, which no trusted table covers: it ends
# cleanly but is never reliable
export KUW_BT_SELF_UNRELIABLE=1
ktap_subtest "backtrace_all.sh (lockdown)" sh /guest/backtrace_all.sh
unset KUW_BT_SELF_UNRELIABLE

# --- a blob under lockdown ----------------------------------------------
# the loader's vmlinux blob: the kernel's own table stays (EEXIST)
kver=$(uname -r)
mkdir -p /usr/lib/debug/boot
ln -sf /boot/vmlinux /usr/lib/debug/boot/vmlinux-"$kver"
tb=$(cat $D/tables)
kunwind-dump load >$T/load 2>&1
if grep -q '^skipped vmlinux: its \.eh_frame table is already loaded' $T/load &&
   [ "$(cat $D/tables)" = "$tb" ]; then
	ok "the loader's vmlinux blob does not replace the kernel's own table (EEXIST)"
else
	notok "the loader's vmlinux blob does not replace the kernel's own table (EEXIST)"
	diag <$T/load
	diag <$D/tables
fi
# the blob's owner is logged before the blob is parsed: escaped, one line
dmesg -c >/dev/null
if kunwind-dump export /boot/vmlinux -o $T/evil.blob >$T/export 2>&1; then
	printf 'evil\nkunwind: fake\033[31m\000' |
		dd of=$T/evil.blob bs=1 seek=96 conv=notrunc 2>/dev/null
	cat $T/evil.blob >$C/load 2>$T/err
fi
dmesg | grep -v 'kuw-guest: ' >$T/dmesg
if grep -qF 'evil\nkunwind: fake\e[31m: the kernel is locked down' $T/dmesg &&
   ! grep -q '^\(<[0-9]*>\)\{0,1\}\(\[[ 0-9.]*\] \)\{0,1\}kunwind: fake' $T/dmesg; then
	ok "a blob's hostile owner name is logged escaped, on one line"
else
	cat $T/export $T/err | diag
	grep -a -A1 evil $T/dmesg | diag
	notok "a blob's hostile owner name is logged escaped, on one line"
fi

# --- rules ------------------------------------------------------------
exec 7<>$C/rules
echo vfs_read >&7 2>$T/err
cat <&7 >$T/rules 2>>$T/err
exec 7>&-
if sed -n 2p $T/rules | grep -q ' cfa=' &&
   grep -q '^row vfs_read.* vmlinux$' $T/rules; then
	ok "rules for vfs_read, from the kernel's table"
else
	notok "rules for vfs_read, from the kernel's table"
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
