# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the kunwind test bed.  Sourced by scripts/*.sh.
#
# Environment knobs (all optional):
#   KUNWIND_CACHE   cache dir (kernel trees, builds, ccache, downloads);
#                   default ${XDG_CACHE_HOME:-$HOME/.cache}/kunwind.  Outside
#                   the repository so a fresh clone on the same machine
#                   reuses it.
#   KCONFIG         kernel profile: "base" (default) or "debug" (KASAN,
#                   lockdep, atomic-sleep checks...).
#   KUNWIND_ACCEL   force QEMU accelerator: "kvm" or "tcg" (default: probe).
#   KUNWIND_QEMU    which qemu-system-x86_64 boots the x86 guests: "host"
#                   (default, the host's: QEMU 7.2 on Debian 12) or
#                   "trixie" (Debian 13's QEMU 10, installed in the Debian
#                   13 root and run there; the switch guest then runs
#                   with multi-threaded TCG, see kuw_switch_single).
#   KUNWIND_TIMEOUT guest timeout in seconds.
#   JOBS            make -j for the kernel build (default: nproc, at least 2).
#   KUW_ARCH        test-bed architecture: "x86_64" (default) or "arm64"
#                   (cross-built kernel, busybox and QEMU for aarch64;
#                   scripts/check-arm64.sh sets it).  Read by
#                   build-kernel.sh and mkinitramfs.sh.
#   KUW_RELEASE     kernel release of the test kernel: 6.1 (default), 6.12
#                   or 7.3 (KUNWIND_RELEASE is the same knob).  6.1 builds
#                   with the host's toolchain (Debian 12), the others in a
#                   Debian 13 root (kuw_toolchain_root).

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${KUNWIND_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/kunwind}
KCONFIG=${KCONFIG:-base}
if [ -z "${JOBS:-}" ]; then
	JOBS=$(nproc)
	[ "$JOBS" -gt 2 ] || JOBS=2
fi
mkdir -p "$CACHE"

# Bump when the kernel recipe below changes in a way the hashed inputs
# (config fragments, patches, flags) do not show.
# shellcheck disable=SC2034 # used by build-kernel.sh
KUW_RECIPE=1
# shellcheck disable=SC2034
KUW_KCFLAGS="-fasynchronous-unwind-tables -Wa,--gsframe"

log() { printf '[kunwind] %s\n' "$*" >&2; }
die() { printf '[kunwind] error: %s\n' "$*" >&2; exit 1; }

case ${KUW_ARCH:=x86_64} in
x86_64 | x86) KUW_ARCH=x86_64 ;;
arm64 | aarch64) KUW_ARCH=arm64 ;;
*) die "KUW_ARCH=$KUW_ARCH: x86_64 or arm64" ;;
esac

KUW_RELEASE=${KUW_RELEASE:-${KUNWIND_RELEASE:-6.1}}
case $KUW_RELEASE in
6.1 | 6.12 | 7.3) ;;
*) die "KUW_RELEASE=$KUW_RELEASE: 6.1, 6.12 or 7.3" ;;
esac
export KUW_RELEASE

# kuw_dur SECONDS: "4m05s" (or "35s").
kuw_dur() {
	if [ "$1" -ge 60 ]; then
		printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
	else
		printf '%ds' "$1"
	fi
}

# Progress of long steps (kernel untar and build, module build): one plain
# line every KUNWIND_TICK seconds (default 60) on stderr, the same on a
# terminal, a pipe or a CI log.
#
#   kuw_ticker_start LABEL CMD...   every tick: "[kunwind] LABEL: <elapsed>,
#                                   <what CMD prints>" (CMD: a short status)
#   kuw_ticker_stop                 end it (also safe when none runs)
#
# The ticker is a background subshell that also ends by itself when the
# script that started it is gone (a non-interactive shell's background jobs
# ignore Ctrl-C).  Its stdout goes to stderr: a caller capturing stdout
# (KDIR=$(scripts/build-kernel.sh)) is not kept waiting on it.
KUW_TICKER=
kuw_ticker_start() {
	local label=$1
	shift
	kuw_ticker_stop
	(
		owner=$$ start=$(date +%s) s=
		trap '[ -z "$s" ] || kill "$s" 2>/dev/null; exit 0' TERM
		while :; do
			sleep "${KUNWIND_TICK:-60}" &
			s=$!
			wait "$s"
			s=
			kill -0 "$owner" 2>/dev/null || exit 0
			st=$("$@" 2>/dev/null || true)
			log "$label: $(kuw_dur $(($(date +%s) - start)))${st:+, $st}"
		done
	) >&2 &
	KUW_TICKER=$!
}
kuw_ticker_stop() {
	[ -n "$KUW_TICKER" ] || return 0
	kill "$KUW_TICKER" 2>/dev/null || true
	wait "$KUW_TICKER" 2>/dev/null || true
	KUW_TICKER=
}

