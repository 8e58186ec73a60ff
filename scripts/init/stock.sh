#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for `make check-stock` on Debian's stock kernel (no KUnit there).
# Reports KTAP (/etc/kuw-ktap.sh).  Truth is the kernel's own: its ORC
# unwinder (/proc/PID/stack, and the walk stock_probe.ko takes beside
# kunwind's from the same kprobe regs), never kunwind's own output.
#
#  - kunwind.ko loads; a module built with unwind tables (demo_oops) is
#    listed and its rules answered;
#  - the loader, `kunwind-dump load`, finds the debug vmlinux at Debian's
#    path, checks its build id and loads its blob; every sleeping task's
#    walk against /proc/PID/stack (scripts/guest/backtrace_all.sh);
#  - a stock module (loop.ko, no unwind tables of its own) is probed
#    (kunit/stock_probe.c) where losetup's ioctl reaches it: before its
#    blob is loaded its frames are not stepped by a table; after `kunwind-
#    dump load loop` they are, by loop's .debug_frame, and kunwind's walk
#    (with and without ORC) is the kernel's frame for frame;
#  - bad blobs change nothing: the previous build's vmlinux (ESTALE), a
#    corrupt one (EBADMSG), a truncated one, the same blob twice (EEXIST),
#    a module's blob while it is not loaded (ENOENT);
#  - loop unloaded (its table goes with it), loaded again, its blob loaded
#    again: the probe walk and every task's walk again;
#  - with the vmlinux blob: every thread's reliable walk, tasks preempted in
#    kernel mode among them, against the kernel's stack_trace_save_tsk_
#    reliable() (scripts/guest/reliable.sh, kunit/reliable_payload.c);
#  - every node of /dev/kunwind/ at once (scripts/guest/stress.sh), the
#    slab caches validated after it (the boot has slub_debug=FZPU);
#  - the consumers switch (scripts/guest-switch/consumers.sh): /proc/1/stack
#    answered by kunwind, the same on and off; the module unloads with the
#    switch on.
# The oops is in a boot of its own (scripts/init/stock_oops.sh).
# On arm64 (KUW_ARCH) the kernel's unwinder follows frame records: probed
# before it saves its record (loop_configure at its first FDE
# instruction, KUW_OFF_*), a function's caller is missed by it, so there
# the kernel's walk must be kunwind's with frames left out, in order, to
# the same end; the frames left out are counted ("missed callers").
# Parts that need the debug files (KUNWIND_STOCK_DBG=0 on the host), the
# loader or build-id blobs (v2; older kunwind-dump builds have neither)
# are skipped, with the reason.
# shellcheck source=common.sh
. /etc/kuw-common.sh
# KUW_DBG, KUW_DBG_WHY, KUW_PREV, KUW_ARCH, KUW_OFF_CONFIGURE,
# KUW_OFF_SET_STATUS, KUW_OFF_DEPTH3: written by scripts/check-stock.sh
# shellcheck disable=SC1091
. /etc/kuw-stock.conf
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
P=/dev/kunwind_stock_probe/walk
T=/tmp/kuw-stock
mkdir -p $T
kver=$(uname -r)
DV=/usr/lib/debug/boot/vmlinux-$kver
DL=/usr/lib/debug/lib/modules/$kver/kernel/drivers/block/loop.ko
LOOPKO=/lib/modules/$kver/kernel/drivers/block/loop.ko
dkms=0
[ -f "$KUW_MODDIR"/dkms/kunwind.ko ] && dkms=2
# arm64: one more result in each of the two probe walks after loop's blob,
# and the IRQ stacks found
a64=0
[ "$KUW_ARCH" = arm64 ] && a64=9
# Secure Boot: one more, an unsigned kunwind.ko refused
sb=0
[ "${KUW_FIRMWARE:-none}" = secureboot ] && sb=1
ktap_plan $((49 + dkms + a64 + sb))
diag "kernel $kver"

# What this build of kunwind-dump can do: the loader, build-id blobs.
loader=0
kunwind-dump 2>&1 | grep -q '^  load ' && loader=1
why_loader="kunwind-dump has no load subcommand in this build"

