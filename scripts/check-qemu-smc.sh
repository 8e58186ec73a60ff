#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-qemu-smc: does the emulator keep cross-modified code coherent?
# A diagnosis of the switch guest's hang (docs/testbed.md, "The switch
# guest") with no kunwind at all: scripts/qemu-smc/smc_repro.c, built
# against the 6.1 x86_64 test kernel, toggles an empty ftrace_ops over a
# function another kthread calls in a tight loop, in a minimal initramfs
# (scripts/qemu-smc/init.sh), under
#
#   mttcg   the host's QEMU (7.2 on Debian 12), multi-threaded TCG
#   single  the host's QEMU, -accel tcg,thread=single
#   qemu10  Debian 13's QEMU 10 (KUNWIND_QEMU=trixie), multi-threaded TCG
#
# each SMC_RUNS times, one QEMU at a time.  A run finished when the guest
# printed "smc_repro: done"; it hung when the guest said its caller is
# stuck, or printed no progress for SMC_STALL seconds: then the script
# samples every vCPU's pc through the QEMU monitor (scripts/qemu-smc/
# monitor.py), reads the bytes at the patched function from guest memory
# (`x` through the vCPU's page tables, `xp` at the physical address),
# keeps the RCU stall report's RIP line, and ends QEMU.
#
# Knobs: SMC_RUNS (5), SMC_MODES ("mttcg single qemu10"), SMC_TOGGLES
# (100), SMC_FUNC (smc_repro_target, the module's own empty function, or
# stack_trace_save), SMC_STALL (45), SMC_NICE (10, QEMU's niceness).
# Logs: $CACHE/logs/qemu-smc/<mode>-<n>.log; the summary also in
# summary.txt there.  Exit status 1 if a single-threaded or QEMU 10 run
# did not finish, or a run neither finished nor hung (a broken run).
export KUW_ARCH=x86_64 KUW_RELEASE=6.1
unset ARCH RELEASE MAKEFLAGS MFLAGS MAKELEVEL
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

runs=${SMC_RUNS:-5}
modes=${SMC_MODES:-mttcg single qemu10}
toggles=${SMC_TOGGLES:-100}
func=${SMC_FUNC:-smc_repro_target}
stall=${SMC_STALL:-45}
nice=${SMC_NICE:-10}
# A guest whose toggles all finish takes well under this; a hung one is
# ended as soon as it is seen.
tmo=${KUNWIND_TIMEOUT:-900}
export KUNWIND_ACCEL=tcg	# the point is TCG, even where KVM exists

kuw_deps
KDIR=$("$REPO/scripts/build-kernel.sh") || die "no test kernel"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-qemu-smc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOGS="$CACHE/logs/qemu-smc"
mkdir -p "$LOGS" "$WORK/mod"

cp "$REPO/scripts/qemu-smc/smc_repro.c" "$REPO/scripts/qemu-smc/Kbuild" "$WORK/mod/"
make -C "$KDIR" M="$WORK/mod" modules >"$WORK/mod.log" 2>&1 ||
	{ cat "$WORK/mod.log" >&2; die "smc_repro.ko did not build"; }
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/qemu-smc/init.sh" \
	"/smc_repro.ko=$WORK/mod/smc_repro.ko"

# qemu_version MODE: the emulator's version line
qemu_version() {
	if [ "$1" = qemu10 ]; then
		KUNWIND_QEMU=trixie kuw_in_root "$(KUNWIND_QEMU=trixie kuw_qemu_root)" \
			qemu-system-x86_64 --version | head -n 1
	else
		qemu-system-x86_64 --version | head -n 1
	fi
}