# kuw_kbuild_status LOG [EXPECTED]: where a kbuild run is, from its log
# (the "  CC      dir/file.o" lines of a non-verbose make): objects
# compiled so far (of about EXPECTED), what it is doing, the last target.
kuw_kbuild_status() {
	local logf=$1 expect=${2:-} n last what
	n=$(grep -c -E '^  (CC|AS)( \[M\])? ' "$logf" 2>/dev/null || true)
	last=$(grep -E '^  [A-Z][A-Z0-9_]* ' "$logf" 2>/dev/null | tail -n 1 || true)
	case $last in
	"  CC [M]"* | "  LD [M]"* | "  MODPOST"* | "  MODINFO"* | "  BTF [M]"*)
		what="modules" ;;
	*"arch/x86/boot"* | *bzImage*) what="bzImage" ;;
	*vmlinux* | "  KSYMS"* | "  SYSMAP"* | "  SORTTAB"*) what="linking vmlinux" ;;
	"  CC "* | "  AS "* | "  AR "* | "  HOSTCC"* | "  HOSTLD"*) what="compiling" ;;
	"") what="starting" ;;
	*) what="${last#  }" what=${what%% *} what=${what,,} ;;
	esac
	last=${last##* }
	printf '%s objects%s, %s%s' "$n" "${expect:+ of ~$expect}" "$what" \
		"${last:+ ($last)}"
}

# Debian packages the test bed needs.  Installed with apt-get when missing
# (root only); otherwise we stop and say what is missing.  The same names
# on Debian 12 and 13: the kernel sources come through the private apt
# configuration (kuw_source_tarball; Debian 13 has no linux-source-6.1),
# and each release's kernel is built with its own Debian's compiler
# (kuw_toolchain_root).
KUW_PKGS="qemu-system-x86 busybox-static bc flex bison
libelf-dev libssl-dev dwarves cpio xz-utils kmod make rsync python3 ccache
gcc libc6-dev binutils patch git binutils-aarch64-linux-gnu clang lld llvm
libclang-rt-dev debootstrap openssl"

# On top of KUW_PKGS for KUW_ARCH=arm64: the cross compiler and QEMU's
# aarch64 system emulator.  The arm64 busybox is downloaded, not installed
# (kuw_busybox_arm64).
KUW_PKGS_ARM64="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
qemu-system-arm"

kuw_have_pkg() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# kuw_install PKG...: install the given Debian packages if any is missing.
kuw_install() {
	local missing=() p
	for p in "$@"; do
		kuw_have_pkg "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		die "missing Debian packages: ${missing[*]} (run as root, or apt-get install them)"
	fi
	log "installing: ${missing[*]}"
	# Shared machines: wait for another apt to finish instead of failing.
	(
		flock -w 900 9 || die "apt lock timeout"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	) 9>"$CACHE/apt.lock"
}

kuw_deps() {
	if [ "$KUW_ARCH" = arm64 ]; then
		# shellcheck disable=SC2086
		kuw_install $KUW_PKGS $KUW_PKGS_ARM64
	else
		# shellcheck disable=SC2086
		kuw_install $KUW_PKGS
	fi
}

# kuw_busybox_arm64: print the path of a static aarch64 busybox, Debian's
# busybox-static:arm64 unpacked into the cache (downloaded once with
# `apt-get download`, never installed).  Needs the arm64 architecture in
# dpkg's list for apt to see the package: added (root) when missing.
kuw_busybox_arm64() {
	local d="$CACHE/arm64/busybox" bb debs
	bb="$d/bin/busybox"
	if [ ! -f "$d/.kuw-ok" ]; then
		log "downloading busybox-static:arm64"
		rm -rf "$d"
		# Outside the cache: apt's sandbox user (_apt) must reach it.
		debs=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-debs.XXXXXX")
		chmod 777 "$debs"
		(
			flock -w 900 9 || die "apt lock timeout"
			if ! (cd "$debs" && apt-get download -q \
				busybox-static:arm64 >/dev/null 2>&1); then
				[ "$(id -u)" = 0 ] ||
					die "busybox-static:arm64 not downloadable (as root: dpkg --add-architecture arm64 && apt-get update)"
				dpkg --print-foreign-architectures | grep -qx arm64 ||
					dpkg --add-architecture arm64
				apt-get update -qq
				(cd "$debs" && apt-get download -q \
					busybox-static:arm64 >/dev/null) ||
					die "apt-get download busybox-static:arm64 failed"
			fi
		) 9>"$CACHE/apt.lock"
		mkdir -p "$d"
		dpkg-deb -x "$debs"/busybox-static_*_arm64.deb "$d"
		rm -rf "$debs"
		touch "$d/.kuw-ok"
	fi
	# Static (no program interpreter) and for AArch64.
	LC_ALL=C readelf -h "$bb" 2>/dev/null | grep -q "Machine: *AArch64" ||
		die "$bb is not an AArch64 ELF"
	! LC_ALL=C readelf -l "$bb" | grep -q "Requesting program interpreter" ||
		die "$bb is not static"
	echo "$bb"
}