# The DKMS-built module first (it must load and unload on this kernel; on a
# Secure Boot machine it is the one that loads, signed with DKMS's MOK key).
# Booted with Secure Boot (KUW_FIRMWARE=secureboot): locked down before
# any module loads, so a module loads only if a key the kernel trusts
# signed it: the test MOK, which the firmware's MOK list holds.
if [ "${KUW_FIRMWARE:-none}" = secureboot ]; then
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	diag "lockdown at boot: $(cat /sys/kernel/security/lockdown)"
	if insmod "$KUW_MODDIR"/unsigned/kunwind.ko 2>$T/err; then
		notok "unsigned kunwind.ko refused under Secure Boot"
		rmmod kunwind
	else
		ok "unsigned kunwind.ko refused under Secure Boot ($(cat $T/err))"
	fi
fi
if [ "$dkms" != 0 ] && [ "${KUW_FIRMWARE:-none}" = secureboot ] &&
	[ -z "${KUW_DKMS_SIGNER:-}" ]; then
	# this dkms build had no sign-file (the kernel is not installed on
	# the build machine): unsigned, the locked-down kernel must refuse it
	if insmod "$KUW_MODDIR"/dkms/kunwind.ko 2>$T/err; then
		notok "unsigned dkms-built kunwind.ko refused under Secure Boot"
		rmmod kunwind
	else
		ok "unsigned dkms-built kunwind.ko refused under Secure Boot ($(cat $T/err))"
	fi
	skip "rmmod dkms-built kunwind" "not loaded: unsigned"
elif [ "$dkms" != 0 ]; then
	check "insmod dkms-built kunwind.ko" insmod "$KUW_MODDIR"/dkms/kunwind.ko
	check "rmmod dkms-built kunwind" rmmod kunwind
fi
check "insmod kunwind.ko on $kver" insmod "$KUW_MODDIR"/kunwind.ko
# arm64: the IRQ stacks are found without data symbols in kallsyms
# (Debian's 6.1 has none: irq_stack_ptr comes from the code)
if [ "$KUW_ARCH" = arm64 ]; then
	dmesg | grep 'kunwind: .*irq_stack_ptr' | diag
	check "kunwind finds this kernel's IRQ stacks" \
		sh -c '! dmesg | grep -q "kunwind: .*IRQ stacks are not walked"'
fi
check "insmod demo_oops.ko (payload with .eh_frame and .sframe)" \
	insmod "$KUW_MODDIR"/kunit/demo_oops.ko
# The test modules, signed with a key Debian's kernel does not trust, load
# before lockdown is raised; stock_probe is moved by writes later.
check "insmod stock_probe.ko (idle)" insmod "$KUW_MODDIR"/kunit/stock_probe.ko
# its kthread waits in D state for the hung-task check (guest/hung_task.sh)
check "insmod hung_payload.ko" insmod "$KUW_MODDIR"/kunit/hung_payload.ko
if [ -f "$KUW_MODDIR"/kunit/reliable_payload.ko ]; then
	check "insmod reliable_payload.ko" insmod "$KUW_MODDIR"/kunit/reliable_payload.ko
else
	skip "insmod reliable_payload.ko" "not built for this kernel"
fi
# As UEFI Secure Boot leaves it (KUW_LOCKDOWN=integrity, check-stock's
# default): kunwind runs locked down from here on, the loader included;
# a table from a blob then never makes a walk reliable.
if [ "${KUW_FIRMWARE:-none}" = secureboot ]; then
	check "locked down (integrity) by Secure Boot since boot, these modules loaded" \
		grep -q "\[integrity\]" /sys/kernel/security/lockdown
	export KUW_BT_RELIABLE=no
elif [ "${KUW_LOCKDOWN:-none}" != none ]; then
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	echo "$KUW_LOCKDOWN" >/sys/kernel/security/lockdown
	check "lockdown raised to $KUW_LOCKDOWN" \
		grep -q "\[$KUW_LOCKDOWN\]" /sys/kernel/security/lockdown
	export KUW_BT_RELIABLE=no
else
	skip "lockdown raised" "KUW_LOCKDOWN=none"
fi
if [ -r $D/tables ]; then
	diag <$D/tables
	check "tables lists demo_oops" grep -q demo_oops $D/tables
