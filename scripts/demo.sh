#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot the test kernel with kunwind loaded, show its tables, ask
# its rules for a few functions, then oops deep inside demo_oops.ko (a chain
# of functions built without frame pointers, with .eh_frame and .sframe) and
# print kunwind's trace beside the kernel's own (ORC).
export KUW_ARCH=x86_64	# the x86 bed; make check-arm64 is the arm64 one
. "$(dirname "$0")/lib.sh"

kuw_deps
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"

KDIR=$("$REPO/scripts/build-kernel.sh")
log "building kunwind.ko and demo_oops.ko"
kuw_build_modules "$KDIR" "$WORK"
[ -f "$WORK/src/kunit/demo_oops.ko" ] || die "demo_oops.ko was not built"
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/demo.sh" \
	"/etc/kuw-common.sh=$REPO/scripts/init/common.sh" \
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko"

L="$CACHE/logs/demo-last.log"
rc=0
kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$L" \
	"${KUNWIND_TIMEOUT:-300}" "tsc_early_khz=$(kuw_tsc_khz)" 512M || rc=$?
[ "$rc" = 0 ] || log "guest did not end cleanly (status $rc)"

# Guest output between "kuw-guest: section X" markers.
section() {
	awk -v s="$1" '
		/kuw-guest: section / { on = ($0 ~ "kuw-guest: section " s "$") ; next }
		on && /kuw-out: / { sub(/.*kuw-out: /, "    "); print; next }
		on && /kuw-guest: / { sub(/.*kuw-guest: /, "    "); print }
	' "$L"
}

echo
echo "=== kunwind's tables (/sys/kernel/debug/kunwind/tables)"
section tables
echo
echo "=== kunwind's rules for a few functions (/sys/kernel/debug/kunwind/rules)"
section rules
echo
echo "=== the oops (echo 1 > /sys/kernel/debug/kunwind_demo/oops)"
sed -E 's/^\[ *[0-9.]+\] //' "$L" | sed -n '/^BUG: /,/^Call Trace:/p' |
	grep -E "^(BUG: |Oops: |RIP: 0010|#PF: )" | sed 's/^/    /' | head -n 6
echo
echo "=== call traces: the kernel's (ORC) beside kunwind's"
python3 "$REPO/scripts/oops_traces.py" "$L"
if ! grep -q "kunwind: Call Trace:" "$L"; then
	echo
	echo "(kunwind printed no trace: its oops hook is not in this build yet)"
fi
echo
echo "full serial log: $L"
grep -q "kuw-guest: section oops" "$L" || die "the guest did not reach the oops"
ktrace=$(python3 "$REPO/scripts/oops_traces.py" "$L" --kernel)
case $ktrace in
*demo_depth5*demo_depth1*) ;;
*) die "no kernel trace from demo_depth5 to demo_depth1 in the log" ;;
esac