# The kernel source tarball of linux-source-6.1: the installed package's
# (Debian 12 hosts), else downloaded once through the private apt
# configuration (a Debian 13 host's apt has no linux-source-6.1).
kuw_tarball() {
	kuw_source_tarball 6.1
}

# Host TSC frequency in kHz, for tsc_early_khz= (under TCG the guest's TSC
# is the host's; without it the minimal guest falls back to jiffies and
# ktime moves in 4 ms steps).
# kuw_sign_modules KDIR FILE...: sign modules with the test MOK key, with
# the kernel tree's own sign-file (its hash: CONFIG_MODULE_SIG_HASH).
kuw_sign_modules() {
	local kdir=$1 mok hash f
	shift
	mok=$(dirname "$(kuw_test_mok)")
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$kdir/.config")
	[ -n "$hash" ] || return 0	# a kernel without module signatures
	if [ ! -x "$kdir/scripts/sign-file" ]; then
		log "note: $kdir has no scripts/sign-file: modules left unsigned"
		return 0
	fi
	for f in "$@"; do
		kuw_in_root "$(kuw_toolchain_root "$KUW_RELEASE")" \
			"$kdir/scripts/sign-file" "$hash" "$mok/mok.key" "$mok/mok.pub" "$f" ||
			{ log "sign-file failed on $f"; return 1; }
	done
}

kuw_tsc_khz() {
	local mhz
	mhz=$( (dmesg 2>/dev/null || true) |
		sed -n 's/.*tsc: \(Refined TSC clocksource calibration\|Detected\): \([0-9.]*\) MHz.*/\2/p' |
		tail -n 1)
	[ -n "$mhz" ] || mhz=$(awk -F: '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	[ -n "$mhz" ] || mhz=1000
	awk -v m="$mhz" 'BEGIN { printf "%d\n", m * 1000 }'
}

# kuw_accel: "kvm" if /dev/kvm really boots a guest, "tcg" otherwise.  On
# nested machines /dev/kvm exists but guests stall in the decompressor, so
# we boot a tiny probe with a short timeout once and remember the answer
# in the cache.  $1 = kernel image to probe with.
kuw_accel() {
	local kernel=$1 f="$CACHE/accel" out
	if [ -n "${KUNWIND_ACCEL:-}" ]; then
		echo "$KUNWIND_ACCEL"
		return
	fi
	if [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	if [ -s "$f" ]; then
		cat "$f"
		return
	fi
	log "probing KVM (a short boot)"
	out=$(timeout 15 qemu-system-x86_64 -accel kvm -cpu host -m 128M \
		-nographic -no-reboot -kernel "$kernel" \
		-append "console=ttyS0 panic=-1 rdinit=/nonexistent" 2>&1 </dev/null || true)
	if printf '%s' "$out" | grep -q "Linux version"; then
		echo kvm >"$f"
	else
		echo tcg >"$f"
	fi
	log "accelerator: $(cat "$f")"
	cat "$f"
}

# kuw_qemu_root: "" when the host's QEMU boots the x86 guests, else the
# Debian 13 root that has QEMU 10 (KUNWIND_QEMU=trixie), installed there
# once.
kuw_qemu_root() {
	local r
	case ${KUNWIND_QEMU:-host} in
	host) echo "" ;;
	trixie)
		r=$(kuw_root trixie) || return 1
		kuw_root_install "$r" qemu-system-x86 >&2 || return 1
		echo "$r" ;;
	*) die "KUNWIND_QEMU=$KUNWIND_QEMU: host or trixie" ;;
	esac
}

