#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: in-guest benchmark, kunwind against the kernel's ORC unwinder.
# ARCH=arm64 (make bench ARCH=arm64): on the arm64 test kernel of make
# check-arm64 under qemu-system-aarch64, against the kernel's frame-record
# unwinder (arch_stack_walk(), "fp"); the clock there is the generic timer,
# no tsc_early_khz= needed.
#
# Boots the test kernel twice with kunwind.ko, demo_oops.ko and
# kunit/bench.ko (which measures at load, see kunit/bench.c):
#   1. real time: tsc_early_khz=<host TSC kHz> (a fine-grained clock), one vCPU,
#      contenders interleaved in small rounds in the same boot, so ratios
#      are meaningful even though TCG's speed swings;
#   2. -icount shift=0,sleep=off with tsc_early_khz=1000000: one guest ns is
#      one guest instruction, and the figures are deterministic.
# Then prints one table (ns per frame, instructions per frame, ratios to
# ORC), the table builds (time, rows, bytes per row), how many walks gave
# the reference's frames and, last, the line
#   bench: per-frame kunwind/orc <R> (kunwind <X> insns, orc <Y> insns)
#          load-vmlinux <T> ms bytes-per-row <B>
# ("kunwind/fp" on arm64) from the -icount boot.  It never fails on speed,
# only when a boot could not produce the numbers or when a walk of kunwind
# that it calls reliable has frames other than the reference's (kunwind
# finding frames the reference skips is said, not failed).
#
# Knobs: BENCH_ROUNDS (default 100), BENCH_ITERS (10) for the real-time
# boot; BENCH_ICOUNT_ROUNDS (11) for the deterministic one; BENCH_MODE=time
# or icount runs one boot only; BENCH_ROW_CACHE=0 loads kunwind.ko with
# row_cache=0 (every common step looks its row up); KUNWIND_TIMEOUT per
# boot (900 s).
case ${ARCH:-x86_64} in
x86 | x86_64) KUW_ARCH=x86_64 ;;
arm64 | aarch64) KUW_ARCH=arm64 ;;
*) echo "make bench: ARCH=$ARCH: x86_64 or arm64" >&2; exit 2 ;;
esac
export KUW_ARCH	# build-kernel.sh, mkinitramfs.sh, kuw_build_modules read it
unset ARCH	# the kernel's make must not see it
. "$(dirname "$0")/lib.sh"

kuw_deps
[ "$KUW_ARCH" != arm64 ] || kuw_busybox_arm64 >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
KDIR=$("$REPO/scripts/build-kernel.sh")
log "building kunwind.ko and kunit/bench.ko"
kuw_build_modules "$KDIR" "$WORK"
[ -f "$WORK/src/kunit/bench.ko" ] || die "kunit/bench.ko was not built"
files=("/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko"
	"/lib/kunwind/kunit/bench.ko=$WORK/src/kunit/bench.ko")
[ -f "$WORK/src/kunit/demo_oops.ko" ] &&
	files+=("/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko")
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd.gz" "$REPO/scripts/init/bench.sh" \
	"${files[@]}"

mode=${BENCH_MODE:-both}
# In this run's directory, copied to the cache's logs/ at the end (the
# cache is shared, see check.sh).
LT="$WORK/bench-time-last.log"
LI="$WORK/bench-icount-last.log"
# (BENCH_MODE=time or icount leaves one of them unwritten: cp's failure
# must not become the run's exit status under set -e)
trap 'cp -f "$LT" "$LI" "$CACHE/logs/" 2>/dev/null || true; rm -rf "$WORK"' EXIT
tmo=${KUNWIND_TIMEOUT:-900}
if [ "$KUW_ARCH" = arm64 ]; then
	IMAGE="$KDIR/arch/arm64/boot/Image"
	# the generic timer is the clock, under -icount too
	bench_qemu() { kuw_qemu_arm64 "$IMAGE" "$@"; }
	clk_time='' clk_icount=''
else
	IMAGE="$KDIR/arch/x86/boot/bzImage"
	bench_qemu() { kuw_qemu "$IMAGE" "$@"; }
	clk_time="tsc_early_khz=$(kuw_tsc_khz) clocksource=tsc tsc=reliable "
	clk_icount="tsc_early_khz=1000000 clocksource=tsc tsc=reliable "
fi
if [ "$mode" != icount ]; then
	rm -f "$LT"
	log "boot 1/2: real time (${clk_time}-smp 1)"
	# One vCPU: with two, TCG's real-time kunwind/ORC ratio swung from
	# 0.74 to 1.11 over seven boots (median 1.01); with one, 0.74 to 0.88
	# over six (median 0.84), in line with the instruction counts (0.87).
	QEMU_EXTRA="-smp 1${QEMU_EXTRA:+ $QEMU_EXTRA}" \
		bench_qemu "$WORK/initrd.gz" "$LT" "$tmo" \
		"${clk_time}kuw_rounds=${BENCH_ROUNDS:-100} kuw_iters=${BENCH_ITERS:-10} kuw_row_cache=${BENCH_ROW_CACHE:-1}" \
		512M || log "real-time boot did not end cleanly"
