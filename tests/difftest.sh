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
case $W in
/*) ;;
*) W=$(pwd)/$W ;;	# absolute: kbuild needs M=/absolute/path
esac
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

# report WHAT RC RES: ok or FAIL with the last line of compare.py's output
# RES (its exit code RC), and its first lines on a failure.
report() {
	if [ "$2" -eq 0 ]; then
		ok "$1: $(echo "$3" | tail -1)"
	else
		echo "$3" | sed 's/^/    /' | head -21
		bad "$1: $(echo "$3" | tail -1)"
	fi
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

# check_readelf NAME FILE TOOL [--rel] [--arm64]
check_readelf() {
	name=$1 file=$2 tool=$3 rel="${4:-} ${5:-}"
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
	report "readelf $name ($tag)" $? "$res"
}

# objdump_v1 FILE: objdump --sframe of Debian 12's binutils (2.40), in its
# root (scripts/debian.sh; lib.sh in a subshell: it sets -eu).
objdump_v1() {
	(cd "$HERE/.." &&
		bash -c '. scripts/lib.sh >/dev/null &&
			KUW_ROOT_BINDS="$(dirname "$1")" \
			kuw_in_root "$(kuw_root bookworm)" objdump --sframe "$1"' \
			sh "$(readlink -f "$1")")
}

# check_sframe NAME FILE TOOL [--rel] [--arm64]: objdump --sframe vs ours,
# and .eh_frame vs .sframe of the same object.
check_sframe() {
	name=$1 file=$2 tool=$3 rel="${4:-} ${5:-}"
	tag=$(basename "$tool")
	out=$W/$name.$tag
	if ! objdump --sframe "$file" >"$out.objdump" 2>"$out.objdump.err"; then
		bad "sframe $name: objdump failed"
		return
	fi
	# binutils 2.41+ print no FDE of a version 1 section (a 6.1 test
	# kernel assembled by Debian 12's as, read on a Debian 13 host): the
	# objdump of binutils 2.40, Debian 12's root, reads it.
	if grep -q "SFrame version not supported" "$out.objdump" &&
	   grep -q "Version: SFRAME_VERSION_1" "$out.objdump"; then
		if ! objdump_v1 "$file" >"$out.objdump" 2>"$out.objdump.err"; then
			bad "sframe $name: v1 section, and no objdump of binutils 2.40 ($(tail -n 1 "$out.objdump.err"))"
			return
		fi
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
	report "sframe $name ($tag)" $? "$res"
	res=$($CMP ehsf "$out.rows" ${5:-})
	report "ehsf $name ($tag)" $? "$res"
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

# check_rules NAME FILE TOOL: `rules` (compiled tables + lookup) at 2000
# addresses vs the rule readelf shows there.  FILE must have no .sframe
# covering what .eh_frame does not.
check_rules() {
	name=$1 file=$2 tool=$3
	tag=$(basename "$tool")
	out=$W/$name.$tag
	if ! readelf -wN --debug-dump=frames-interp "$file" >"$out.readelf" \
	     2>/dev/null; then
		bad "rules $name: readelf failed"
		return
	fi
	$CMP addrs "$out.readelf" 2000 >"$out.addrs" || {
		bad "rules $name: no addresses"
		return
	}
	if ! "$tool" rules "$file" $(cat "$out.addrs") >"$out.rules" \
	     2>"$out.rules.err"; then
		sed 's/^/    /' "$out.rules.err" | head -5
		bad "rules $name ($tag): kunwind-dump rules failed"
		return
	fi
	res=$($CMP rules "$out.readelf" "$out.addrs" "$out.rules")
	report "rules $name ($tag)" $? "$res"
}

# rows_vs_rules NAME FILE: the text `rows` prints after each row's pc (it
# caches the text per distinct rule) is exactly what `rules` prints there
# (kuw_format_row on the compiled table's rule, no cache), for every 7th row.
rows_vs_rules() {
	name=$1 file=$2
	out=$W/$name.rvr
	if ! "$DUMP" rows "$file" >"$out.rows" 2>"$out.err"; then
		bad "rows-vs-rules $name: rows failed"
		return
	fi
	awk '/^fde/ { eh = ($3 == "eh_frame"); next }
	     eh && NR % 7 == 0 { print }' "$out.rows" >"$out.sample"
	# shellcheck disable=SC2046
	if ! "$DUMP" rules "$file" $(awk '{ print $1 }' "$out.sample") \
	     >"$out.rules" 2>"$out.err"; then
		bad "rows-vs-rules $name: rules failed"
		return
	fi
	n=$(wc -l <"$out.sample")
	cut -d' ' -f2- "$out.sample" >"$out.a"
	cut -d' ' -f2- "$out.rules" >"$out.b"
	if [ "$n" -gt 100 ] && cmp -s "$out.a" "$out.b"; then
		ok "rows-vs-rules $name: $n rows, same text"
	else
		diff "$out.a" "$out.b" | head -6 | sed 's/^/    /'
		bad "rows-vs-rules $name: $n rows, text differs"
	fi
}

if [ -n "$libc" ]; then
	rows_vs_rules libc "$libc"
	check_rules libc "$libc" "$DUMP"
	check_rules libc "$libc" "$ASAN"
fi
if [ -f "$W/hello-rust" ]; then
	check_rules rust "$W/hello-rust" "$ASAN"
fi

# A kernel image with unwind tables (the test bed's kernel keeps .eh_frame
# and .sframe): rows vs readelf and objdump, and the exported blob checked
# field by field.  KUW_DIFF_VMLINUX, or the newest test-bed build.
# check_vmlinux VMLINUX [--arm64]
check_vmlinux() {
	vml=$1 varch=${2:-}
	vtag=vmlinux${varch:+-arm64}
	check_readelf "$vtag" "$vml" "$DUMP" "" $varch
	if readelf -S "$vml" | grep -q '\.sframe'; then
		check_sframe "$vtag" "$vml" "$DUMP" "" $varch
	fi
	stext=$(nm "$vml" 2>/dev/null | awk '$3 == "_stext" { print $1 }')
	if "$ASAN" export "$vml" -o "$W/$vtag.blob" >"$W/export.log" 2>&1 &&
	   res=$($CMP blob "$W/$vtag.blob" "$vml" $stext $varch); then
		ok "export $vtag: $(echo "$res" | tail -1)"
	else
		sed 's/^/    /' "$W/export.log" | head -5
		bad "export $vtag: $(echo "$res" | tail -1)"
	fi
}

has_eh_frame() {
	[ -n "$1" ] && readelf -S "$1" 2>/dev/null | grep -q '\.eh_frame'
}

cache=${KUNWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kunwind}
vml=${KUW_DIFF_VMLINUX:-$(ls -t "$cache"/kbuild/base-*/vmlinux 2>/dev/null | head -1)}
if has_eh_frame "$vml"; then
	check_vmlinux "$vml"
