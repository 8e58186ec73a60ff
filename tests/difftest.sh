#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Differential tests: `kunwind-dump rows` against binutils on real binaries
# of this machine and on objects built here.
#   - readelf -wN --debug-dump=frames-interp (not following debug links)
#     vs our .eh_frame/.debug_frame rows:
#     libc.so.6, libstdc++.so.6, the python3 binary, a Rust binary, a kernel
#     module (.ko) when one is available, and the objects below;
#   - objdump --sframe vs our .sframe rows on objects built with
#     gcc -O2 -Wa,--gsframe (relocatable objects and a linked program);
#   - our .eh_frame rows vs our .sframe rows of the same object (CFA, FP, RA).
# Comparison is semantic (tests/diff/compare.py): at every row pc of either
# side the rule in force must be the same.  Zero mismatches required.
# The smaller inputs run through the ASan+UBSan build as well.
#
# Usage: B=build tests/difftest.sh       (make test-host runs it)
# Prints one line per check and ends with "N passed, N failed" (N counts
# checks; skipped checks are listed but not counted).  Exit 1 on failure.

B=${B:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
DUMP=${KUW_DUMP:-$B/kunwind-dump}
ASAN=${KUW_DUMP_ASAN:-$B/kunwind-dump-asan}
W=$B/diff
CMP="python3 $HERE/diff/compare.py"
pass=0
fail=0
skip=0

mkdir -p "$W" || exit 2
for t in "$DUMP" "$ASAN"; do
	if [ ! -x "$t" ]; then
		echo "difftest: $t missing (run make tools test-host)" >&2
		exit 2
	fi
done
for t in readelf objdump gcc python3; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "difftest: $t not found" >&2
		exit 2
	fi
done

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

# run_dump TOOL FILE OUT: kunwind-dump rows, with stderr shown on failure.
run_dump() {
	if ! "$1" rows "$2" >"$3" 2>"$3.err"; then
		sed 's/^/    /' "$3.err" | head -5
		return 1
	fi
	if [ -s "$3.err" ]; then
		sed 's/^/    /' "$3.err" | head -5
		return 1
	fi
	return 0
}

# check_readelf NAME FILE TOOL [--rel]
check_readelf() {
	name=$1 file=$2 tool=$3 rel=$4
	tag=$(basename "$tool")
	out=$W/$name.$tag
	if ! readelf -wN --debug-dump=frames-interp "$file" >"$out.readelf" \
	     2>"$out.readelf.err"; then
		bad "readelf $name: readelf failed"
		return
	fi
	if ! run_dump "$tool" "$file" "$out.rows"; then
		bad "readelf $name ($tag): kunwind-dump rows failed"
		return
	fi
	res=$($CMP readelf "$out.readelf" "$out.rows" $rel)
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "readelf $name ($tag): $(echo "$res" | tail -1)"
	else
		echo "$res" | sed 's/^/    /' | head -21
		bad "readelf $name ($tag): $(echo "$res" | tail -1)"
	fi
}

# check_sframe NAME FILE TOOL [--rel]: objdump --sframe vs ours, and
# .eh_frame vs .sframe of the same object.
check_sframe() {
	name=$1 file=$2 tool=$3 rel=$4
	tag=$(basename "$tool")
	out=$W/$name.$tag
	if ! objdump --sframe "$file" >"$out.objdump" 2>"$out.objdump.err"; then
		bad "sframe $name: objdump failed"
		return
	fi
	if ! grep -q "func idx" "$out.objdump"; then
		bad "sframe $name: objdump shows no SFrame FDE"
		return
	fi
	if ! run_dump "$tool" "$file" "$out.rows"; then
		bad "sframe $name ($tag): kunwind-dump rows failed"
		return
	fi
	res=$($CMP sframe "$out.objdump" "$out.rows" $rel)
	if [ $? -eq 0 ]; then
		ok "sframe $name ($tag): $(echo "$res" | tail -1)"
	else
		echo "$res" | sed 's/^/    /' | head -21
		bad "sframe $name ($tag): $(echo "$res" | tail -1)"
	fi
	res=$($CMP ehsf "$out.rows")
	if [ $? -eq 0 ]; then
		ok "ehsf $name ($tag): $(echo "$res" | tail -1)"
	else
		echo "$res" | sed 's/^/    /' | head -21
		bad "ehsf $name ($tag): $(echo "$res" | tail -1)"
	fi
}

find_lib() {
	for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 \
		 /usr/lib64 /lib /usr/lib; do
		if [ -f "$d/$1" ]; then
			readlink -f "$d/$1"
			return 0
		fi
	done
	ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n { print $NF; exit }'
}

# 1. Real binaries of this machine.
libc=$(find_lib libc.so.6)
if [ -n "$libc" ]; then
	check_readelf libc "$libc" "$DUMP"
	check_readelf libc "$libc" "$ASAN"
else
	skipped "readelf libc: libc.so.6 not found"
fi

libstdcxx=$(find_lib libstdc++.so.6)
if [ -n "$libstdcxx" ]; then
	check_readelf libstdc++ "$libstdcxx" "$DUMP"
else
	skipped "readelf libstdc++: libstdc++.so.6 not found"
fi

py=""
for p in /usr/bin/python3 $(command -v python3); do
	p=$(readlink -f "$p")
	if [ -f "$p" ] && head -c 4 "$p" | grep -q ELF; then
		py=$p
		break
	fi
done
if [ -n "$py" ]; then
	check_readelf "$(basename "$py")" "$py" "$DUMP"
else
	skipped "readelf python3: no python3 ELF binary"
fi

if command -v rustc >/dev/null 2>&1; then
	if rustc -O -o "$W/hello-rust" "$HERE/diff/src/hello.rs" \
	   >"$W/rustc.log" 2>&1; then
		check_readelf rust "$W/hello-rust" "$DUMP"
		check_readelf rust "$W/hello-rust" "$ASAN"
	else
		bad "readelf rust: rustc failed ($(head -1 "$W/rustc.log"))"
	fi
else
	skipped "readelf rust: rustc not installed"
fi

# A kernel module with unwind tables: the test bed's demo module, or any
# .ko given in KUW_DIFF_KO.
ko=${KUW_DIFF_KO:-}
if [ -z "$ko" ]; then
	for k in "$B"/kunit/demo_oops.ko kunit/demo_oops.ko \
		 "$HERE"/../kunit/demo_oops.ko; do
		if [ -f "$k" ]; then
			ko=$k
			break
		fi
	done
fi
if [ -n "$ko" ] && readelf -S "$ko" 2>/dev/null | grep -q '\.eh_frame'; then
	check_readelf "$(basename "$ko")" "$ko" "$DUMP" --rel
	check_readelf "$(basename "$ko")" "$ko" "$ASAN" --rel
	if readelf -S "$ko" | grep -q '\.sframe'; then
		check_sframe "$(basename "$ko")" "$ko" "$ASAN" --rel
	fi
else
	skipped "readelf .ko: no kernel module with .eh_frame (build kunit/demo_oops.ko)"
fi

# 2. Objects built here: relocatable objects with .eh_frame and .sframe,
# with frame pointers, unoptimised, with .debug_frame, and a linked program.
objs=""
for src in "$HERE"/diff/src/*.c; do
	n=$(basename "$src" .c)
	for v in O2 O2fp O0 dbg; do
		case $v in
		O2) fl="-O2 -Wa,--gsframe" ;;
		O2fp) fl="-O2 -fno-omit-frame-pointer -Wa,--gsframe" ;;
		O0) fl="-O0 -Wa,--gsframe" ;;
		dbg) fl="-O2 -g -fno-asynchronous-unwind-tables" ;;
		esac
		o=$W/$n-$v.o
		if ! gcc -c $fl -o "$o" "$src" 2>"$o.log"; then
			bad "build $n-$v.o: $(head -1 "$o.log")"
			continue
		fi
		check_readelf "$n-$v.o" "$o" "$ASAN" --rel
		if [ $v != dbg ]; then
			check_sframe "$n-$v.o" "$o" "$ASAN" --rel
		fi
	done
	# without .sframe: ld -r of several .sframe objects hits a binutils
	# 2.40 bug (relocations at wrong offsets)
	o=$W/$n-eh.o
	if gcc -c -O2 -o "$o" "$src" 2>"$o.log"; then
		objs="$objs $o"
	else
		bad "build $n-eh.o: $(head -1 "$o.log")"
	fi
done
if gcc -O2 -Wa,--gsframe -o "$W/prog" "$HERE"/diff/src/*.c \
   2>"$W/prog.log"; then
	check_readelf prog "$W/prog" "$ASAN"
	check_sframe prog "$W/prog" "$ASAN"
else
	bad "build prog: $(head -1 "$W/prog.log")"
fi
# Several objects combined with ld -r: one .eh_frame with several CIEs.
if [ -n "$objs" ] && ld -r -o "$W/combined.o" $objs 2>"$W/combined.log"; then
	check_readelf combined.o "$W/combined.o" "$ASAN" --rel
else
	bad "build combined.o: $(head -1 "$W/combined.log" 2>/dev/null)"
fi

echo "difftest: $skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
