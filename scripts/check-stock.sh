#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-stock: the real-world path on Debian's stock 6.1 kernel.
#
#  1. apt-get download linux-image-6.1.0-N-amd64 and its headers (the
#     version linux-image-amd64 depends on), dpkg-deb -x into the cache
#     (nothing is installed on the host)
#  2. build kunwind.ko and demo_oops.ko (a payload with .eh_frame and
#     .sframe) against those headers; the KUnit suites are skipped there
#     (CONFIG_KUNIT is unset in Debian's kernel)
#  3. dkms add/build/install against the same headers, with every dkms tree
#     in the cache (when the dkms package is installable)
#  4. the kernel's debug package, linux-image-<kver>-dbg, and the newest
#     other build's (the "wrong kernel"): apt-get download once, unpacked,
#     trimmed to what kunwind-dump reads, cached; the .debs deleted
#     (KUNWIND_STOCK_DBG=0 skips this part and the guest checks that need
#     it, as KTAP skips)
#  5. boot the stock kernel in QEMU with a busybox initramfs (a static
#     kunwind-dump, the trimmed debug files at Debian's paths, the stock
#     loop.ko): scripts/init/stock.sh loads kunwind.ko and the tables, and
#     checks kunwind's walks against the kernel's own (ORC)
#  6. a second boot oopses in demo_oops.ko: kunwind's trace of the oops
#     must be the kernel's (scripts/oops_traces.py)
#
# ARCH=arm64 (make check-stock ARCH=arm64): the same on Debian's stock
# arm64 kernel, linux-image-6.1.0-N-arm64 (apt-get download of the :arm64
# packages, dpkg's arm64 architecture added when missing), its modules
# cross-built against its headers with the amd64 linux-kbuild-6.1 host
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
. "$(dirname "$0")/lib.sh"

# Debian's architecture and what differs per architecture: the package
# suffix, the binutils prefix, the guest's tool chain and QEMU.
if [ "$KUW_ARCH" = arm64 ]; then
	da=arm64 q=:arm64 xp=aarch64-linux-gnu- lsfx=-arm64
else
	da=amd64 q= xp= lsfx=
fi