else
	skip "tables lists demo_oops" "$D/tables not present in this kunwind.ko"
fi
if [ -c $C/rules ]; then
	# arm64: +8, past the ftrace NOPs GCC puts before the FDE (KUW_OFF_DEPTH3)
	exec 7<>$C/rules	# rules answers on the file written to
	echo "demo_depth3+${KUW_OFF_DEPTH3:-0}" >&7 2>$T/rules.err
	cat <&7 >$T/rules 2>>$T/rules.err
	exec 7>&-
	cat $T/rules $T/rules.err | diag
	# The answer names the function and gives a CFA rule for it.
	check "rules answers for demo_depth3" grep -q demo_depth3 $T/rules
	check "rules gives a CFA rule" grep -q "cfa=" $T/rules
else
	skip "rules answers for demo_depth3" "$C/rules not present in this kunwind.ko"
	skip "rules gives a CFA rule" "$C/rules not present in this kunwind.ko"
fi

# --- helpers --------------------------------------------------------------
# blob_write FILE: write a blob to kunwind/load; the error text (busybox
# cat: "cat: write error: <strerror>") in $T/load.err; status of cat.
blob_write() {
	cat "$1" >$C/load 2>$T/load.err
}
# refused NAME FILE ERRTEXT: the write fails with ERRTEXT (any error when
# ERRTEXT is empty; with "close", the write may also succeed: a blob cut
# short is seen only when the file is closed), the tables are what they
# were, the kernel said why.
refused() {
	cat $D/tables >$T/tables.before
	dmesg >$T/dmesg.before
	if blob_write "$2"; then
		rc=0
	else
		rc=1
	fi
	sleep 0.2
	dmesg | tail -n +$(($(wc -l <$T/dmesg.before) + 1)) | grep 'kunwind' >$T/dmesg.new
	diag "write: $(cat $T/load.err 2>/dev/null)"
	diag <$T/dmesg.new
	if [ $rc = 0 ] && [ "$3" != close ]; then
		notok "$1 (the write succeeded)"
	elif [ $rc = 1 ] && [ -n "$3" ] && [ "$3" != close ] &&
		! grep -q "$3" $T/load.err; then
		notok "$1 (not: $3)"
	elif ! cat $D/tables | cmp -s - $T/tables.before; then
		diag <$D/tables
		notok "$1 (the tables changed)"
	elif [ ! -s $T/dmesg.new ]; then
		notok "$1 (no kernel message)"
	else
		ok "$1"
	fi
}
# load_objs [MODULE...]: the loader on them (none: vmlinux and every loaded
# module), its output as diagnostics; without a loader, the vmlinux blob by
# hand (kunwind-dump export, written to kunwind/load).
load_objs() {
	if [ $loader = 1 ]; then
		kunwind-dump load "$@" >$T/load.out 2>&1
		r=$?
		diag <$T/load.out
		return $r
	fi
	kunwind-dump export "$DV" -o $T/vmlinux.blob --src debug_frame >$T/load.out 2>&1 &&
		blob_write $T/vmlinux.blob
	r=$?
	cat $T/load.out $T/load.err | diag
	return $r
}
# table_of OWNER: OWNER's debug_frame table loaded from a blob, in `tables`
# ("owner section start-end fdes rows bytes from").
table_of() {
	grep -q "^$1 \.debug_frame .* blob\$" $D/tables
}
# probe_at SYM OFF: move stock_probe's kprobe there ("" removes it).
probe_at() {
	if [ -n "$1" ]; then
		echo "probe $1 $2" >$P
	else
		echo unprobe >$P
	fi
}
# probe_walk FILE TRIGGER...: arm stock_probe, run TRIGGER, keep the walk.
probe_walk() {
	out=$1
	shift
	echo 1 >$P
	"$@" >$T/trigger.out 2>&1
	cat $P >"$out"
	diag <"$out"
}
# pcs FILE WALK: the pcs of one walk (kernel, any, noorc), one a line.
pcs() {
	awk -v w="$2" '$1 == w && $2 ~ /^[0-9]+$/ && $3 ~ /^0x/ { print $3 }' "$1"
}
# same_as_kernel FILE WALK: that walk has the kernel's pcs, all of them.
same_as_kernel() {
	pcs "$1" kernel >$T/k
	pcs "$1" "$2" >$T/u
	[ -s $T/k ] && cmp -s $T/k $T/u
}
# kernel_in FILE WALK: the kernel's pcs are the walk's with frames left
# out (none, or callers the frame-record walker misses), in order, from
# the same first frame to the same last one; prints how many were left out
# and their functions ("N f1 f2...").
kernel_in() {
	pcs "$1" kernel >$T/k
	pcs "$1" "$2" >$T/u
	[ -s $T/k ] && [ "$(head -n 1 $T/k)" = "$(head -n 1 $T/u)" ] &&
		[ "$(tail -n 1 $T/k)" = "$(tail -n 1 $T/u)" ] || return 1
	awk -v w="$2" 'BEGIN { i = 0 }
		FILENAME == ARGV[1] { k[n++] = $1; next }
		FILENAME == ARGV[2] { if (i < n && $1 == k[i]) i++; else miss[$1] = 1; next }
		$1 == w && ($3 in miss) { sub(/\+.*/, "", $4); names = names " " $4; m++ }
		END { if (i != n) exit 1; print m + 0 names }' $T/k $T/u "$1"
}
# same_or_missed NAME FILE WALK: x86_64: the walk is the kernel's, frame
# for frame; arm64: the kernel's is the walk with frames left out (their
# count in $T/missed, a diagnostic).
same_or_missed() {
	if [ "$KUW_ARCH" != arm64 ]; then
		check "$1" same_as_kernel "$2" "$3"
	elif kernel_in "$2" "$3" >$T/missed; then
		diag "missed callers ($3): $(cat $T/missed)"
		ok "$1"
	else
		notok "$1"
	fi
}
# frame_after FILE WALK FUNC: the line of the frame after FUNC's (the one
# reached by stepping out of FUNC), and FUNC's own line before it.
frame_of() {
	awk -v w="$2" -v f="$3" '$1 == w && $3 ~ /^0x/ && index($4, f "+") == 1 { print; exit }' "$1"
}
frame_after() {
	awk -v w="$2" -v f="$3" '$1 == w && $3 ~ /^0x/ {
		if (hit) { print; exit } if (index($4, f "+") == 1) hit = 1 }' "$1"
}
# field LINE NAME: the word after NAME ("how", "via", "row") in a walk line.
field() {
	echo "$1" | awk -v n="$2" '{ for (i = 1; i < NF; i++) if ($i == n) { print $(i + 1); exit } }'
}
# losetup_once: LOOP_SET_FD (loop_configure), LOOP_SET_STATUS64
# (loop_set_status) on a file in tmpfs, then detach.
losetup_once() {
	losetup /dev/loop0 $T/disk.img && losetup -d /dev/loop0
}
dd if=/dev/zero of=$T/disk.img bs=1024 count=1024 2>/dev/null

