#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-headers: kunwind.ko builds, with no warning of its own, against
# Debian's stock kernel header packages, as a user builds it (dkms, or make
# KDIR=...) on Debian 12, Debian 13 and trixie-backports.
#
# Cells: release x architecture, 6.1 6.12 7.3 x amd64 arm64.  For each:
#
#  1. the version: what Debian's metapackage linux-headers-<arch> of that
#     release's suites points at (bookworm/bookworm-security: 6.1,
#     trixie/trixie-security: 6.12, trixie-backports: 7.3), the highest of
#     them, so that the test follows Debian's updates;
#  2. apt-get download (the private apt of scripts/debian.sh) of
#     linux-headers-<kver>, the -common package and the linux-kbuild package
#     it depends on (amd64: kbuild's helpers run on this host), dpkg-deb -x
#     into the cache, absolute include paths and links pointed into the
#     cache; the .debs deleted, the unpacked headers kept
#     ($CACHE/headers/<abi>/);
#  3. make -C <headers> M=<copy of the repository> modules with the kernel's
#     own compiler, the one of its Debian release (kuw_toolchain_root):
#     6.1 with Debian 12's gcc-12 (arm64: aarch64-linux-gnu-gcc-12; this
#     host's own on Debian 12), 6.12 and 7.3 inside the Debian 13 root
#     (gcc-14, aarch64-linux-gnu-gcc-14).  That
#     builds kunwind.ko and the test modules that are not KUnit suites
#     (Debian's kernels have no CONFIG_KUNIT; kunit/Kbuild);
#  4. ok when the build succeeds, kunwind.ko and the payload modules are
#     there, and the log has no warning (compiler, objtool, modpost, kbuild)
#     other than one located in the kernel's own headers (those are listed,
#     not counted).
#
# Warm runs are cheap: each cell builds in its own directory kept in the
# cache ($CACHE/headers/<abi>/build-<arch>), which the repository is copied
# into by content (rsync --checksum: a changed file gets a new time, an
# unchanged one keeps its old one), so kbuild recompiles only what changed.
# A cell that failed, or whose toolchain changed, starts from an empty
# directory next time (a warning is printed when its object is compiled:
# an incremental build would not show it again).  KUNWIND_HEADERS_FORCE=1
# starts every cell from an empty directory.
#
# Knobs: KUNWIND_HEADERS_RELEASES (default "6.1 6.12 7.3"),
# KUNWIND_HEADERS_ARCHS (default "amd64 arm64").
#
# Results: a KTAP file parsed by scripts/ktap.py, one result per cell; last
# line "N passed, N failed" (", N skipped").
unset ARCH	# the kernel's make must not see the caller's
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

RELS=${KUNWIND_HEADERS_RELEASES:-6.1 6.12 7.3}
DARCHS=${KUNWIND_HEADERS_ARCHS:-amd64 arm64}
t0=$(date +%s)
stamp() { log "[$(($(date +%s) - t0))s] $*"; }

kuw_deps
kuw_install gcc-12 gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-headers.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/headers" "$CACHE/logs"
export KUW_ROOT_BINDS="$WORK"	# the Debian 13 root builds there

HK="$WORK/headers.ktap"
nrel=$(wc -w <<<"$RELS")
narch=$(wc -w <<<"$DARCHS")
printf 'KTAP version 1\n1..%d\n' $((nrel * narch)) >"$HK"
hn=0
hres() { # ok|fail NAME
	local line
	hn=$((hn + 1))
	if [ "$1" = ok ]; then line="ok $hn $2"; else line="not ok $hn $2"; fi
	echo "$line" >>"$HK"
	echo "headers: $line"
}
diag() { # lines of diagnostics, before a result
	sed 's/^/# /' >>"$HK"
}

# prune REL ABI...: unpacked headers of REL's older versions go
prune() {
	local rel=$1 keep x
	shift
	for x in "$CACHE/headers/$rel".*; do
		[ -d "$x" ] || continue
		keep=
		for a in "$@"; do [ "$x" = "$CACHE/headers/$a" ] && keep=1; done
		[ -n "$keep" ] || { log "removing old headers ${x##*/}"; rm -rf "$x" "$x.lock"; }
	done
}

