#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-arm64: the aarch64 half of the test bed.
#
#  1. install missing Debian packages: those of make check plus
#     gcc-aarch64-linux-gnu, binutils-aarch64-linux-gnu, qemu-system-arm;
#     busybox-static:arm64 is downloaded into the cache, not installed
#  2. build or reuse the arm64 test kernel (KUW_ARCH=arm64
#     scripts/build-kernel.sh: Debian's 6.1 cross-built, cached), check that
#     .eh_frame and .sframe are loaded sections between their symbols, and
#     that the host tool (make tools) accepts both tables
#  3. cross-build scripts/arm64/hello/ out of tree against it (ARCH=arm64
#     CROSS_COMPILE=aarch64-linux-gnu-), with .eh_frame and .sframe
#  4. cross-build kunwind.ko and the test modules kunit/Kbuild builds for
#     arm64 (the chain suites with kunit/arch/arm64/)
#  5. boot it in qemu-system-aarch64 -M virt -cpu max (TCG, -smp 2) with a
#     busybox initramfs whose /init (scripts/init/arm64.sh) loads and
#     unloads hello.ko, then kunwind.ko: tables, backtraces against
#     /proc/PID/stack, the KUnit suites (smoke, unwind, context,
#     registry); sysrq t at the end
#  6. where the kernel has CONFIG_LIVEPATCH (7.3), make check-livepatch
#     ARCH=arm64 with the modules built here (KUNWIND_LIVEPATCH=0 skips)
#  7. report in KTAP on stdout; the last line is "N passed, N failed"
#     (", N skipped" when some are), like check-stock.sh, so that make
#     check can add it up one day.  Exit status non-zero on any failure.
#
# Knobs: those of lib.sh (KUNWIND_CACHE, KUNWIND_TIMEOUT (default 600,
# 1200 under check-matrix), JOBS...), and KUNWIND_ARM64_CPU (QEMU -cpu, default max,pauth-impdef=on).
export KUW_ARCH=arm64	# build-kernel.sh and mkinitramfs.sh read it too
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-arm64.XXXXXX")
# Logs are written in this run's directory and copied to the cache's logs/
# at the end (as scripts/check.sh does): runs from several work trees share
# the cache, and a log another run rewrites under us would be parsed as ours.
LOGDIR="$WORK/logs"
mkdir -p "$LOGDIR" "$CACHE/logs"
trap 'cp -f "$LOGDIR"/* "$CACHE/logs/" 2>/dev/null; rm -rf "$WORK"' EXIT

NTESTS=12	# and the guest's own results, counted by scripts/ktap.py
tn=0 np=0 nf=0 ns=0
echo "KTAP version 1"
echo "1..$NTESTS"
res() { # ok|fail|skip NAME [REASON]
	tn=$((tn + 1))
	case $1 in
	ok) np=$((np + 1)); echo "ok $tn $2" ;;
	skip) ns=$((ns + 1)); echo "ok $tn $2 # SKIP ${3:-}" ;;
	*) nf=$((nf + 1)); echo "not ok $tn $2" ;;
	esac
}
diag() { sed 's/^/# /'; }
# skip_rest REASON: the tests after a failed step cannot run.
skip_rest() {
	while [ "$tn" -lt "$NTESTS" ]; do
		res skip "(not run)" "$1"
	done
}
summary() {
	if [ "$ns" != 0 ]; then
		echo "$np passed, $nf failed, $ns skipped"
	else
		echo "$np passed, $nf failed"
	fi
	[ "$nf" = 0 ]
}

kuw_deps
kuw_busybox_arm64 >/dev/null
stamp "dependencies ok"

# --- kernel --------------------------------------------------------------
if ! KDIR=$("$REPO/scripts/build-kernel.sh"); then
	res fail "arm64 kernel build"
	skip_rest "no kernel"
	summary
	exit 1
fi
IMAGE="$KDIR/arch/arm64/boot/Image"
stamp "arm64 test kernel: $KDIR"

