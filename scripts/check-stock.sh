#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-stock: the real-world path on Debian's stock kernel of a
# release: RELEASE=6.1 (Debian 12, the default), 6.12 (Debian 13), 7.3
# (trixie-backports); ARCH=x86_64 (amd64) or arm64.
#
#  1. the kernel linux-image-<arch> of that release depends on (private apt
#     of scripts/debian.sh: the host's apt is not used), apt-get download
#     of linux-image-<kver> (7.x: a metapackage; the kernel is in
#     linux-binary-<kver>, the modules, xz-compressed, in
#     linux-modules-<kver>, under usr/lib/modules/<kver>/), dpkg-deb -x into
#     the cache (nothing is installed on the host); its headers are
#     check-headers.sh's (kuw_headers_fetch)
#  2. build kunwind.ko and demo_oops.ko (a payload with .eh_frame and
#     .sframe) against those headers with the kernel's own compiler (6.1:
#     Debian 12's gcc-12; 6.12 and 7.3: Debian 13's gcc-14, in a root when
#     the host is not Debian 13); the KUnit suites are skipped there
#     (CONFIG_KUNIT is unset in Debian's kernel)
#  3. dkms add/build/install against the same headers in the kernel's own
#     Debian release (its dkms and compiler), every dkms tree in the cache
#  4. the kernel's debug package, linux-image-<kver>-dbg, and an older
#     release's of the same family (the "wrong kernel": 6.1.0-M, 6.12.M,
#     7.2.M): apt-get download once, unpacked, trimmed to what kunwind-dump
#     reads, cached; the .debs deleted (KUNWIND_STOCK_DBG=0 skips this part
#     and the guest checks that need it, as KTAP skips).  7.x's package
#     has the vmlinux at lib/modules/<kver>/vmlinux and boot/vmlinux-<kver>
#     a link to it: followed, and the guest gets both, as the package has
#     them
#  5. boot the stock kernel in QEMU (amd64: through OVMF with Secure Boot
#     on, shim and GRUB, the test MOK enrolled: scripts/secureboot.sh;
#     KUNWIND_STOCK_FIRMWARE=none: -kernel) with a busybox initramfs (a static
#     kunwind-dump, the trimmed debug files at Debian's paths, the stock
#     loop.ko): scripts/init/stock.sh loads kunwind.ko and the tables, and
#     checks kunwind's walks against the kernel's own (ORC)
#  6. a second boot oopses in demo_oops.ko: kunwind's trace of the oops
#     must be the kernel's (scripts/oops_traces.py)
#
# ARCH=arm64 (make check-stock ARCH=arm64): the same on Debian's stock
# arm64 kernel, linux-image-<kver>-arm64 (the :arm64 packages), its modules
# cross-built against its headers with the amd64 linux-kbuild host
# tools (fixdep, modpost: host programs) and ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu-, a static aarch64 kunwind-dump, booted
# under qemu-system-aarch64 -M virt -cpu max.  The kernel's own unwinder
# there follows frame records: it misses the caller of a function stopped
# before it saved its record, so where the walks differ the kernel's must be
# kunwind's with frames left out (scripts/init/stock.sh counts them).
#
# Results are KTAP: the host-side steps (builds, dkms, debug files, the oops
# traces) in a KTAP file, the guests' (scripts/init/stock.sh,
# scripts/init/stock_oops.sh) on the serial console; scripts/ktap.py
# parses them all.  Last line: "N passed, N failed" (", N skipped" when some are).
case ${ARCH:-x86_64} in
x86 | x86_64) KUW_ARCH=x86_64 ;;
arm64 | aarch64) KUW_ARCH=arm64 ;;
*) echo "make check-stock: ARCH=$ARCH: x86_64 or arm64" >&2; exit 2 ;;
esac
export KUW_ARCH	# mkinitramfs.sh and kuw_build_modules read it
unset ARCH	# the kernel's make must not see it (kuw_build_modules sets it)
# The release: Debian 12's 6.1, Debian 13's 6.12, trixie-backports' 7.3.
REL=${KUW_RELEASE:-${KUNWIND_RELEASE:-6.1}}
case $REL in
6.1 | 6.12 | 7.3) ;;
*) echo "make check-stock: RELEASE=$REL: 6.1, 6.12 or 7.3" >&2; exit 2 ;;
esac
# kuw_build_modules builds with that release's compiler (kuw_kmake: the
# host's for 6.1 on Debian 12, Debian 13's gcc-14 in a root for the others)
export KUW_RELEASE=$REL
. "$(dirname "$0")/lib.sh"

# Debian's architecture and what differs per architecture: the package
# suffix, the binutils prefix, the guest's tool chain and QEMU.
if [ "$KUW_ARCH" = arm64 ]; then
	da=arm64 q=:arm64 xp=aarch64-linux-gnu- lsfx=-arm64
else
	da=amd64 q= xp= lsfx=
fi
[ "$REL" = 6.1 ] || lsfx="-$REL$lsfx"	# log names: 6.1's as they were


t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }
kuw_deps
if [ "$KUW_ARCH" = arm64 ]; then
	# libc.a for the guest's static kunwind-dump; the busybox (which also
	# adds arm64 to dpkg's architectures, for apt-get download below)
	kuw_install libc6-dev-arm64-cross
	kuw_busybox_arm64 >/dev/null