t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }
kuw_deps
if [ "$KUW_ARCH" = arm64 ]; then
	# libc.a for the guest's static kunwind-dump; the busybox (which also
	# adds arm64 to dpkg's architectures, for apt-get download below)
	kuw_install libc6-dev-arm64-cross
	kuw_busybox_arm64 >/dev/null
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-stock.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
# Host-side results, a KTAP document: the builds, the payload's sections,
# dkms, the debug files, the oops boot's traces.
HK="$WORK/host.ktap"
printf 'KTAP version 1\n1..11\n' >"$HK"
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
stock_img() {
	apt-cache depends "linux-image-$da$q" 2>/dev/null |
		sed -n "s/^ *Depends: \(linux-image-6\.1\.[0-9.-]*-$da\)\(:$da\)\?\$/\1/p" |
		head -n 1
}
img=$(stock_img)
[ -n "$img" ] || { apt-get update -qq || true; img=$(stock_img); }
[ -n "$img" ] || die "cannot find Debian's linux-image-6.1.0-*-$da (apt-get update?)"
kver=${img#linux-image-}
ST="$CACHE/stock/$kver"
if [ ! -f "$ST/.kuw-ok" ]; then
	log "downloading $img and headers"
	rm -rf "$ST"
	mkdir -p "$ST/debs" "$ST/root"
	chmod 777 "$ST/debs"	# apt's sandbox user writes there
	flavour=${kver%-"$da"}
	# linux-kbuild-6.1 is always the host's (amd64): fixdep, modpost and
	# the other kbuild helpers run here, also when cross-building.
	(cd "$ST/debs" && apt-get download -q "linux-image-$kver$q" \
		"linux-headers-$kver$q" "linux-headers-$flavour-common" \
		linux-kbuild-6.1:amd64 >/dev/null)
	for d in "$ST"/debs/*.deb; do
		dpkg-deb -x "$d" "$ST/root"
	done
	# The flavour's headers include the common headers by absolute path.
	sed -i "s|^include /usr/src/|include $ST/root/usr/src/|" \
		"$ST/root/usr/src/linux-headers-$kver/Makefile"
	touch "$ST/.kuw-ok"
fi
rm -rf "$ST/debs"	# unpacked: the .debs are not needed again
KDIR="$ST/root/usr/src/linux-headers-$kver"
VMLINUZ="$ST/root/boot/vmlinuz-$kver"
[ -f "$VMLINUZ" ] || die "$VMLINUZ missing"
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
if [ "$(id -u)" = 0 ] && { kuw_have_pkg dkms || kuw_install dkms; }; then
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	D="$WORK/dkms"
	mkdir -p "$D/tree" "$D/install/$kver" "$D/src"
	rsync -a --exclude=.git --exclude=/build "$WORK/src/" "$D/src/kunwind-$ver/"
	make -C "$KDIR" M="$D/src/kunwind-$ver" clean >/dev/null 2>&1 || true
	# arm64: cross-built like the modules above (the headers' Makefile sets
	# ARCH; CROSS_COMPILE comes from the environment)
	dk=(env ${xp:+CROSS_COMPILE=$xp} dkms ${xp:+-a aarch64} --dkmstree "$D/tree" --sourcetree "$D/src" --installtree "$D/install"
		-m kunwind -v "$ver" -k "$kver" --kernelsourcedir "$KDIR")
	# POST_INSTALL installs the loader and its udev rule: staged here
	if "${dk[@]}" add >"$D.log" 2>&1 && "${dk[@]}" build >>"$D.log" 2>&1 &&
		KUNWIND_DESTDIR="$D/root" "${dk[@]}" install --force --no-depmod \
			>>"$D.log" 2>&1 &&
		dko=$(find "$D/install" -name 'kunwind.ko' | head -n 1) &&
		[ -n "$dko" ] && [ -x "$D/root/usr/local/sbin/kunwind-dump" ] &&
		grep -q 'kunwind-dump load' "$D/root/etc/udev/rules.d/90-kunwind.rules"; then
		hres ok "dkms add/build/install against linux-headers-$kver (module, loader, udev rule)"
		stockfiles+=("/lib/kunwind/dkms/kunwind.ko=$dko")
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
# them all (--occurrence; the vmlinux comes first in the package: 8 s
# instead of 35 s for the whole), and dpkg-deb then dies of SIGPIPE: the
# files themselves are checked.
dbg_extract() {
	local deb=$1 dir=$2 m
	shift 2
	mkdir -p "$dir"
	{ dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
		tar -x -C "$dir" --occurrence=1 "$@"; } || true
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
# dbg_upstream KVER: the upstream release of its -dbg package (6.1.192)
dbg_upstream() {
	apt-cache show --no-all-versions "linux-image-$1-dbg$q" 2>/dev/null |
		sed -n 's/^Version: \([^-]*\)-.*/\1/p' | head -n 1
}
dbg_fetch() {
	local tmp prev new t1 t2 t3 t4 deb pdeb m mem=() pid pp="" rc=0 n
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-dbg.XXXXXX")
	chmod 777 "$tmp"	# apt's sandbox user writes there
	new="$DBG.new"
	rm -rf "$new"
	# the newest other build of another upstream release: two packages
	# of one release (6.1.192-1, -2) may have every function in place
	prev=
	local ours v p
	ours=$(dbg_upstream "$kver")
	for p in $(apt-cache pkgnames linux-image-6.1.0- 2>/dev/null |
		sed -n "s/^linux-image-\(6\.1\.0-[0-9]*-$da\)-dbg\$/\1/p" |
		grep -vx "$kver" | sort -rV); do
		v=$(dbg_upstream "$p")
		if [ -n "$v" ] && [ "$v" != "$ours" ]; then
			prev=$p
			break
		fi
	done
	[ -n "$prev" ] || log "no other linux-image-6.1.0-*-$da-dbg in apt's lists"
	log "downloading linux-image-$kver-dbg${prev:+ and linux-image-$prev-dbg} (~800-860 MB each, never installed)"
	t1=$(date +%s)
	(
		flock -w 900 9 || die "apt lock timeout"
		cd "$tmp" && apt-get download -q "linux-image-$kver-dbg$q" \
			${prev:+"linux-image-$prev-dbg$q"} >/dev/null
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
		mkdir -p "$new/root$dbgroot/boot" "$new/prev"
		dbg_trim_vmlinux "$tmp/x$dbgroot/boot/vmlinux-$kver" \
			"$new/root$dbgroot/boot/vmlinux-$kver" || rc=1
		# Checked once here, the full file is not kept: the trimmed
		# vmlinux must give kunwind-dump export's blob byte for byte.
		if dbg_same_blob "$tmp/x$dbgroot/boot/vmlinux-$kver" \
			"$new/root$dbgroot/boot/vmlinux-$kver"; then
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
			dbg_trim_vmlinux "$tmp/p$dbgroot/boot/vmlinux-$prev" \
				"$new/prev/vmlinux-$prev" || rc=1
			if dbg_same_blob "$tmp/p$dbgroot/boot/vmlinux-$prev" \
				"$new/prev/vmlinux-$prev"; then
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
	stockfiles+=("$dbgroot/boot/vmlinux-$kver=$DBG/root$dbgroot/boot/vmlinux-$kver")
	for m in $DBG_MODS; do
		stockfiles+=("$dbgroot/lib/modules/$kver/kernel/$m.ko=$DBG/root$dbgroot/lib/modules/$kver/kernel/$m.ko")
	done
else
	for t in "trimmed debug vmlinux gives the full one's blob" \
		"trimmed module debug files give the full ones' blobs" \
		"wrong-kernel blob exported"; do
		hres skip "$t" "$dbgwhy"
	done
fi
# The stock modules the guest loads, at their usual place.
for m in $DBG_MODS; do
	stockfiles+=("/lib/modules/$kver/kernel/$m.ko=$ST/root/lib/modules/$kver/kernel/$m.ko")
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
} >"$WORK/stock.conf"
stockfiles+=("/etc/kuw-stock.conf=$WORK/stock.conf")

# --- boot the stock kernel ----------------------------------------------
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/stock.sh" \
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko" \
	"/guest/backtrace_all.sh=$REPO/scripts/guest/backtrace_all.sh" \
	${stockfiles[@]+"${stockfiles[@]}"}
# boot INITRD LOG TIMEOUT: the stock kernel in QEMU, 768 MB
boot() {
	if [ "$KUW_ARCH" = arm64 ]; then
		kuw_qemu_arm64 "$VMLINUZ" "$1" "$2" "$3" "" 768M
	else
		kuw_qemu "$VMLINUZ" "$1" "$2" "$3" "tsc_early_khz=$(kuw_tsc_khz)" 768M
	fi
}
# In this run's directory, then copied: the cache is shared (see check.sh).
L="$WORK/stock$lsfx-last.log"
stamp "booting Debian's kernel (~10 s under TCG, then the checks)"
boot "$WORK/initrd.gz" "$L" "${KUNWIND_TIMEOUT:-600}" || true
cp -f "$L" "$CACHE/logs/"
stamp "guest ended (log: $CACHE/logs/${L##*/})"
python3 "$REPO/scripts/ktap.py" "$L" | grep '^guest: ' || true

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
sed -n 's/^.*kuw-guest: .*# \(backtrace all vs .*\|missed callers .*\)$/# \1/p' "$L" || true
summary --oops "$LO" --ktap "$HK" "$L"