# 1: each table is a loaded section of its own, starting at its start
# symbol.  The end symbol is the section's end for .eh_frame; for .sframe
# it may lie beyond (ld shrinks the merged .sframe after assigning the
# symbols; the SFrame header bounds the data).
t1=ok
secs=$(aarch64-linux-gnu-readelf -SW "$KDIR/vmlinux")
for s in eh_frame sframe; do
	read -r addr size flags < <(awk -v n=".$s" \
		'{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == n { print $3, $5, $7 }' <<<"$secs") ||
		true
	start=$(awk -v n="__${s}_start" '$3 == n { print $1 }' "$KDIR/System.map")
	end=$(awk -v n="__${s}_end" '$3 == n { print $1 }' "$KDIR/System.map")
	if [ -z "${addr:-}" ] || [ -z "$start" ] || [ -z "$end" ]; then
		echo "# .$s: section or symbols missing"
		t1=fail
	elif [[ $flags != *A* ]] || [ $((16#$start)) != $((16#$addr)) ] ||
		{ [ $s = eh_frame ] && [ $((16#$end - 16#$start)) != $((16#$size)) ]; } ||
		[ $((16#$end - 16#$start)) -lt $((16#$size)) ]; then
		echo "# .$s at $addr size 0x$size flags $flags, symbols $start-$end"
		t1=fail
	else
		echo "# .$s: 0x$start-0x$end, section $((16#$size)) bytes, flags $flags"
	fi
	addr=
done
res "$t1" "arm64 vmlinux keeps .eh_frame and .sframe between their symbols"

# 2: the host tool reads both tables of the image.
if make -C "$REPO" --no-print-directory B="$WORK/host" tools \
	>"$WORK/tools.log" 2>&1 &&
	"$WORK/host/kunwind-dump" check "$KDIR/vmlinux" >"$WORK/dump.out" 2>&1; then
	sed "s|$KDIR/||" "$WORK/dump.out" | diag
	res ok "kunwind-dump check vmlinux"
else
	cat "$WORK/tools.log" "$WORK/dump.out" 2>/dev/null | tail -n 20 | diag
	res fail "kunwind-dump check vmlinux"
fi

# --- hello.ko --------------------------------------------------------------
stamp "building hello.ko"
mkdir -p "$WORK/hello"
cp "$REPO"/scripts/arm64/hello/* "$WORK/hello/"
KO="$WORK/hello/hello.ko"
if kuw_kmake "$KDIR" M="$WORK/hello" modules >"$LOGDIR/arm64-hello-last.log" 2>&1 &&
	[ -f "$KO" ] && ! grep -E "warning|WARNING" "$LOGDIR/arm64-hello-last.log"; then
	res ok "build hello.ko out of tree (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)"
else
	tail -n 20 "$LOGDIR/arm64-hello-last.log" | diag
	res fail "build hello.ko out of tree (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)"
fi
if [ -f "$KO" ]; then
	secs=$(aarch64-linux-gnu-readelf -SW "$KO")
	rels=$(aarch64-linux-gnu-readelf -rW "$KO" |
		awk '/^Relocation section/ { s = $3 } / R_AARCH64_/ { print s, $3 }' |
		sort | uniq -c)
	printf '%s\n' "$rels" | grep -E "\.rela\.(eh_frame|sframe)'" | diag || true
	if grep -q ' \.eh_frame ' <<<"$secs" && grep -q ' \.sframe ' <<<"$secs" &&
		grep -q "'\.rela\.eh_frame' R_AARCH64_PREL32" <<<"$rels"; then
		res ok "hello.ko carries .eh_frame and .sframe (R_AARCH64_PREL32)"
	else
		res fail "hello.ko carries .eh_frame and .sframe (R_AARCH64_PREL32)"
	fi
	if "$WORK/host/kunwind-dump" check "$KO" >"$WORK/dump-ko.out" 2>&1; then
		sed "s|$WORK/hello/||" "$WORK/dump-ko.out" | diag
		res ok "kunwind-dump check hello.ko"
	else
		diag <"$WORK/dump-ko.out"
		res fail "kunwind-dump check hello.ko"
	fi
else
	res skip "hello.ko carries .eh_frame and .sframe" "no hello.ko"
	res skip "kunwind-dump check hello.ko" "no hello.ko"
fi

# --- kunwind.ko --------------------------------------------------------------
stamp "building kunwind.ko and the test modules for arm64"
files=("/etc/kuw-common.sh=$REPO/scripts/init/common.sh"
	"/etc/kuw-ktap.sh=$REPO/scripts/init/ktap.sh"
	"/guest/backtrace_all.sh=$REPO/scripts/guest/backtrace_all.sh")
[ -f "$KO" ] && files+=("/lib/kunwind/hello.ko=$KO")
if kuw_build_modules "$KDIR" "$WORK" 2>"$WORK/modules.err"; then
	files+=("/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko")
	# the end check's on_cpu load is an acquire, before the switch
	# counts: TCG does not reorder loads, the machine code is checked
	if "$REPO/scripts/lint-acquire.sh" "$WORK/src/kunwind.ko" >"$WORK/acquire.out" 2>&1; then
		diag <"$WORK/acquire.out"
		res ok "kunwind.ko reads on_cpu with ldar before the switch counts"
	else
		diag <"$WORK/acquire.out"
		res fail "kunwind.ko reads on_cpu with ldar before the switch counts"
	fi
	mapfile -t -O ${#files[@]} files < <(kuw_kunit_files "$WORK"
		kuw_switch_files "$WORK"; kuw_lockdown_files "$WORK")
else
	tail -n 20 "$WORK/modules.log" | diag
fi
# make stack-usage (README, "Stack use"): every consumer entry's deepest
# stack path, kernel frames included, at most 1024 bytes; kunwind.ko alone
# rebuilt with KUW_STACK_INFO=1 and a few kernel objects compiled again.
# Release 6.1 (the others' kernels compile in a Debian 13 root);
# KUNWIND_STACK=0 skips.
if [ "$KUW_RELEASE" != 6.1 ] || [ "${KUNWIND_STACK:-1}" != 1 ]; then
	res skip "stack use within 1024 bytes" "release $KUW_RELEASE or KUNWIND_STACK=0"
elif KUW_STACK_KDIR="$KDIR" KUW_STACK_WORK="$WORK/stack" \
	"$REPO/scripts/stack-usage.sh" >"$WORK/stack-usage.log" 2>&1; then
	grep -E '^(deepest|total)' "$WORK/stack-usage.log" | diag
	res ok "stack use within 1024 bytes"
else
	tail -n 40 "$WORK/stack-usage.log" | diag
	res fail "stack use within 1024 bytes"
fi

# The lockdown guest's loader: a static aarch64 kunwind-dump, and the
# kernel image it exports vmlinux's table from.
kuw_install libc6-dev-arm64-cross
if make -s -C "$REPO" B="$WORK/guest-tools" CC=aarch64-linux-gnu-gcc \
	"$WORK/guest-tools/kunwind-dump-static" >"$WORK/guest-tools.log" 2>&1; then
	files+=("/usr/bin/kunwind-dump=$WORK/guest-tools/kunwind-dump-static"
		"/boot/vmlinux=$KDIR/vmlinux")
else
	tail -n 20 "$WORK/guest-tools.log" | diag
fi
# the stress of /dev/kunwind/ (scripts/guest/stress.sh), static aarch64
mapfile -t -O ${#files[@]} files < <(kuw_stress_files "$WORK" aarch64-linux-gnu-gcc)
files+=("/guest/stress.sh=$REPO/scripts/guest/stress.sh")

# --- boot ------------------------------------------------------------------
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/arm64.sh" \
	"${files[@]}"
# the stress: 10^5 operations, 10^6 under check-matrix (kuw_stress_files)
if [ "${KUNWIND_MATRIX:-0}" = 1 ]; then
	tmo=${KUNWIND_TIMEOUT:-1200}
else
	tmo=${KUNWIND_TIMEOUT:-600}
fi
# slab debugging on where the kernel has it: the stress validates every cache
sdbg=
! grep -q '^CONFIG_SLUB_DEBUG=y' "$KDIR/.config" || sdbg="slub_debug=FZPU"
guestlog="$LOGDIR/check-arm64-last.log"
stamp "guest: booting the arm64 kernel"
qrc=0
b0=$(date +%s.%N)
kuw_qemu_arm64 "$IMAGE" "$WORK/initrd.gz" "$guestlog" "$tmo" "$sdbg" 512M || qrc=$?
wall=$(awk -v a="$b0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[ "$qrc" = 124 ] && log "guest TIMEOUT after ${tmo}s"
stamp "guest ended (log: $guestlog)"

# The guest's own lines, without the kernel's timestamps.
glines=$(sed -n 's/^.*kuw-guest: //p' "$guestlog")
up=$(sed -n 's/^# uptime \([0-9.]*\) .*/\1/p' <<<"$glines")
printf '%s\n' "$glines" | grep -v -E '^ *(ok|not ok) ' | sed 's/^# /# guest: /'
# 6: /init ran, and the guest ended itself (PSCI reset + -no-reboot).
if [ "$qrc" = 0 ] && grep -qx "# start" <<<"$glines" &&
	grep -qx "# done" <<<"$glines"; then
	echo "# boot: /init at ${up:-?} s of guest uptime, QEMU start to exit ${wall} s"
	res ok "arm64 boot"
else
	echo "# QEMU exit $qrc after ${wall} s; last lines of the log:"
	tail -n 15 "$guestlog" | diag
	res fail "arm64 boot"
fi
# gres PATTERN NAME: the guest checks matching PATTERN all passed.
gres() {
	if grep -qE "^not ok [0-9]+ ($1)" <<<"$glines" ||
		! grep -qE "^ok [0-9]+ ($1)" <<<"$glines"; then
		res fail "$2"
	else
		res ok "$2"
	fi
}
gres "insmod hello.ko|hello in /proc/modules" "insmod hello"
# 8: the kernel's own trace (frame pointers) from hello_init's callees.
trace=$(sed -E 's/^\[ *[0-9.]+\] //' "$guestlog" |
	sed -n '/hello: dump_stack from hello_depth2/,/hello: loaded/p')
if grep -q "^ *hello_depth2+0x[0-9a-f]*/0x[0-9a-f]* \[hello\]" <<<"$trace" &&
	grep -q "^ *hello_depth1+0x[0-9a-f]*/0x[0-9a-f]* \[hello\]" <<<"$trace" &&
	grep -q "^ *hello_init+0x[0-9a-f]*/0x[0-9a-f]* \[hello\]" <<<"$trace"; then
	grep -E '^(Call trace:| +[a-z_0-9.]+\+0x)' <<<"$trace" | head -n 8 | diag
	res ok "kernel trace through hello.ko's frames"
else
	res fail "kernel trace through hello.ko's frames"
fi
gres "rmmod hello" "rmmod hello"
# 10: sysrq t prints the kernel's traces of every task.
nt=$(sed -n '/kuw-guest: # sysrq t/,$p' "$guestlog" | grep -c "Call trace:" || true)
if [ "$nt" -gt 1 ]; then
	echo "# sysrq t: $nt call traces"
	res ok "sysrq t call traces"
else
	res fail "sysrq t call traces"
fi
# 11: no warning, oops or panic in the whole log (scripts/ktap.py's list;
# its verdict on the guest checks is counted above).
probs=$(python3 "$REPO/scripts/ktap.py" "$guestlog" | grep '^FAIL kernel' || true)
if [ -z "$probs" ] && [ -s "$guestlog" ]; then
	res ok "no kernel warnings, oopses or panics"
else
	printf '%s\n' "$probs" | diag
	res fail "no kernel warnings, oopses or panics"
fi

# The guest's KTAP document and KUnit suites, as make check counts them.
set +e
gsum=$(python3 "$REPO/scripts/ktap.py" "$guestlog")
set -e
printf '%s\n' "$gsum" | sed '$d' | diag || true
read -r gp gf gs < <(printf '%s\n' "$gsum" | tail -n 1 |
	sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') || true
[ -n "${gp:-}" ] || { gp=0 gf=1 gs=0; }
echo "# guest: $gp passed, $gf failed, $gs skipped"
np=$((np + gp)) nf=$((nf + gf)) ns=$((ns + gs))

# The switch guest: the same initramfs, rdinit=/init-switch, one TCG thread.
stamp "switch guest: kunwind behind the kernel's consumers (scripts/init/check.sh as /init-switch)"
read -r gp gf gs < <(kuw_switch_guest "$IMAGE" "$WORK/initrd.gz" \
	"$LOGDIR/check-arm64-switch-last.log" 2> >(diag))
echo "# switch guest: $gp passed, $gf failed, $gs skipped (log: $LOGDIR/check-arm64-switch-last.log)"
np=$((np + gp)) nf=$((nf + gf)) ns=$((ns + gs))

# The lockdown guests: the same initramfs, rdinit=/init-lockdown.
stamp "lockdown guests: a Secure Boot machine's lockdown, signed modules (scripts/init/lockdown.sh as /init-lockdown)"
kuw_lockdown_guests "$IMAGE" "$WORK/initrd.gz" "$LOGDIR/check-arm64-lockdown" \
	>"$WORK/lockdown.counts" 2>"$WORK/lockdown.out" || true
diag <"$WORK/lockdown.out"
read -r gp gf gs <"$WORK/lockdown.counts" || true
[ -n "${gp:-}" ] || { gp=0 gf=1 gs=0; }
echo "# lockdown guests: $gp passed, $gf failed, $gs skipped (logs: $LOGDIR/check-arm64-lockdown-*.log)"
np=$((np + gp)) nf=$((nf + gf)) ns=$((ns + gs))

# Livepatch with kunwind's reliable hook off and on (make check-livepatch
# ARCH=arm64), where the test kernel has it (its .config says): the
# kernel's own reliable walk gives up at every exception boundary.
if [ "${KUNWIND_LIVEPATCH:-1}" = 1 ] && grep -q '^CONFIG_LIVEPATCH=y' "$KDIR/.config"; then
	stamp "livepatch guest: patches under a load preempted in them, kunwind's reliable hook off and on (scripts/check-livepatch.sh; KUNWIND_LIVEPATCH=0 skips)"
	env ARCH=arm64 RELEASE="$KUW_RELEASE" KERNEL=test KUW_LP_WORK="$WORK" \
		"$REPO/scripts/check-livepatch.sh" >"$WORK/livepatch.out" 2>&1 || true
	sed '$d' "$WORK/livepatch.out" | sed 's/^# //' | diag
	gp='' gf='' gs=''
	read -r gp gf gs < <(tail -n 1 "$WORK/livepatch.out" | sed -n -E \
		's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p') || true
	[ -n "${gp:-}" ] || { gp=0 gf=1 gs=0; }
	echo "# livepatch guest: $gp passed, $gf failed, ${gs:-0} skipped"
	np=$((np + gp)) nf=$((nf + gf)) ns=$((ns + ${gs:-0}))
fi

stamp "done"
summary