fi
# How the amd64 kernel boots: through UEFI firmware with Secure Boot on,
# shim, GRUB, the test MOK enrolled (scripts/secureboot.sh; the default),
# so that Debian's kernel locks itself down before any module loads; or
# (KUNWIND_STOCK_FIRMWARE=none, and always on arm64) straight from QEMU's
# -kernel, lockdown raised at run time after kunwind.ko loads.
FIRMWARE=none
if [ "$KUW_ARCH" = x86_64 ]; then
	FIRMWARE=${KUNWIND_STOCK_FIRMWARE:-secureboot}
	case $FIRMWARE in
	secureboot) . "$REPO/scripts/secureboot.sh"; SBFW=$(kuw_sb_firmware "$REL") ;;
	none) ;;
	*) die "KUNWIND_STOCK_FIRMWARE=$FIRMWARE: secureboot or none" ;;
	esac
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-stock.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
# Host-side results, a KTAP document: the builds, the payload's sections,
# dkms, the debug files, the oops boot's traces.
HK="$WORK/host.ktap"
printf 'KTAP version 1\n1..14\n' >"$HK"
hn=0
hres() { # ok|fail|skip NAME [SKIP REASON]
	local line
	hn=$((hn + 1))
	case $1 in
	ok) line="ok $hn $2" ;;
	skip) line="ok $hn $2 # SKIP ${3:-}" ;;
	*) line="not ok $hn $2" ;;
	esac
	echo "$line" >>"$HK"
	echo "host: $line"
}
# summary [--oops LOG] ARGS...: scripts/ktap.py on the results (ARGS), and
# with --allow-oops on the oops boot's log; their failures, then the
# summed last line.
summary() {
	local out p f s tp=0 tf=0 ts=0 runs=() r
	if [ "$1" = --oops ]; then
		runs+=("--allow-oops $2")
		shift 2
	fi
	runs=("$*" ${runs[@]+"${runs[@]}"})
	for r in "${runs[@]}"; do
		# shellcheck disable=SC2086 # r: options and paths without blanks
		out=$(python3 "$REPO/scripts/ktap.py" --quiet $r) || true
		printf '%s\n' "$out" | sed '$d'
		read -r p f s < <(printf '%s\n' "$out" | tail -n 1 |
			sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') || true
		[ -n "${p:-}" ] || { p=0 f=1 s=0; }
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	done
	if [ "$ts" != 0 ]; then
		echo "$tp passed, $tf failed, $ts skipped"
	else
		echo "$tp passed, $tf failed"
	fi
	[ "$tf" = 0 ]
}

# --- stock kernel and headers ------------------------------------------
# The kernel linux-image-<arch> of release REL depends on (kuw_stock_kver).
# Its image: linux-image-<kver> up to 6.12; from 7.x a metapackage whose
# kernel is in linux-binary-<kver> and modules in linux-modules-<kver>.
# Unpacked into the cache once, nothing installed on the host; the headers
# are check-headers.sh's ($CACHE/headers, kuw_headers_fetch).
kver=$(kuw_stock_kver "$REL" "$da") ||
	die "cannot find Debian's linux-image-$da of Linux $REL (private apt lists: $CACHE/apt)"
ST="$CACHE/stock/$kver"
if [ ! -f "$ST/.kuw-ok" ]; then
	log "downloading linux-image-$kver"
	rm -rf "$ST"
	pk=("linux-image-$kver$q")
	for p in $(kuw_deb_depends "linux-image-$kver$q"); do
		case $p in
		"linux-binary-$kver" | "linux-modules-$kver") pk+=("$p$q") ;;
		esac
	done
	kuw_apt_download "$ST/debs" "${pk[@]}"
	for d in "$ST"/debs/*.deb; do
		dpkg-deb -x "$d" "$ST/root" || die "dpkg-deb -x $d"
	done
	rm -rf "$ST/debs"
	touch "$ST/.kuw-ok"
fi
KDIR=$(kuw_headers_fetch "$da" "$kver") || die "linux-headers-$kver: download failed"
# 6.x: /boot/vmlinuz-VER and /lib/modules/VER; 7.x: /usr/lib/modules/VER/
# holds both (vmlinuz and kernel/)
VMLINUZ=
for f in "$ST/root/boot/vmlinuz-$kver" "$ST/root/usr/lib/modules/$kver/vmlinuz" \
	"$ST/root/lib/modules/$kver/vmlinuz"; do
	[ -f "$f" ] && { VMLINUZ=$f; break; }
done
[ -n "$VMLINUZ" ] || die "linux-image-$kver: no boot/vmlinuz-$kver or usr/lib/modules/$kver/vmlinuz"
MODDIR=$ST/root/lib/modules/$kver
[ -d "$MODDIR" ] || MODDIR=$ST/root/usr/lib/modules/$kver
# Debian 13's modules are xz-compressed (loop.ko.xz): busybox insmod takes
# them plain.
stock_mod() { # PATH under kernel/ without .ko: prints a plain .ko
	local f
	for f in "$MODDIR/kernel/$1".ko*; do
		case $f in
		*.ko) echo "$f"; return ;;
		*.ko.xz) xz -dc "$f" >"$WORK/${1##*/}.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$WORK/${1##*/}.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$WORK/${1##*/}.ko" ;;
		*) continue ;;
		esac && { echo "$WORK/${1##*/}.ko"; return; }
	done
	return 1
}
# QEMU's -kernel takes arm64's Image as it is; Debian's arm64 vmlinuz is one
# (a gzipped one would be unpacked here once).
if [ "$KUW_ARCH" = arm64 ] && [ "$(head -c 2 "$VMLINUZ" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
	[ -s "$ST/Image" ] || { zcat "$VMLINUZ" >"$ST/Image.tmp" && mv "$ST/Image.tmp" "$ST/Image"; }
	VMLINUZ="$ST/Image"
fi
stamp "stock kernel $kver"

# --- build against the stock headers -----------------------------------
if kuw_build_modules "$KDIR" "$WORK"; then
	hres ok "build kunwind.ko against linux-headers-$kver"
else
	hres fail "build kunwind.ko against linux-headers-$kver"
	for t in "build demo_oops.ko (payload)" \
		"demo_oops.ko carries .eh_frame and .sframe" \
		"build stock_probe.ko (kprobe payload)" \
		"dkms add/build/install against linux-headers-$kver (module, loader, udev rule)" \
		"build a static kunwind-dump for the guest" \
		"debug packages in the cache" \
		"trimmed debug vmlinux gives the full one's blob" \
		"trimmed module debug files give the full ones' blobs" \
		"wrong-kernel blob exported" \
		"oops: kunwind's trace is the kernel's"; do
		hres skip "$t" "kunwind.ko did not build"
	done
	summary --ktap "$HK"
	exit 1
fi
if [ -f "$WORK/src/kunit/demo_oops.ko" ]; then
	hres ok "build demo_oops.ko (payload)"
else
	hres fail "build demo_oops.ko (payload)"
fi
secs=$(readelf -SW "$WORK/src/kunit/demo_oops.ko")
if grep -q ' \.eh_frame ' <<<"$secs" && grep -q ' \.sframe ' <<<"$secs"; then
	hres ok "demo_oops.ko carries .eh_frame and .sframe"
else
	hres fail "demo_oops.ko carries .eh_frame and .sframe"
fi
stockfiles=()
if [ -f "$WORK/src/kunit/stock_probe.ko" ]; then
	hres ok "build stock_probe.ko (kprobe payload)"
	stockfiles+=("/lib/kunwind/kunit/stock_probe.ko=$WORK/src/kunit/stock_probe.ko")
else
	hres fail "build stock_probe.ko (kprobe payload)"
fi

# --- dkms -----------------------------------------------------------------
# In the kernel's own Debian release (kuw_toolchain_root: the host for 6.1
# on Debian 12, a Debian 13 root for 6.12 and 7.3), with its dkms and its
# compiler, as a user of that kernel has them.
droot=$(kuw_toolchain_root "$REL")
dsigner=
if [ "$(id -u)" = 0 ] && kuw_root_install "$droot" dkms >/dev/null 2>&1; then
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	D="$WORK/dkms"
	mkdir -p "$D/tree" "$D/install/$kver" "$D/src"
	rsync -a --exclude=.git --exclude=/build "$WORK/src/" "$D/src/kunwind-$ver/"
	kuw_in_root "$droot" make -C "$KDIR" M="$D/src/kunwind-$ver" clean >/dev/null 2>&1 || true
	# arm64: cross-built like the modules above (the headers' Makefile sets
	# ARCH; CROSS_COMPILE comes from the environment).  POST_INSTALL
	# installs the loader and its udev rule: staged (KUNWIND_DESTDIR).
	dk=(env ${xp:+CROSS_COMPILE=$xp} KUNWIND_DESTDIR="$D/root" dkms ${xp:+-a aarch64}
		--dkmstree "$D/tree" --sourcetree "$D/src" --installtree "$D/install"
		-m kunwind -v "$ver" -k "$kver" --kernelsourcedir "$KDIR")
	# The module as dkms installed it: compressed when the kernel's
	# CONFIG_MODULE_COMPRESS_ALL says so (Debian 13), plain for the guest.
	dko=
	if kuw_in_root "$droot" "${dk[@]}" add >"$D.log" 2>&1 &&
		kuw_in_root "$droot" "${dk[@]}" build >>"$D.log" 2>&1 &&
		kuw_in_root "$droot" "${dk[@]}" install --force --no-depmod >>"$D.log" 2>&1; then
		f=$(find "$D/install" -name 'kunwind.ko*' | head -n 1)
		case $f in
		*.ko) dko=$f ;;
		*.ko.xz) xz -dc "$f" >"$D/kunwind.ko" && dko=$D/kunwind.ko ;;
		*.ko.zst) zstd -qdc "$f" >"$D/kunwind.ko" && dko=$D/kunwind.ko ;;
		*.ko.gz) gzip -dc "$f" >"$D/kunwind.ko" && dko=$D/kunwind.ko ;;
		esac
		echo "installed: ${f:-nothing}" >>"$D.log"
	fi
	if [ -n "$dko" ] && [ -x "$D/root/usr/local/sbin/kunwind-dump" ] &&
		grep -q 'kunwind-dump load' "$D/root/etc/udev/rules.d/90-kunwind.rules"; then
		hres ok "dkms add/build/install against linux-headers-$kver (module, loader, udev rule; ${droot:+Debian 13 root, }$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\).*/\1/p' "$KDIR/.config"))"
		stockfiles+=("/lib/kunwind/dkms/kunwind.ko=$dko")
		dsigner=$(modinfo -F signer "$dko" 2>/dev/null || true)
	else
		tail -n 30 "$D.log" >&2
		hres fail "dkms add/build/install against linux-headers-$kver (module, loader, udev rule)"
	fi
