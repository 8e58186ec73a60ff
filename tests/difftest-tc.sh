#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential tests against the toolchains distributions build with now,
# each side by side with the binutils that assembled the objects:
#   - Debian 13 (trixie): GCC 14, binutils 2.44, SFrame version 2;
#   - Debian sid: GCC 15, binutils 2.46+ (2.47), SFrame version 3 (its
#     flexible FDEs: tests/diff/tc/x86-flex.s and GCC's stack realignment).
# For each, tests/diff/tc/build.sh runs inside that release's Debian root
# (scripts/debian.sh: kuw_root, made once in the cache) and builds x86_64
# and AArch64 objects and linked images (kernel-like C with and without
# return-address signing, user-space C, hand-written CFI with PAuth_LR and
# the B key), dumping each with that root's readelf -wF, readelf -wf and
# objdump --sframe.  Here, for each file:
#   readelf   readelf -wF vs our .eh_frame rows;
#   pac       our RA-signing state vs the negate_ra_state(_with_pc) ops
#             readelf -wf shows (AArch64);
#   sframe    objdump --sframe vs our .sframe rows, after checking the
#             section's version is the one that binutils writes;
#   ehsf      our .eh_frame rows vs our .sframe rows;
#   sframe-text  `kunwind-dump sframe` vs objdump --sframe, as text
#             (linked files);
#   sframe-rules  linked files without .eh_frame: `rules` (compiled
#             .sframe table, lookup) at every .sframe row vs the walk.
# The newest 6.12/7.3 test kernels (built in the trixie root) are checked
# the same way when the test bed has built them.
# Zero mismatches required.  A toolchain that cannot be had (not root, no
# network for the first debootstrap) is skipped, saying why; so is the
# whole script with KUW_TC=0.  KUW_TC_ROOTS="trixie sid" picks roots.
#
# Usage: B=build tests/difftest-tc.sh     (make test-host runs it)
# Ends with "N passed, N failed" like tests/difftest.sh; exit 1 on failure.