# --- the vmlinux blob ---------------------------------------------------------
dbg=$KUW_DBG
[ "$dbg" = 1 ] && [ ! -f "$DV" ] && { dbg=0 KUW_DBG_WHY="$DV missing"; }
if [ "$dbg" = 1 ]; then
	if [ $loader = 1 ]; then
		if load_objs; then
			ok "kunwind-dump load: vmlinux and every loaded module"
		else
			notok "kunwind-dump load: vmlinux and every loaded module"
		fi
		check "loader: loaded vmlinux from $DV" grep -q "^loaded vmlinux from $DV" $T/load.out
	else
		skip "kunwind-dump load: vmlinux and every loaded module" "$why_loader"
		if load_objs; then
			ok "vmlinux blob exported in the guest from $DV and loaded (by hand)"
		else
			notok "vmlinux blob exported in the guest from $DV and loaded (by hand)"
		fi
	fi
	diag <$D/tables
	check "tables: vmlinux has a debug_frame table from the blob" table_of vmlinux
	ktap_subtest "backtrace_all.sh (vmlinux blob)" sh /guest/backtrace_all.sh
	# kunwind's reliable walks of preempted tasks against the kernel's
	# (booted preempt=full where the model is dynamic; 7.x preempts)
	ktap_subtest "reliable.sh (vmlinux blob)" sh /guest/reliable.sh