else
	hres skip "dkms add/build/install against linux-headers-$kver (module, loader, udev rule)" "dkms not installable here"
fi

# --- kunwind-dump: for the host, and static for the guest ----------------
# (arm64: cross-built with aarch64-linux-gnu-gcc -static, libc6-dev-arm64-cross)
TB="$WORK/tools"
TOOL="$TB/kunwind-dump"
GB="$WORK/guest-tools"
gcc_guest=(CC="${xp}gcc")
if make -s -C "$REPO" B="$TB" "$TOOL" >"$WORK/tools.log" 2>&1 &&
	make -s -C "$REPO" B="$GB" "${gcc_guest[@]}" "$GB/kunwind-dump-static" \
	>>"$WORK/tools.log" 2>&1; then
	hres ok "build a static kunwind-dump for the guest${xp:+ (${xp}gcc -static)}"
	stockfiles+=("/bin/kunwind-dump=$GB/kunwind-dump-static")
else
	cat "$WORK/tools.log" >&2
	hres fail "build a static kunwind-dump for the guest"
fi

# --- the debug package ------------------------------------------------------
# linux-image-<kver>-dbg holds the debug vmlinux (.debug_frame, 49k FDEs)
# and every module's debug file (full .ko with .debug_frame and its
# relocations).  Kept of it, trimmed to what kunwind-dump reads: the
# vmlinux and the modules the guest loads (DBG_MODS, under kernel/).  Of
# the newest other build of another upstream release (the "wrong kernel":
# what a user has right after an upgrade) only the vmlinux.  Both .debs are deleted.
DBG_MODS="drivers/block/loop"
DBG_RECIPE=3	# bump when what is kept, or how it is checked, changes (2: blob v2, 3: another release)
DBG="$ST/dbg"
dbgroot=/usr/lib/debug
# The trimmed vmlinux: section headers, .notes (the build id), .debug_frame,
# the symbols; the code and data become NOBITS.  About 5 % of the file.
dbg_trim_vmlinux() {
	"${xp}objcopy" --only-keep-debug -R '.debug_*' -R '!.debug_frame' -R '.rela*' \
		-R '.BTF*' "$1" "$2"
}
# A module's: its other DWARF and their relocations go, .debug_frame and
# .rela.debug_frame stay (objcopy --only-keep-debug would drop those
# relocations: module blobs are relocated with them).
dbg_trim_module() {
	"${xp}objcopy" --remove-relocations='.debug_[!f]*' -R '.debug_[!f]*' \
		-R '.BTF*' "$1" "$2"
}
# dbg_extract DEB DIR MEMBER...: only these files.  tar stops once it has
# them all (--occurrence; the vmlinux comes first in 6.1's package: 8 s
# instead of 35 s for the whole), and dpkg-deb then dies of SIGPIPE: the
# files themselves are checked.  A member that is a symbolic link (7.x:
# boot/vmlinux-VER -> ../../lib/modules/VER/vmlinux) is followed: its
# target is extracted by a second pass.
dbg_extract() {
	local deb=$1 dir=$2 m t more=()
	shift 2
	mkdir -p "$dir"
	{ dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
		tar -x -C "$dir" --occurrence=1 "$@"; } || true
	for m; do
		if [ -L "$dir/$m" ]; then
			t=$(readlink "$dir/$m")
			case $t in
			/*) t=".$t" ;;
			*) t=$(realpath -m --relative-to="$dir" "$dir/${m%/*}/$t") && t="./$t" ;;
			esac
			more+=("$t")
		fi
	done
	if [ ${#more[@]} -gt 0 ]; then
		{ dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
			tar -x -C "$dir" --occurrence=1 "${more[@]}"; } || true
	fi
	for m; do
		[ -s "$dir/$m" ] || { log "$deb: $m missing"; return 1; }
	done
}
# dbg_same_blob FULL TRIMMED: kunwind-dump export gives the same bytes.
dbg_same_blob() {
	"$TOOL" export "$1" -o "$WORK/full.blob" --src debug_frame >/dev/null &&
		"$TOOL" export "$2" -o "$WORK/trim.blob" --src debug_frame >/dev/null &&
		cmp -s "$WORK/full.blob" "$WORK/trim.blob"
}
# dbg_upstream KVER: the Debian version of its -dbg package (6.1.192-1)
dbg_upstream() {
	kuw_acache show --no-all-versions "linux-image-$1-dbg$q" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}
# dbg_prev: the "wrong kernel" a user has right after an upgrade: the
# newest -dbg package of the same flavour and ABI naming (6.1.0-N-amd64;
# 6.12.118+deb13-amd64 and 7.3.4+deb13-amd64 are both "+deb13") whose
# upstream release is older than ours: 6.1 -> an older 6.1.0-N, 6.12 ->
# an older 6.12.x, 7.3 -> 7.2.x.
dbg_prev() {
	local ours up p v best='' bv='' pat fam
	ours=$(dbg_upstream "$kver")
	up=${ours%%-*}
	case $kver in
	*+deb*)
		fam=$(sed -E 's/^[^+]*\+deb([0-9]+).*$/\1/' <<<"$kver")
		pat="^linux-image-([0-9.]+\\+deb$fam(\\.[0-9]+)?-$da)-dbg\$" ;;
	*) pat="^linux-image-(${REL//./\\.}\\.0-[0-9]+-$da)-dbg\$" ;;
	esac
	for p in $(kuw_acache pkgnames linux-image- 2>/dev/null |
		sed -n -E "s/$pat/\\1/p" | grep -vx "$kver"); do
		v=$(dbg_upstream "$p")
		[ -n "$v" ] || continue
		dpkg --compare-versions "${v%%-*}" lt "$up" || continue
		if [ -z "$bv" ] || dpkg --compare-versions "$v" gt "$bv"; then
			best=$p bv=$v
		fi
	done
	echo "$best"
}
# dbg_vmlinux DIR KVER: where its debug vmlinux is, as unpacked under DIR
# (the link's target when boot/vmlinux-KVER is a link)
dbg_vmlinux() {
	local f="$1$dbgroot/boot/vmlinux-$2"
	[ -L "$f" ] && f=$(realpath -m "$f")
	echo "$f"
}
dbg_fetch() {
	local tmp new t1 t2 t3 t4 deb pdeb m mem=() pid pp="" rc=0 n vl pv
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-dbg.XXXXXX")
	new="$DBG.new"
	rm -rf "$new"
	prev=$(dbg_prev)
	[ -n "$prev" ] || log "no older linux-image-*-$da-dbg of $kver's family in apt's lists"
	log "downloading linux-image-$kver-dbg${prev:+ and linux-image-$prev-dbg} (0.8-1.2 GB each, never installed)"
	t1=$(date +%s)
	(
		flock -w 900 9 || die "apt lock timeout"
		kuw_apt_download "$tmp" "linux-image-$kver-dbg$q" \
			${prev:+"linux-image-$prev-dbg$q"}
	) 9>"$CACHE/apt.lock" || { rm -rf "$tmp"; return 1; }
	t2=$(date +%s)
	mem=(".$dbgroot/boot/vmlinux-$kver")
	for m in $DBG_MODS; do
		mem+=(".$dbgroot/lib/modules/$kver/kernel/$m.ko")
	done
	deb=$(ls "$tmp"/linux-image-"$kver"-dbg_*.deb)
	dbg_extract "$deb" "$tmp/x" "${mem[@]}" &
	pid=$!
	if [ -n "$prev" ]; then
		pdeb=$(ls "$tmp"/linux-image-"$prev"-dbg_*.deb)
		dbg_extract "$pdeb" "$tmp/p" ".$dbgroot/boot/vmlinux-$prev" &
		pp=$!
	fi
	wait "$pid" || rc=1
	[ -z "$pp" ] || wait "$pp" || rc=1
	rm -f "$tmp"/*.deb
	t3=$(date +%s)
	if [ "$rc" = 0 ]; then
		# The trimmed vmlinux where the package has the file; the link
		# too, as the package has it.
		vl=$(dbg_vmlinux "$tmp/x" "$kver")
		m=${vl#"$tmp/x"}
		mkdir -p "$new/root${m%/*}" "$new/prev"
		dbg_trim_vmlinux "$vl" "$new/root$m" || rc=1
		if [ -L "$tmp/x$dbgroot/boot/vmlinux-$kver" ]; then
			mkdir -p "$new/root$dbgroot/boot"
			cp -P "$tmp/x$dbgroot/boot/vmlinux-$kver" "$new/root$dbgroot/boot/"
		fi
		# Checked once here, the full file is not kept: the trimmed
		# vmlinux must give kunwind-dump export's blob byte for byte.
		if dbg_same_blob "$vl" "$new/root$m"; then
			n=$(stat -c %s "$WORK/full.blob")
			echo "vmlinux-$kver: same blob ($n bytes)" >"$new/trim-check"
		else
			echo "vmlinux-$kver: the blobs differ" >"$new/trim-check"
		fi
		for m in $DBG_MODS; do
			mkdir -p "$new/root$dbgroot/lib/modules/$kver/kernel/${m%/*}" \
				"$new/full/${m%/*}"
			cp "$tmp/x$dbgroot/lib/modules/$kver/kernel/$m.ko" \
				"$new/full/$m.ko"
			dbg_trim_module "$new/full/$m.ko" \
				"$new/root$dbgroot/lib/modules/$kver/kernel/$m.ko" || rc=1
		done
		if [ -n "$prev" ]; then
			pv=$(dbg_vmlinux "$tmp/p" "$prev")
			dbg_trim_vmlinux "$pv" "$new/prev/vmlinux-$prev" || rc=1
			if dbg_same_blob "$pv" "$new/prev/vmlinux-$prev"; then
				echo "vmlinux-$prev: same blob" >>"$new/trim-check"
			else
				echo "vmlinux-$prev: the blobs differ" >>"$new/trim-check"
			fi
		fi
	fi
	rm -rf "$tmp"
	t4=$(date +%s)
	[ "$rc" = 0 ] || { rm -rf "$new"; return 1; }
	printf 'download %ss, extract %ss, trim and check %ss, kept %s\n' \
		$((t2 - t1)) $((t3 - t2)) $((t4 - t3)) \
		"$(du -sh "$new" | cut -f1)" >"$new/fetch-times"
	echo "$DBG_RECIPE ${prev:-none}" >"$new/.kuw-ok"
	rm -rf "$DBG"
	mv "$new" "$DBG"
}

dbg=0 dbgwhy="KUNWIND_STOCK_DBG=0" prev=
if [ "${KUNWIND_STOCK_DBG:-1}" != 0 ]; then
	dbgwhy="the debug packages could not be fetched"
	# one fetch at a time (work trees share the cache)
	exec 8>"$CACHE/stock/$kver.dbg.lock"
	flock -w 1800 8 || die "$CACHE/stock/$kver.dbg.lock: timeout"
	read -r r prev 2>/dev/null <"$DBG/.kuw-ok" || r=
	if [ "$r" != "$DBG_RECIPE" ]; then
		t1=$(date +%s)
		dbg_fetch || true
		stamp "debug packages: $(cat "$DBG/fetch-times" 2>/dev/null || echo failed) ($(( $(date +%s) - t1 ))s)"
	fi
	exec 8>&-
	read -r r prev 2>/dev/null <"$DBG/.kuw-ok" || r=
	[ "$prev" != none ] || prev=
	if [ "$r" = "$DBG_RECIPE" ]; then
		dbg=1
		hres ok "debug packages in the cache (linux-image-$kver-dbg${prev:+, linux-image-$prev-dbg}: $(du -sh "$DBG" | cut -f1) kept)"
	else
		hres fail "debug packages in the cache"
	fi
else
	hres skip "debug packages in the cache" "$dbgwhy"
fi
if [ "$dbg" = 1 ]; then
	if ! grep -q "differ" "$DBG/trim-check"; then
		hres ok "trimmed debug vmlinux gives the full one's blob ($(head -n 1 "$DBG/trim-check"); checked when cached)"
	else
		cat "$DBG/trim-check" >&2
		hres fail "trimmed debug vmlinux gives the full one's blob (checked when cached)"
	fi
	# Module debug files: the full ones are small and kept, so checked on
	# every run (once kunwind-dump exports modules).
	res=ok why=
	for m in $DBG_MODS; do
		if ! "$TOOL" export "$DBG/full/$m.ko" -o "$WORK/full.blob" \
			--src debug_frame >"$WORK/export.log" 2>&1; then
			if grep -q "relocatable object" "$WORK/export.log"; then
				res=skip why="kunwind-dump export takes no module yet"
			else
				cat "$WORK/export.log" >&2
				res=fail
			fi
			break
		fi
		dbg_same_blob "$DBG/full/$m.ko" \
			"$DBG/root$dbgroot/lib/modules/$kver/kernel/$m.ko" || res=fail
	done
	hres "$res" "trimmed module debug files give the full ones' blobs ($DBG_MODS)" "$why"
	if [ -n "$prev" ] && "$TOOL" export "$DBG/prev/vmlinux-$prev" \
		-o "$WORK/wrong-kernel.blob" --src debug_frame >&2; then
		hres ok "wrong-kernel blob exported (from the $prev debug vmlinux)"
		stockfiles+=("/lib/kunwind/wrong-kernel.blob=$WORK/wrong-kernel.blob")
	elif [ -n "$prev" ]; then
		hres fail "wrong-kernel blob exported (from the $prev debug vmlinux)"
	else
		hres skip "wrong-kernel blob exported" "no other build's -dbg package"
	fi
	# the trimmed debug files at the package's paths, its links as links
	while IFS= read -r -d '' f; do
		if [ -L "$f" ]; then
			stockfiles+=("${f#"$DBG/root"}=->$(readlink "$f")")
		else
			stockfiles+=("${f#"$DBG/root"}=$f")
		fi
	done < <(find "$DBG/root" \( -type f -o -type l \) -print0)
else
	for t in "trimmed debug vmlinux gives the full one's blob" \
		"trimmed module debug files give the full ones' blobs" \
		"wrong-kernel blob exported"; do
		hres skip "$t" "$dbgwhy"
	done
fi
# The stock modules the guest loads, at their usual place.
for m in $DBG_MODS; do
	f=$(stock_mod "$m") || die "$m.ko* not in linux-image-$kver"
	stockfiles+=("/lib/modules/$kver/kernel/$m.ko=$f")
done
# Where the guest's kprobes go in loop.ko, and the pc it asks demo_oops'
# rules for: the function's first instruction its CFI covers.  That is its
# entry on x86_64; on arm64 GCC puts the ftrace NOPs
# (-fpatchable-function-entry=2) before .cfi_startproc, so the FDE starts 8
# bytes in, at the paciasp: still before the frame record is saved, where
# the frame-record walker misses the caller.
first_row() { # FILE FUNC: its offset, 0 without the file or the tool
	local o
	if [ -f "$1" ] && [ -x "$TOOL" ]; then
		for o in 0 4 8 12 16; do
			"$TOOL" rules "$1" "$2+$o" 2>/dev/null | grep -q ' none$' ||
				{ echo "$o"; return; }
		done
	fi
	echo 0
}
loopdbg="$DBG/root$dbgroot/lib/modules/$kver/kernel/drivers/block/loop.ko"
[ "$dbg" = 1 ] || loopdbg=/nonexistent
# What the guest needs to know: whether the debug files are there, and why
# not; the wrong kernel's version; the architecture, the probes' offsets.
{
	echo "KUW_ARCH=$KUW_ARCH"
	echo "KUW_OFF_CONFIGURE=$(first_row "$loopdbg" loop_configure)"
	echo "KUW_OFF_SET_STATUS=$(first_row "$loopdbg" loop_set_status)"
	echo "KUW_OFF_DEPTH3=$(first_row "$WORK/src/kunit/demo_oops.ko" demo_depth3)"
	echo "KUW_DBG=$dbg"
	echo "KUW_DBG_WHY='$dbgwhy'"
	echo "KUW_PREV='$prev'"
	echo "KUW_STOCK_MODS='$DBG_MODS'"
	# lockdown raised after kunwind.ko loads, as on a Secure Boot machine
	echo "KUW_LOCKDOWN=${KUNWIND_STOCK_LOCKDOWN:-integrity}"
	# or locked down from the start by the firmware's Secure Boot
	echo "KUW_FIRMWARE=$FIRMWARE"
	echo "KUW_DKMS_SIGNER='$dsigner'"
} >"$WORK/stock.conf"
stockfiles+=("/etc/kuw-stock.conf=$WORK/stock.conf")
[ "$FIRMWARE" != secureboot ] ||
	stockfiles+=("/lib/kunwind/unsigned/kunwind.ko=$WORK/unsigned/kunwind.ko")

# the stress of /dev/kunwind/ (scripts/guest/stress.sh), built with the
# guest's compiler; the boot has slab debugging on (slub_debug=FZPU, below)
mapfile -t -O ${#stockfiles[@]} stockfiles < <(kuw_stress_files "$WORK" "${xp}gcc")

# --- boot the stock kernel ----------------------------------------------
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/stock.sh" \
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko" \
	"/guest/backtrace_all.sh=$REPO/scripts/guest/backtrace_all.sh" \
	"/guest/reliable.sh=$REPO/scripts/guest/reliable.sh" \
	"/guest/consumers.sh=$REPO/scripts/guest-switch/consumers.sh" \
	"/guest/hung_task.sh=$REPO/scripts/guest/hung_task.sh" \
	"/guest/stress.sh=$REPO/scripts/guest/stress.sh" \
	"/lib/kunwind/kunit/hung_payload.ko=$WORK/src/kunit/hung_payload.ko" \
	"/lib/kunwind/kunit/reliable_payload.ko=$WORK/src/kunit/reliable_payload.ko" \
	${stockfiles[@]+"${stockfiles[@]}"}
# boot INITRD LOG TIMEOUT: the stock kernel in QEMU, 768 MB.  preempt=full:
# reliable.sh's spinners must be preempted in kernel mode (Debian's x86
# kernels have a dynamic preemption model; its arm64 6.x kernels are
# voluntary only and ignore it, 7.x's are lazy: preemptible anyway).
# slub_debug=FZPU: every slab cache checked (consistency, red zones,
# poison, owner tracking); the stress validates them all at its end.
boot() {
	if [ "$FIRMWARE" = secureboot ]; then
		kuw_qemu_sb "$SBFW" "$VMLINUZ" "$1" "$2" "$3" \
			"tsc_early_khz=$(kuw_tsc_khz) preempt=full slub_debug=FZPU" 768M
	elif [ "$KUW_ARCH" = arm64 ]; then
		kuw_qemu_arm64 "$VMLINUZ" "$1" "$2" "$3" "preempt=full slub_debug=FZPU" 768M
	else
		kuw_qemu "$VMLINUZ" "$1" "$2" "$3" "tsc_early_khz=$(kuw_tsc_khz) preempt=full slub_debug=FZPU" 768M
	fi
}
# In this run's directory, then copied: the cache is shared (see check.sh).
L="$WORK/stock$lsfx-last.log"
stamp "booting Debian's kernel (~10 s under TCG, then the checks)"
boot "$WORK/initrd.gz" "$L" "${KUNWIND_TIMEOUT:-600}" || true
cp -f "$L" "$CACHE/logs/"
stamp "guest ended (log: $CACHE/logs/${L##*/})"
if [ "$FIRMWARE" != secureboot ]; then
	hres skip "Secure Boot: the kernel locked down by the firmware, the MOK from shim" \
		"KUNWIND_STOCK_FIRMWARE=$FIRMWARE"
