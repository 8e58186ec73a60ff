#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-livepatch: livepatch as a real client of the reliable
# unwinder, in one preempt=full boot on one TCG thread
# (scripts/init/livepatch.sh, scripts/guest-livepatch/livepatch.sh): a
# livepatch of a module whose threads sleep and are preempted inside the
# patched function (kunit/lpt_target.c, kunit/lpt_patch.c) and the
# kernel's samples/livepatch/livepatch-sample.ko, enabled and disabled
# under that load with kunwind's answer to stack_trace_save_tsk_reliable()
# off, then on.  Each transition is timed and its stragglers named; the
# invariant (no task runs a function it was switched away from) is
# checked by the patched functions themselves.
#
#   make check-livepatch [RELEASE=7.3] [ARCH=x86_64] [KERNEL=test|stock]
#
# KERNEL=test (default): the test kernel of RELEASE and ARCH
# (scripts/build-kernel.sh, cached) and its livepatch sample.
# KERNEL=stock: Debian's stock kernel of the release, as make check-stock
# unpacked it into the cache (run that first), with the vmlinux blob
# exported from its -dbg vmlinux (KUNWIND_LIVEPATCH_BLOB=FILE another
# one); its sample where the package ships one.
# A kernel without CONFIG_LIVEPATCH (its .config) is skipped, said so.
# KUW_LP_WORK=DIR: the modules already built there (DIR/src/kunwind.ko,
# DIR/src/kunit/lpt_*.ko: make check's cells pass theirs).
# Guest knobs, passed through: LIVEPATCH_LOAD="S P N" (threads per CPU:
# sleepers, preempted callers, spinners; default "1 2 2"),
# LIVEPATCH_STALL (seconds before a transition counts as stalled,
# default 20), LIVEPATCH_HOOKS (default "off on"), LIVEPATCH_ROUNDS
# (lpt_patch enabled and disabled this many times per hook, default 1).
# Results: the guest's KTAP, parsed by scripts/ktap.py, then a table
# (kernel, hook, patch, direction, transition time, tasks waited on, the
# reliable walks kunwind answered and left to the kernel, violations);
# last line "N passed, N failed[, N skipped]".
case ${ARCH:-x86_64} in
x86 | x86_64 | amd64) KUW_ARCH=x86_64 da=amd64 ;;
arm64 | aarch64) KUW_ARCH=arm64 da=arm64 ;;
*) echo "make check-livepatch: ARCH=$ARCH: x86_64 or arm64" >&2; exit 2 ;;
esac
KUW_RELEASE=${RELEASE:-${KUW_RELEASE:-7.3}}
export KUW_ARCH KUW_RELEASE
unset ARCH RELEASE MAKEFLAGS MFLAGS MAKELEVEL
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kernel=${KERNEL:-test}
kuw_deps
[ "$KUW_ARCH" != arm64 ] || kuw_busybox_arm64 >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-livepatch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
files=("/guest/livepatch.sh=$REPO/scripts/guest-livepatch/livepatch.sh")
sample=

case $kernel in
test)
	KDIR=$("$REPO/scripts/build-kernel.sh") || die "no test kernel"
	if [ "$KUW_ARCH" = arm64 ]; then
		IMAGE="$KDIR/arch/arm64/boot/Image"
	else
		IMAGE="$KDIR/arch/x86/boot/bzImage"
	fi
	config=$KDIR/.config
	sample=$KDIR/samples/livepatch/livepatch-sample.ko
	label="$KUW_RELEASE test $KUW_ARCH"
	;;
