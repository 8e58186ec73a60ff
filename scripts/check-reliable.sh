#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-reliable: scripts/guest/reliable.sh alone, in one short boot
# with preempt=full (issue 19, "arm64 reliable beyond the kernel's own"):
# kunwind's reliable walks of preempted tasks against the kernel's.
#
#   make check-reliable [RELEASE=7.3] [ARCH=arm64] [KERNEL=test|stock]
#
# KERNEL=test (default): the test kernel of RELEASE and ARCH
# (scripts/build-kernel.sh, cached), whose vmlinux keeps its unwind tables.
# KERNEL=stock: Debian's stock kernel of the release whose headers `make
# check-headers` unpacked into the cache (7.x: linux-binary-<kver>, 6.x:
# linux-image-<kver>; downloaded once into $CACHE/reliable/<kver>/, the
# .deb deleted); kunwind has only the module tables there unless
# KUNWIND_RELIABLE_BLOB names a vmlinux blob of that build (kunwind-dump
# export of its -dbg vmlinux), written to kunwind/load in the guest.
# Results: the guest's KTAP (scripts/init/reliable.sh), parsed by
# scripts/ktap.py; its last line "N passed, N failed[, N skipped]".
case ${ARCH:-arm64} in
x86 | x86_64 | amd64) KUW_ARCH=x86_64 da=amd64 q= ;;
arm64 | aarch64) KUW_ARCH=arm64 da=arm64 q=:arm64 ;;
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
	KDIR=$(ls -d "$CACHE"/headers/"$KUW_RELEASE".*/root/usr/src/linux-headers-*-"$da" \
		2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$KDIR" ] || die "no unpacked linux-headers of $KUW_RELEASE for $da: run make check-headers first"
	kver=${KDIR##*/linux-headers-}
	d="$CACHE/reliable/$kver"
	if [ ! -f "$d/.kuw-ok" ]; then
		rm -rf "$d"
		case $KUW_RELEASE in
		6.*) pkg=linux-image-$kver ;;
		*) pkg=linux-binary-$kver ;;
		esac
		log "downloading $pkg"
		kuw_apt_download "$d/debs" "$pkg$q"
		for deb in "$d"/debs/*.deb; do
			dpkg-deb -x "$deb" "$d/root"
		done
		rm -rf "$d/debs"
		touch "$d/.kuw-ok"
	fi
	IMAGE=$(ls "$d"/root/boot/vmlinuz-"$kver" "$d"/root/usr/lib/modules/"$kver"/vmlinuz \
		2>/dev/null | head -n 1 || true)
	[ -n "$IMAGE" ] || die "no kernel image in $d"
	if [ "$KUW_ARCH" = arm64 ] && [ "$(head -c 2 "$IMAGE" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		zcat "$IMAGE" >"$WORK/Image"
		IMAGE="$WORK/Image"
	fi
	if [ -n "${KUNWIND_RELIABLE_BLOB:-}" ]; then
		files+=("/lib/kunwind/vmlinux.blob=$KUNWIND_RELIABLE_BLOB")
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