elif kuw_sb_booted "$L"; then
	hres ok "Secure Boot: the kernel locked down by the firmware, the MOK from shim (OVMF, shim, GRUB of $(kuw_release_codename "$REL"))"
else
	grep -E 'Secure|ecure boot|locked down|X.509|shim|Verification' "$L" | head -n 20 >&2 || true
	hres fail "Secure Boot: the kernel locked down by the firmware, the MOK from shim"
fi
python3 "$REPO/scripts/ktap.py" "$L" | grep '^guest: ' || true

# --- the hung-task report and /proc/PID/stack, frame by frame -----------
# scripts/guest/hung_task.sh printed kuw_hung's /proc/PID/stack with the
# switch off and on ("kuw-stack: proc-off|proc-on FRAME"), and khungtaskd
# its report; every return address in them must follow a call
# (scripts/framecheck.py, against the debug vmlinux and the module).
hung_check() { # NAME FILE
	local out
	if [ ! -s "$2" ]; then
		hres fail "$1: frames found in the guest's log"
		return
	fi
	if out=$(python3 "$REPO/scripts/framecheck.py" -k "$DBGV" --format stack \
		--module "$WORK/src/kunit/hung_payload.ko=$modtext" --summary "$2" 2>&1); then
		hres ok "$1: every frame after a call ($(printf '%s' "$out" | tail -n 1))"
	else
		printf '%s\n' "$out" >&2
		hres fail "$1: every frame after a call"
	fi
}
DBGV="$DBG/root$dbgroot/boot/vmlinux-$kver"
# 7.x: a link to lib/modules/KVER/vmlinux, relative or absolute in the package
if [ -L "$DBGV" ]; then
	case $(readlink "$DBGV") in
	/*) DBGV="$DBG/root$(readlink "$DBGV")" ;;
	*) DBGV="$(dirname "$DBGV")/$(readlink "$DBGV")" ;;
	esac
fi
# The trimmed -dbg vmlinux keeps symbols, not code: the code is the image's
# that booted, put back into its sections (as make check-clients does, in
# the same cached file).
CODEV="$CACHE/clients/vmlinux-$kver"
if [ "$dbg" = 1 ] && [ -f "$DBGV" ] && { [ ! -s "$CODEV" ] || [ "$CODEV" -ot "$DBGV" ]; }; then
	mkdir -p "$CACHE/clients"
	if python3 "$REPO/scripts/clients_report.py" image "$DBGV" "$VMLINUZ" "$CODEV.tmp.$$" >&2; then
		mv -f "$CODEV.tmp.$$" "$CODEV"
	else
		rm -f "$CODEV.tmp.$$"
	fi
fi
DBGV=$CODEV
if [ "$dbg" = 1 ] && [ -s "$DBGV" ]; then
	for w in off on; do
		sed -n "s/^.*kuw-stack: proc-$w //p" "$L" >"$WORK/hung-proc-$w"
	done
	modtext=$(sed -n 's/^.*kuw-stack: modtext \(0x[0-9a-f]*\).*$/\1/p' "$L" | tail -n 1)
	# the report: the frames after its "blocked for more than" line
	awk '/INFO: task kuw_hung:[0-9]+ blocked for more than/ { on = 1; next }
		on && /Call [Tt]race:|<\/?TASK>/ { next }
		on && /[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
			sub(/^.*\] +/, ""); if ($1 == "?") next
			print "[<0>] " $0; n++; next }
		on && n { exit }' "$L" >"$WORK/hung-report"
	hung_check "/proc/kuw_hung/stack, switch off and on" \
		"$( { cat "$WORK/hung-proc-off"; echo; cat "$WORK/hung-proc-on"; } >"$WORK/hung-proc"; echo "$WORK/hung-proc")"
	hung_check "hung-task report of kuw_hung" "$WORK/hung-report"
else
	hres skip "/proc/kuw_hung/stack, switch off and on: every frame after a call" "no debug vmlinux"
	hres skip "hung-task report of kuw_hung: every frame after a call" "no debug vmlinux"
fi

# --- a second boot: the oops --------------------------------------------
# An oops kills the writing process and taints the kernel: alone in its
# own boot, whose log is the only one read with --allow-oops.
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd-oops.gz" \
	"$REPO/scripts/init/stock_oops.sh" \
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko" \
	${stockfiles[@]+"${stockfiles[@]}"}
LO="$WORK/stock$lsfx-oops-last.log"
stamp "booting Debian's kernel again: the oops"
boot "$WORK/initrd-oops.gz" "$LO" "${KUNWIND_TIMEOUT:-300}" || true
cp -f "$LO" "$CACHE/logs/"
stamp "oops guest ended (log: $CACHE/logs/${LO##*/})"
python3 "$REPO/scripts/ktap.py" --allow-oops "$LO" | grep '^guest: ' || true
python3 "$REPO/scripts/oops_traces.py" "$LO" || true
ktr=$(python3 "$REPO/scripts/oops_traces.py" "$LO" --kernel || true)
utr=$(python3 "$REPO/scripts/oops_traces.py" "$LO" --kunwind || true)
nk=$(printf '%s\n' "$ktr" | grep -c . || true)
case $ktr in
*demo_depth5*demo_depth1*) ktr_ok=1 ;;
*) ktr_ok=0 ;;
esac
# kunwind marks the frames ORC stepped " (orc)": with the vmlinux blob
# there must be none; without it (KUNWIND_STOCK_DBG=0) the vmlinux frames
# are ORC's, compared without the mark.
note=", none stepped by ORC"
if [ "$dbg" = 0 ]; then
	utr=$(printf '%s\n' "$utr" | sed 's/ (orc)$//')
	note=", ORC's marks left out: no vmlinux blob"
fi
if [ "$ktr_ok" = 1 ] && [ "$ktr" = "$utr" ]; then
	hres ok "oops: kunwind's trace is the kernel's ($nk frames, demo_depth5 to the syscall$note)"
else
	hres fail "oops: kunwind's trace is the kernel's (kernel $nk frames, kunwind $(printf '%s\n' "$utr" | grep -c . || true))"
fi
# The closing note: every thread's agreement with the kernel's trace, and
# (arm64) the callers kunwind sees that the frame-record walker misses.
sed -n 's/^.*kuw-guest: .*# \(backtrace all vs .*\|missed callers .*\|reliable: tasks .*\)$/# \1/p' "$L" || true
summary --oops "$LO" --ktap "$HK" "$L"
