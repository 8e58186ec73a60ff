#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host benchmark (make bench-host): on the largest .eh_frame of this machine
# (libLLVM-*.so.1, else the largest of a few big libraries, or the file in
# KUW_BENCH_FILE):
#   - kunwind-dump rows vs readelf -wN --debug-dump=frames-interp, best of
#     3 runs each, interleaved in the same run; output to /dev/null;
#   - rows compiled per second: kunwind-dump check (parse, validate, run
#     every CFI program, build the compiled table, check .eh_frame_hdr);
#   - bytes per compiled row including the rule table (check's counts).
# Times are wall clock and CPU (user+sys of the child).  The speedup is
# taken from CPU time, which other jobs on a shared machine disturb less;
# the wall-clock ratio is printed beside it.
# Last line: bench-host: rows <N> fdes <M> speedup-vs-readelf <X> bytes-per-row <B>

B=${B:-build}
DUMP=${KUW_DUMP:-$B/kunwind-dump}
RUNS=${BENCH_RUNS:-3}

if [ ! -x "$DUMP" ]; then
	echo "bench-host: $DUMP missing (make tools)" >&2
	exit 2
fi

exec python3 - "$DUMP" "$RUNS" "${KUW_BENCH_FILE:-}" <<'EOF'
import glob
import os
import re
import resource
import subprocess
import sys
import time

dump, runs, forced = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def eh_size(path):
    try:
        out = subprocess.run(["readelf", "-SW", path], capture_output=True,
                             text=True).stdout
    except OSError:
        return 0
    for line in out.splitlines():
        m = re.search(r"\]\s+\.eh_frame\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                      r"([0-9a-f]+)", line)
        if m:
            return int(m.group(1), 16)
    return 0


if forced:
    cands = [forced]
else:
    cands = sorted(set(os.path.realpath(p) for p in
                   glob.glob("/usr/lib/x86_64-linux-gnu/libLLVM-*.so*") +
                   glob.glob("/usr/lib/llvm-*/lib/libLLVM-*.so*")))
    if not cands:
        cands = [os.path.realpath(p) for p in
                 glob.glob("/usr/lib/x86_64-linux-gnu/lib*.so.*")]
best = max(((eh_size(c), c) for c in cands), default=(0, None))
if not best[1] or not best[0]:
    print("bench-host: no .eh_frame found")
    sys.exit(2)
size, path = best
print("bench-host: %s: .eh_frame %d bytes (%.1f MB)" % (path, size, size / 1e6))


def timed(cmd):
    """(wall, cpu) of one run, output discarded; exit status checked."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        print("bench-host: %s failed: %s" % (" ".join(cmd),
                                             r.stderr.decode()[:300]))
        sys.exit(1)
    cpu = (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
    return wall, cpu


ours_cmd = [dump, "rows", path]
theirs_cmd = ["readelf", "-wN", "--debug-dump=frames-interp", path]
check_cmd = [dump, "check", path]
ours, theirs, check = [], [], []
for i in range(runs):
    order = [(ours_cmd, ours), (theirs_cmd, theirs)]
    if i % 2:
        order.reverse()
    for cmd, acc in order:
        acc.append(timed(cmd))
    check.append(timed(check_cmd))

ow, oc = min(w for w, _ in ours), min(c for _, c in ours)
tw, tc = min(w for w, _ in theirs), min(c for _, c in theirs)
cw, cc = min(w for w, _ in check), min(c for _, c in check)
print("bench-host: kunwind-dump rows:           best of %d: wall %.3f s, "
      "cpu %.3f s" % (runs, ow, oc))
print("bench-host: readelf frames-interp:       best of %d: wall %.3f s, "
      "cpu %.3f s" % (runs, tw, tc))

out = subprocess.run(check_cmd, capture_output=True, text=True).stdout
m = re.search(r"\.eh_frame: (\d+) CIEs, (\d+) FDEs, (\d+) rows, (\d+) rules, "
              r"(\d+) bytes", out)
if not m:
    print("bench-host: cannot read check's counts:\n" + out)
    sys.exit(1)
ncie, nfde, nrows, nrules, nbytes = map(int, m.groups())
bpr = nbytes / nrows if nrows else 0.0
print("bench-host: kunwind-dump check (build):  best of %d: wall %.3f s, "
      "cpu %.3f s: %.2f M rows/s (cpu), %.2f M rows/s (wall)"
      % (runs, cw, cc, nrows / cc / 1e6 if cc else 0,
         nrows / cw / 1e6 if cw else 0))
print("bench-host: compiled table: %d CIEs, %d FDEs, %d rows, %d distinct "
      "rules, %d bytes incl. rule table and lookup index: %.2f bytes/row "
      "(ORC: 10)" % (ncie, nfde, nrows, nrules, nbytes, bpr))
# Rows as the CFI programs emit them (the compiled count above also holds
# the gap markers between FDEs that are not contiguous).
cfi_rows = 0
with subprocess.Popen(ours_cmd, stdout=subprocess.PIPE) as p:
    eh = False
    for line in p.stdout:
        if line.startswith(b"fde "):
            eh = line.rstrip().endswith(b" eh_frame")
        elif eh:
            cfi_rows += 1
if cfi_rows:
    print("bench-host: %d rows from the CFI programs (.eh_frame): %.2f bytes "
          "per CFI row" % (cfi_rows, nbytes / cfi_rows))


def instructions(cmd):
    """Instructions retired (perf stat), or None without perf."""
    try:
        r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u",
                            "--"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    except OSError:
        return None
    for line in r.stderr.splitlines():
        f = line.split(",")
        if len(f) > 2 and "instructions" in f[2] and f[0].isdigit():
            return int(f[0])
    return None


oi, ti = instructions(ours_cmd), instructions(theirs_cmd)
if oi and ti:
    print("bench-host: instructions (perf, user): kunwind-dump rows %.0f M, "
          "readelf %.0f M: %.1fx" % (oi / 1e6, ti / 1e6, ti / oi))
sp_cpu = tc / oc if oc else 0
sp_wall = tw / ow if ow else 0
print("bench-host: speedup vs readelf: %.1fx cpu, %.1fx wall" %
      (sp_cpu, sp_wall))
print("bench-host: rows %d fdes %d speedup-vs-readelf %.1f bytes-per-row "
      "%.2f" % (nrows, nfde, sp_cpu, bpr))
EOF