fi
if [ "$mode" != time ]; then
	rm -f "$LI"
	log "boot 2/2: -icount shift=0,sleep=off (1 ns = 1 instruction)"
	KUNWIND_ACCEL=tcg QEMU_EXTRA="-smp 1 -icount shift=0,sleep=off" \
		bench_qemu "$WORK/initrd.gz" "$LI" \
		"$tmo" "${clk_icount}kuw_rounds=${BENCH_ICOUNT_ROUNDS:-11} kuw_iters=${BENCH_ITERS:-10} kuw_row_cache=${BENCH_ROW_CACHE:-1}" \
		512M || log "-icount boot did not end cleanly"
fi

# The guests' own results (module loads), through the test bed's parser;
# shown, not fatal: the numbers below say whether the benchmark ran.
for l in "$LT" "$LI"; do
	[ -f "$l" ] || continue
	python3 "$REPO/scripts/ktap.py" --quiet "$l" | sed "s|^|[kunwind] $(basename "$l"): |" >&2 || true
done

if [ "$KUW_ARCH" = arm64 ]; then
	accel="tcg aarch64"	# kuw_qemu_arm64: always TCG
else
	accel=$(kuw_accel "$IMAGE")
fi
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
python3 - "$mode" "$LT" "$LI" "$accel" "$(nproc)" "$cpu" "$KUW_ARCH" <<'EOF'
import os
import re
import sys

mode, lt, li, accel, ncpu, cpu, arch = sys.argv[1:8]
# The kernel's own unwinder, as kunit/arch/*/bench_arch.h names it.
REF = "fp" if arch == "arm64" else "orc"
REFNAME = "frame records" if arch == "arm64" else "ORC"


def parse(path):
    """Walk figures, marginals and table builds from one serial log."""
    r = {"walk": {}, "marg": {}, "build": [], "notes": [], "ok": False,
         "step": None, "irq": {}, "rel": {}}
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return r
    for line in text.splitlines():
        line = re.sub(r"^\[ *[0-9.]+\] ", "", line)
        # trace=same, more:N (kunwind has N frames the reference has
        # not), differs; reliable= on kunwind's lines
        m = re.search(r"kunwind-bench: walk depth=(\d+) mode=(\w+) who=(\S+)"
                      r" frames=(\d+) per-frame=([\d.]+) trace=(\S+)"
                      r" vs-(?:orc|ref)=([\d.]+)(?: reliable=(\w+))?", line)
        if m:
            d, md, who, fr, pf, tr, vs, rel = m.groups()
            r["walk"][(int(d), md, who)] = (int(fr), float(pf), tr,
                                            float(vs))
            if rel:
                r["rel"][(int(d), md, who)] = rel == "yes"
            continue
        m = re.search(r"kunwind-bench: irq who=(\S+) frames=(\d+)"
                      r" per-frame=([\d.]+) trace=(\S+)"
                      r" vs-(?:orc|ref)=([\d.]+)(?: reliable=(\w+))?",
                      line)
        if m:
            who, fr, pf, tr, vs, rel = m.groups()
            r["irq"][who] = (int(fr), float(pf), tr, float(vs))
            if rel:
                r["rel"][("irq", who)] = rel == "yes"
            continue
        m = re.search(r"kunwind-bench: marginal who=(\S+)"
                      r" per-module-frame=([\d.]+)", line)
        if m:
            r["marg"][m.group(1)] = float(m.group(2))
            continue
        m = re.search(r"kunwind-bench: start .*clock-step-ns=(\d+)", line)
        if m:
            r["step"] = int(m.group(1))
            continue
        if "kunwind-bench: done" in line:
            r["ok"] = True
            continue
        m = re.search(r"kunwind-bench: # (.*)", line)
        if m:
            r["notes"].append(m.group(1))
            continue
        m = re.search(r"kunwind: (\S+) (\.\w+): (\d+) fdes (\d+) rows"
                      r" (\d+) rules (\d+) bytes built in (\d+) ns", line)
        if m:
            o, s, f, rows, rules, b, ns = m.groups()
            r["build"].append((o, s, int(f), int(rows), int(rules), int(b),
                               int(ns)))
    return r


T = parse(lt) if mode != "icount" else parse("")
I = parse(li) if mode != "time" else parse("")
WHO = ["kunwind-eh_frame", "kunwind-sframe", REF, REF + "-sts"]


def trace(tr, rel):
    """The trace column: same, kunwind +N, differs; (unreliable)."""
    if tr.startswith("more:"):
        tr = "kunwind +%s" % tr[5:]
    return tr + (" (unreliable)" if rel is False else "")


print()
print("kunwind bench: QEMU %s (real-time boot -smp 1, -icount boot -smp 1),"
      " host %s (%s cores)" % (accel.upper(), cpu, ncpu))
if T["step"] is not None:
    print("real-time boot: smallest ktime_get_ns() step %d ns (includes the"
          " cost of one call under TCG)" % T["step"])
print()
print("per frame, contenders interleaved in the same boot; 'vs %s' is the"
      " median of per-round ratios" % REF)