sel=()
for rel in $RELS; do
	abis=()
	for da in $DARCHS; do
		cell="$rel $da"
		mv=$(kuw_deb_meta_version "$rel" "linux-headers-$da$(kuw_deb_q "$da")")
		kpkg=
		[ -z "$mv" ] || kpkg=$(kuw_deb_depends "linux-headers-$da$(kuw_deb_q "$da")=$mv" |
			grep -E "^linux-headers-$rel\..*-$da\$" | head -n 1)
		if [ -z "$kpkg" ]; then
			echo "no linux-headers-$da of Linux $rel in Debian's suites (apt lists: $CACHE/apt)" | diag
			hres fail "$cell: Debian's headers"
			continue
		fi
		kver=${kpkg#linux-headers-}
		abis+=("${kver%-"$da"}")
		sel+=("$rel|$da|$mv|$kver")
	done
	[ ${#abis[@]} = 0 ] || prune "$rel" "${abis[@]}"
done

for s in "${sel[@]}"; do
	IFS='|' read -r rel da mv kver <<<"$s"
	cell="$rel $da"
	name="$cell: kunwind.ko builds against linux-headers-$kver ($mv), no warning"
	stamp "$cell: linux-headers-$kver ($mv)"
	if ! kdir=$(kuw_headers_fetch "$da" "$kver"); then
		echo "downloading or unpacking linux-headers-$kver failed" | diag
		hres fail "$name"
		continue
	fi
	root=$(kuw_toolchain_root "$rel")
	xa=()
	[ "$da" = amd64 ] || xa=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	# What the build directory's objects were made with: a change starts
	# it afresh.
	# shellcheck disable=SC2016 # $c: the root's shell
	tc=$(kuw_in_root "$root" sh -c 'for c in gcc-12 gcc-14 aarch64-linux-gnu-gcc-12 \
		aarch64-linux-gnu-gcc-14 ld aarch64-linux-gnu-ld pahole; do
		$c --version 2>/dev/null | head -n 1; done' | paste -sd' ')
	bdir="${kdir%/root/usr/src/*}/build-$da"
	src="$bdir/src"
	if [ -n "${KUNWIND_HEADERS_FORCE:-}" ] || [ ! -f "$bdir/.kuw-ok" ] ||
		[ "$(cat "$bdir/.kuw-ok")" != "$tc" ]; then
		rm -rf "$bdir"
	fi
	rm -f "$bdir/.kuw-ok"
	mkdir -p "$src"
	rsync -rlpDc --delete --exclude=.git --exclude=/build --exclude='*.o' \
		--exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude=modules.order --exclude=Module.symvers \
		--exclude=kuw_probes.h --exclude=.kuw-probes "$REPO/" "$src/"
	blog="$WORK/$rel-$da.log"
	b0=$(date +%s)
	brc=0
	kuw_in_root "$root" make -C "$kdir" "${xa[@]}" M="$src" -j"$JOBS" modules \
		>"$blog" 2>&1 || brc=$?
	bt=$(($(date +%s) - b0))
	cp -f "$blog" "$CACHE/logs/headers-$rel-$da-last.log"
	ncc=$(grep -c -E '^  (CC|PROBE)' "$blog" || true)
	kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config")
	# Warnings, and whose: located in the unpacked headers = the kernel's.
	grep -i -E 'warning' "$blog" >"$blog.warn" || true
	grep -F "$kdir" "$blog.warn" | grep -v -F "$src" >"$blog.kwarn" || true
	grep -v -x -F -f "$blog.kwarn" "$blog.warn" >"$blog.ours" || true
	mods=
	for m in "$src"/kunwind.ko "$src"/kunit/*.ko; do
		[ -f "$m" ] && mods+="${mods:+ }${m#"$src"/}"
	done
	ok=1
	if [ "$brc" != 0 ]; then
		ok=
		tail -n 30 "$blog" | diag
	fi
	if [ ! -f "$src/kunwind.ko" ] || [ ! -f "$src/kunit/demo_oops.ko" ]; then
		ok=
		echo "kunwind.ko or kunit/demo_oops.ko missing" | diag
	fi
	if [ -s "$blog.ours" ]; then
		ok=
		echo "$(wc -l <"$blog.ours") warnings of kunwind's own:" | diag
		head -n 40 "$blog.ours" | diag
	fi
	if [ -s "$blog.kwarn" ]; then
		echo "$(wc -l <"$blog.kwarn") warnings in the kernel's headers (not counted):" | diag
		head -n 5 "$blog.kwarn" | diag
	fi
	{
		echo "$cell: make -C linux-headers-$kver ${xa[*]} M=... modules:" \
			"exit $brc, $(kuw_dur "$bt"), $ncc files compiled"
		echo "the kernel's compiler: $kcc"
		echo "built: ${mods:-nothing}"
	} | diag
	if [ -n "$ok" ]; then
		echo "$tc" >"$bdir/.kuw-ok"
		hres ok "$name"
	else
		hres fail "$name"
	fi
	stamp "$cell: $([ -n "$ok" ] && echo ok || echo FAILED), build $(kuw_dur "$bt"), $ncc files compiled (log $CACHE/logs/headers-$rel-$da-last.log)"
done

cp -f "$HK" "$CACHE/logs/headers-last.ktap"
set +e
out=$(python3 "$REPO/scripts/ktap.py" --ktap "$HK")
rc=$?
set -e
printf '%s\n' "$out"
exit "$rc"