else
	skipped "vmlinux: no kernel image with .eh_frame (make check builds one)"
fi
# The arm64 test kernel, when the test bed has built it.
vml=$(ls -t "$cache"/kbuild/arm64-*/vmlinux 2>/dev/null | head -1)
if has_eh_frame "$vml"; then
	check_vmlinux "$vml" --arm64
fi

# A kernel module built here from tests/diff/kmod/kuwdiff.c with .eh_frame and
# .sframe, against a kernel build tree: KUW_DIFF_KDIR, the newest test-bed
# build, or the running kernel's.  (.text, .init.text, .exit.text: the
# ET_REL layout and relocations of kunwind-dump.)
kdir=${KUW_DIFF_KDIR:-}
if [ -z "$kdir" ]; then
	cache=${KUNWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kunwind}
	for d in $(ls -td "$cache"/kbuild/base-*/ 2>/dev/null) \
		 /lib/modules/"$(uname -r)"/build; do
		if [ -f "$d/Module.symvers" ] || [ -f "$d/Makefile" ]; then
			kdir=$d
			break
		fi
	done
fi
if [ -n "$kdir" ]; then
	km=$W/kmod
	rm -rf "$km"
	mkdir -p "$km"
	cp "$HERE/diff/kmod/kuwdiff.c" "$km/kuwdiff.c"
	printf 'obj-m += kuwdiff.o\nccflags-y += %s\n' \
		"-fasynchronous-unwind-tables -Wa,--gsframe" >"$km/Kbuild"
	if make -C "$kdir" M="$km" modules >"$km/build.log" 2>&1 &&
	   [ -f "$km/kuwdiff.ko" ]; then
		check_readelf kuwdiff.ko "$km/kuwdiff.ko" "$ASAN" --rel
		check_sframe kuwdiff.ko "$km/kuwdiff.ko" "$ASAN" --rel
	else
		bad "build kuwdiff.ko against $kdir: $(grep -m1 -i error "$km/build.log")"
	fi
