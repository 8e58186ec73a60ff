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
#  4. boot the stock kernel in QEMU with a busybox initramfs: insmod both,
#     check kunwind's debugfs `tables` lists demo_oops and `rules` answers
#
# Results are KTAP: the host-side steps (builds, dkms) in a KTAP file, the
# guest's (scripts/init/stock.sh) on the serial console; scripts/ktap.py
# parses both.  Last line: "N passed, N failed" (", N skipped" when some are).
export KUW_ARCH=x86_64	# the x86 bed; make check-arm64 is the arm64 one
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }
kuw_deps
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-stock.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
# Host-side results, a KTAP document of 4: the two builds, the payload's
# sections, dkms.
HK="$WORK/host.ktap"
printf 'KTAP version 1\n1..4\n' >"$HK"
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
# summary ARGS...: scripts/ktap.py on the results; its failures, then the
# last line.
summary() {
	local out p f s
	out=$(python3 "$REPO/scripts/ktap.py" --quiet "$@") || true
	printf '%s\n' "$out" | sed '$d'
	read -r p f s < <(printf '%s\n' "$out" | tail -n 1 |
		sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') || true
	[ -n "${p:-}" ] || { p=0 f=1 s=0; }
	if [ "$s" != 0 ]; then
		echo "$p passed, $f failed, $s skipped"
	else
		echo "$p passed, $f failed"
	fi
	[ "$f" = 0 ]
}

# --- stock kernel and headers ------------------------------------------
img=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-6\.1\.[0-9.-]*-amd64\)$/\1/p' | head -n 1)
[ -n "$img" ] || { apt-get update -qq || true; img=$(apt-cache depends linux-image-amd64 |
	sed -n 's/^ *Depends: \(linux-image-6\.1\.[0-9.-]*-amd64\)$/\1/p' | head -n 1); }
[ -n "$img" ] || die "cannot find Debian's linux-image-6.1.0-*-amd64 (apt-get update?)"
kver=${img#linux-image-}
ST="$CACHE/stock/$kver"
if [ ! -f "$ST/.kuw-ok" ]; then
	log "downloading $img and headers"
	rm -rf "$ST"
	mkdir -p "$ST/debs" "$ST/root"
	chmod 777 "$ST/debs"	# apt's sandbox user writes there
	flavour=${kver%-amd64}
	(cd "$ST/debs" && apt-get download -q "linux-image-$kver" \
		"linux-headers-$kver" "linux-headers-$flavour-common" \
		linux-kbuild-6.1 >/dev/null)
	for d in "$ST"/debs/*.deb; do
		dpkg-deb -x "$d" "$ST/root"
	done
	# The amd64 headers include the common headers by absolute path.
	sed -i "s|^include /usr/src/|include $ST/root/usr/src/|" \
		"$ST/root/usr/src/linux-headers-$kver/Makefile"
	touch "$ST/.kuw-ok"
fi
KDIR="$ST/root/usr/src/linux-headers-$kver"
VMLINUZ="$ST/root/boot/vmlinuz-$kver"
[ -f "$VMLINUZ" ] || die "$VMLINUZ missing"
stamp "stock kernel $kver"

# --- build against the stock headers -----------------------------------
if kuw_build_modules "$KDIR" "$WORK"; then
	hres ok "build kunwind.ko against linux-headers-$kver"
else
	hres fail "build kunwind.ko against linux-headers-$kver"
	for t in "build demo_oops.ko (payload)" \
		"demo_oops.ko carries .eh_frame and .sframe" \
		"dkms add/build/install against linux-headers-$kver"; do
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

# --- dkms -----------------------------------------------------------------
if [ "$(id -u)" = 0 ] && { kuw_have_pkg dkms || kuw_install dkms; }; then
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	D="$WORK/dkms"
	mkdir -p "$D/tree" "$D/install/$kver" "$D/src"
	rsync -a --exclude=.git --exclude=/build "$WORK/src/" "$D/src/kunwind-$ver/"
	make -C "$KDIR" M="$D/src/kunwind-$ver" clean >/dev/null 2>&1 || true
	dk=(dkms --dkmstree "$D/tree" --sourcetree "$D/src" --installtree "$D/install"
		-m kunwind -v "$ver" -k "$kver" --kernelsourcedir "$KDIR")
	if "${dk[@]}" add >"$D.log" 2>&1 && "${dk[@]}" build >>"$D.log" 2>&1 &&
		"${dk[@]}" install --force --no-depmod >>"$D.log" 2>&1 &&
		dko=$(find "$D/install" -name 'kunwind.ko' | head -n 1) &&
		[ -n "$dko" ]; then
		hres ok "dkms add/build/install against linux-headers-$kver"
		stockfiles+=("/lib/kunwind/dkms/kunwind.ko=$dko")
	else
		tail -n 30 "$D.log" >&2
		hres fail "dkms add/build/install against linux-headers-$kver"
	fi
else
	hres skip "dkms add/build/install against linux-headers-$kver" "dkms not installable here"
fi

# --- boot the stock kernel ----------------------------------------------
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/stock.sh" \
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko" \
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko" \
	${stockfiles[@]+"${stockfiles[@]}"}
# In this run's directory, then copied: the cache is shared (see check.sh).
L="$WORK/stock-last.log"
stamp "booting Debian's kernel (~10 s under TCG)"
kuw_qemu "$VMLINUZ" "$WORK/initrd.gz" "$L" "${KUNWIND_TIMEOUT:-300}" \
	"tsc_early_khz=$(kuw_tsc_khz)" 512M || true
cp -f "$L" "$CACHE/logs/"
stamp "guest ended (log: $CACHE/logs/stock-last.log)"
python3 "$REPO/scripts/ktap.py" "$L" | grep '^guest: ' || true
summary --ktap "$HK" "$L"
