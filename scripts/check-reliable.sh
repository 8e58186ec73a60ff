#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-reliable: scripts/guest/reliable.sh alone, in one short boot
# with preempt=full (arm64 reliable beyond the kernel's own):
# kunwind's reliable walks of preempted tasks against the kernel's.
#
#   make check-reliable [RELEASE=7.3] [ARCH=arm64] [KERNEL=test|stock]
#
# KERNEL=test (default): the test kernel of RELEASE and ARCH
# (scripts/build-kernel.sh, cached), whose vmlinux keeps its unwind tables.
# KERNEL=stock: Debian's stock kernel of the release, as `make check-stock`
# unpacked it into the cache (run that first: make check-stock runs
# reliable.sh too, with everything else), with the vmlinux blob exported
# from its trimmed -dbg vmlinux (KUNWIND_RELIABLE_BLOB=FILE another one,
# =none without: kunwind then has only the module tables).
# Results: the guest's KTAP (scripts/init/reliable.sh), parsed by
# scripts/ktap.py; its last line "N passed, N failed[, N skipped]".
case ${ARCH:-arm64} in
x86 | x86_64 | amd64) KUW_ARCH=x86_64 da=amd64 ;;
arm64 | aarch64) KUW_ARCH=arm64 da=arm64 ;;
*) echo "make check-reliable: ARCH=$ARCH: x86_64 or arm64" >&2; exit 2 ;;
esac
KUW_RELEASE=${RELEASE:-${KUW_RELEASE:-7.3}}
export KUW_ARCH KUW_RELEASE
unset ARCH RELEASE MAKEFLAGS MFLAGS MAKELEVEL
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kernel=${KERNEL:-test}
kuw_deps
[ "$KUW_ARCH" != arm64 ] || kuw_busybox_arm64 >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-reliable.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
files=("/guest/reliable.sh=$REPO/scripts/guest/reliable.sh")

case $kernel in
test)
	KDIR=$("$REPO/scripts/build-kernel.sh") || die "no test kernel"
	if [ "$KUW_ARCH" = arm64 ]; then
		IMAGE="$KDIR/arch/arm64/boot/Image"
	else
		IMAGE="$KDIR/arch/x86/boot/bzImage"
	fi
	;;
stock)
	# Debian's stock kernel as make check-stock unpacked it, and the
	# vmlinux blob of its trimmed -dbg vmlinux (KUNWIND_RELIABLE_BLOB
	# names another; "none": without)
	kver=$(kuw_stock_kver "$KUW_RELEASE" "$da") || die "no linux-image-$da of $KUW_RELEASE"
	d="$CACHE/stock/$kver"
	[ -f "$d/.kuw-ok" ] || die "$d: run make check-stock RELEASE=$KUW_RELEASE ARCH=$KUW_ARCH first"
	KDIR=$(kuw_headers_fetch "$da" "$kver") || die "linux-headers-$kver"
	IMAGE=$(ls "$d"/root/boot/vmlinuz-"$kver" "$d"/root/usr/lib/modules/"$kver"/vmlinuz \
		2>/dev/null | head -n 1 || true)
	[ -n "$IMAGE" ] || die "no kernel image in $d"
	if [ "$KUW_ARCH" = arm64 ] && [ "$(head -c 2 "$IMAGE" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		zcat "$IMAGE" >"$WORK/Image"
		IMAGE="$WORK/Image"
	fi
	blob=${KUNWIND_RELIABLE_BLOB:-}
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
log "kernel: $IMAGE (modules against $KDIR)"

kuw_build_modules "$KDIR" "$WORK" || die "module build failed"
[ -f "$WORK/src/kunit/reliable_payload.ko" ] || die "reliable_payload.ko was not built"
files+=("/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko"
	"/lib/kunwind/kunit/reliable_payload.ko=$WORK/src/kunit/reliable_payload.ko")
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/reliable.sh" \
	"${files[@]}"

L="$WORK/reliable-$KUW_RELEASE-$KUW_ARCH-$kernel-last.log"
if [ "$KUW_ARCH" = arm64 ]; then
	kuw_qemu_arm64 "$IMAGE" "$WORK/initrd.gz" "$L" "${KUNWIND_TIMEOUT:-300}" \
		"preempt=full" 512M || true
else
	kuw_qemu "$IMAGE" "$WORK/initrd.gz" "$L" "${KUNWIND_TIMEOUT:-300}" \
		"preempt=full tsc_early_khz=$(kuw_tsc_khz)" 512M || true
fi
cp -f "$L" "$CACHE/logs/"
log "log: $CACHE/logs/${L##*/}"
sed -n 's/^.*kuw-guest: .*# \(reliable: tasks .*\)$/# \1/p' "$L" || true
python3 "$REPO/scripts/ktap.py" "$L"