stock)
	kver=$(kuw_stock_kver "$KUW_RELEASE" "$da") || die "no linux-image-$da of $KUW_RELEASE"
	d="$CACHE/stock/$kver"
	[ -f "$d/.kuw-ok" ] || die "$d: run make check-stock RELEASE=$KUW_RELEASE ARCH=$KUW_ARCH first"
	KDIR=$(kuw_headers_fetch "$da" "$kver") || die "linux-headers-$kver"
	# shellcheck disable=SC2012 # cache paths, no odd names
	IMAGE=$(ls "$d"/root/boot/vmlinuz-"$kver" "$d"/root/usr/lib/modules/"$kver"/vmlinuz \
		2>/dev/null | head -n 1 || true)
	[ -n "$IMAGE" ] || die "no kernel image in $d"
	if [ "$KUW_ARCH" = arm64 ] && [ "$(head -c 2 "$IMAGE" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		zcat "$IMAGE" >"$WORK/Image"
		IMAGE="$WORK/Image"
	fi
	config=$KDIR/.config
	sample=$(find "$d/root" -name 'livepatch-sample.ko*' 2>/dev/null | head -n 1)
	label="$kver stock"
	blob=${KUNWIND_LIVEPATCH_BLOB:-}
	dv=$(find "$d/dbg/root" -type f -name "vmlinux*" 2>/dev/null | head -n 1)
	if [ -z "$blob" ] && [ -n "$dv" ]; then
		make -s -C "$REPO" B="$WORK/tools" "$WORK/tools/kunwind-dump" >/dev/null &&
			"$WORK/tools/kunwind-dump" export "$dv" -o "$WORK/vmlinux.blob" \
				--src debug_frame >/dev/null && blob=$WORK/vmlinux.blob
	fi
	if [ -n "$blob" ] && [ "$blob" != none ]; then
		files+=("/lib/kunwind/vmlinux.blob=$blob")
	fi
	;;
*) die "KERNEL=$kernel: test or stock" ;;
esac
if ! grep -q '^CONFIG_LIVEPATCH=y' "$config"; then
	log "$label: no CONFIG_LIVEPATCH in $config: nothing to patch"
	echo "ok 1 livepatch # SKIP no CONFIG_LIVEPATCH in this kernel"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
log "kernel: $IMAGE (modules against $KDIR)"

if [ -n "${KUW_LP_WORK:-}" ]; then
	M=$KUW_LP_WORK
else
	kuw_build_modules "$KDIR" "$WORK" || die "module build failed"
	M=$WORK
fi
for k in kunwind kunit/lpt_target kunit/lpt_patch; do
	[ -f "$M/src/$k.ko" ] || die "$k.ko was not built (in $M/src)"
done
files+=("/lib/kunwind/kunwind.ko=$M/src/kunwind.ko"
	"/lib/kunwind/kunit/lpt_target.ko=$M/src/kunit/lpt_target.ko"
	"/lib/kunwind/kunit/lpt_patch.ko=$M/src/kunit/lpt_patch.ko")
case $sample in
"") log "no livepatch-sample.ko: the guest skips the sample" ;;
*.xz) xz -dc "$sample" >"$WORK/livepatch-sample.ko" &&
	files+=("/lib/kunwind/livepatch-sample.ko=$WORK/livepatch-sample.ko") ;;
*) [ -f "$sample" ] && files+=("/lib/kunwind/livepatch-sample.ko=$sample") ;;
esac
# The guest's knobs, as a file its /init sources.
{
	for v in LIVEPATCH_LOAD LIVEPATCH_STALL LIVEPATCH_HOOKS LIVEPATCH_ROUNDS; do
		[ -z "${!v:-}" ] || printf 'export %s="%s"\n' "$v" "${!v}"
	done
} >"$WORK/knobs"
files+=("/etc/kuw-livepatch=$WORK/knobs")
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/livepatch.sh" \
	"${files[@]}"

# One TCG thread: enabling a patch patches text the other vCPU runs
# (kuw_switch_guest in lib.sh says why that needs it).
L="$WORK/livepatch-$KUW_RELEASE-$KUW_ARCH-$kernel-last.log"
if [ "$KUW_ARCH" = arm64 ]; then
	KUW_TCG_SINGLE=1 kuw_qemu_arm64 "$IMAGE" "$WORK/initrd.gz" "$L" \
		"${KUNWIND_TIMEOUT:-600}" "preempt=full" 512M || true
else
	KUW_TCG_SINGLE=1 kuw_qemu "$IMAGE" "$WORK/initrd.gz" "$L" \
		"${KUNWIND_TIMEOUT:-600}" "preempt=full tsc_early_khz=$(kuw_tsc_khz)" 512M ||
		true
fi
cp -f "$L" "$CACHE/logs/"
log "log: $CACHE/logs/${L##*/}"
sed -n 's/^.*kuw-guest: *# \(lpt_patch .*\|livepatch_sample: .*\|lpt_patch: .*\)$/# \1/p' "$L" || true
# The table: one row per transition.
{
	printf 'kernel|hook|patch|direction|transition|tasks waited on (after the first pass; last)|reliable walks|violations\n'
	sed -n 's/^.*kuw-guest: *# lp-row: [^|]*|//p' "$L" | sed "s/^/$label|/"
} | awk -F'|' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR; nf = NF }
	END { for (r = 1; r <= n; r++) { s = ""; for (i = 1; i <= nf; i++) s = s sprintf("%-" w[i] "s  ", c[r, i]); sub(/ +$/, "", s); print "# " s } }'
python3 "$REPO/scripts/ktap.py" "$L"
