#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-clients: real clients in a guest, every kernel frame they print
# checked against the machine code.
#
#   make check-clients [RELEASE=6.1|6.12|7.3] [ARCH=x86_64|arm64] [KERNEL=test|stock]
#
#  1. the clients overlay of the release's Debian suite and the guest's
#     architecture (scripts/clients-overlay.sh, cached): Debian's own
#     linux-perf and bpftrace with their dependencies; perf alone for a
#     test kernel, which has no BPF syscall;
#  2. kunwind.ko built against the kernel (KERNEL=test: the test kernel of
#     RELEASE and ARCH, scripts/build-kernel.sh; KERNEL=stock: Debian's,
#     as make check-stock unpacked it, with the vmlinux blob exported from
#     its trimmed -dbg vmlinux: run make check-stock first);
#  3. a guest (-m 2G, nokaslr, both vCPUs on one TCG thread: the switch
#     patches text) whose /init (scripts/init/clients.sh) loads kunwind,
#     runs kernel-heavy loops on both vCPUs and, with the consumers switch
#     off, then on: perf record -a -g (cpu-clock), bpftrace kstack maps of
#     a kprobe at a function's entry and of a profile probe, and
#     /proc/PID/stack of every task; each output comes back on the console;
#  4. scripts/clients_report.py checks every frame of every output with
#     scripts/framecheck.py against the kernel's own code (the test
#     kernel's vmlinux; for the stock kernel its -dbg symbols with the code
#     of the image that booted) and kunwind.ko placed where it was loaded,
#     prints the table (client, switch, samples, frames, and each class)
#     and the results: chains found, no frame "not after a call" either
#     way, on x86_64 nearly every frame verified both ways, on arm64 fewer
#     callers skipped with the switch on than off.
#
# Volume: KUNWIND_CLIENTS_SECONDS a recording (default 3; 60 under
# KUNWIND_MATRIX=1, where a cell checks 10^5 frames and more: the test
# kernels have no high-resolution timers, and cpu-clock gave about 120
# samples a second a CPU there whatever -F asks),
# KUNWIND_CLIENTS_HZ (default 250),
# KUNWIND_CLIENTS_KPROBE (the functions bpftrace probes at their entry,
# default "vfs_read kfree").
# From scripts/check.sh: KUW_CLIENTS_KDIR and KUW_CLIENTS_SRC (a tree
# where kunwind.ko is built against it) reuse the cell's build.
# Last line: "N passed, N failed[, N skipped]".
case ${ARCH:-x86_64} in
x86 | x86_64 | amd64) KUW_ARCH=x86_64 da=amd64 ;;
arm64 | aarch64) KUW_ARCH=arm64 da=arm64 ;;
*) echo "make check-clients: ARCH=$ARCH: x86_64 or arm64" >&2; exit 2 ;;
esac
KUW_RELEASE=${RELEASE:-${KUW_RELEASE:-6.1}}
export KUW_ARCH KUW_RELEASE
unset ARCH RELEASE MAKEFLAGS MFLAGS MAKELEVEL
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }
kernel=${KERNEL:-test}
case $kernel in test | stock) ;; *) die "KERNEL=$kernel: test or stock" ;; esac
if [ "${KUNWIND_MATRIX:-0}" = 1 ]; then
	sec=${KUNWIND_CLIENTS_SECONDS:-60} hz=${KUNWIND_CLIENTS_HZ:-250}
else
	sec=${KUNWIND_CLIENTS_SECONDS:-3} hz=${KUNWIND_CLIENTS_HZ:-250}
fi
suite=$(kuw_release_codename "$KUW_RELEASE")
kuw_deps
[ "$KUW_ARCH" != arm64 ] || kuw_busybox_arm64 >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-clients.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
tag=$KUW_RELEASE-$KUW_ARCH-$kernel
HK="$WORK/host.ktap"
files=()

case $kernel in
test)
	set=perf
	KDIR=${KUW_CLIENTS_KDIR:-$("$REPO/scripts/build-kernel.sh")} || die "no test kernel"
	if [ "$KUW_ARCH" = arm64 ]; then
		IMAGE="$KDIR/arch/arm64/boot/Image"
	else
		IMAGE="$KDIR/arch/x86/boot/bzImage"
	fi
	VMLINUX=$KDIR/vmlinux
	;;