else
	skipped "kuwdiff.ko: no kernel build tree (KUW_DIFF_KDIR)"
fi

# The test bed's demo module, or any .ko given in KUW_DIFF_KO.
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
	skipped "demo_oops.ko: not built (optional; KUW_DIFF_KO=FILE.ko)"
fi

# Hand-written CFI with same_value and undefined (tests/asm/cfi_sameval.s):
# readelf's "s" and "u", in the CIE too, in rows and in rules.
if as -o "$W/sameval.o" "$HERE/asm/cfi_sameval.s" 2>"$W/sameval.log" &&
   ld -shared -o "$W/sameval.so" "$W/sameval.o" 2>>"$W/sameval.log"; then
	check_readelf sameval.o "$W/sameval.o" "$ASAN" --rel
	check_readelf sameval.so "$W/sameval.so" "$ASAN"
	check_rules sameval.so "$W/sameval.so" "$ASAN"
else
	bad "build sameval.so: $(head -1 "$W/sameval.log")"
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
# AArch64 (when its binutils are installed): hand-written CFI with pointer
# authentication, as an object and linked.
if command -v aarch64-linux-gnu-as >/dev/null 2>&1 &&
   command -v aarch64-linux-gnu-ld >/dev/null 2>&1; then
	for src in "$HERE"/diff/a64/*.s; do
		n=a64-$(basename "$src" .s)
		if aarch64-linux-gnu-as --gsframe -o "$W/$n.o" "$src" \
		   2>"$W/$n.log" &&
		   aarch64-linux-gnu-ld -e f1 -o "$W/$n" "$W/$n.o" \
		   2>>"$W/$n.log"; then
			check_readelf "$n.o" "$W/$n.o" "$ASAN" --rel --arm64
			check_sframe "$n.o" "$W/$n.o" "$ASAN" --rel --arm64
			check_readelf "$n" "$W/$n" "$ASAN" "" --arm64
			check_sframe "$n" "$W/$n" "$ASAN" "" --arm64
		else
			bad "build $n: $(head -1 "$W/$n.log")"
		fi
	done
else
	skipped "arm64: no aarch64-linux-gnu binutils"
fi

# A program whose own code has .debug_frame only (absolute addresses; the
# C runtime brings a little .eh_frame): rows vs readelf, and the blob of its
# .debug_frame, as for a distro debug vmlinux.
if gcc -O2 -g -fno-asynchronous-unwind-tables -o "$W/progdbg" \
   "$HERE"/diff/src/*.c 2>"$W/progdbg.log"; then
	check_readelf progdbg "$W/progdbg" "$ASAN"
	if "$ASAN" export "$W/progdbg" -o "$W/progdbg.blob" \
	   --src debug_frame >"$W/export.log" 2>&1 &&
	   res=$($CMP blob "$W/progdbg.blob" "$W/progdbg" --debug-frame); then
		ok "export progdbg --src debug_frame: $(echo "$res" | tail -1)"
	else
		sed 's/^/    /' "$W/export.log" | head -5
		bad "export progdbg --src debug_frame: $(echo "$res" | tail -1)"
	fi
else
	bad "build progdbg: $(head -1 "$W/progdbg.log")"
fi

# Several objects combined with ld -r: one .eh_frame with several CIEs.
if [ -n "$objs" ] && ld -r -o "$W/combined.o" $objs 2>"$W/combined.log"; then
	check_readelf combined.o "$W/combined.o" "$ASAN" --rel
else
	bad "build combined.o: $(head -1 "$W/combined.log" 2>/dev/null)"
fi

# 3. The command line: exit codes and messages (0 ok, 1 malformed input,
# 2 usage or I/O error).
# expect_exit CODE DESC PATTERN CMD...: exit status CODE and, when PATTERN
# is not empty, a line of stdout+stderr matching it.
expect_exit() {
	code=$1 desc=$2 pat=$3
	shift 3
	"$@" >"$W/cli.out" 2>&1
	rc=$?
	if [ $rc -ne "$code" ]; then
		bad "cli $desc: exit $rc, expected $code"
		sed 's/^/    /' "$W/cli.out" | head -3
	elif [ -n "$pat" ] && ! grep -Eq "$pat" "$W/cli.out"; then
		bad "cli $desc: output does not match /$pat/"
		sed 's/^/    /' "$W/cli.out" | head -3
	else
		ok "cli $desc (exit $code)"
	fi
}

P=$W/prog
expect_exit 0 "--help" "Exit codes" "$ASAN" --help
expect_exit 2 "no arguments" "Usage" "$ASAN"
expect_exit 2 "unknown command" "unknown command 'frob'" "$ASAN" frob "$P"
expect_exit 2 "missing file" "no-such-file: No such file" \
	"$ASAN" rows "$W/no-such-file"
expect_exit 2 "rows without FILE" "expected one FILE" "$ASAN" rows
expect_exit 2 "rules: bad address" "bad address 'nosuchsym': unknown symbol" \
	"$ASAN" rules "$P" nosuchsym
expect_exit 2 "export without -o" "missing -o" "$ASAN" export "$P"
expect_exit 2 "export --src bad" "must be eh_frame or debug_frame" \
	"$ASAN" export "$P" -o "$W/x.blob" --src sframe
printf 'not an ELF file: plain text, long enough to hold an ELF header of 64 bytes\n' >"$W/notelf"
expect_exit 1 "not ELF" "notelf: elf\+0x0: not an ELF file" \
	"$ASAN" check "$W/notelf"
head -c 100 "$P" >"$W/trunc"
expect_exit 1 "truncated ELF" "trunc: elf\+0x28: section header table" \
	"$ASAN" check "$W/trunc"
# A CIE version byte made invalid: the message names section and offset.
cp "$P" "$W/badcie"
ehoff=$(readelf -SW "$W/badcie" |
	sed -n 's/.*\] \.eh_frame  *[A-Z_0-9]*  *[0-9a-f]*  *\([0-9a-f]*\).*/\1/p')