print("%-6s %5s %-17s %6s | %9s %7s | %9s %7s | %s"
      % ("walk", "depth", "contender", "frames", "ns/frame", "vs " + REF,
         "insns/fr", "vs " + REF, "trace vs " + REF))
keys = sorted(set(T["walk"]) | set(I["walk"]),
              key=lambda k: (k[1] != "module", k[0], WHO.index(k[2])
                             if k[2] in WHO else 9))
for k in keys:
    t = T["walk"].get(k)
    i = I["walk"].get(k)
    fr = (i or t)[0]
    tr = trace((i or t)[2], (I if i else T)["rel"].get(k))
    print("%-6s %5d %-17s %6d | %9s %7s | %9s %7s | %s"
          % (k[1], k[0], k[2], fr,
             "%.1f" % t[1] if t else "-", "%.3f" % t[3] if t else "-",
             "%.1f" % i[1] if i else "-", "%.3f" % i[3] if i else "-", tr))
print()
print("marginal cost per module frame (slope from depth 8 to 64):")
for w in WHO:
    t = T["marg"].get(w)
    i = I["marg"].get(w)
    print("  %-17s %9s ns %9s insns"
          % (w, "%.1f" % t if t is not None else "-",
             "%.1f" % i if i is not None else "-"))
print()
print("from hard-IRQ context (hrtimer in a depth-32 chain), whole walks:"
      " kunwind alone (KUNWIND_NO_ORC) vs %s" % REFNAME)
for w in ("kunwind-alone", REF):
    t = T["irq"].get(w)
    i = I["irq"].get(w)
    if not (t or i):
        continue
    print("  %-14s %6d frames | %9s ns %7s | %9s insns %7s | %s"
          % (w, (i or t)[0], "%.1f" % t[1] if t else "-",
             "%.3f" % t[3] if t else "-", "%.1f" % i[1] if i else "-",
             "%.3f" % i[3] if i else "-",
             trace((i or t)[2], (I if i else T)["rel"].get(("irq", w)))))
for n in T["notes"] + I["notes"]:
    print("note: " + n)

print()
builds = I["build"] or T["build"]
src = "-icount, 1 ms = 10^6 insns" if I["build"] else "real time"
print("table builds at load (%s); %s" % (src, "ORC: 10 bytes per entry"
      " (+ lookup)" if REF == "orc" else "frame records: no table"))
print("  %-12s %-10s %6s %7s %6s %9s %6s %10s %12s"
      % ("owner", "section", "fdes", "rows", "rules", "bytes", "B/row",
         "ms", "rows/s"))
for o, s, f, rows, rules, b, ns in builds:
    print("  %-12s %-10s %6d %7d %6d %9d %6.2f %10.3f %12.0f"
          % (o, s, f, rows, rules, b, b / rows if rows else 0, ns / 1e6,
             rows / (ns / 1e9) if ns else 0))

# Same frames: each kunwind whole walk (one compared trace per depth and
# table, and the IRQ one) against the reference's, in each boot.  A walk
# kunwind calls reliable must have the reference's frames, or more (frames
# the reference skips); otherwise this run fails.
agree = more = differ = bad = nrel = 0
for R in (T, I):
    walks = [(k, v[2]) for k, v in R["walk"].items()
             if k[1] == "whole" and k[2].startswith("kunwind")]
    walks += [(("irq", k), v[2]) for k, v in R["irq"].items()
              if k.startswith("kunwind")]
    for k, tr in walks:
        rel = R["rel"].get(k, True)
        nrel += rel
        if tr == "same":
            agree += 1
        elif tr.startswith("more:"):
            more += 1
        else:
            differ += 1
            bad += rel
print()
print("bench: frames: %d kunwind whole walks (%d reliable) against %s's:"
      " %d same, %d with frames %s skips, %d differ"
      % (agree + more + differ, nrel, REF, agree, more, REF, differ))

ok = (mode == "time" and T["ok"]) or (mode != "time" and I["ok"])
if bad:
    print("bench: a reliable kunwind walk differs from %s's (see the"
          " notes above)" % REF)
    sys.exit(1)
if not ok:
    print("bench: the benchmark did not run to the end (see logs/%s in"
          " the test bed's cache)"
          % os.path.basename(li if mode != "time" else lt))
    sys.exit(1)
R = I if mode != "time" else T
unit = "insns" if mode != "time" else "ns"
x = R["marg"].get("kunwind-eh_frame", 0)
y = R["marg"].get(REF, 0)
vm = [b for b in builds if b[0] == "vmlinux" and b[1] == ".eh_frame"]
load = vm[0][6] / 1e6 if vm else float("nan")
bpr = vm[0][5] / vm[0][3] if vm and vm[0][3] else float("nan")
if mode == "time":
    print("(real-time boot only: the figures below are ns, not insns)")
print("bench: per-frame kunwind/%s %.2f (kunwind %.0f %s, %s %.0f %s)"
      " load-vmlinux %.1f ms bytes-per-row %.2f"
      % (REF, x / y if y else float("nan"), x, unit, REF, y, unit, load,
         bpr))
EOF