else
	for t in "kunwind-dump load: vmlinux and every loaded module" \
		"vmlinux blob loaded" "tables: vmlinux has a debug_frame table from the blob" \
		"backtrace_all.sh (vmlinux blob)" "reliable.sh (vmlinux blob)"; do
		skip "$t" "$KUW_DBG_WHY"
	done
fi

# Blob format: version 2 carries the build id (the header's u32 at 8).
v2=0
if [ "$dbg" = 1 ] && kunwind-dump export "$DV" -o $T/vmlinux.blob \
	--src debug_frame >/dev/null 2>&1; then
	bv=$(dd if=$T/vmlinux.blob bs=1 skip=8 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	diag "blob format version ${bv:-?}"
	[ "${bv:-0}" -ge 2 ] && v2=1
fi
why_v2="blob format v1: no build id, no module blobs (kunwind-dump export)"
[ "$dbg" = 1 ] || why_v2=$KUW_DBG_WHY

# --- a stock module: loop.ko --------------------------------------------------
check "insmod stock loop.ko" insmod "$LOOPKO"
check "stock_probe on loop_configure+${KUW_OFF_CONFIGURE:-0}" \
	probe_at loop_configure "${KUW_OFF_CONFIGURE:-0}"
probe_walk $T/before losetup_once
# arm64: the frame-record walker misses lo_ioctl (the probed function has
# not saved its record yet); the syscall's path goes on from blkdev_ioctl.
caller=lo_ioctl
[ "$KUW_ARCH" = arm64 ] && caller=blkdev_ioctl
if frame_of $T/before kernel loop_configure | grep -q . &&
	frame_of $T/before kernel $caller | grep -q .; then
	ok "losetup reached loop_configure, then $caller (the kernel's trace)"
else
	cat $T/trigger.out | diag
	notok "losetup reached loop_configure, then $caller (the kernel's trace)"
fi
check "before loop's blob: kunwind's walk is the kernel's, frame for frame" \
	same_as_kernel $T/before any
# Without loop's blob nothing of kunwind's covers loop.ko (Debian builds it
# without .eh_frame): the frame after lo_ioctl (arm64: after the probed
# loop_configure, stepped by its caller's frame record like the kernel's
# walk) is not stepped by a table.
f=lo_ioctl
[ "$KUW_ARCH" = arm64 ] && f=loop_configure
l=$(frame_of $T/before any $f)
n=$(frame_after $T/before any $f)
if [ -n "$n" ] && [ "$(field "$l" row)" = - ] && [ "$(field "$n" via)" = - ]; then
	ok "before loop's blob: $f has no row, stepped by $(field "$n" how)"
else
	diag "$f: $l"
	diag "next: $n"
	notok "before loop's blob: $f has no row of kunwind's"
fi

# probe_after NAME: the walk from the probe goes through loop's blob.
probe_after() {
	f=$T/$1
	probe_walk "$f" losetup_once
	if [ "$KUW_ARCH" = arm64 ]; then
		same_or_missed "$1: the kernel's walk is kunwind's with callers left out" "$f" any
		m=$(cat $T/missed 2>/dev/null)
		same_or_missed "$1: and kunwind's alone (its tables and frame records)" "$f" noorc
		# the caller still in x30 when the probe hit: kunwind's frame 1
		c1=$(awk '$1 == "any" && $2 == 1 { sub(/\+.*/, "", $4); print $4 }' "$f")
		case " $m " in
		*" ${c1:-?} "*) ok "$1: kunwind sees $c1, the caller the frame-record walker misses" ;;
		*) notok "$1: kunwind sees the probed function's caller, which the frame-record walker misses" ;;
		esac
	else
		check "$1: kunwind's walk is the kernel's, frame for frame" same_as_kernel "$f" any
		check "$1: kunwind alone (no ORC) walks the kernel's frames" same_as_kernel "$f" noorc
	fi
	l=$(frame_of "$f" any lo_ioctl)
	n=$(frame_after "$f" any lo_ioctl)
	if [ "$(field "$l" row)" = loop/debug_frame ] &&
		[ "$(field "$l" via)" = loop/debug_frame ] &&
		[ "$(field "$n" via)" = loop/debug_frame ] &&
		[ "$(field "$n" how)" = cfi ]; then
		ok "$1: lo_ioctl reached and left with rows of loop's .debug_frame blob"
	else
		diag "lo_ioctl: $l"
		diag "next: $n"
		notok "$1: lo_ioctl reached and left with rows of loop's .debug_frame blob"
	fi
}
probe_skip() {
	if [ "$KUW_ARCH" = arm64 ]; then
		set -- "$1" "$2" "the kernel's walk is kunwind's with callers left out" \
			"and kunwind's alone (its tables and frame records)" \
			"kunwind sees the probed function's caller, which the frame-record walker misses"
	else
		set -- "$1" "$2" "kunwind's walk is the kernel's, frame for frame" \
			"kunwind alone (no ORC) walks the kernel's frames"
	fi
	p=$1 r=$2
	shift 2
	for t in "$@" "lo_ioctl reached and left with rows of loop's .debug_frame blob"; do
		skip "$p: $t" "$r"
	done
}