# run_one MODE N: one boot; prints its result line, "finished ...",
# "hung ..." or "broken ...".
run_one() {
	local mode=$1 logf="$LOGS/$1-$2.log" sock="$WORK/mon-$1-$2.sock"
	local qenv=(KUNWIND_QEMU=host KUW_TCG_SINGLE=0) pid t0 now last seen size
	local verdict="" why="" tline taddr caddr
	case $mode in
	single) qenv=(KUNWIND_QEMU=host KUW_TCG_SINGLE=1) ;;
	qemu10) qenv=(KUNWIND_QEMU=trixie KUW_TCG_SINGLE=0) ;;
	esac
	rm -f "$logf" "$logf.raw" "$sock"
	(
		renice -n "$nice" -p "$BASHPID" >/dev/null 2>&1 || true
		# shellcheck disable=SC2016 # expanded by that bash
		env "${qenv[@]}" QEMU_EXTRA="-monitor unix:$sock,server,nowait" \
			bash -c '. "$1/scripts/lib.sh"; kuw_qemu "$2" "$3" "$4" "$5" "$6"' \
			kuw "$REPO" "$KDIR/arch/x86/boot/bzImage" "$WORK/initrd.gz" \
			"$logf" "$tmo" "smc_toggles=$toggles smc_func=$func tsc_early_khz=$(kuw_tsc_khz)"
	) 2>>"$LOGS/qemu.err" &
	pid=$!
	t0=$(date +%s) last=$t0 seen=
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		[ -f "$logf.raw" ] || continue
		if grep -q "smc_repro: done" "$logf.raw"; then
			verdict=finished
			break
		fi
		if grep -q "smc_repro: caller stuck" "$logf.raw"; then
			verdict=hung why="the guest saw its caller stop"
			break
		fi
		size=$(grep -c "smc_repro: \(target\|toggle\)" "$logf.raw" || true)
		if [ "$size" != "$seen" ]; then
			seen=$size last=$now
		elif [ $((now - last)) -ge "$stall" ] && [ "$size" != 0 ]; then
			verdict=hung why="no progress for ${stall}s"
			break
		fi
	done
	tline=$(grep -a -o "smc_repro: target [^ ]* at [0-9a-f]*, count at [0-9a-f]*" \
		"$logf.raw" 2>/dev/null | tail -n 1 || true)
	caddr=${tline##* } tline=${tline%, count at *}
	taddr=${tline##* }
	if [ "$verdict" = hung ] && [ -n "$taddr" ]; then
		python3 "$REPO/scripts/qemu-smc/monitor.py" "$sock" "$KDIR/System.map" \
			"$func" "$taddr" "$caddr" >"$WORK/mon.out" 2>&1 || true
	fi
	# still running (finished but not yet ended, or the monitor did not
	# answer): ask it to quit, then wait for kuw_qemu to write the log
	if [ "$verdict" = hung ] && kill -0 "$pid" 2>/dev/null; then
		python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"quit\n"); time.sleep(1)' "$sock" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	[ -f "$logf" ] || tr -d '\r' <"$logf.raw" >"$logf" 2>/dev/null || true
	rm -f "$logf.raw"
	if [ -z "$verdict" ]; then
		if grep -q "smc_repro: done" "$logf"; then
			verdict=finished
		else
			verdict=broken why="QEMU ended without the guest's last line"
		fi
	fi
	local secs=$(($(date +%s) - t0)) prog stallrip
	prog=$(grep -a -o "smc_repro: \(toggle [0-9/]*\|done.*\|caller stuck.*\)" "$logf" | tail -n 1 || true)
	[ -n "$prog" ] || prog="smc_repro: before toggle 10"
	case $verdict in
	finished) echo "finished in ${secs}s (${prog#smc_repro: })" ;;
	hung)
		echo "hung after ${secs}s: $why; last: ${prog#smc_repro: }"
		[ ! -s "$WORK/mon.out" ] || sed 's/^/    monitor: /' "$WORK/mon.out"
		stallrip=$(grep -a "RIP: 0010:" "$logf" | sort | uniq -c | sort -rn | head -n 3 || true)
		[ -z "$stallrip" ] || printf '%s\n' "$stallrip" | sed 's/^ */    guest: /'
		grep -a "Code:" "$logf" | head -n 1 | sed 's/^/    guest: /' || true
		;;
	*) echo "broken after ${secs}s: $why; last: ${prog#smc_repro: }" ;;
	esac
	rm -f "$WORK/mon.out"
}

declare -A hung=() done_=() broken=() ver=()
summary="$LOGS/summary.txt"
: >"$summary"
for mode in $modes; do
	case $mode in
	mttcg | single | qemu10) ;;
	*) die "SMC_MODES: $mode is not mttcg, single or qemu10" ;;
	esac
	ver[$mode]=$(qemu_version "$mode") || die "no QEMU for $mode"
	hung[$mode]=0 done_[$mode]=0 broken[$mode]=0
	log "$mode: ${ver[$mode]}, $runs runs of $toggles toggles over $func"
	for ((i = 1; i <= runs; i++)); do
		res=$(run_one "$mode" "$i")
		printf '%s %d: %s\n' "$mode" "$i" "$res" | tee -a "$summary" >&2
		case $res in
		finished*) done_[$mode]=$((done_[$mode] + 1)) ;;
		hung*) hung[$mode]=$((hung[$mode] + 1)) ;;
		*) broken[$mode]=$((broken[$mode] + 1)) ;;
		esac
	done
done

rc=0
{
	echo "smc_repro: $toggles toggles of an empty ftrace_ops over $func, -smp 2, 6.1 x86_64 test kernel"
	for mode in $modes; do
		case $mode in
		mttcg) what="multi-threaded TCG" ;;
		single) what="-accel tcg,thread=single" ;;
		qemu10) what="multi-threaded TCG" ;;
		esac
		printf '%-7s %s, %s: hung %d of %d, finished %d%s\n' "$mode" \
			"${ver[$mode]}" "$what" "${hung[$mode]}" "$runs" "${done_[$mode]}" \
			"$([ "${broken[$mode]}" = 0 ] || echo ", broken ${broken[$mode]}")"
		[ "${broken[$mode]}" = 0 ] || rc=1
		[ "$mode" = mttcg ] || [ "${hung[$mode]}" = 0 ] || rc=1
	done
} >"$WORK/table"
tee -a "$summary" <"$WORK/table"
log "logs: $LOGS"
exit $rc