# kuw_qemu KERNEL INITRD LOG TIMEOUT APPEND [MEM]: boot the guest on the
# serial console, -smp 2, output to LOG; $QEMU_EXTRA adds options.
# KUW_TCG_SINGLE=1: under TCG, one host thread for both vCPUs
# (kuw_switch_guest).  KUNWIND_QEMU=trixie: Debian 13's QEMU, in its root
# (KERNEL and INITRD under /tmp, the cache or the repository: the paths
# kuw_in_root binds).
# printk.devkmsg=on: the guests write their results to /dev/kmsg
# (scripts/init/common.sh), which is otherwise rate-limited.
# Returns 0 if the guest ended itself, 124 on timeout.
kuw_qemu() {
	local kernel=$1 initrd=$2 logf=$3 tmo=$4 append=$5 mem=${6:-256M}
	local accel cpu rc=0 qroot
	qroot=$(kuw_qemu_root) || die "no QEMU in the Debian 13 root"
	accel=$(kuw_accel "$kernel")
	if [ "$accel" = kvm ]; then cpu=host; else cpu=max; fi
	[ "${KUW_TCG_SINGLE:-0}" != 1 ] || [ "$accel" != tcg ] ||
		accel=tcg,thread=single
	log "booting $(basename "$kernel") ($accel, -smp 2${QEMU_EXTRA:+ $QEMU_EXTRA}, timeout ${tmo}s${qroot:+, QEMU of $qroot})"
	# shellcheck disable=SC2086 # QEMU_EXTRA: several options, split
	kuw_in_root "$qroot" timeout -k 5 "$tmo" qemu-system-x86_64 \
		-accel "$accel" -cpu "$cpu" -smp 2 -m "$mem" \
		-nographic -no-reboot -monitor none -serial stdio \
		${QEMU_EXTRA:-} -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 printk.devkmsg=on $append" \
		</dev/null >"$logf.raw" 2>&1 || rc=$?
	tr -d '\r' <"$logf.raw" >"$logf"
	rm -f "$logf.raw"
	return "$rc"
}

# kuw_qemu_arm64 IMAGE INITRD LOG TIMEOUT APPEND [MEM]: kuw_qemu for the
# arm64 bed: qemu-system-aarch64 -M virt, always TCG (KVM cannot run an
# aarch64 guest on this host), -cpu max (pointer authentication on, with
# QEMU's IMPDEF algorithm: the architected QARMA5 costs every signed
# return dearly under TCG; KUNWIND_ARM64_CPU overrides), -smp 2, PL011
# console.  Returns 0 if the guest ended itself, 124 on timeout.
kuw_qemu_arm64() {
	local kernel=$1 initrd=$2 logf=$3 tmo=$4 append=$5 mem=${6:-512M}
	local cpu=${KUNWIND_ARM64_CPU:-max,pauth-impdef=on} rc=0 accel=tcg
	[ "${KUW_TCG_SINGLE:-0}" != 1 ] || accel=tcg,thread=single
	log "booting $(basename "$kernel") (aarch64, $accel, -cpu $cpu, -smp 2${QEMU_EXTRA:+ $QEMU_EXTRA}, timeout ${tmo}s)"
	# shellcheck disable=SC2086 # QEMU_EXTRA: several options, split
	timeout -k 5 "$tmo" qemu-system-aarch64 \
		-M virt -accel "$accel" -cpu "$cpu" -smp 2 -m "$mem" \
		-nographic -no-reboot -monitor none -serial stdio \
		${QEMU_EXTRA:-} -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 printk.devkmsg=on $append" \
		</dev/null >"$logf.raw" 2>&1 || rc=$?
	tr -d '\r' <"$logf.raw" >"$logf"
	rm -f "$logf.raw"
	return "$rc"
}

# Modules and guest checks of the switch guest (scripts/init/check.sh as /init-switch):
# those that patch the kernel's text while the other vCPU runs it.
KUW_SWITCH_MODS="consumers_test budget_test"

# kuw_switch_files WORK: DEST=SRC arguments for mkinitramfs.sh that put the
# switch guest (its /init, modules, checks) into a cell's initramfs, and
# leave those modules out of the main guest's /lib/kunwind/kunit; with
# kuw_kunit_files below.
kuw_switch_files() {
	local work=$1 m h
	echo "/init-switch=$REPO/scripts/init/check.sh"
	for m in $KUW_SWITCH_MODS; do
		[ ! -f "$work/src/kunit/$m.ko" ] ||
			echo "/lib/kunwind/switch/$m.ko=$work/src/kunit/$m.ko"
	done
	for h in "$REPO"/scripts/guest-switch/*.sh; do
		[ ! -f "$h" ] || echo "/guest-switch/${h##*/}=$h"
	done
	# the stress's switch role: the consumers switch and the nesting storm
	echo "/guest-switch/stress.sh=$REPO/scripts/guest/stress.sh"
}

