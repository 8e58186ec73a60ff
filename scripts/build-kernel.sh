#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the kunwind test kernel and print its build dir (KDIR).
#
#   scripts/build-kernel.sh            profile from $KCONFIG (default base)
#   KUW_ARCH=arm64 scripts/build-kernel.sh   the aarch64 test kernel
#
# Recipe: Debian's linux-source-6.1, untarred into the cache and patched with
# scripts/patches/*.patch (keeps .eh_frame/.sframe of vmlinux between
# symbols); `make tinyconfig` + scripts/kconfig/base.config (+ <profile>.config);
# built with KCFLAGS="-fasynchronous-unwind-tables -Wa,--gsframe" through
# ccache, target `all` (so Module.symvers exists and modpost checks module
# links).  The build dir is keyed on a hash of everything that goes in, so a
# second run reuses it and any change to a fragment or patch rebuilds.
#
# Progress goes to stderr: each stage (untar, patch, config, build, checks)
# with the time since the start, and during the untar and the build one
# line a minute (KUNWIND_TICK seconds) with the objects compiled so far.
#
# KUW_ARCH=arm64: the same source cross-built with ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu-, patched with scripts/patches/arm64/*.patch
# only, configured with scripts/kconfig/arm64-base.config in place of
# base.config; source and build dirs are named arm64-* and keyed with the
# arch, and it has its own lock, so it may build while an x86 kernel does.
# The x86 keys and names are as they were before arm64 existed (the x86
# patch set is the top-level scripts/patches/*.patch, which does not look
# into scripts/patches/arm64/).
#
# KUW_RELEASE=6.12 or 7.3 (KUNWIND_RELEASE; default 6.1): that release's
# linux-source tarball (kuw_source_tarball), patched with
# scripts/patches/<rel>/<arch>/*.patch, configured with the same base
# fragments plus scripts/kconfig/<rel>/<arch>.config (what Debian's stock
# kernel of that release has that matters to an unwinder: IBT, call
# thunks, FRED, ftrace call ops, BTI...), built in a Debian 13 root
# (kuw_toolchain_root: gcc-14, binutils 2.44, whose --gsframe emits SFrame
# v2).  Its source and build dirs, keys and lock are prefixed "<rel>-"; the
# 6.1 ones are as they were before other releases existed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
# stage N TEXT: "[kunwind] kernel (base) 2/5 patch [0m41s]: TEXT"
stage() {
	log "kernel ($pfx$KCONFIG) $1/5 ${2%%:*} [$(kuw_dur $(($(date +%s) - t0)))]:${2#*:}"
}
trap kuw_ticker_stop EXIT

