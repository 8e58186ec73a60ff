#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: in-guest benchmark, kunwind against ORC (skeleton).
#
# Boots the test kernel, loads kunwind.ko and every kunit/*bench*.ko (a
# benchmark module measures at load and prints lines starting with
# "kunwind-bench:"), and prints those lines.
#
#   BENCH_MODE=time    (default) real time, -smp 2, tsc_early_khz=<host>:
#                      compare contenders only within one boot, interleaved
#   BENCH_MODE=icount  deterministic: -icount shift=0,sleep=off makes one
#                      guest ns one guest instruction (tsc_early_khz=1000000);
#                      report instructions per frame from this mode
. "$(dirname "$0")/lib.sh"

kuw_deps
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
KDIR=$("$REPO/scripts/build-kernel.sh")
kuw_build_modules "$KDIR" "$WORK"
files=("/etc/kuw-common.sh=$REPO/scripts/init/common.sh"
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko")
for m in "$WORK"/src/kunit/*bench*.ko; do
	[ -f "$m" ] && files+=("/lib/kunwind/kunit/${m##*/}=$m")
done
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/bench.sh" \
	"${files[@]}"
L="$CACHE/logs/bench-last.log"
mode=${BENCH_MODE:-time}
if [ "$mode" = icount ]; then
	# Deterministic, so one CPU and no real-time dependence.
	KUNWIND_ACCEL=tcg QEMU_EXTRA="-icount shift=0,sleep=off" \
		kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$L" \
		"${KUNWIND_TIMEOUT:-900}" "tsc_early_khz=1000000" 512M || true
else
	kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$L" \
		"${KUNWIND_TIMEOUT:-900}" "tsc_early_khz=$(kuw_tsc_khz)" 512M || true
fi
grep -E "kunwind-bench:|kuw-guest: (not )?ok|kuw-guest: #" "$L" |
	sed -E 's/^\[ *[0-9.]+\] //; s/^kuw-guest: //'
python3 "$REPO/scripts/ktap.py" "$L"
