#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot the test kernel with kunwind loaded, show its tables, ask
# its rules for a few functions, then oops deep inside demo_oops.ko (a chain
# of functions built without frame pointers, with .eh_frame and .sframe) and
# print kunwind's trace beside the kernel's own (ORC on x86_64).
#
# ARCH=arm64 (make demo ARCH=arm64): the same on the arm64 test kernel of
# make check-arm64 under qemu-system-aarch64; the kernel's own trace there
# comes from frame records.
case ${ARCH:-x86_64} in
x86 | x86_64) KUW_ARCH=x86_64 ;;
arm64 | aarch64) KUW_ARCH=arm64 ;;
*) echo "make demo: ARCH=$ARCH: x86_64 or arm64" >&2; exit 2 ;;
esac
export KUW_ARCH	# build-kernel.sh, mkinitramfs.sh, kuw_build_modules read it
unset ARCH	# the kernel's make must not see it (lib.sh sets it for arm64)
. "$(dirname "$0")/lib.sh"

kuw_deps
[ "$KUW_ARCH" != arm64 ] || kuw_busybox_arm64 >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"

KDIR=$("$REPO/scripts/build-kernel.sh")
log "building kunwind.ko and demo_oops.ko"
kuw_build_modules "$KDIR" "$WORK"
[ -f "$WORK/src/kunit/demo_oops.ko" ] || die "demo_oops.ko was not built"
# The rules /init asks for: entry, the faulting pc (the store through NULL
# in demo_depth5, found in the module's disassembly), a body pc from both
# table kinds, and vmlinux.
if [ "$KUW_ARCH" = arm64 ]; then
	objdump=aarch64-linux-gnu-objdump
	store='str'
else
	objdump=objdump
	store='mov +%[a-z0-9]+,\(%r'
fi
fault=$("$objdump" -d --no-show-raw-insn "$WORK/src/kunit/demo_oops.ko" |
	awk -v re="$store" '/^[0-9a-f]+ <demo_depth5>:/ { f = 1; s = ""; next }
		f && /^$/ { exit }
		f && !s { s = $1 }
		f && seen && $0 ~ re { sub(/:$/, "", $1); print "0x" $1; exit }
		f && /_printk/ { seen = 1 }' || true)
start=$("$objdump" -t "$WORK/src/kunit/demo_oops.ko" |
	awk '$NF == "demo_depth5" { print "0x" $1 }')
if [ -n "$fault" ] && [ -n "$start" ]; then
	fault=$(printf 'demo_depth5+0x%x' $((fault - start)))
else
	fault=demo_depth5+0x3b
fi
printf '%s\n' demo_depth5 "$fault" "demo_depth2+0x20 eh_frame" \
	"demo_depth2+0x20 sframe" vfs_read+0x10 >"$WORK/rules"
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/demo.sh" \
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko" \
	"/etc/kuw-demo-rules=$WORK/rules"

# In this run's directory, then copied: the cache is shared (see check.sh).
L="$WORK/demo-last.log"
rc=0
if [ "$KUW_ARCH" = arm64 ]; then
	kuw_qemu_arm64 "$KDIR/arch/arm64/boot/Image" "$WORK/initrd.gz" "$L" \
		"${KUNWIND_TIMEOUT:-300}" "" 512M || rc=$?
	unwinder="frame records"
else
	kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$L" \
		"${KUNWIND_TIMEOUT:-300}" "tsc_early_khz=$(kuw_tsc_khz)" 512M ||
		rc=$?
	unwinder=ORC
fi
[ "$rc" = 0 ] || log "guest did not end cleanly (status $rc)"
cp -f "$L" "$CACHE/logs/"

echo
echo "=== kunwind's tables (/sys/kernel/debug/kunwind/tables)"
python3 "$REPO/scripts/ktap.py" --diag tables "$L" | sed 's/^/    /'
echo
echo "=== kunwind's rules for a few functions (/dev/kunwind/rules)"
python3 "$REPO/scripts/ktap.py" --diag rules "$L" | sed 's/^/    /'
echo
echo "=== the oops (echo 1 > /dev/kunwind_demo/oops)"
sed -E 's/^\[ *[0-9.]+\] //' "$L" |
	sed -n '/^\(BUG: \|Unable to handle\)/,/^Call [Tt]race:/p' |
	grep -E "^(BUG: |Oops: |RIP: 0010|#PF: |Unable to handle|Internal error: |pc : |lr : )" |
	sed 's/^/    /' | head -n 6
echo
echo "=== call traces: the kernel's ($unwinder) beside kunwind's"
python3 "$REPO/scripts/oops_traces.py" "$L"
if ! grep -q "kunwind: Call Trace:" "$L"; then
	echo
	echo "(kunwind printed no trace: its oops hook is not in this build yet)"
fi
echo
echo "full serial log: $CACHE/logs/demo-last.log"
# The guest's own results (the oops is expected: --allow-oops).
if ! summary=$(python3 "$REPO/scripts/ktap.py" --quiet --allow-oops "$L"); then
	printf '%s\n' "$summary" >&2
	die "the demo guest failed (see above)"
fi
log "demo guest: ${summary##*$'\n'}"
ktrace=$(python3 "$REPO/scripts/oops_traces.py" "$L" --kernel)
case $ktrace in
*demo_depth5*demo_depth1*) ;;
*) die "no kernel trace from demo_depth5 to demo_depth1 in the log" ;;
esac
