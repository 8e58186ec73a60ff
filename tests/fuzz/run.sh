#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build and run every libFuzzer target tests/fuzz/fuzz_*.c (clang,
# -fsanitize=fuzzer,address,undefined) for FUZZ_SECONDS each.
#
#   make fuzz FUZZ_SECONDS=N        (B=build dir, default build)
#   tests/fuzz/run.sh [TARGET...]   (e.g. fuzz_ehframe; default: all)
#
# Each target links the engine (engine.mk), tests/fuzz/common.c (a
# kuw_read_mem() that fails every read, weak so a target may replace it)
# and its own file.  Seeds: tests/fuzz/corpus/<target>/ (or corpus/<name>
# without the fuzz_ prefix), made from real objects by mkcorpus.py; inputs
# that once crashed live in tests/fuzz/regress/<target>/ and are replayed
# first.  New inputs go to $B/fuzz/corpus/<target>/, crashes to
# $B/fuzz/artifacts/<target>/.
#
# Prints per target "fuzz <target>: <execs> execs in <s> s, <n> findings"
# and last "fuzz: <execs> execs, <n> crashes".  Exit 1 on any finding or
# build failure, 2 when clang is missing.

B=${B:-build}
SECS=${FUZZ_SECONDS:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CLANG=${CLANG:-}
if [ -z "$CLANG" ]; then
	for c in clang clang-16 clang-15 clang-14; do
		if command -v $c >/dev/null 2>&1; then
			CLANG=$c
			break
		fi
	done
fi
if [ -z "$CLANG" ]; then
	echo "fuzz: clang not found (libFuzzer needs clang)" >&2
	echo "fuzz: 0 execs, 0 crashes"
	exit 2
fi
case $B in
/*) ;;
*) B=$ROOT/$B ;;
esac
W=$B/fuzz
mkdir -p "$W" || exit 2

ENGINE=$(sed -n 's/^KUW_ENGINE[[:space:]]*:=[[:space:]]*//p' "$ROOT/engine.mk")
SRCS=""
for m in $ENGINE; do
	SRCS="$SRCS $ROOT/module/engine/$m.c"
done
CFLAGS="-std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer -w
	-I$ROOT/include/kunwind -I$ROOT/module/engine -I$ROOT/tools -I$HERE"

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(cd "$HERE" && ls fuzz_*.c 2>/dev/null | sed 's/\.c$//')
fi

total=0
crashes=0
failed=0
for t in $targets; do
	t=${t%.c}
	src=$HERE/$t.c
	bin=$W/$t
	if [ ! -f "$src" ]; then
		echo "fuzz $t: no such target" >&2
		failed=$((failed + 1))
		continue
	fi
	if ! $CLANG $CFLAGS -o "$bin" "$src" "$HERE/common.c" $SRCS \
	     >"$W/$t.build.log" 2>&1; then
		echo "fuzz $t: build failed:"
		sed 's/^/    /' "$W/$t.build.log" | head -20
		failed=$((failed + 1))
		continue
	fi
	seeds=$HERE/corpus/$t
	[ -d "$seeds" ] || seeds=$HERE/corpus/${t#fuzz_}
	work=$W/corpus/$t
	art=$W/artifacts/$t
	mkdir -p "$work" "$art"
	found=0

	# Replay committed regression inputs.
	reg=$HERE/regress/$t
	[ -d "$reg" ] || reg=$HERE/regress/${t#fuzz_}
	if [ -d "$reg" ] && [ -n "$(ls "$reg" 2>/dev/null)" ]; then
		if ! "$bin" -runs=0 "$reg"/* >"$W/$t.regress.log" 2>&1; then
			echo "fuzz $t: regression input crashes:"
			grep -E "ERROR|runtime error|Running:" "$W/$t.regress.log" |
				head -10 | sed 's/^/    /'
			found=$((found + 1))
		fi
	fi

	dirs="$work"
	[ -d "$seeds" ] && dirs="$work $seeds"
	start=$(date +%s)
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
		-max_len=1048576 -print_final_stats=1 \
		-artifact_prefix="$art/" $dirs >"$W/$t.log" 2>&1
	rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units:[[:space:]]*//p' \
		"$W/$t.log" | tail -1)
	[ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' \
		"$W/$t.log" | tail -1)
	[ -n "$execs" ] || execs=0
	cov=$(grep -o 'cov: [0-9]*' "$W/$t.log" | tail -1 | sed 's/cov: //')
	if [ $rc -ne 0 ]; then
		found=$((found + 1))
		echo "fuzz $t: FINDING (exit $rc), see $W/$t.log:"
		grep -E "ERROR|runtime error|SUMMARY|Test unit written" \
			"$W/$t.log" | head -8 | sed 's/^/    /'
	fi
	echo "fuzz $t: $execs execs in $((end - start)) s, cov ${cov:-?}," \
	     "$(ls "$work" | wc -l) corpus, $found findings"
	total=$((total + execs))
	crashes=$((crashes + found))
done

echo "fuzz: $total execs, $crashes crashes"
[ $crashes -eq 0 ] && [ $failed -eq 0 ]