B=${B:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ASAN=${KUW_DUMP_ASAN:-$B/kunwind-dump-asan}
DUMP=${KUW_DUMP:-$B/kunwind-dump}
W=$B/difftc
case $W in
/*) ;;
*) W=$(pwd)/$W ;;
esac
CMP="python3 $HERE/diff/compare.py"
pass=0
fail=0
skip=0

ok() {
	pass=$((pass + 1))
	echo "ok   $*"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}

skipped() {
	skip=$((skip + 1))
	echo "skip $*"
}

# report WHAT RC RES: as tests/difftest.sh's; the summary line is kept in
# $W/counts as "TC ARCH MODE LINE" for the totals.
report() {
	if [ "$2" -eq 0 ]; then
		ok "$1: $(echo "$3" | tail -n 1)"
	else
		echo "$3" | sed 's/^/    /' | head -n 21
		bad "$1: $(echo "$3" | tail -n 1)"
	fi
	echo "$tc $arch $(echo "$3" | tail -n 1)" >>"$W/counts"
}

for t in "$ASAN" "$DUMP"; do
	if [ ! -x "$t" ]; then
		echo "difftest-tc: $t missing (run make tools test-host)" >&2
		exit 2
	fi
done
mkdir -p "$W" || exit 2
: >"$W/counts"
: >"$W/fres"

# lib.sh in a subshell: it sets -eu and dies on errors.
get_root() {
	(cd "$REPO" && . scripts/lib.sh >/dev/null && kuw_root "$1")
}
in_root() {
	(cd "$REPO" && . scripts/lib.sh >/dev/null &&
		KUW_ROOT_BINDS="$W" kuw_in_root "$@")
}

# check FILE ARCH KIND SFVER: every comparison of one built file.
check() {
	f=$1 arch=$2 kind=$3 sfver=$4
	fl=""
	[ "$kind" = rel ] && fl="--rel"
	a64=""
	[ "$arch" = arm64 ] && a64="--arm64"
	name="$tc $arch $(basename "$f")"
	if ! "$ASAN" rows "$f" >"$f.rows" 2>"$f.rows.err" ||
	   [ -s "$f.rows.err" ]; then
		sed 's/^/    /' "$f.rows.err" | head -n 5
		bad "$name: kunwind-dump rows failed"
		return
	fi
	res=$($CMP readelf "$f.readelf" "$f.rows" $fl $a64)
	report "readelf $name" $? "$res"
	if [ -n "$a64" ]; then
		res=$($CMP pac "$f.raw" "$f.rows" $fl $a64)
		report "pac $name" $? "$res"
	fi
	if ! grep -q "func idx" "$f.objdump"; then
		echo "    $name: no SFrame FDE ($(grep -m1 -i warn "$f.objdump"))"
		return
	fi
	if grep -q "Version: SFRAME_VERSION_$sfver" "$f.objdump"; then
		ok "sframe $name: version $sfver"
	else
		bad "sframe $name: not version $sfver ($(grep -m1 Version: "$f.objdump"))"
	fi
	res=$($CMP sframe "$f.objdump" "$f.rows" $fl $a64)
	report "sframe-v$sfver $name" $? "$res"
	echo "$tc $arch v$sfver $(grep -c -E '^ +[0-9a-f]{16} ' "$f.objdump")" \
		>>"$W/fres"
	res=$($CMP ehsf "$f.rows" $a64)
	report "ehsf $name" $? "$res"
	if [ "$kind" = exec ]; then
		sftext "$f" "$name"
		sfrules "$f" "$name"
	fi
}

# sfrules FILE NAME: without .eh_frame, `rules` (the compiled .sframe table
# and its lookup, as kunwind.ko uses them) at every .sframe row gives the
# walker's rule there.
sfrules() {
	# made by build.sh with the root's objcopy (the host's may not know
	# the arch)
	if [ ! -f "$1.noeh" ]; then
		bad "sframe-rules $2: no $1.noeh"
		return
	fi
	awk '/^fde/ { sf = ($3 == "sframe" && $4 !~ /^pcmask/); next }
	     sf { print }' "$1.rows" >"$1.sfrows"
	# shellcheck disable=SC2046
	if ! "$ASAN" rules "$1.noeh" $(awk '{ print $1 }' "$1.sfrows") \
	     >"$1.sfrules" 2>"$1.sfrules.err"; then
		sed 's/^/    /' "$1.sfrules.err" | head -n 3
		bad "sframe-rules $2: kunwind-dump rules failed"
		return
	fi
	# the rule text after the pc: the table merges equal neighbours, and
	# rules prints the start of the row it found
	cut -d' ' -f2- "$1.sfrows" >"$1.a"
	cut -d' ' -f2- "$1.sfrules" >"$1.b"
	if [ -s "$1.a" ] && cmp -s "$1.a" "$1.b"; then
		ok "sframe-rules $2: $(wc -l <"$1.sfrows") rows from the compiled table"
	else
		diff "$1.a" "$1.b" | head -n 6 | sed 's/^/    /'
		bad "sframe-rules $2: compiled table differs from the walk"
	fi
}

# sftext FILE NAME: `kunwind-dump sframe` is objdump --sframe's text, byte
# for byte (linked files: objdump prints an object's pcs as relocated).
sftext() {
	if ! "$ASAN" sframe "$1" >"$1.sftext" 2>&1; then
		bad "sframe-text $2: kunwind-dump sframe failed ($(head -n 1 "$1.sftext"))"
		return
	fi
	sed -n '/^Contents of the SFrame section/,$p' "$1.objdump" >"$1.sftheirs"
	if cmp -s "$1.sftheirs" "$1.sftext"; then
		ok "sframe-text $2: $(wc -l <"$1.sftext") lines as objdump"
	else
		diff "$1.sftheirs" "$1.sftext" | head -n 8 | sed 's/^/    /'
		bad "sframe-text $2: differs from objdump --sframe"
	fi
}

if [ "${KUW_TC:-1}" = 0 ]; then
	skipped "toolchains: KUW_TC=0"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

for tc in ${KUW_TC_ROOTS:-trixie sid}; do
	case $tc in
	trixie) gv=14 sfver=2 ;;
	sid) gv=15 sfver=3 ;;
	*) bad "toolchain $tc: trixie or sid"; continue ;;
	esac
	if [ "$(id -u)" != 0 ]; then
		skipped "$tc toolchain: a Debian root needs root (chroot)"
		continue
	fi
	if ! root=$(get_root $tc 2>"$W/root-$tc.log"); then
		skipped "$tc toolchain: no Debian $tc root ($(tail -n 1 "$W/root-$tc.log"))"
		continue
	fi
	out=$W/$tc
	rm -rf "$out"
	mkdir -p "$out"
	if ! in_root "$root" sh "$HERE/diff/tc/build.sh" "$out" $gv \
	     >"$out/build.out" 2>&1; then
		bad "$tc: build.sh failed ($(tail -n 1 "$out/build.out"))"
		continue
	fi
	echo "# $tc: $(head -n 1 "$out/versions"), $(sed -n 2p "$out/versions")"
	while read -r line; do
		bad "$tc build: $line"
	done <"$out/errors"
	while read -r f arch kind; do
		check "$out/$f" "$arch" "$kind" $sfver
	done <"$out/files"
done

# The 6.12 and 7.3 test kernels (built by the trixie root's GCC 14 and
# binutils 2.44, .sframe version 2): the whole image against that root's
# readelf and objdump.
cache=${KUNWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kunwind}
nk=0
for rel in 6.12 7.3; do
	for v in $(ls -t "$cache"/kbuild/"$rel"-*/vmlinux 2>/dev/null | head -n 2); do
		[ -f "$v" ] || continue
		case $v in
		*arm64*) arch=arm64 p=aarch64-linux-gnu- ;;
		*) arch=x86_64 p= ;;
		esac
		tc=trixie
		if [ "$(id -u)" != 0 ] || ! root=$(get_root trixie 2>/dev/null); then
			skipped "vmlinux $rel: no trixie root"
			continue
		fi
		nk=$((nk + 1))
		k=$W/vmlinux-$rel-$arch
		mkdir -p "$k"
		ln -sf "$v" "$k/vmlinux"
		KUW_ROOT_BINDS="$W $(dirname "$v")" in_root "$root" sh -c \
			"${p}readelf -wN --debug-dump=frames-interp $v >$k/vmlinux.readelf 2>&1;
			 ${p}readelf -wN --debug-dump=frames $v >$k/vmlinux.raw 2>&1;
			 ${p}objdump --sframe $v >$k/vmlinux.objdump 2>&1"
		f=$k/vmlinux
		# A table whose FDEs overlap is refused (the message names
		# it): right exactly when binutils' own dump overlaps too.
		ov=$($CMP sfoverlap "$f.objdump" | sed -n 's/.*, \([0-9]*\) overlapping.*/\1/p')
		if "$DUMP" rows "$f" >"$f.rows" 2>"$f.rows.err"; then
			if [ "${ov:-0}" = 0 ]; then
				ok "vmlinux $rel $arch: accepted, no SFrame FDE overlaps in objdump"
			else
				bad "vmlinux $rel $arch: accepted, yet objdump shows $ov overlapping SFrame FDEs"
			fi
		elif grep -q '\.sframe+0x[0-9a-f]*: overlapping FDEs' "$f.rows.err" &&
		     [ "${ov:-0}" -gt 0 ]; then
			ok "vmlinux $rel $arch: .sframe refused, $ov overlapping FDEs in objdump too ($(head -n 1 "$f.rows.err" | sed 's/.*: \.sframe/.sframe/'))"
		else
			sed 's/^/    /' "$f.rows.err" | head -n 3
			bad "vmlinux $rel $arch: kunwind-dump rows failed"
			continue
		fi
		a64=""
		[ $arch = arm64 ] && a64=--arm64
		res=$($CMP readelf "$f.readelf" "$f.rows" $a64)
		report "readelf vmlinux $rel $arch" $? "$res"
		if grep -q "func idx" "$f.objdump"; then
			res=$($CMP sframe "$f.objdump" "$f.rows" $a64)
			report "sframe-v2 vmlinux $rel $arch" $? "$res"
			sed -n '/^Contents of the SFrame section/,$p' "$f.objdump" >"$f.sftheirs"
			if "$DUMP" sframe "$f" >"$f.sftext" 2>&1 &&
			   cmp -s "$f.sftheirs" "$f.sftext"; then
				ok "sframe-text vmlinux $rel $arch: $(wc -l <"$f.sftext") lines as objdump"
			else
				bad "sframe-text vmlinux $rel $arch: differs from objdump --sframe"
			fi
		fi
	done
done
[ $nk -gt 0 ] || skipped "vmlinux 6.12/7.3: no test kernel built yet (make check builds them)"

# Totals per toolchain, arch and comparison (FDEs, rows, mismatches).
awk '{ k = $1 " " $2 " " $3; f[k] += $4; r[k] += $6; m[k] += $9 }
     END { for (k in f) printf "# total %s %d FDEs, %d rows compared, %d mismatches\n", k, f[k], r[k], m[k] }' \
	"$W/counts" | sort
awk '{ k = $1 " " $2 " SFrame " $3; n[k] += $4 }
     END { for (k in n) printf "# total %s: %d FREs (objdump rows)\n", k, n[k] }' \
	"$W/fres" | sort
echo "$pass passed, $fail failed$([ $skip = 0 ] || echo ", $skip skipped")"
[ $fail -eq 0 ]
