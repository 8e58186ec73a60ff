#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the project's test command.
#
#  1. install missing Debian packages (root; apt-get update first)
#  2. build or reuse the test kernel (scripts/build-kernel.sh, cached)
#  3. host tests (`make test-host`), counting their "N passed, N failed" lines,
#     and a short fuzz pass (`make fuzz`, KUNWIND_FUZZ_SECONDS each target);
#     the differential tests get this run's kernel (KUW_DIFF_VMLINUX,
#     KUW_DIFF_KDIR), not whatever build is newest in the shared cache
#  4. build kunwind.ko and the test modules (kunit/) against it, out of tree
#  5. boot it in QEMU (-smp 2) with a busybox initramfs whose /init
#     (scripts/init/check.sh) loads kunwind.ko and every test module (KUnit
#     suites run at load), runs scripts/guest/*.sh, unloads all, ends itself
#  6. parse the serial log (scripts/ktap.py): failed or missing tests,
#     kernel warnings, oopses, KASAN/UBSAN/lockdep reports, timeouts fail
#  7. Debian's stock kernel of the cell's release, scripts/check-stock.sh
#     (base profile only; KUNWIND_STOCK=0 skips it)
#  8. steps 3-6 again on the fp profile (frame-pointer unwinder, no ORC,
#     function-graph tracer, kretprobes), after base, under check-matrix
#     (its kernel build does not fit a cold make check's hour; KUNWIND_FP=1
#     runs it in make check, KUNWIND_FP=0 skips it in the matrix); then
#     the same on the debug profile (KASAN, KFENCE, lockdep, UBSAN; the
#     stress of /dev/kunwind/ among its guest checks), also under
#     check-matrix only (KUNWIND_DEBUG=1 adds it, KUNWIND_DEBUG=0 skips)
#  9. make check-arm64 (scripts/check-arm64.sh): the aarch64 test kernel,
#     kunwind.ko on it; KUNWIND_ARM64=0 skips it
# 10. make check-stock RELEASE=<rel> ARCH=arm64: Debian's stock arm64 kernel
#     under qemu-system-aarch64 (base profile only; KUNWIND_STOCK=0 or
#     KUNWIND_STOCK_ARM64=0 skips it)
# 11. make check-headers (scripts/check-headers.sh): kunwind.ko against
#     Debian's stock header packages of 6.1, 6.12 and 7.3, amd64 and arm64,
#     without a warning (base profile only; KUNWIND_HEADERS=0 skips it)
# 12. make check-deb (scripts/check-deb.sh): the Debian packages built,
#     linted, installed into Debian 12 and 13 roots, DKMS-signed with the
#     test MOK key (base profile only; KUNWIND_DEB=0 skips it)
# 13. make check-clients (scripts/check-clients.sh): Debian's own perf
#     in a guest of the cell's test kernel (x86_64 and arm64), consumers
#     switch off and on, every kernel frame it prints checked against the
#     machine code (scripts/framecheck.py); a few seconds of samples, more
#     under check-matrix (KUNWIND_MATRIX=1: 10^5 frames a cell and more);
#     KUNWIND_CLIENTS=0 skips it.  On the stock kernels too, with bpftrace
#     (KUNWIND_CLIENTS_STOCK=1; the default under check-matrix)
# 14. make check-livepatch (scripts/check-livepatch.sh) where the cell's
#     test kernel has CONFIG_LIVEPATCH (6.12 and 7.3; arm64: 7.3, from
#     check-arm64.sh): livepatch with kunwind's reliable hook off and on
#     (KUNWIND_LIVEPATCH=0 skips)
# 15. make check-ibt (scripts/check-ibt.sh): kunwind under Bochs on a CPU
#     that enforces IBT, on Debian's stock 7.3 amd64 kernel, which seals
#     every function kunwind calls (base profile only; KUNWIND_IBT=0 skips
#     it).  Under make check-matrix the 6.12 and 7.3 x86_64 cells also run
#     it on their test kernels, and 6.12's on Debian's stock 6.12.
#
# Steps 1-13 and 15 are the cells of release 6.1 (x86_64: 1-8, 11-13
# and 15, arm64: 9-10).  Every cell also boots its lockdown guests
# (scripts/init/lockdown.sh: lockdown=integrity and =confidentiality).
# The test matrix is release (6.1, 6.12, 7.3) x arch (x86_64, arm64); a
# cell of 6.12 or 7.3 is the guest part of steps 2 and 4-6 (x86_64) or
# scripts/check-arm64.sh (arm64) on that release's test kernel
# (scripts/build-kernel.sh with KUW_RELEASE; no host tests: the host's
# binutils 2.40 cannot read the SFrame v2 of gcc-14's kernels), then step 7
# or 10 on Debian's stock kernel of that release (6.12: Debian 13's, 7.3:
# trixie-backports').  Which cells run:
#
#   make check                  KUNWIND_CELLS_DEFAULT: 6.1 x86_64 and arm64
#                               (steps 1-11; step 11 builds against the
#                               stock headers of every cell), so that a
#                               cold run stays under an hour on 2 cores
#                               (docs/testbed.md, "The matrix")
#   make check RELEASE=R        every arch of release R
#   make check ARCH=A           every default cell of arch A
#   make check RELEASE=R ARCH=A that one cell
#   make check-matrix           all six cells
#   KUNWIND_CELLS="6.12/arm64 7.3/x86_64"  exactly these
#   KUNWIND_SKIP_CELLS="7.3/arm64"         not these (the budget knob;
#                               KUNWIND_ARM64=0 is KUNWIND_SKIP_CELLS=6.1/arm64)
#   KUNWIND_LIST_CELLS=1        print the cells that would run, run none
#
# RELEASE and ARCH come from the Makefile as KUNWIND_CHECK_RELEASE and
# KUNWIND_CHECK_ARCH (or KUNWIND_RELEASE/KUW_RELEASE and ARCH in the
# environment); ARCH is then removed from the environment, with MAKEFLAGS,
# so that the host tests' and the x86 cells' module builds do not inherit
# ARCH=arm64.
#
# Last line: "N passed, N failed" (", N skipped" when some are), host,
# guest and stock together.  Exit status non-zero on any failure.
KUNWIND_CELLS_DEFAULT="6.1/x86_64 6.1/arm64"
KUNWIND_CELLS_ALL="6.1/x86_64 6.1/arm64 6.12/x86_64 6.12/arm64 7.3/x86_64 7.3/arm64"
if [ -z "${KUW_CELL:-}" ]; then
	sel_arch=${KUNWIND_CHECK_ARCH:-${ARCH:-}}
	sel_rel=${KUNWIND_CHECK_RELEASE:-${KUW_RELEASE:-${KUNWIND_RELEASE:-}}}
	unset ARCH MAKEFLAGS MFLAGS MAKELEVEL KUW_RELEASE KUNWIND_RELEASE