# kuw_stress_files WORK [CC]: build the stress of /dev/kunwind/
# (tests/stress/kuw_stress.c) static with CC (gcc; aarch64-linux-gnu-gcc
# for arm64) into WORK, and print the DEST=SRC lines that ship it with its
# settings, /etc/kuw-stress.conf: 10^5 operations in the main guest, 10^6
# under check-matrix (KUNWIND_MATRIX=1); KUNWIND_STRESS_OPS and
# KUNWIND_STRESS_SECONDS override (scripts/guest/stress.sh reads them).
# Prints nothing when it does not build (the guest's check then fails,
# saying so); the compiler's output is in WORK/kuw-stress.log.
kuw_stress_files() {
	local work=$1 cc=${2:-gcc} ops secs sops ssecs
	# the switch guest's role (one TCG thread, within its 300 s): fewer
	if [ "${KUNWIND_MATRIX:-0}" = 1 ]; then
		ops=1000000 secs=900 sops=100000 ssecs=150
	else
		ops=100000 secs=200 sops=20000 ssecs=60
	fi
	ops=${KUNWIND_STRESS_OPS:-$ops} secs=${KUNWIND_STRESS_SECONDS:-$secs}
	if ! "$cc" -std=gnu11 -O2 -Wall -Wextra -static -pthread \
		-o "$work/kuw-stress" "$REPO/tests/stress/kuw_stress.c" \
		>"$work/kuw-stress.log" 2>&1; then
		log "kuw-stress did not build ($work/kuw-stress.log)" >&2
		return 0
	fi
	printf '%s\n' "STRESS_OPS=$ops" "STRESS_SECONDS=$secs" \
		"STRESS_SWITCH_OPS=$sops" "STRESS_SWITCH_SECONDS=$ssecs" \
		>"$work/kuw-stress.conf"
	echo "/usr/bin/kuw-stress=$work/kuw-stress"
	echo "/etc/kuw-stress.conf=$work/kuw-stress.conf"
}

# Modules only their own guest loads: the livepatch pair
# (scripts/check-livepatch.sh), whose patch the main guest must not
# enable (it patches text the other vCPU runs; an enabled livepatch cannot
# be removed without disabling it first).
KUW_OWN_GUEST_MODS="lpt_target lpt_patch"

# kuw_kunit_files WORK: DEST=SRC for the main guest's test modules (every
# kunit/*.ko but the switch guest's and those of their own guests).
kuw_kunit_files() {
	local work=$1 k
	for k in "$work"/src/kunit/*.ko; do
		[ -f "$k" ] || continue
		[[ " $KUW_SWITCH_MODS $KUW_OWN_GUEST_MODS " == *" $(basename "$k" .ko) "* ]] ||
			echo "/lib/kunwind/kunit/${k##*/}=$k"
	done
}

# kuw_switch_single: 1 when the x86 switch guest runs both vCPUs on one
# TCG thread, 0 for multi-threaded TCG.  KUNWIND_SWITCH_TCG=single|multi
# says which; by default multi with Debian 13's QEMU 10
# (KUNWIND_QEMU=trixie), single with the host's.
kuw_switch_single() {
	case ${KUNWIND_SWITCH_TCG:-} in
	single) echo 1 ;;
	multi) echo 0 ;;
	"") if [ "${KUNWIND_QEMU:-host}" = trixie ]; then echo 0; else echo 1; fi ;;
	*) die "KUNWIND_SWITCH_TCG=$KUNWIND_SWITCH_TCG: single or multi" ;;
	esac
}

# kuw_switch_guest KERNEL INITRD LOG: boot the cell's initramfs again with
# rdinit=/init-switch, both vCPUs on one TCG thread with the host's QEMU:
# QEMU 7.2's multi-threaded TCG leaves a vCPU spinning for good on an int3
# that another vCPU's text_poke already removed (docs/testbed.md), which
# any ftrace_ops toggled while the other CPU runs the patched function
# triggers.  With Debian 13's QEMU 10 (KUNWIND_QEMU=trixie) the x86 guest
# runs multi-threaded (kuw_switch_single).  Prints
# the guest's "P F S" counts (scripts/ktap.py) on stdout, its results on
# stderr.
kuw_switch_guest() {
	local kernel=$1 initrd=$2 logf=$3 tmo=${KUNWIND_TIMEOUT:-300} sum p f s
	if [ "$KUW_ARCH" = arm64 ]; then
		KUW_TCG_SINGLE=1 kuw_qemu_arm64 "$kernel" "$initrd" "$logf" \
			"$tmo" "rdinit=/init-switch" 512M >&2 || true
	else
		KUW_TCG_SINGLE=$(kuw_switch_single) kuw_qemu "$kernel" "$initrd" \
			"$logf" "$tmo" \
			"rdinit=/init-switch tsc_early_khz=$(kuw_tsc_khz)" 512M >&2 ||
			true
	fi
	sum=$(python3 "$REPO/scripts/ktap.py" "$logf" || true)
	printf '%s\n' "$sum" | sed '$d' >&2
	read -r p f s < <(printf '%s\n' "$sum" | tail -n 1 | sed -n -E \
		's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') ||
		true
	[ -n "${p:-}" ] || { p=0 f=1 s=0; }
	echo "$p $f $s"
}