stock)
	set=all
	kver=$(kuw_stock_kver "$KUW_RELEASE" "$da") || die "no linux-image-$da of $KUW_RELEASE"
	st="$CACHE/stock/$kver"
	[ -f "$st/.kuw-ok" ] && [ -f "$st/dbg/.kuw-ok" ] ||
		die "$st: run make check-stock RELEASE=$KUW_RELEASE ARCH=$KUW_ARCH first (the kernel and its -dbg files)"
	KDIR=${KUW_CLIENTS_KDIR:-$(kuw_headers_fetch "$da" "$kver")} || die "linux-headers-$kver"
	IMAGE=$(ls "$st"/root/boot/vmlinuz-"$kver" "$st"/root/usr/lib/modules/"$kver"/vmlinuz \
		2>/dev/null | head -n 1 || true)
	[ -n "$IMAGE" ] || die "no kernel image in $st"
	if [ "$KUW_ARCH" = arm64 ] && [ "$(head -c 2 "$IMAGE" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		zcat "$IMAGE" >"$WORK/Image"
		IMAGE="$WORK/Image"
	fi
	dv=$(find "$st/dbg/root" -type f -name "vmlinux*" | head -n 1)
	[ -n "$dv" ] || die "no debug vmlinux under $st/dbg/root"
	make -s -C "$REPO" B="$WORK/tools" "$WORK/tools/kunwind-dump" >/dev/null ||
		die "kunwind-dump did not build"
	"$WORK/tools/kunwind-dump" export "$dv" -o "$WORK/vmlinux.blob" \
		--src debug_frame >/dev/null || die "kunwind-dump export $dv failed"
	files+=("/lib/kunwind/vmlinux.blob=$WORK/vmlinux.blob")
	# The trimmed -dbg vmlinux keeps symbols, not code: the code is the
	# image's that booted, put back into its sections once.
	VMLINUX="$CACHE/clients/vmlinux-$kver"
	if [ ! -s "$VMLINUX" ] || [ "$VMLINUX" -ot "$dv" ] ||
	   [ "$VMLINUX" -ot "$REPO/scripts/clients_report.py" ]; then
		python3 "$REPO/scripts/clients_report.py" image "$dv" "$IMAGE" "$VMLINUX.tmp" ||
			die "the stock kernel's code could not be put into $dv"
		mv -f "$VMLINUX.tmp" "$VMLINUX"
	fi
	;;
esac
stamp "kernel: $IMAGE (vmlinux for the checks: $VMLINUX)"

overlay=$("$REPO/scripts/clients-overlay.sh" "$suite" "$da" "$set") ||
	die "the clients overlay ($suite $da $set) could not be built"
stamp "clients overlay: $overlay ($(cat "${overlay%/*}/sizes"))"

if [ -n "${KUW_CLIENTS_SRC:-}" ]; then
	SRC=$KUW_CLIENTS_SRC
else
	kuw_build_modules "$KDIR" "$WORK" || die "module build failed"
	SRC=$WORK/src
fi
[ -f "$SRC/kunwind.ko" ] || die "no kunwind.ko in $SRC"
stamp "kunwind.ko: $SRC/kunwind.ko"

{
	echo "KUW_CLIENTS_SECONDS=$sec"
	echo "KUW_CLIENTS_HZ=$hz"
	echo "KUW_CLIENTS_KPROBE='${KUNWIND_CLIENTS_KPROBE:-vfs_read kfree}'"
} >"$WORK/clients.conf"
files+=("/lib/kunwind/kunwind.ko=$SRC/kunwind.ko" "/etc/kuw-clients.conf=$WORK/clients.conf")
# perf's stand-in eventfd for a kernel without one (scripts/clients/eventfd.c)
if [ "$KUW_ARCH" = arm64 ]; then cc=aarch64-linux-gnu-gcc; else cc=gcc; fi
"$cc" -shared -fPIC -O2 -Wall -o "$WORK/eventfd.so" "$REPO/scripts/clients/eventfd.c" ||
	die "scripts/clients/eventfd.c did not build"
files+=("/usr/lib/kunwind/eventfd.so=$WORK/eventfd.so")
"$REPO/scripts/mkinitramfs.sh" "$WORK/base.gz" "$REPO/scripts/init/clients.sh" \
	"${files[@]}"
# the overlay after the base: the kernel unpacks one archive after the other
cat "$WORK/base.gz" "$overlay" >"$WORK/initrd.gz"

L="$WORK/clients-$tag-last.log"
tmo=${KUNWIND_TIMEOUT:-$((900 + 40 * sec))}
if [ "$set" = all ]; then what="perf and bpftrace"; else what=perf; fi
stamp "guest: $what, $sec s a recording at $hz Hz (timeout ${tmo}s)"
if [ "$KUW_ARCH" = arm64 ]; then
	KUW_TCG_SINGLE=1 kuw_qemu_arm64 "$IMAGE" "$WORK/initrd.gz" "$L" "$tmo" \
		"nokaslr" 2G || true
else
	KUW_TCG_SINGLE=1 kuw_qemu "$IMAGE" "$WORK/initrd.gz" "$L" "$tmo" \
		"nokaslr tsc_early_khz=$(kuw_tsc_khz)" 2G || true
fi
cp -f "$L" "$CACHE/logs/"
stamp "guest ended (log: $CACHE/logs/${L##*/})"

mods=(--module "$SRC/kunwind.ko")
rargs=()
[ "${KUNWIND_MATRIX:-0}" != 1 ] || rargs+=(--min-frames 100000)
python3 "$REPO/scripts/clients_report.py" report "$L" -k "$VMLINUX" "${mods[@]}" \
	--arch "$KUW_ARCH" --out "$WORK/out" --ktap "$HK" --title "$tag" "${rargs[@]}" ||
	log "clients_report.py failed"
if [ -d "$WORK/out" ]; then
	rm -rf "$CACHE/logs/clients-$tag"
	cp -r "$WORK/out" "$CACHE/logs/clients-$tag"
fi
stamp "checked (outputs: $CACHE/logs/clients-$tag/)"

out=$(python3 "$REPO/scripts/ktap.py" --quiet --ktap "$HK" "$L") || true
printf '%s\n' "$out" | sed '$d'
printf '%s\n' "$out" | tail -n 1 |
	sed -E 's/^([0-9]+) passed, ([0-9]+) failed, 0 skipped$/\1 passed, \2 failed/'
printf '%s\n' "$out" | tail -n 1 | grep -qE ' 0 failed'