if [ "$KUW_ARCH" = arm64 ]; then
	frags=("$REPO/scripts/kconfig/arm64-base.config")
	patches=("$REPO"/scripts/patches/arm64/*.patch)
	karch=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	kcc=aarch64-linux-gnu-gcc
	[ "$KUW_RELEASE" = 6.1 ] || kcc=aarch64-linux-gnu-gcc-14
	arch_tag="arch arm64"	# goes into both keys
	pfx=arm64-		# of the source and build dir names, and the lock
	image=arch/arm64/boot/Image
else
	frags=("$REPO/scripts/kconfig/base.config")
	patches=("$REPO"/scripts/patches/*.patch)
	karch=()
	kcc=gcc
	arch_tag=		# x86 keys stay what they were
	pfx=
fi
rel=$KUW_RELEASE
if [ "$rel" = 6.1 ]; then
	rel_tag=		# 6.1 keys stay what they were
	rpfx=
	root=$(kuw_toolchain_root 6.1)	# "" on a Debian 12 host
	tarball=$(kuw_tarball)
else
	patches=("$REPO/scripts/patches/$rel/$KUW_ARCH"/*.patch)
	[ ! -f "$REPO/scripts/kconfig/$rel/$KUW_ARCH.config" ] ||
		frags+=("$REPO/scripts/kconfig/$rel/$KUW_ARCH.config")
	rel_tag="release $rel"
	rpfx=$rel-		# of the source and build dir names, and the lock
	root=$(kuw_toolchain_root "$rel")
	tarball=$(kuw_source_tarball "$rel")
fi
pfx=$rpfx$pfx
if [ "$KCONFIG" != base ]; then
	[ -f "$REPO/scripts/kconfig/$KCONFIG.config" ] ||
		die "unknown KCONFIG profile '$KCONFIG' (see scripts/kconfig/)"
	frags+=("$REPO/scripts/kconfig/$KCONFIG.config")
fi
[ -f "${patches[0]}" ] || die "no patches for $rel $KUW_ARCH in scripts/patches/"

# Module signatures and lockdown, trusting the test bed's MOK key.
frags+=("$REPO/scripts/kconfig/sign.config")
# The certificate alone: the kernel builds it into its trusted keys;
# nothing is signed when the kernel is built (kuw_build_modules signs).
mokpem=$(kuw_test_mok)
printf 'CONFIG_MODULE_SIG_KEY="%s"\n' "$mokpem" >"${mokpem%/*}/sign-key.config"
frags+=("${mokpem%/*}/sign-key.config")

src_key=$( {
	[ -z "$rel_tag" ] || echo "$rel_tag"
	[ -z "$arch_tag" ] || echo "$arch_tag"
	echo "tarball $(basename "$tarball") $(stat -c %s "$tarball")"
	cat "${patches[@]}"
} | sha256sum | cut -c1-12)
build_key=$( {
	[ -z "$rel_tag" ] || echo "$rel_tag"
	[ -z "$arch_tag" ] || echo "$arch_tag"
	echo "recipe $KUW_RECIPE kcflags $KUW_KCFLAGS profile $KCONFIG src $src_key"
	cat "${frags[@]}"
	sha256sum <"$mokpem"
} | sha256sum | cut -c1-12)

SRC="$CACHE/src/linux-$rel-${pfx#"$rpfx"}$src_key"
OUT="$CACHE/kbuild/$pfx$KCONFIG-$build_key"
mkdir -p "$CACHE/src" "$CACHE/kbuild"

# The newest kernel build in the cache and where it is.
other_build() {
	local l
	# shellcheck disable=SC2012 # cache paths, no odd names
	l=$(ls -t "$CACHE"/kbuild/*/build.log 2>/dev/null | head -n 1)
	[ -z "$l" ] || echo "$(basename "$(dirname "$l")"): $(kuw_kbuild_status "$l")"
}

# A finished build is reused without the lock (.kuw-done is written last),
# so a warm run does not queue behind another profile's cold build.
if [ -f "$OUT/.kuw-done" ]; then
	log "reusing test kernel $OUT"
	touch "$OUT/.kuw-done" 2>/dev/null || true	# last use, for the pruning below
	echo "$OUT"
	exit 0
fi

exec 9>"$CACHE/${pfx}kbuild.lock"
if ! flock -n 9; then
	log "another kernel build is running (lock $CACHE/${pfx}kbuild.lock); waiting for it"
	kuw_ticker_start "waiting for the other kernel build" other_build
	flock 9
	kuw_ticker_stop
fi

if [ -f "$OUT/.kuw-done" ]; then
	log "reusing test kernel $OUT"
	echo "$OUT"
	exit 0
fi

if [ ! -f "$SRC/.kuw-ok" ]; then
	stage 1 "untar: $(basename "$tarball") into $SRC (once per source; ~1 min)"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	kuw_ticker_start "kernel ($KCONFIG) untarring" du -sh "$SRC.tmp"
	tar -xf "$tarball" -C "$SRC.tmp" --strip-components=1
	kuw_ticker_stop
	for p in "${patches[@]}"; do
		stage 2 "patch: $(basename "$p")"
		patch -d "$SRC.tmp" -p1 --forward --quiet <"$p" ||
			die "patch $(basename "$p") does not apply"
	done
	touch "$SRC.tmp/.kuw-ok"
	mv "$SRC.tmp" "$SRC"
else
	stage 2 "source: reusing $SRC (untarred and patched)"
fi

stage 3 "config: tinyconfig + $(printf '%s ' "${frags[@]##*/}")in $OUT"
rm -rf "$OUT"
mkdir -p "$OUT"
export CCACHE_DIR="$CACHE/ccache"
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
export CCACHE_NOHASHDIR=1
export CCACHE_BASEDIR="$CACHE"
kmake() {
	kuw_in_root "$root" make -C "$SRC" O="$OUT" "${karch[@]}" CC="ccache $kcc" \
		HOSTCC="ccache gcc" KCFLAGS="$KUW_KCFLAGS" "$@"
}
kmake -s tinyconfig >/dev/null
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" \
	"${frags[@]}" >"$OUT/config.log" 2>&1
kmake -s olddefconfig >>"$OUT/config.log" 2>&1

# Every fragment line must survive olddefconfig (KALLSYMS_ALL, for one,
# silently vanishes without DEBUG_KERNEL).  A later fragment overrides an
# earlier one (fp.config turns base.config's ORC off), as merge_config.sh
# does: the last line about an option is the one checked.
bad=0
declare -A want=()
order=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) opt=${line%%=*} ;;
	"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} ;;
	*) continue ;;
	esac
	[ -n "${want[$opt]+set}" ] || order+=("$opt")
	want[$opt]=$line
