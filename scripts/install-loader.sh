#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the loader of stock-kernel tables: kunwind-dump (built here) and
# the udev rule that runs "kunwind-dump load" when kunwind.ko loads and
# when any module loads after it (scripts/udev/90-kunwind.rules).
#
#   scripts/install-loader.sh            (root; or: make install-loader)
#   KUNWIND_DESTDIR=/tmp/root scripts/install-loader.sh   (staged install)
#
# DKMS runs it after installing kunwind.ko (POST_INSTALL in dkms.conf).
# Needs a C compiler (DKMS hosts have one: they build modules).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
DEST=${KUNWIND_DESTDIR:-}
SBIN=${KUNWIND_SBIN:-/usr/local/sbin}
CC=${CC:-cc}
BUILD=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-loader.XXXXXX")
trap 'rm -rf "$BUILD"' EXIT

# the same sources as `make tools`, without needing make's tree writable
srcs=$(ls "$SRC"/tools/*.c)
eng=$(sed -n 's/^KUW_ENGINE *:= *//p' "$SRC/engine.mk")
for f in $eng; do srcs="$srcs $SRC/module/engine/$f.c"; done
# shellcheck disable=SC2086
$CC -std=gnu11 -O2 -Wall -Wno-unused-parameter -I"$SRC/include/kunwind" \
	-I"$SRC/module/engine" -I"$SRC/tools" -o "$BUILD/kunwind-dump" $srcs
install -D -m 0755 "$BUILD/kunwind-dump" "$DEST$SBIN/kunwind-dump"
sed "s|@SBIN@|$SBIN|g" "$SRC/scripts/udev/90-kunwind.rules" >"$BUILD/rules"
install -D -m 0644 "$BUILD/rules" "$DEST/etc/udev/rules.d/90-kunwind.rules"
echo "kunwind: installed $DEST$SBIN/kunwind-dump and $DEST/etc/udev/rules.d/90-kunwind.rules"
if [ -z "$DEST" ] && command -v udevadm >/dev/null 2>&1; then
	udevadm control --reload 2>/dev/null || true
fi