if [ -n "$ehoff" ]; then
	printf '\011' | dd of="$W/badcie" bs=1 seek=$((0x$ehoff + 8)) \
		conv=notrunc 2>/dev/null
	expect_exit 1 "check: bad CIE version" \
		"badcie: \.eh_frame\+0x8: unsupported version" \
		"$ASAN" check "$W/badcie"
	expect_exit 1 "rows: bad CIE version" \
		"badcie: \.eh_frame\+0x8: unsupported version" \
		"$ASAN" rows "$W/badcie"
else
	bad "cli: cannot find .eh_frame of $P"
fi
expect_exit 0 "check prog" "prog: total: [0-9]+ FDEs" "$ASAN" check "$P"
expect_exit 0 "rules: symbol+offset" "^0x[0-9a-f]+ cfa=rsp\+[0-9]+ " \
	"$ASAN" rules "$P" main+1
expect_exit 0 "rules: outside any FDE" "^0x0 none$" "$ASAN" rules "$P" 0
expect_exit 0 "sections of a .o" "^\.text +0x10000 " \
	"$ASAN" sections "$W/main-O2.o"
if "$ASAN" export "$P" -o "$W/prog.blob" >"$W/export.log" 2>&1 &&
   res=$($CMP blob "$W/prog.blob" "$P"); then
	ok "export prog: $(echo "$res" | tail -1)"
else
	sed 's/^/    /' "$W/export.log" | head -5
	bad "export prog: $(echo "$res" | tail -1)"
fi

# --- kunwind-dump load: a fake system ----------------------------------------
# A root with a debug vmlinux and module files at the usual paths, a sysfs
# with the running kernel's and modules' notes, a /dev whose
# kunwind/load is a plain file: what load writes there must be the blob
# export makes of the matching file; a module of another build, one
# without a debug file and a vmlinux of another build are skipped, never
# written.  The build ids are the notes' bytes as objcopy extracts them.
L=$W/load
rm -rf "$L"
K=6.1.0-kuwtest
mkdir -p "$L/root/usr/lib/debug/boot" "$L/root/usr/lib/debug/lib/modules/$K/kernel/a" \
	"$L/sys/kernel" "$L/sys/module/foo_bar/notes" "$L/sys/module/stale/notes" \
	"$L/sys/module/nodbg" "$L/dbg/kunwind"
cat >"$L/v.s" <<'ASM'
	.text
	.globl _stext
