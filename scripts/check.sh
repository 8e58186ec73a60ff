#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the project's test command.
#
#  1. install missing Debian packages (root; apt-get update first)
#  2. host tests (`make test-host`), counting their "N passed, N failed" lines,
#     and a short fuzz pass (`make fuzz`, KUNWIND_FUZZ_SECONDS each target)
#  3. build or reuse the test kernel (scripts/build-kernel.sh, cached)
#  4. build kunwind.ko and the test modules (kunit/) against it, out of tree
#  5. boot it in QEMU (-smp 2) with a busybox initramfs whose /init
#     (scripts/init/check.sh) loads kunwind.ko and every test module (KUnit
#     suites run at load), runs scripts/guest/*.sh, unloads all, ends itself
#  6. parse the serial log (scripts/ktap.py): failed or missing tests,
#     kernel warnings, oopses, KASAN/UBSAN/lockdep reports, timeouts fail
#  7. the stock-kernel smoke test, scripts/check-stock.sh (base profile
#     only; KUNWIND_STOCK=0 skips it)
#
# Last line: "N passed, N failed" (", N skipped" when some are), host,
# guest and stock together.  Exit status non-zero on any failure.
export KUW_ARCH=x86_64	# the x86 bed; make check-arm64 is the arm64 one
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }

kuw_deps
stamp "dependencies ok"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOGDIR="$CACHE/logs"
mkdir -p "$LOGDIR"

# --- host tests -------------------------------------------------------
hp=0 hf=0 hs=0
stamp "host tests: make test-host"
set +e
make -C "$REPO" --no-print-directory B="$WORK/host" test-host 2>&1 |
	tee "$LOGDIR/host-last.log"