# kuw_dkms_test_kernel KDIR WORK: kunwind.ko built and signed by DKMS, the
# Debian way, for the cell's test kernel: the dkms of the kernel's own
# Debian release (12 for 6.1, 13 for 6.12 and 7.3: the compiler the kernel
# was built with) in a plain root (kuw_root CODE plain, as make check-deb
# uses it) whose /var/lib/dkms/mok.key is the test bed's MOK key, `dkms
# build` against KDIR, linked at KVER/build of dkms's install tree and,
# for the build, at the root's /lib/modules/KVER/build, as linux-headers
# leaves it: dkms finds sign-file there when the kernel's Debian
# linux-kbuild package is not installed (a fresh root).  The test kernel
# trusts that key (sign.config), so the lockdown guest loads exactly what
# DKMS signed.
# x86_64 only (the root has no cross compiler).  Prints the module's path
# (WORK/dkms/kunwind.ko), or nothing, with the reason on stderr.
kuw_dkms_test_kernel() {
	local kdir=$1 work=$2 code root mokd kver ver d f cc rc
	[ "$KUW_ARCH" = x86_64 ] || { log "dkms-signed kunwind.ko: x86_64 cells only" >&2; return 0; }
	[ "$(id -u)" = 0 ] || { log "dkms-signed kunwind.ko: needs root" >&2; return 0; }
	code=$(kuw_release_codename "${KUW_RELEASE:-6.1}")
	root=$(kuw_root "$code" plain) || return 0
	cc=gcc-12
	[ "$code" = bookworm ] || cc=gcc-14
	mokd=$(dirname "$(kuw_test_mok)")
	kver=$(cat "$kdir/include/config/kernel.release")
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	d=$work/dkms
	rm -rf "$d"
	mkdir -p "$d/tree" "$d/install" "$d/src"
	rsync -a --exclude=.git --exclude=/build --exclude='*.o' --exclude='*.ko' \
		--exclude='.*.cmd' --exclude='*.mod*' "$REPO/" "$d/src/kunwind-$ver/"
	(
		mkdir -p "$CACHE/roots"
		flock -w 1800 8 || die "$CACHE/roots/$code-plain.test.lock: timeout"
		kuw_root_install "$root" dkms gcc "$cc" make libelf-dev >&2 || exit 1
		install -d -m 0755 "$root/var/lib/dkms" "$d/install/$kver"
		install -m 0600 "$mokd/mok.key" "$root/var/lib/dkms/mok.key"
		install -m 0644 "$mokd/mok.pub" "$root/var/lib/dkms/mok.pub"
		ln -sfn "$kdir" "$d/install/$kver/build"
		# dkms signs with the sign-file of the kernel's Debian
		# linux-kbuild package, else /lib/modules/KVER/build's: the
		# root's, for the time of the build only (make check-deb's
		# dkms would build for every KVER it finds there)
		install -d -m 0755 "$root/lib/modules/$kver"
		ln -sfn "$kdir" "$root/lib/modules/$kver/build"
		rc=0
		kuw_in_root "$root" env dkms --dkmstree "$d/tree" --sourcetree "$d/src" \
			--installtree "$d/install" -m kunwind -v "$ver" -k "$kver" \
			--kernelsourcedir "$kdir" add >"$d.log" 2>&1 &&
		kuw_in_root "$root" env dkms --dkmstree "$d/tree" --sourcetree "$d/src" \
			--installtree "$d/install" -m kunwind -v "$ver" -k "$kver" \
			--kernelsourcedir "$kdir" build >>"$d.log" 2>&1 || rc=1
		rm -f "$root/lib/modules/$kver/build"
		rmdir "$root/lib/modules/$kver" 2>/dev/null || true
		exit $rc
	) 8>"$CACHE/roots/$code-plain.test.lock" || {
		tail -n 20 "$d.log" >&2 2>/dev/null
		log "dkms-signed kunwind.ko: dkms build failed (log $d.log)" >&2
		return 0
	}
	f=$(find "$d/tree" -name kunwind.ko -path '*/module/*' | head -n 1)
	[ -n "$f" ] || { log "dkms-signed kunwind.ko: no module in $d/tree" >&2; return 0; }
	cp "$f" "$d/kunwind.ko"
	echo "$d/kunwind.ko"
}

