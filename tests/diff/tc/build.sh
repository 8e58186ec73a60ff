#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run inside a Debian root by tests/difftest-tc.sh: build the objects of
# tests/diff/tc (and tests/diff/src, tests/diff/a64) with that root's GCC
# and binutils, and dump each with that root's readelf and objdump.
#   build.sh OUTDIR GCC_VERSION
# OUTDIR gets the objects, FILE.readelf, FILE.raw and FILE.objdump for
# each (and FILE.noeh, without .eh_frame, of a linked FILE), "files"
# (one "FILE ARCH KIND" line each: ARCH x86_64|arm64, KIND rel|exec),
# "versions" and "errors" (one line per failed step).
out=$1
v=$2
tc=$(cd "$(dirname "$0")" && pwd)
diff=$(dirname "$tc")
cd "$out" || exit 2
: >files
: >errors
{
	as --version | head -n 1
	gcc-"$v" --version | head -n 1
	aarch64-linux-gnu-as --version | head -n 1
	aarch64-linux-gnu-gcc-"$v" --version | head -n 1
} >versions 2>&1

# step NAME CMD...: run CMD, log a failure with its first message line
step() {
	sn=$1
	shift
	if ! "$@" >"$sn.log" 2>&1; then
		echo "$sn: $(grep -m1 -i -E 'error|fatal' "$sn.log" || head -n 1 "$sn.log")" >>errors
		return 1
	fi
}

# dump FILE ARCH KIND: readelf (frames-interp and raw) and objdump --sframe
dump() {
	p=
	[ "$2" = arm64 ] && p=aarch64-linux-gnu-
	${p}readelf -wN --debug-dump=frames-interp "$1" >"$1.readelf" 2>&1 ||
		echo "$1: readelf failed" >>errors
	${p}readelf -wN --debug-dump=frames "$1" >"$1.raw" 2>&1 ||
		echo "$1: readelf -wf failed" >>errors
	${p}objdump --sframe "$1" >"$1.objdump" 2>&1 ||
		echo "$1: objdump --sframe failed" >>errors
	if [ "$3" = exec ]; then
		${p}objcopy -R .eh_frame -R .eh_frame_hdr "$1" "$1.noeh" ||
			echo "$1: objcopy failed" >>errors
	fi
	echo "$1 $2 $3" >>files
}

# x86_64: kernel-like C at three optimisation settings, linked; the
# project's user-space sources linked with libc; hand-written CFI.
for f in O2 O2fp O0; do
	case $f in
	O2) fl="-O2" ;;
	O2fp) fl="-O2 -fno-omit-frame-pointer" ;;
	O0) fl="-O0" ;;
	esac
	step x86-kern-$f gcc-"$v" -c $fl -ffreestanding -fno-stack-protector \
		-fasynchronous-unwind-tables -Wa,--gsframe \
		-o x86-kern-$f.o "$tc/kern.c" && dump x86-kern-$f.o x86_64 rel
done
step x86-stubs gcc-"$v" -c -O2 -ffreestanding -fno-stack-protector \
	-fasynchronous-unwind-tables -Wa,--gsframe -o x86-stubs.o "$tc/stubs.c" &&
	step x86-kern ld -e _start -o x86-kern x86-kern-O2.o x86-stubs.o &&
	dump x86-kern x86_64 exec
step x86-prog gcc-"$v" -O2 -Wa,--gsframe -o x86-prog "$diff"/src/*.c &&
	dump x86-prog x86_64 exec
step x86-flex as --gsframe -o x86-flex.o "$tc/x86-flex.s" &&
	dump x86-flex.o x86_64 rel &&
	step x86-flex-ld ld -e f_outermost -o x86-flex x86-flex.o &&
	dump x86-flex x86_64 exec

# AArch64: the same C with return-address signing (A key, B key, leaf
# functions too), with frame pointers and BTI, unoptimised; hand-written
# CFI with PAuth_LR.
for f in pac bkey std O0; do
	case $f in
	pac) fl="-O2 -mbranch-protection=pac-ret+leaf" ;;
	bkey) fl="-O2 -mbranch-protection=pac-ret+b-key" ;;
	std) fl="-O2 -fno-omit-frame-pointer -mbranch-protection=standard" ;;
	O0) fl="-O0" ;;
	esac
	step a64-kern-$f aarch64-linux-gnu-gcc-"$v" -c $fl -ffreestanding \
		-fno-stack-protector -fasynchronous-unwind-tables -Wa,--gsframe \
		-o a64-kern-$f.o "$tc/kern.c" && dump a64-kern-$f.o arm64 rel
done
step a64-stubs aarch64-linux-gnu-gcc-"$v" -c -O2 -ffreestanding \
	-fno-stack-protector -fasynchronous-unwind-tables -Wa,--gsframe \
	-o a64-stubs.o "$tc/stubs.c" &&
	step a64-kern aarch64-linux-gnu-ld -e _start -o a64-kern \
		a64-kern-pac.o a64-stubs.o &&
	dump a64-kern arm64 exec
for s in "$tc/a64-pauth.s" "$diff/a64/frames.s"; do
	n=a64-$(basename "$s" .s)
	step "$n" aarch64-linux-gnu-as --gsframe -o "$n.o" "$s" &&
		dump "$n.o" arm64 rel &&
		step "$n-ld" aarch64-linux-gnu-ld -e 0 -o "$n" "$n.o" &&
		dump "$n" arm64 exec
done
exit 0