done < <(cat "${frags[@]}")
for opt in "${order[@]}"; do
	line=${want[$opt]}
	case "$line" in
	CONFIG_*=*)
		grep -qx "$line" "$OUT/.config" ||
			{ log "config lost: $line"; bad=1; } ;;
	*)
		if grep -q "^$opt=" "$OUT/.config"; then
			log "config lost: $line"
			bad=1
		fi ;;
	esac
done
[ "$bad" = 0 ] || die "config fragment did not survive olddefconfig"

# Objects the last good build of this profile compiled: the next one's
# progress says "N of ~M".
count_f="$CACHE/kbuild/$pfx$KCONFIG.objects"
expect=$(cat "$count_f" 2>/dev/null || true)
stage 4 "build: make -j$JOBS all (vmlinux, bzImage, modules; log $OUT/build.log); cold: 2-5 min on a quiet 2-core machine, 15+ when it is loaded; ccache makes rebuilds ~1 min"
start=$(date +%s)
kuw_ticker_start "building kernel ($pfx$KCONFIG)" kuw_kbuild_status "$OUT/build.log" "$expect"
if ! kmake -j"$JOBS" all >"$OUT/build.log" 2>&1; then
	kuw_ticker_stop
	tail -n 40 "$OUT/build.log" >&2
	die "kernel build failed (log: $OUT/build.log)"
fi
kuw_ticker_stop
stage 5 "checks: warnings, section symbols in System.map"
if grep -E "warning: orphan section|objtool: .*warning|WARNING: modpost" "$OUT/build.log" >&2; then
	log "note: warnings above in the kernel build"
fi
for s in __eh_frame_start __eh_frame_end __sframe_start __sframe_end; do
	grep -q " $s\$" "$OUT/System.map" || die "$s missing from System.map"
done
if [ "$KUW_ARCH" = arm64 ]; then
	[ -f "$OUT/$image" ] || die "$image was not built"
	# Both tables must be sections of their own (not orphans merged into
	# a neighbour) and loaded (flag A).
	secs=$(aarch64-linux-gnu-readelf -SW "$OUT/vmlinux")
	for s in .eh_frame .sframe; do
		grep -qE " \\$s +[A-Z_]+ +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ +[A-Z]*A" <<<"$secs" ||
			die "vmlinux has no loaded $s section"
	done
	! grep -q "warning: orphan section" "$OUT/build.log" ||
		die "orphan sections in the arm64 link (build.log)"
fi
n=$(grep -c -E '^  (CC|AS)( \[M\])? ' "$OUT/build.log" || true)
[ "${n:-0}" -lt 100 ] || echo "$n" >"$count_f"
log "kernel ($pfx$KCONFIG) built in $(kuw_dur $(($(date +%s) - start))) ($n objects; $(kuw_dur $(($(date +%s) - t0))) in all)"
touch "$OUT/.kuw-done"

# Keep the cache bounded: of this profile's other builds, keep the
# KUNWIND_KEEP_KERNELS (default 2) used last (.kuw-done's time: written at
# the end of a build, touched at each reuse), so that two trees whose
# configs differ (two branches) do not evict each other's kernels; drop
# the rest and any build that never finished (this lock is held: none of
# this profile is running).
keep=${KUNWIND_KEEP_KERNELS:-2}
n=0
while IFS= read -r f; do
	d=${f%/.kuw-done}
	[ "$d" != "$OUT" ] || continue
	n=$((n + 1))
	[ "$n" -le "$keep" ] || rm -rf "$d"
done < <(ls -t "$CACHE/kbuild/$pfx$KCONFIG"-*/.kuw-done 2>/dev/null)
for d in "$CACHE/kbuild/$pfx$KCONFIG"-*/; do
	d=${d%/}
	[ "$d" = "$OUT" ] || [ -f "$d/.kuw-done" ] || [ ! -d "$d" ] ||
		rm -rf "$d"
done
echo "$OUT"