_stext:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	popq %rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
ASM
# a module: .debug_frame, its name in .modinfo, a build id note
modsrc() {
	cat <<ASM
	.cfi_sections .debug_frame
	.text
f:
	.cfi_startproc
	subq \$8, %rsp
	.cfi_def_cfa_offset 16
	addq \$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.section .modinfo,"a"
	.asciz "license=GPL"
	.asciz "name=$1"
	.section .note.gnu.build-id,"a",@note
	.balign 4
	.long 4, 20, 3
	.asciz "GNU"
	.byte $2
ASM
}
ids1="1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
ids2="9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,20"
if as -o "$L/v.o" "$L/v.s" && ld --build-id=sha1 -e _stext -o "$L/vmlinux" "$L/v.o" &&
   modsrc foo_bar "$ids1" | as -o "$L/root/usr/lib/debug/lib/modules/$K/kernel/a/foo-bar.ko" - &&
   modsrc stale "$ids1" | as -o "$L/root/usr/lib/debug/lib/modules/$K/kernel/a/stale.ko" - &&
   modsrc foo_bar "$ids2" | as -o "$L/other.ko" - &&
   objcopy -O binary --only-section=.note.gnu.build-id "$L/vmlinux" "$L/sys/kernel/notes" &&
   objcopy -O binary --only-section=.note.gnu.build-id \
	"$L/root/usr/lib/debug/lib/modules/$K/kernel/a/foo-bar.ko" \
	"$L/sys/module/foo_bar/notes/.note.gnu.build-id" &&
   objcopy -O binary --only-section=.note.gnu.build-id "$L/other.ko" \
	"$L/sys/module/stale/notes/.note.gnu.build-id"; then
	cp "$L/vmlinux" "$L/root/usr/lib/debug/boot/vmlinux-$K"
	for m in foo_bar stale nodbg; do echo live >"$L/sys/module/$m/initstate"; done
	echo live >"$L/sys/module/foo_bar/initstate"
	ld_run() {	# ARGS: kunwind-dump load with the fake system
		: >"$L/dbg/kunwind/load"
		"$ASAN" load --root "$L/root" --sys "$L/sys" --dev "$L/dbg" \
			--kver $K "$@" >"$L/out" 2>&1
	}
	"$ASAN" export "$L/vmlinux" -o "$L/v.blob" >/dev/null 2>&1
	"$ASAN" export "$L/root/usr/lib/debug/lib/modules/$K/kernel/a/foo-bar.ko" \
		-o "$L/m.blob" >/dev/null 2>&1
	if ld_run vmlinux && cmp -s "$L/v.blob" "$L/dbg/kunwind/load" &&
	   grep -q "^loaded vmlinux from $L/root/usr/lib/debug/boot/vmlinux-$K " "$L/out"; then
		ok "load vmlinux: the blob of the debug vmlinux whose build id is the kernel's"
	else
		sed 's/^/    /' "$L/out"
		bad "load vmlinux"
	fi
	if ld_run foo-bar && cmp -s "$L/m.blob" "$L/dbg/kunwind/load" &&
	   grep -q '^loaded foo_bar from .*/foo-bar.ko (.debug_frame, 1 FDEs)' "$L/out"; then
		ok "load foo-bar: the module blob of foo-bar.ko (name=foo_bar)"
	else
		sed 's/^/    /' "$L/out"
		bad "load foo-bar"
	fi
	if ld_run stale nodbg && [ ! -s "$L/dbg/kunwind/load" ] &&
	   grep -q '^skipped stale: .* is of another build (build id 0102.*, running 0909' "$L/out" &&
	   grep -q '^skipped nodbg: no debug file' "$L/out" &&
	   grep -q '0 loaded, 2 skipped, 0 failed' "$L/out"; then
		ok "load: another build and no debug file are skipped, nothing written"
	else
		sed 's/^/    /' "$L/out"
		bad "load: skips"
	fi
	# a vmlinux of another build: one more instruction, another sha1
	sed 's/^_stext:$/_stext: nop/' "$L/v.s" | as -o "$L/v2.o" - &&
		ld --build-id=sha1 -e _stext -o "$L/root/usr/lib/debug/boot/vmlinux-$K" "$L/v2.o"
	# and Debian's second name of it: one file, reported once as such
	ln -sf "../../../boot/vmlinux-$K" "$L/root/usr/lib/debug/lib/modules/$K/vmlinux"
	if ld_run -n && grep -q '^skipped vmlinux: .* is of another build' "$L/out" &&
	   grep -q '^would load foo_bar ' "$L/out" &&
	   grep -q '1 loaded, 3 skipped, 0 failed' "$L/out" &&
	   [ ! -s "$L/dbg/kunwind/load" ]; then
		ok "load -n: every loaded module and vmlinux considered, nothing written"
	else
		sed 's/^/    /' "$L/out"
		bad "load -n"
	fi
else
	bad "load: cannot build the fake system"
fi

echo "difftest: $skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