# kuw_lockdown_files WORK: DEST=SRC for the lockdown guests (their /init,
# the unsigned kunwind.ko of the negative control, the DKMS-signed one
# when kuw_dkms_test_kernel made it).
kuw_lockdown_files() {
	echo "/init-lockdown=$REPO/scripts/init/lockdown.sh"
	echo "/lib/kunwind/unsigned/kunwind.ko=$1/unsigned/kunwind.ko"
	[ ! -f "$1/dkms/kunwind.ko" ] ||
		echo "/lib/kunwind/dkms/kunwind.ko=$1/dkms/kunwind.ko"
}

# kuw_lockdown_guests KERNEL INITRD LOGPREFIX: boot the cell's initramfs
# as a Secure Boot machine runs it (rdinit=/init-lockdown,
# scripts/init/lockdown.sh): lockdown=integrity, then
# lockdown=confidentiality, one TCG thread (the consumers switch patches
# text).  The integrity guest ends with an oops, whose trace kunwind must
# give as the kernel does (scripts/oops_traces.py).  Logs
# LOGPREFIX-integrity.log and LOGPREFIX-confidentiality.log.  Prints the
# "P F S" counts on stdout, results on stderr.
kuw_lockdown_guests() {
	local kernel=$1 initrd=$2 pfx=$3 tmo=${KUNWIND_TIMEOUT:-400}
	local lvl logf sum p f s tp=0 tf=0 ts=0 ktr utr nk
	for lvl in integrity confidentiality; do
		logf=$pfx-$lvl.log
		log "lockdown guest: lockdown=$lvl (log: ${logf##*/})" >&2
		if [ "$KUW_ARCH" = arm64 ]; then
			KUW_TCG_SINGLE=1 kuw_qemu_arm64 "$kernel" "$initrd" "$logf" \
				"$tmo" "rdinit=/init-lockdown lockdown=$lvl" 512M >&2 || true
		else
			KUW_TCG_SINGLE=1 kuw_qemu "$kernel" "$initrd" "$logf" "$tmo" \
				"rdinit=/init-lockdown lockdown=$lvl tsc_early_khz=$(kuw_tsc_khz)" \
				512M >&2 || true
		fi
		sum=$(python3 "$REPO/scripts/ktap.py" --allow-oops "$logf" || true)
		printf '%s\n' "$sum" | sed '$d' | sed "s/^/[lockdown=$lvl] /" >&2
		p='' f='' s=''
		read -r p f s < <(printf '%s\n' "$sum" | tail -n 1 | sed -n -E \
			's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') ||
			true
		[ -n "${p:-}" ] || { p=0 f=1 s=0; log "lockdown=$lvl: no summary" >&2; }
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
		[ "$lvl" = integrity ] || continue
		# the oops: kunwind's trace is the kernel's
		ktr=$(python3 "$REPO/scripts/oops_traces.py" "$logf" --kernel || true)
		utr=$(python3 "$REPO/scripts/oops_traces.py" "$logf" --kunwind || true)
		nk=$(printf '%s\n' "$ktr" | grep -c . || true)
		case $ktr in
		*demo_depth5*demo_depth1*) ;;
		*) ktr='' ;;
		esac
		if [ -n "$ktr" ] && [ "$ktr" = "$utr" ]; then
			log "[lockdown=integrity] ok: oops: kunwind's trace is the kernel's ($nk frames)" >&2
			tp=$((tp + 1))
		else
			log "[lockdown=integrity] FAIL: oops: kunwind's trace is the kernel's (kernel $nk frames, kunwind $(printf '%s\n' "$utr" | grep -c . || true))" >&2
			python3 "$REPO/scripts/oops_traces.py" "$logf" >&2 || true
			tf=$((tf + 1))
		fi
	done
	echo "$tp $tf $ts"
}