hrc=${PIPESTATUS[0]}
set -e
counts=$(sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p' \
	"$LOGDIR/host-last.log")
while read -r p f s; do
	[ -n "$p" ] || continue
	hp=$((hp + p)) hf=$((hf + f)) hs=$((hs + ${s:-0}))
done <<<"$counts"
if [ "$hrc" != 0 ] && [ "$hf" = 0 ]; then
	log "make test-host failed (exit $hrc) without reporting a failed test"
	hf=$((hf + 1))
fi
stamp "host: $hp passed, $hf failed, $hs skipped"

# --- a short fuzz pass (issue: CI runs one): each target counts as a test ---
fsec=${KUNWIND_FUZZ_SECONDS:-5}
if [ "$fsec" != 0 ]; then
	stamp "fuzz: make fuzz FUZZ_SECONDS=$fsec (KUNWIND_FUZZ_SECONDS=0 skips)"
	set +e
	make -C "$REPO" --no-print-directory B="$WORK/host" \
		FUZZ_SECONDS="$fsec" fuzz 2>&1 | tee "$LOGDIR/fuzz-last.log"
	frc=${PIPESTATUS[0]}
	set -e
	fp=$(grep -c -E '^fuzz fuzz_[a-z0-9_]+: [0-9]+ execs in .* 0 findings$' \
		"$LOGDIR/fuzz-last.log" || true)
	ff=$(grep -c -E '^fuzz fuzz_[a-z0-9_]+: (FINDING|build failed|regression)' \
		"$LOGDIR/fuzz-last.log" || true)
	if [ "$frc" != 0 ] && [ "$ff" = 0 ]; then
		log "make fuzz failed (exit $frc) without naming a target"
		ff=1
	fi
	hp=$((hp + fp)) hf=$((hf + ff))
	stamp "fuzz: $fp targets clean, $ff failed"
fi

# --- test kernel and modules -------------------------------------------
KDIR=$("$REPO/scripts/build-kernel.sh")
stamp "test kernel: $KDIR"

stamp "building kunwind.ko and test modules"
if ! kuw_build_modules "$KDIR" "$WORK"; then
	cp "$WORK/modules.log" "$LOGDIR/modules-last.log"
	echo "$hp passed, $((hf + 1)) failed$([ "$hs" = 0 ] || echo ", $hs skipped")"
	exit 1
fi

# --- initramfs -----------------------------------------------------------
echo "$KCONFIG" >"$WORK/profile"
files=("/etc/kuw-common.sh=$REPO/scripts/init/common.sh"
	"/etc/kuw-profile=$WORK/profile"
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko")
for m in "$WORK"/src/kunit/*.ko; do
	[ -f "$m" ] && files+=("/lib/kunwind/kunit/${m##*/}=$m")
done
hooks=("$REPO"/scripts/guest/*.sh)
for h in "${hooks[@]}"; do
	[ -f "$h" ] && files+=("/guest/${h##*/}=$h")
done
if [ -f "${hooks[0]}" ]; then
	# Guest checks may compare with the host tool: give them a static one,
	# and the kernel image when they ask for it.
	if [ -f "$REPO/tools/kunwind-dump.c" ]; then
		# shellcheck disable=SC2046 # one word per engine file
		(cd "$WORK/src" &&
		 eng=$(sed -n 's/^KUW_ENGINE := //p' engine.mk)
		 gcc -std=gnu11 -O2 -static -Wno-unused-parameter \
			-Iinclude/kunwind -Imodule/engine -Itools -o "$WORK/kunwind-dump" \
			tools/*.c $(for e in $eng; do echo "module/engine/$e.c"; done)) \
			>"$LOGDIR/dump-static.log" 2>&1 &&
			files+=("/usr/bin/kunwind-dump=$WORK/kunwind-dump") ||
			log "note: static kunwind-dump did not build (see $LOGDIR/dump-static.log)"
	fi
	if grep -q vmlinux "${hooks[@]}"; then
		files+=("/boot/vmlinux=$KDIR/vmlinux")
	fi
fi
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/check.sh" \
	"${files[@]}"

# --- boot -------------------------------------------------------------
mem=512M
tmo=${KUNWIND_TIMEOUT:-600}
[ "$KCONFIG" = base ] || tmo=${KUNWIND_TIMEOUT:-900}
guestlog="$LOGDIR/check-$KCONFIG-last.log"
stamp "guest: loading modules, running KUnit suites"
qrc=0
kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$guestlog" "$tmo" \
	"tsc_early_khz=$(kuw_tsc_khz)" "$mem" || qrc=$?
[ "$qrc" = 124 ] && log "guest TIMEOUT after ${tmo}s"
stamp "guest ended (log: $guestlog)"

grep -E "kuw-guest: (not )?ok|^\[ *[0-9.]+\] +(not )?ok |# Subtest:" "$guestlog" |
	sed -E 's/^\[ *[0-9.]+\] //; s/^kuw-guest: /guest: /' || true
set +e
summary=$(python3 "$REPO/scripts/ktap.py" "$guestlog")
set -e
printf '%s\n' "$summary" | grep -v '^guest: [0-9]* passed' || true
read -r gp gf gs < <(printf '%s\n' "$summary" |
	sed -n -E 's/^guest: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') || true
[ -n "${gp:-}" ] || { gp=0 gf=1 gs=0; }
if [ "$gf" != 0 ]; then
	log "first failure details from the guest log:"
	sed -E 's/^\[ *[0-9.]+\] //' "$guestlog" |
		grep -E -A4 "(EXPECTATION|ASSERTION) FAILED|^(WARNING|BUG|Oops): " |
		head -n 60 >&2 || true
fi
stamp "guest: $gp passed, $gf failed, $gs skipped"

# --- stock kernel smoke test (make check-stock) ----------------------------
sp=0 sf=0 ss=0
if [ "$KCONFIG" = base ] && [ "${KUNWIND_STOCK:-1}" = 1 ]; then
	stamp "stock kernel smoke test (scripts/check-stock.sh; KUNWIND_STOCK=0 skips)"
	set +e
	"$REPO/scripts/check-stock.sh" 2>&1 | tee "$LOGDIR/check-stock-last.out"
	set -e
	read -r sp sf ss < <(sed -n -E \
		's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p' \
		"$LOGDIR/check-stock-last.out" | tail -n 1) || true
	[ -n "${sp:-}" ] || { sp=0 sf=1; log "check-stock did not finish"; }
	ss=${ss:-0}
	stamp "stock: $sp passed, $sf failed, $ss skipped"
fi

p=$((hp + gp + sp)) f=$((hf + gf + sf)) s=$((hs + gs + ss))
if [ "$f" != 0 ]; then
	log "FAILED (host log: $LOGDIR/host-last.log, guest log: $guestlog)"
fi
if [ "$s" != 0 ]; then
	echo "$p passed, $f failed, $s skipped"
else
	echo "$p passed, $f failed"
fi
[ "$f" = 0 ]
