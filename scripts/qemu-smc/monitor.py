#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Look at a hung smc_repro guest through QEMU's monitor (HMP on a socket).

    monitor.py SOCKET SYSTEM_MAP TARGET_NAME TARGET_ADDR COUNT_ADDR
               [SAMPLES] [QUIT]

Reads the caller's call count (the module's `calls`, at COUNT_ADDR)
before and after the sampling, samples every vCPU's RIP SAMPLES times (default 20, 0.25 s apart) with
`cpu N` / `info registers`, names each pc from System.map (the module's
target by TARGET_NAME/TARGET_ADDR), then reads the 5 bytes at the target
from guest memory twice: through the stuck vCPU's page tables (`x`) and at
the physical address (`gva2gpa`, `xp`).  QUIT=1 (default) ends QEMU with
`quit`.  Prints one "key: value" line per finding:

    calls: 17447219 -> 17447219 (5.2 s)
    cpu1 pcs: smc_repro_target+0x0 x12, asm_exc_int3+0x0 x3, ...
    x smc_repro_target: 0f 1f 44 00 00
    xp 0x...: 0f 1f 44 00 00
"""
import bisect
import collections
import re
import socket
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\x1b[()][A-Za-z0-9]")


class Monitor:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(20)
        self.s.connect(path)
        self.read_prompt()

    def read_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return ANSI.sub("", buf.decode("utf-8", "replace")).replace("\r", "")

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        out = self.read_prompt()
        # drop the echoed command and the prompt
        lines = out.split("\n")
        lines = [ln for ln in lines if ln.strip() != line and
                 not ln.startswith("(qemu)")]
        return "\n".join(lines)


def load_map(path):
    syms = []
    with open(path) as f:
        for ln in f:
            parts = ln.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def namer(syms, tname, taddr):
    addrs = [a for a, _ in syms]
    etext = dict((n, a) for a, n in syms).get("_etext", 1 << 64)

    def name(pc):
        if taddr <= pc < taddr + 16:
            return "%s+0x%x" % (tname, pc - taddr)
        if pc >= etext and pc >= 0xffffffff80000000:
            return "module:0x%x" % pc
        i = bisect.bisect_right(addrs, pc) - 1
        if i < 0:
            return "0x%x" % pc
        return "%s+0x%x" % (syms[i][1], pc - syms[i][0])
    return name


def hexbytes(out):
    m = re.search(r":\s*((?:0x[0-9a-f]{2}\s*)+)", out)
    if not m:
        return "?"
    return " ".join(b[2:] for b in m.group(1).split())


def main():
    sock, smap, tname, taddr, caddr = sys.argv[1:6]
    samples = int(sys.argv[6]) if len(sys.argv) > 6 else 20
    quit_ = sys.argv[7] != "0" if len(sys.argv) > 7 else True
    taddr = int(taddr, 16)
    name = namer(load_map(smap), tname, taddr)
    mon = Monitor(sock)
    cpus = [int(c) for c in re.findall(r"CPU #(\d+)", mon.cmd("info cpus"))]
    pcs = {c: collections.Counter() for c in cpus}

    def count():
        out = mon.cmd("x /1xg 0x%s" % caddr)
        m = re.search(r":\s*(0x[0-9a-f]+)", out)
        return int(m.group(1), 16) if m else -1
    c0, t0 = count(), time.time()
    for _ in range(samples):
        for c in cpus:
            mon.cmd("cpu %d" % c)
            m = re.search(r"RIP=([0-9a-f]+)", mon.cmd("info registers"))
            if m:
                pcs[c][name(int(m.group(1), 16))] += 1
        time.sleep(0.25)
    c1 = count()
    print("calls: %d -> %d (%.1f s)" % (c0, c1, time.time() - t0))
    for c in cpus:
        print("cpu%d pcs: %s" % (c, ", ".join(
            "%s x%d" % kv for kv in pcs[c].most_common())))
    # the caller runs on CPU 1; its page tables map the target
    mon.cmd("cpu %d" % (1 if 1 in cpus else cpus[0]))
    print("x %s: %s" % (tname, hexbytes(mon.cmd("x /5xb 0x%x" % taddr))))
    m = re.search(r"gpa:\s*(0x[0-9a-f]+)", mon.cmd("gva2gpa 0x%x" % taddr))
    if m:
        print("xp %s: %s" % (m.group(1),
                             hexbytes(mon.cmd("xp /5xb %s" % m.group(1)))))
    if quit_:
        mon.s.sendall(b"quit\n")
        time.sleep(0.5)


if __name__ == "__main__":
    main()
