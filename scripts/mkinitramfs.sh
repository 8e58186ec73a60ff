#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack a busybox initramfs without root (the kernel's gen_init_cpio).
#
#   scripts/mkinitramfs.sh OUT.cpio.gz INIT [DEST=SRC]...
#
# With KUW_ARCH=arm64 the busybox is Debian's busybox-static:arm64, unpacked
# into the cache (kuw_busybox_arm64); gen_init_cpio is the same for both.
#
# The image has busybox-static as /bin/busybox (applets are installed by
# INIT with `busybox --install -s`), /dev/console, INIT as /init, the
# guest-side helpers every /init and check sources (/etc/kuw-common.sh,
# /etc/kuw-ktap.sh from scripts/init/), and each SRC file at DEST (parent
# dirs created, mode kept: executables stay 0755); DEST=->TARGET makes
# DEST a symbolic link to TARGET.
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 OUT INIT [DEST=SRC]..."
out=$1 init=$2
shift 2
set -- "/etc/kuw-common.sh=$REPO/scripts/init/common.sh" \
	"/etc/kuw-ktap.sh=$REPO/scripts/init/ktap.sh" "$@"

# gen_init_cpio: one C file from the kernel source of the release under
# test (KUW_RELEASE); built once per release into the cache (works for the
# stock-kernel check too, which has no kernel tree).  6.1's is where it
# always was; the others are gen_init_cpio-<rel>.
rel=$KUW_RELEASE
if [ "$rel" = 6.1 ]; then
	gic="$CACHE/bin/gen_init_cpio"
else
	gic="$CACHE/bin/gen_init_cpio-$rel"
fi
if [ ! -x "$gic" ]; then
	mkdir -p "$CACHE/bin"
	srcf=$(find "$CACHE"/src -maxdepth 3 -path "*/linux-$rel-*/usr/gen_init_cpio.c" 2>/dev/null | head -n 1 || true)
	if [ -n "$srcf" ]; then
		cp "$srcf" "$gic.c"
	elif [ "$rel" = 6.1 ]; then
		tar -xJOf "$(kuw_tarball)" linux-source-6.1/usr/gen_init_cpio.c >"$gic.c"
	else
		tar -xJOf "$(kuw_source_tarball "$rel")" \
			"linux-source-$rel/usr/gen_init_cpio.c" >"$gic.c"
	fi
	gcc -O2 -o "$gic.tmp" "$gic.c"
	mv -f "$gic.tmp" "$gic"
fi

bb=
if [ "$KUW_ARCH" = arm64 ]; then
	bb=$(kuw_busybox_arm64)
else
	for c in /bin/busybox /usr/bin/busybox; do
		if [ -x "$c" ] && ! ldd "$c" >/dev/null 2>&1; then
			bb=$c
			break
		fi
	done
fi
[ -n "$bb" ] || die "no static busybox (package busybox-static)"

spec=$(mktemp)
trap 'rm -f "$spec"' EXIT
{
	for d in /bin /sbin /dev /proc /sys /tmp /root /etc /lib /boot /usr \
		/usr/bin /usr/sbin; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $bb 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $init 0755 0 0"
	declare -A dirs=()
	for a in "$@"; do
		dest=${a%%=*} src=${a#*=}
		d=$(dirname "$dest")
		while [ "$d" != / ] && [ -z "${dirs[$d]:-}" ]; do
			dirs[$d]=1
			d=$(dirname "$d")
		done
		case $src in
		"->"*) echo "slink $dest ${src#->} 0777 0 0"; continue ;;
		esac
		[ -f "$src" ] || die "initramfs: $src not found"
		if [ -x "$src" ]; then m=0755; else m=0644; fi
		echo "file $dest $src $m 0 0"
	done
	for d in $(printf '%s\n' "${!dirs[@]}" | sort); do
		echo "dir $d 0755 0 0"
	done
} >"$spec.unsorted"
# Directories first (sorted by depth), then the rest.
{ grep '^dir ' "$spec.unsorted" | awk '{ print gsub("/", "/"), $0 }' |
	sort -n -s | cut -d' ' -f2- | awk '!seen[$0]++'
  grep -v '^dir ' "$spec.unsorted"; } >"$spec"
rm -f "$spec.unsorted"
"$gic" "$spec" | gzip -1 >"$out"