if [ $v2 = 1 ] && [ $loader = 1 ]; then
	if load_objs loop; then ok "kunwind-dump load loop"; else notok "kunwind-dump load loop"; fi
	check "loader: loaded loop from $DL" grep -q "^loaded loop from $DL" $T/load.out
	diag <$D/tables
	check "tables: loop has a debug_frame table from the blob" table_of loop
	probe_after "after loop's blob"
else
	w=$why_loader
	[ $v2 = 1 ] || w=$why_v2
	skip "kunwind-dump load loop" "$w"
	skip "loader: loaded loop from $DL" "$w"
	skip "tables: loop has a debug_frame table from the blob" "$w"
	probe_skip "after loop's blob" "$w"
fi

# --- bad blobs change nothing ---------------------------------------------
if [ $v2 = 1 ] && [ -f "$KUW_MODDIR"/wrong-kernel.blob ]; then
	refused "the $KUW_PREV vmlinux blob is refused (ESTALE), nothing changes" \
		"$KUW_MODDIR"/wrong-kernel.blob "Stale file handle"
elif [ $v2 = 1 ]; then
	skip "the previous build's vmlinux blob is refused (ESTALE)" "no other build's -dbg package"
else
	skip "the previous build's vmlinux blob is refused (ESTALE)" "$why_v2"