fi
export KUW_ARCH=x86_64	# the x86 bed; make check-arm64 is the arm64 one
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }

# --- cells ---------------------------------------------------------------
# The top-level run picks the cells, then runs each one as a child (this
# script with KUW_CELL=REL/x86_64, or check-arm64.sh), adds up their
# "N passed, N failed" lines and prints a table of cells and times.
if [ -z "${KUW_CELL:-}" ]; then
	case $sel_arch in
	"") ;;
	x86_64 | x86 | amd64) sel_arch=x86_64 ;;
	arm64 | aarch64) sel_arch=arm64 ;;
	*) die "ARCH=$sel_arch: make check runs x86_64 or arm64 cells" ;;
	esac
	case $sel_rel in
	"" | 6.1 | 6.12 | 7.3) ;;
	*) die "RELEASE=$sel_rel: make check runs releases 6.1, 6.12 or 7.3" ;;
	esac
	# Other profiles (fp, debug) are x86 fragments, run on 6.1 (each is
	# one more cold kernel): cell 6.1/x86_64 unless asked otherwise.
	if [ "$KCONFIG" != base ]; then
		[ -n "$sel_arch" ] || sel_arch=x86_64
		[ -n "$sel_rel" ] || sel_rel=6.1
	fi
	if [ -n "${KUNWIND_CELLS:-}" ]; then
		cand=$KUNWIND_CELLS
	elif [ "${KUNWIND_MATRIX:-0}" = 1 ] || [ -n "$sel_rel" ]; then
		cand=$KUNWIND_CELLS_ALL
	else
		cand=$KUNWIND_CELLS_DEFAULT
	fi
	skip=" ${KUNWIND_SKIP_CELLS:-} "
	[ "${KUNWIND_ARM64:-1}" = 1 ] || skip="$skip 6.1/arm64 "
	cells=()
	for c in $cand; do
		case $c in
		6.1/x86_64 | 6.1/arm64 | 6.12/x86_64 | 6.12/arm64 | 7.3/x86_64 | 7.3/arm64) ;;
		*) die "cell '$c': REL/ARCH with REL 6.1, 6.12 or 7.3 and ARCH x86_64 or arm64" ;;
		esac
		[ -z "$sel_rel" ] || [ "${c%/*}" = "$sel_rel" ] || continue
		[ -z "$sel_arch" ] || [ "${c#*/}" = "$sel_arch" ] || continue
		[[ $skip != *" $c "* ]] || { log "cell $c skipped (KUNWIND_SKIP_CELLS)"; continue; }
		cells+=("$c")
	done
	[ ${#cells[@]} -gt 0 ] || die "no cell to run (RELEASE=$sel_rel ARCH=$sel_arch)"
	log "cells: ${cells[*]}"
	if [ "${KUNWIND_LIST_CELLS:-0}" = 1 ]; then
		printf '%s\n' "${cells[@]}"
		exit 0
	fi
	if [ ${#cells[@]} = 1 ] && [ "${cells[0]#*/}" = x86_64 ]; then
		# One x86 cell: this run is that cell.
		KUW_CELL=${cells[0]}
	else
		tp=0 tf=0 ts=0 table=()
		for c in "${cells[@]}"; do
			rel=${c%/*} arch=${c#*/} c0=$(date +%s)
			out=$(mktemp "${TMPDIR:-/tmp}/kunwind-cell.XXXXXX")
			stamp "cell $c"
			set +e
			if [ "$arch" = x86_64 ]; then
				KUW_CELL=$c KUW_RELEASE=$rel "$0" 2>&1 | tee "$out"
			else
				KUW_RELEASE=$rel "$REPO/scripts/check-arm64.sh" 2>&1 | tee "$out"
				# real clients on the arm64 test kernel (make
				# check-clients ARCH=arm64; KUNWIND_CLIENTS=0 skips)
				if [ "${KUNWIND_CLIENTS:-1}" = 1 ] && [ "$KCONFIG" = base ]; then
					stamp "cell $c: real clients, Debian's perf on the arm64 test kernel (KUNWIND_CLIENTS=0 skips)"
					env ARCH=arm64 RELEASE="$rel" KERNEL=test \
						"$REPO/scripts/check-clients.sh" 2>&1 | tee "$out.clients"
				fi
				if [ "${KUNWIND_STOCK:-1}" = 1 ] && [ "${KUNWIND_STOCK_ARM64:-1}" = 1 ] &&
				   [ "$KCONFIG" = base ]; then
					stamp "cell $c: Debian's stock $rel arm64 kernel, make check-stock RELEASE=$rel ARCH=arm64 (KUNWIND_STOCK_ARM64=0 skips)"
					env ARCH=arm64 KUW_RELEASE="$rel" "$REPO/scripts/check-stock.sh" 2>&1 | tee "$out.stock"
					if [ "${KUNWIND_CLIENTS:-1}" = 1 ] &&
					   [ "${KUNWIND_CLIENTS_STOCK:-${KUNWIND_MATRIX:-0}}" = 1 ]; then
						stamp "cell $c: real clients on the stock arm64 kernel (KUNWIND_CLIENTS_STOCK=0 skips)"
						env ARCH=arm64 RELEASE="$rel" KERNEL=stock \
							"$REPO/scripts/check-clients.sh" 2>&1 |
							tee "$out.clients-stock"
					fi
				fi
			fi
			set -e
			cp=0 cf=0 cs=0
			while read -r p f x; do
				cp=$((cp + p)) cf=$((cf + f)) cs=$((cs + ${x:-0}))
			done < <(
				if [ "$arch" = x86_64 ]; then tail -n 1 "$out"; else
					tail -n 1 "$out"; [ ! -f "$out.stock" ] || tail -n 1 "$out.stock"
					for x in "$out.clients" "$out.clients-stock"; do
						[ ! -f "$x" ] || tail -n 1 "$x"
					done; fi |
				sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p')
			if ! tail -n 1 "$out" | grep -qE '^[0-9]+ passed, [0-9]+ failed'; then
				log "cell $c did not finish"
				cf=$((cf + 1))
			fi
			rm -f "$out" "$out.stock" "$out.clients" "$out.clients-stock"
			tp=$((tp + cp)) tf=$((tf + cf)) ts=$((ts + cs))
			table+=("$(printf '%-12s %4d passed, %3d failed, %3d skipped  %s' \
				"$c" "$cp" "$cf" "$cs" "$(kuw_dur $(($(date +%s) - c0)))")")
		done
		log "cells (release/arch, results, time):"
		printf '[kunwind]   %s\n' "${table[@]}" >&2
		stamp "all cells done"
		if [ "$ts" != 0 ]; then
			echo "$tp passed, $tf failed, $ts skipped"
		else
			echo "$tp passed, $tf failed"
		fi
		[ "$tf" = 0 ]
		exit
	fi
fi
export KUW_CELL
rel=${KUW_CELL%/*}
[ "$rel" = "$KUW_RELEASE" ] || { KUW_RELEASE=$rel; export KUW_RELEASE; }
stamp "cell $KUW_CELL (profile $KCONFIG)"
# Host tests: release 6.1's x86 cell only (the stock kernel: every cell,
# its release's, KUW_RELEASE).
if [ "$KUW_RELEASE" != 6.1 ]; then
	KUNWIND_HOST=0
fi

kuw_deps
stamp "dependencies ok"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-check.XXXXXX")
# Logs are written in this run's directory and copied to the cache's
# logs/ at the end: runs from several work trees share the cache, and a
# log another run rewrites under us would be parsed as ours.
LOGDIR="$CACHE/logs"
RUNLOG="$WORK/logs"
mkdir -p "$LOGDIR" "$RUNLOG"
trap 'cp -f "$RUNLOG"/* "$LOGDIR"/ 2>/dev/null; rm -rf "$WORK"' EXIT

# --- test kernel -------------------------------------------------------
# First: tests/difftest.sh compares kunwind-dump with binutils on a test
# kernel and builds a module against one; left to itself it takes the
# newest build in the cache, which on a shared machine may be another
# profile's, even another architecture's, still being built.
KDIR=$("$REPO/scripts/build-kernel.sh")
stamp "test kernel: $KDIR"
export KUW_DIFF_VMLINUX=${KUW_DIFF_VMLINUX:-$KDIR/vmlinux}
export KUW_DIFF_KDIR=${KUW_DIFF_KDIR:-$KDIR}

# --- host tests -------------------------------------------------------
hp=0 hf=0 hs=0
if [ "${KUNWIND_HOST:-1}" = 1 ]; then
stamp "host tests: make test-host"
set +e
make -C "$REPO" --no-print-directory B="$WORK/host" test-host 2>&1 |
	tee "$RUNLOG/host-last.log"
hrc=${PIPESTATUS[0]}
set -e
counts=$(sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p' \
	"$RUNLOG/host-last.log")
while read -r p f s; do
	[ -n "$p" ] || continue
	hp=$((hp + p)) hf=$((hf + f)) hs=$((hs + ${s:-0}))
done <<<"$counts"
if [ "$hrc" != 0 ] && [ "$hf" = 0 ]; then
	log "make test-host failed (exit $hrc) without reporting a failed test"
	hf=$((hf + 1))
fi
stamp "host: $hp passed, $hf failed, $hs skipped"

# --- a short fuzz pass (CI runs one): each target counts as a test ---
fsec=${KUNWIND_FUZZ_SECONDS:-5}
[ "${KUNWIND_HOST:-1}" = 1 ] || fsec=0
if [ "$fsec" != 0 ]; then
	stamp "fuzz: make fuzz FUZZ_SECONDS=$fsec (KUNWIND_FUZZ_SECONDS=0 skips)"
	set +e
	make -C "$REPO" --no-print-directory B="$WORK/host" \
		FUZZ_SECONDS="$fsec" fuzz 2>&1 | tee "$RUNLOG/fuzz-last.log"
	frc=${PIPESTATUS[0]}
	set -e
	fp=$(grep -c -E '^fuzz fuzz_[a-z0-9_]+: [0-9]+ execs in .* 0 findings$' \
		"$RUNLOG/fuzz-last.log" || true)
	ff=$(grep -c -E '^fuzz fuzz_[a-z0-9_]+: (FINDING|build failed|regression)' \
		"$RUNLOG/fuzz-last.log" || true)
	if [ "$frc" != 0 ] && [ "$ff" = 0 ]; then
		log "make fuzz failed (exit $frc) without naming a target"
		ff=1
	fi
	hp=$((hp + fp)) hf=$((hf + ff))
	stamp "fuzz: $fp targets clean, $ff failed"
fi

fi	# KUNWIND_HOST

# --- modules -----------------------------------------------------------
stamp "building kunwind.ko and test modules"
# kunit/sframe_v3.c: a module whose .sframe is SFrame v3, assembled by the
# Debian sid root's gas (binutils 2.46+; the C by the kernel's compiler).
# Skipped, counted and said, only when that assembler cannot be had.
sidas=()
if [ "$KUW_ARCH" = x86_64 ] &&
	sd=$(kuw_sid_as "$WORK/sid-as" 2>"$RUNLOG/sid-as.log"); then
	sidas=(KUW_SID_AS="$sd")
else
	log "skipped: kunit/sframe_v3.ko, no binutils 2.46+ gas (sid root: $LOGDIR/sid-as.log)"
	hs=$((hs + 1))
fi
if ! kuw_build_modules "$KDIR" "$WORK" "${sidas[@]}"; then
	cp "$WORK/modules.log" "$RUNLOG/modules-last.log"
	echo "$hp passed, $((hf + 1)) failed$([ "$hs" = 0 ] || echo ", $hs skipped")"
	exit 1
fi

# kunwind.ko as DKMS builds and signs it, for the lockdown guest
# (KUNWIND_DKMS=0 skips: the guest loads the test bed's own signed build)
dkko=
if [ "$KCONFIG" = base ] && [ "${KUNWIND_DKMS:-1}" = 1 ]; then
	stamp "dkms build of kunwind.ko against the test kernel, signed with the test MOK (KUNWIND_DKMS=0 skips)"
	dkko=$(kuw_dkms_test_kernel "$KDIR" "$WORK")
	if [ -n "$dkko" ] && modinfo -F signer "$dkko" | grep -qx "$KUW_MOK_CN"; then
		hp=$((hp + 1))
		log "ok: DKMS built and signed kunwind.ko for the test kernel (signer: $KUW_MOK_CN)"
	else
		hf=$((hf + 1))
		log "FAIL: DKMS built and signed kunwind.ko for the test kernel (signer: $(modinfo -F signer "${dkko:-/nonexistent}" 2>&1))"
	fi
fi

# make stack-usage (README, "Stack use"): every consumer entry's deepest
# stack path, kernel frames included, at most 1024 bytes; kunwind.ko alone
# rebuilt from this cell's sources with KUW_STACK_INFO=1 and a few kernel
# objects compiled again.  Release 6.1 (the others' kernels compile in a
# Debian 13 root); KUNWIND_STACK=0 skips.
if [ "$KCONFIG" = base ] && [ "$KUW_RELEASE" = 6.1 ] && [ "${KUNWIND_STACK:-1}" = 1 ]; then
	stamp "make stack-usage: deepest stack path per entry, at most 1024 bytes (KUNWIND_STACK=0 skips)"
	if KUW_STACK_KDIR="$KDIR" KUW_STACK_WORK="$WORK/stack" \
		"$REPO/scripts/stack-usage.sh" >"$RUNLOG/stack-usage.log" 2>&1; then
		hp=$((hp + 1))
		log "ok: stack use within 1024 bytes ($(grep -o '^total [0-9]*' "$RUNLOG/stack-usage.log" | sort -k2n | tail -n 1))"
	else
		hf=$((hf + 1))
		cat "$RUNLOG/stack-usage.log" >&2
		log "FAIL: stack use within 1024 bytes (log: $RUNLOG/stack-usage.log)"
	fi
fi

# --- initramfs -----------------------------------------------------------
echo "$KCONFIG" >"$WORK/profile"
files=("/etc/kuw-profile=$WORK/profile"
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko")
mapfile -t -O ${#files[@]} files < <(kuw_kunit_files "$WORK"; kuw_switch_files "$WORK"
	kuw_lockdown_files "$WORK")
hooks=("$REPO"/scripts/guest/*.sh)
for h in "${hooks[@]}"; do
	[ -f "$h" ] && files+=("/guest/${h##*/}=$h")
done
if [ -f "${hooks[0]}" ]; then
	# Guest checks may compare with the host tool: give them a static one,
	# and the kernel image when they ask for it.
	if [ -f "$REPO/tools/kunwind-dump.c" ]; then
		# shellcheck disable=SC2046 # one word per engine file
		if (cd "$WORK/src" &&
		    eng=$(sed -n 's/^KUW_ENGINE := //p' engine.mk)
		    gcc -std=gnu11 -O2 -static -Wno-unused-parameter \
			-Iinclude/kunwind -Imodule/engine -Itools -o "$WORK/kunwind-dump" \
			tools/*.c $(for e in $eng; do echo "module/engine/$e.c"; done)) \
			>"$RUNLOG/dump-static.log" 2>&1; then
			files+=("/usr/bin/kunwind-dump=$WORK/kunwind-dump")
		else
			log "note: static kunwind-dump did not build (see $LOGDIR/dump-static.log)"
		fi
	fi
	# the permission and one-fd concurrency checks' helper (robust_load.sh)
	if gcc -std=gnu11 -O2 -static -pthread -o "$WORK/kuw_priv" \
		"$REPO/tests/guest/kuw_priv.c" >"$RUNLOG/kuw_priv.log" 2>&1; then
		files+=("/usr/bin/kuw_priv=$WORK/kuw_priv")
	else
		log "note: static kuw_priv did not build (see $LOGDIR/kuw_priv.log)"
	fi
	if grep -q vmlinux "${hooks[@]}"; then
		files+=("/boot/vmlinux=$KDIR/vmlinux")
	fi
	# the build's own symbol table (scripts/guest/internals.sh)
	if grep -q System.map "${hooks[@]}"; then
		files+=("/boot/System.map=$KDIR/System.map")
	fi
	# the stress of /dev/kunwind/ (scripts/guest/stress.sh)
	mapfile -t -O ${#files[@]} files < <(kuw_stress_files "$WORK")
fi
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/check.sh" \
	"${files[@]}"

# --- boot -------------------------------------------------------------
mem=512M
tmo=${KUNWIND_TIMEOUT:-600}
[ "$KCONFIG" = base ] || tmo=${KUNWIND_TIMEOUT:-900}
# check-matrix's stress: 10^6 operations (kuw_stress_files)
[ "${KUNWIND_MATRIX:-0}" != 1 ] || tmo=${KUNWIND_TIMEOUT:-$((tmo + 900))}
# slab debugging on where the kernel has it (the debug profile): the
# stress validates every cache at its end
sdbg=
! grep -q '^CONFIG_SLUB_DEBUG=y' "$KDIR/.config" || sdbg=" slub_debug=FZPU"
guestlog="$RUNLOG/check-$KCONFIG-last.log"
stamp "guest: loading modules, running KUnit suites"
qrc=0
kuw_qemu "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" "$guestlog" "$tmo" \
	"tsc_early_khz=$(kuw_tsc_khz)$sdbg" "$mem" || qrc=$?
[ "$qrc" = 124 ] && log "guest TIMEOUT after ${tmo}s"
stamp "guest ended (log: $LOGDIR/${guestlog##*/})"

# One parser for every guest-side result: KUnit's KTAP from the kernel,
# the guest's own KTAP document (scripts/init/check.sh and the checks it
# nests), kernel reports.  It lists the results, then FAIL lines, and ends
# with "P passed, F failed, S skipped".
set +e
summary=$(python3 "$REPO/scripts/ktap.py" "$guestlog")
set -e
printf '%s\n' "$summary" | sed '$d'
read -r gp gf gs < <(printf '%s\n' "$summary" | tail -n 1 |
	sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') || true
[ -n "${gp:-}" ] || { gp=0 gf=1 gs=0; log "scripts/ktap.py gave no summary"; }
if [ "$gf" != 0 ]; then
	log "kernel reports in the guest log:"
	sed -E 's/^\[ *[0-9.]+\] //' "$guestlog" |
		grep -E -A4 "^(WARNING|BUG|Oops): " | head -n 40 >&2 || true
fi
stamp "guest: $gp passed, $gf failed, $gs skipped"

# The switch guest: the same initramfs, rdinit=/init-switch, one TCG thread
# (multi-threaded with KUNWIND_QEMU=trixie: kuw_switch_single).
swlog="$RUNLOG/check-$KCONFIG-switch-last.log"
stamp "switch guest: kunwind behind the kernel's consumers (scripts/init/check.sh as /init-switch)"
read -r sp sf ss < <(kuw_switch_guest "$KDIR/arch/x86/boot/bzImage" \
	"$WORK/initrd.gz" "$swlog")
stamp "switch guest: $sp passed, $sf failed, $ss skipped (log: $LOGDIR/${swlog##*/})"
gp=$((gp + sp)) gf=$((gf + sf)) gs=$((gs + ss))

# The lockdown guests: the same initramfs, rdinit=/init-lockdown, booted
# with lockdown=integrity and lockdown=confidentiality.
stamp "lockdown guests: a Secure Boot machine's lockdown, signed modules (scripts/init/lockdown.sh as /init-lockdown)"
read -r lp lf ls < <(kuw_lockdown_guests "$KDIR/arch/x86/boot/bzImage" \
	"$WORK/initrd.gz" "$RUNLOG/check-$KCONFIG-lockdown")
stamp "lockdown guests: $lp passed, $lf failed, $ls skipped"
gp=$((gp + lp)) gf=$((gf + lf)) gs=$((gs + ls))

# subrun NAME CMD...: run a part that ends "N passed, N failed[, N skipped]",
# its output kept in RUNLOG/NAME.out; add its counts to sub_p/f/s.
sub_p=0 sub_f=0 sub_s=0
subrun() {
	local name=$1 c_p c_f c_s
	shift
	set +e
	"$@" 2>&1 | tee "$RUNLOG/$name.out"
	set -e
	read -r c_p c_f c_s < <(sed -n -E \
		's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p' \
		"$RUNLOG/$name.out" | tail -n 1) || true
	[ -n "${c_p:-}" ] || { c_p=0 c_f=1; log "$name did not finish"; }
	c_s=${c_s:-0}
	sub_p=$((sub_p + c_p)) sub_f=$((sub_f + c_f)) sub_s=$((sub_s + c_s))
	stamp "$name: $c_p passed, $c_f failed, $c_s skipped"
}

# Livepatch, the reliable unwinder's client (make check-livepatch): a
# preempt=full guest of its own, with this cell's modules, where the test
# kernel has livepatch (its .config says).
if [ "${KUNWIND_LIVEPATCH:-1}" = 1 ] && grep -q '^CONFIG_LIVEPATCH=y' "$KDIR/.config"; then
	stamp "livepatch guest: patches under a load preempted in them, kunwind's reliable hook off and on (scripts/check-livepatch.sh; KUNWIND_LIVEPATCH=0 skips)"
	subrun check-livepatch env ARCH=x86_64 RELEASE="$KUW_RELEASE" KERNEL=test \
		KUW_LP_WORK="$WORK" "$REPO/scripts/check-livepatch.sh"
fi

if [ "$KCONFIG" = base ]; then
	# real clients: Debian's perf on the test kernel, every frame checked
	# (make check-clients; this cell's kernel and kunwind.ko)
	if [ "${KUNWIND_CLIENTS:-1}" = 1 ]; then
		stamp "real clients: Debian's perf on the test kernel (scripts/check-clients.sh; KUNWIND_CLIENTS=0 skips)"
		subrun check-clients env ARCH=x86_64 KERNEL=test KUW_CLIENTS_KDIR="$KDIR" \
			KUW_CLIENTS_SRC="$WORK/src" "$REPO/scripts/check-clients.sh"
	fi
	# the stock-kernel smoke test (make check-stock)
	if [ "${KUNWIND_STOCK:-1}" = 1 ]; then
		stamp "Debian's stock $KUW_RELEASE kernel (scripts/check-stock.sh; KUNWIND_STOCK=0 skips)"
		subrun check-stock env ARCH=x86_64 "$REPO/scripts/check-stock.sh"
		# its real clients, perf and bpftrace (KUNWIND_CLIENTS_STOCK=1;
		# on under check-matrix)
		if [ "${KUNWIND_CLIENTS:-1}" = 1 ] &&
		   [ "${KUNWIND_CLIENTS_STOCK:-${KUNWIND_MATRIX:-0}}" = 1 ]; then
			stamp "real clients: Debian's perf and bpftrace on its stock kernel (KUNWIND_CLIENTS_STOCK=0 skips)"
			subrun check-clients-stock env ARCH=x86_64 KERNEL=stock \
				"$REPO/scripts/check-clients.sh"
		fi
	fi
	# the fp profile: frame pointers, no ORC (make check runs both);
	# release 6.1 only
	if [ "${KUNWIND_FP:-${KUNWIND_MATRIX:-0}}" = 1 ] && [ "$KUW_RELEASE" = 6.1 ]; then
		stamp "fp profile: the same guest suites on a kernel without ORC (KUNWIND_FP=0 skips)"
		subrun check-fp env KCONFIG=fp KUNWIND_HOST=0 KUNWIND_STOCK=0 \
			KUNWIND_FP=0 "$0"
	fi
	# the debug profile: KASAN, KFENCE, lockdep, UBSAN, slub_debug under
	# the same guest suites and the stress of /dev/kunwind/; release 6.1
	# only, under check-matrix (its cold kernel does not fit make check's
	# hour; KUNWIND_DEBUG=1 adds it, KUNWIND_DEBUG=0 leaves it out)
	if [ "${KUNWIND_DEBUG:-${KUNWIND_MATRIX:-0}}" = 1 ] && [ "$KUW_RELEASE" = 6.1 ]; then
		stamp "debug profile: the same guest suites and the stress under KASAN, KFENCE, lockdep, UBSAN (KUNWIND_DEBUG=0 skips)"
		subrun check-debug env KCONFIG=debug KUNWIND_HOST=0 KUNWIND_STOCK=0 \
			KUNWIND_FP=0 KUNWIND_DEBUG=0 "$0"
	fi
	# (arm64 and the stock arm64 kernel: cell 6.1/arm64, above)
	# kunwind.ko against Debian's stock headers, every release and arch:
	# once, in cell 6.1/x86_64
	if [ "${KUNWIND_HEADERS:-1}" = 1 ] && [ "$KUW_RELEASE" = 6.1 ]; then
		stamp "stock headers: make check-headers (KUNWIND_HEADERS=0 skips)"
		subrun check-headers "$REPO/scripts/check-headers.sh"
	fi
	# the Debian packages, built, linted, installed into Debian 12 and 13
	# and DKMS-signed: once, in cell 6.1/x86_64
	if [ "${KUNWIND_DEB:-1}" = 1 ] && [ "$KUW_RELEASE" = 6.1 ]; then
		stamp "Debian packages: make check-deb (KUNWIND_DEB=0 skips)"
		subrun check-deb "$REPO/scripts/check-deb.sh"
	fi
	# kunwind on a CPU that enforces IBT (Bochs): once, in cell 6.1/x86_64,
	# on Debian's stock 7.3 kernel (its image is 121 MB; the 7.3 headers
	# are check-headers'; a 7.3 test kernel would be a cold kernel build).
	# make check-matrix adds the test kernels of 6.12 and 7.3 (built for
	# their cells) and Debian's stock 6.12 (its cell's check-stock fetches
	# that image).
	if [ "${KUNWIND_IBT:-1}" = 1 ]; then
		ibt=()
		case $KUW_RELEASE in
		6.1) ibt=("7.3 stock") ;;
		6.12) [ "${KUNWIND_MATRIX:-0}" != 1 ] || ibt=("6.12 test" "6.12 stock") ;;
		7.3) [ "${KUNWIND_MATRIX:-0}" != 1 ] || ibt=("7.3 test") ;;
		esac
		for x in "${ibt[@]}"; do
			read -r r k <<<"$x"
			stamp "IBT: make check-ibt RELEASE=$r KERNEL=$k, under Bochs (KUNWIND_IBT=0 skips)"
			subrun "check-ibt-$k-$r" env KUW_RELEASE="$r" KUNWIND_IBT_KERNEL="$k" \
				"$REPO/scripts/check-ibt.sh"
		done
	fi
fi

p=$((hp + gp + sub_p)) f=$((hf + gf + sub_f)) s=$((hs + gs + sub_s))
if [ "$f" != 0 ]; then
	log "FAILED (host log: $LOGDIR/host-last.log, guest log: $LOGDIR/${guestlog##*/})"
fi
if [ "$s" != 0 ]; then
	echo "$p passed, $f failed, $s skipped"
else
	echo "$p passed, $f failed"
fi
[ "$f" = 0 ]
