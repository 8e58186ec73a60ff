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
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko"

# In this run's directory, then copied: the cache is shared (see check.sh).
L="$WORK/demo-last.log"
rc=0
kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$L" \
	"${KUNWIND_TIMEOUT:-300}" "tsc_early_khz=$(kuw_tsc_khz)" 512M || rc=$?
[ "$rc" = 0 ] || log "guest did not end cleanly (status $rc)"
cp -f "$L" "$CACHE/logs/"

echo
echo "=== kunwind's tables (/sys/kernel/debug/kunwind/tables)"
python3 "$REPO/scripts/ktap.py" --diag tables "$L" | sed 's/^/    /'
echo
echo "=== kunwind's rules for a few functions (/sys/kernel/debug/kunwind/rules)"
python3 "$REPO/scripts/ktap.py" --diag rules "$L" | sed 's/^/    /'
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