fi
if [ "$dbg" = 1 ] && [ -f $T/vmlinux.blob ]; then
	size=$(wc -c <$T/vmlinux.blob)
	# one byte of the section data changed (its complement)
	cp $T/vmlinux.blob $T/corrupt.blob
	o=$((size / 2))
	b=$(dd if=$T/vmlinux.blob bs=1 skip=$o count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	# shellcheck disable=SC2059 # the octal escape is the format
	printf "\\$(printf %o $((255 - b)))" |
		dd of=$T/corrupt.blob bs=1 seek=$o conv=notrunc 2>/dev/null
	if [ $v2 = 1 ]; then e="Bad message"; else e=; fi
	refused "a blob with one byte changed is refused${e:+ (EBADMSG)}, nothing changes" \
		$T/corrupt.blob "$e"
	head -c $((size - 4096)) $T/vmlinux.blob >$T/trunc.blob
	refused "a truncated blob is refused, nothing changes" $T/trunc.blob close
	if [ $v2 = 1 ]; then
		refused "the loaded vmlinux blob again is refused (EEXIST), nothing changes" \
			$T/vmlinux.blob "File exists"
	else
		skip "the loaded vmlinux blob again is refused (EEXIST)" "$why_v2"
	fi
else
	for t in "a blob with one byte changed is refused" "a truncated blob is refused" \
		"the loaded vmlinux blob again is refused (EEXIST)"; do
		skip "$t" "$KUW_DBG_WHY"
	done
fi

# --- loop unloaded and loaded again -----------------------------------------
check "stock_probe: probe removed" probe_at ""
check "rmmod loop" rmmod loop
if [ $v2 = 1 ] && [ $loader = 1 ]; then
	if table_of loop; then
		diag <$D/tables
		notok "loop's table went with it"
	else
		ok "loop's table went with it"
	fi
	if kunwind-dump export "$DL" -o $T/loop.blob --src debug_frame >$T/export.out 2>&1; then
		refused "loop's blob while loop is not loaded is refused (ENOENT), nothing changes" \
			$T/loop.blob "No such file or directory"
	else
		diag <$T/export.out
		notok "loop's blob while loop is not loaded is refused (ENOENT) (export failed)"
	fi
else
	skip "loop's table went with it" "${w:-$why_loader}"
	skip "loop's blob while loop is not loaded is refused (ENOENT)" "${w:-$why_loader}"
fi
check "insmod stock loop.ko again" insmod "$LOOPKO"
check "stock_probe on loop_set_status+${KUW_OFF_SET_STATUS:-0}" \
	probe_at loop_set_status "${KUW_OFF_SET_STATUS:-0}"
if [ $v2 = 1 ] && [ $loader = 1 ]; then
	if load_objs loop; then
		ok "kunwind-dump load loop (reloaded)"
	else
		notok "kunwind-dump load loop (reloaded)"
	fi
	probe_after "loop reloaded"
else
	skip "kunwind-dump load loop (reloaded)" "$w"
	probe_skip "loop reloaded" "$w"
fi
if [ "$dbg" = 1 ]; then
	ktap_subtest "backtrace_all.sh (after the bad blobs, loop reloaded)" \
		sh /guest/backtrace_all.sh
else
	skip "backtrace_all.sh (after the bad blobs, loop reloaded)" "$KUW_DBG_WHY"
fi

# arm64: a probe on the function's first instruction, one of the two
# patchable ftrace NOPs GCC puts before the FDE: no row covers it, the FDE's
# first row (the NOPs change nothing) must
if [ "$KUW_ARCH" = arm64 ]; then
	check "stock_probe: probe removed (for a probe at +0)" probe_at ""
	n="probe on loop_set_status+0, the ftrace NOPs before its FDE"
	if probe_at loop_set_status 0 2>$T/ins.err; then
		ok "stock_probe on loop_set_status+0"
		if [ $v2 = 1 ] && [ $loader = 1 ]; then
			probe_after "$n"
		else
			probe_skip "$n" "$w"
		fi
	else
		diag <$T/ins.err
		notok "stock_probe on loop_set_status+0"
		probe_skip "$n" "no kprobe at +0"
	fi
fi
# The hung-task detector and /proc/PID/stack of a task held in D state,
# the switch off and on; the host checks their frames (framecheck.py).
ktap_subtest "hung_task.sh" sh /guest/hung_task.sh
# Every node of /dev/kunwind/ at once (scripts/guest/stress.sh; booted
# slub_debug=FZPU), the debug vmlinux's blob unloaded and loaded again
# while walks run.
if [ "$dbg" = 1 ] &&
   kunwind-dump export "$DV" -o $T/stress.blob --src debug_frame >$T/stress.log 2>&1; then
	ktap_subtest "stress.sh (vmlinux blob)" env STRESS_BLOB=$T/stress.blob sh /guest/stress.sh
else
	ktap_subtest "stress.sh" sh /guest/stress.sh
fi
rm -f $T/stress.blob
# The consumers switch on Debian's kernel (ftrace with IPMODIFY, livepatch's
# mechanism): /proc/1/stack answered by kunwind and the same as the
# kernel's; left on for the rmmods below (kunwind unloads with it on).
if [ "$dbg" = 1 ]; then
	ktap_subtest "consumers.sh (vmlinux blob)" sh /guest/consumers.sh
else
	skip "consumers.sh (vmlinux blob)" "$KUW_DBG_WHY"
fi
check "rmmod stock_probe" rmmod stock_probe
check "rmmod hung_payload" rmmod hung_payload
check "rmmod loop" rmmod loop
check "rmmod demo_oops" rmmod demo_oops
# loaded before lockdown was raised, it holds kunwind (it uses its API)
if [ -d /sys/module/reliable_payload ]; then
	check "rmmod reliable_payload" rmmod reliable_payload
else
	skip "rmmod reliable_payload" "not loaded"
fi
check "rmmod kunwind" rmmod kunwind
finish