# kuw_kmake KDIR ARG...: make -C KDIR ARG... (an out-of-tree module
# build) with the toolchain the test kernel of $KUW_RELEASE was built with:
# Debian 12's for 6.1 (the host's, or a bookworm root on another host),
# the Debian 13 root's (gcc-14) for the others; with
# ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- when KUW_ARCH=arm64.
kuw_kmake() {
	local kdir=$1 root='' xa=()
	shift
	[ "$KUW_ARCH" != arm64 ] ||
		xa=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	root=$(kuw_toolchain_root "$KUW_RELEASE")
	if [ "$KUW_RELEASE" != 6.1 ]; then
		[ "$KUW_ARCH" != arm64 ] || xa+=(CC=aarch64-linux-gnu-gcc-14)
	fi
	kuw_in_root "$root" make -C "$kdir" "${xa[@]}" "$@"
}

# kuw_build_modules KDIR WORK [MAKE ARG...]: copy the repository to
# WORK/src (the work tree may be shared, and out-of-tree builds write
# objects next to the sources) and build kunwind.ko and the test modules
# there (make lint adds C=2).  Log in WORK/modules.log.
kuw_build_modules() {
	local kdir=$1 work=$2
	shift 2
	mkdir -p "$work/src"
	rsync -a --delete --exclude=.git --exclude=/build --exclude='*.o' \
		--exclude='*.ko' --exclude='.*.cmd' "$REPO/" "$work/src/"
	kuw_ticker_start "building kunwind.ko and kunit/*.ko" \
		kuw_kbuild_status "$work/modules.log"
	if ! kuw_kmake "$kdir" M="$work/src" -j"$JOBS" "$@" modules \
		>"$work/modules.log" 2>&1; then
		kuw_ticker_stop
		cat "$work/modules.log" >&2
		log "module build failed"
		return 1
	fi
	kuw_ticker_stop
	grep -E "warning|WARNING" "$work/modules.log" >&2 || true
	[ -f "$work/src/kunwind.ko" ] || { log "kunwind.ko was not built"; return 1; }
	# Signed with the test MOK key, which the test kernels trust (the
	# lockdown guests load only signed modules); one unsigned copy of
	# kunwind.ko for the guests' negative control.
	mkdir -p "$work/unsigned"
	cp "$work/src/kunwind.ko" "$work/unsigned/kunwind.ko"
	local kos
	mapfile -t kos < <(find "$work/src" -name '*.ko')
	kuw_sign_modules "$kdir" "${kos[@]}" || { log "module signing failed"; return 1; }
}

# kuw_test_mok: a test Machine Owner Key, made once in $CACHE/mok (outside
# the repository: it is never committed), as DKMS keeps its signing key:
#   mok.key   the private key (PEM, unencrypted: DKMS's mok_signing_key)
#   mok.pub   its certificate in DER (DKMS's mok_certificate, what
#             `mokutil --import` takes)
#   mok.pem   the same certificate in PEM, for a test kernel built to
#             trust it (CONFIG_MODULE_SIG_KEY, scripts/build-kernel.sh)
# Self-signed, RSA 2048, SHA-256; the extensions of the kernel's own
# certs/default_x509.genkey.  Prints the path of mok.pem.  For tests only:
# anyone with the cache can sign modules a kernel trusting it loads.
KUW_MOK_CN="kunwind test MOK (not for production)"
kuw_test_mok() {
	local d="$CACHE/mok"
	if [ ! -f "$d/.kuw-ok" ]; then
		kuw_install openssl
		mkdir -p "$d"
		(
			flock -w 300 9 || die "mok lock timeout"
			[ -f "$d/.kuw-ok" ] && exit 0
			umask 077
			cat >"$d/x509.genkey" <<-EOT
				[ req ]
				default_bits = 2048
				distinguished_name = req_distinguished_name
				prompt = no
				string_mask = utf8only
				x509_extensions = myexts
				[ req_distinguished_name ]
				CN = $KUW_MOK_CN
				[ myexts ]
				basicConstraints=critical,CA:FALSE
				keyUsage=digitalSignature
				subjectKeyIdentifier=hash
				authorityKeyIdentifier=keyid
			EOT
			openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
				-config "$d/x509.genkey" -newkey rsa:2048 \
				-keyout "$d/mok.key" -out "$d/mok.pem" 2>"$d/openssl.log" &&
				openssl x509 -in "$d/mok.pem" -outform DER -out "$d/mok.pub" ||
				{ cat "$d/openssl.log" >&2; die "openssl: the test MOK"; }
			chmod 0600 "$d/mok.key"
			chmod 0644 "$d/mok.pub" "$d/mok.pem"
			touch "$d/.kuw-ok"
		) 9>"$CACHE/mok.lock" || exit 1
	fi
	echo "$d/mok.pem"
}

# Debian's archive and toolchain roots (private apt, debootstrap).
# shellcheck source=debian.sh
. "$REPO/scripts/debian.sh"
