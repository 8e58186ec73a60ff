#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the seed corpora of fuzz_sframe and fuzz_dwop from real objects.

  tests/fuzz/mkcorpus_sfr.py [OUTDIR]     (default tests/fuzz/corpus)

fuzz_sframe/: the .sframe sections that `as --gsframe` and ld make from
tests/asm/sfr_*.s and from a small C program built with -Wa,--gsframe
(linked: section-relative starts; the raw .o: relocated mode), from
tests/asm/sfr_a64.s when aarch64-linux-gnu-as is installed, version 2
rewrites of them (with and without SFRAME_F_FDE_FUNC_START_PCREL), one
AArch64 v2 section written from the specification, and version 3 sections
(flexible FDEs included) from what tests/difftest-tc.sh built with Debian
sid's binutils 2.46+ (build/difftc/sid, or $KUW_SFR3_DIR) when present.  Input layout: mode,
section address, text start, text end, bytes (see fuzz_sframe.c).

fuzz_dwop/: every distinct DW_OP expression of the CFI of this machine's
libc, ld.so and libstdc++ (as `readelf --debug-dump=frames` prints them,
encoded back to bytes), plus loops and branches.  Input layout: flags,
valid-register mask, bytes (see fuzz_dwop.c).

Run from the repository root; needs as, ld, gcc, readelf.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def sh(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def sections(path):
    img = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", img, 40)
    shnum, shstrndx = struct.unpack_from("<HH", img, 60)
    secs = []
    for i in range(shnum):
        secs.append(list(struct.unpack_from("<IIQQQQ", img, shoff + 64 * i)))
    stro = secs[shstrndx][4]
    out = {}
    tlo, thi = None, 0
    for s in secs:
        name = img[stro + s[0]:img.index(b"\0", stro + s[0])].decode()
        out[name] = (s[3], img[s[4]:s[4] + s[5]])
        if s[2] & 6 == 6 and s[5]:
            tlo = s[3] if tlo is None else min(tlo, s[3])
            thi = max(thi, s[3] + s[5])
    return out, tlo or 0, thi


def sfr_seed(mode, addr, tlo, thi, data):
    return struct.pack("<BQQQ", mode, addr, tlo, thi) + data


def v1_to_v2(b, pcrel):
    """Section-relative v1 -> v2, starts field-relative when pcrel."""
    nfde, nfre, fre_len, fdeoff, freoff = struct.unpack_from("<IIIII", b, 8)
    hdr = 28 + b[7]
    out = bytearray(b[:hdr])
    out[2] = 2
    if pcrel:
        out[3] |= 4
    struct.pack_into("<I", out, 24, fdeoff + 20 * nfde)
    fdes = bytearray()
    for i in range(nfde):
        f = b[hdr + fdeoff + 17 * i:hdr + fdeoff + 17 * (i + 1)]
        start, = struct.unpack_from("<i", f, 0)
        if pcrel:
            start -= hdr + fdeoff + 20 * i
        rep = 16 if f[16] & 0x10 else 0
        fdes += struct.pack("<i", start) + f[4:17] + bytes([rep, 0, 0])
    out += fdes + b[hdr + freoff:hdr + freoff + fre_len]
    return bytes(out)


def a64_seed():
    """AArch64 v2 PCREL: PCINC with signed RA and FP base, PCMASK 4-byte."""
    sec, f0, f1 = 0x20000, 0x10100, 0x10200
    fres = bytearray()
    fres += bytes([0, 0x03, 0])                            # sp+0
    fres += bytes([4, 0x87]) + struct.pack("<bbb", 32, -8, -16)
    fres += bytes([8, 0xa6]) + struct.pack("<hhh", 300, -8, -16)
    fre1 = len(fres)
    fres += struct.pack("<HB", 0, 0x43) + struct.pack("<i", 0x12345)
    fres += struct.pack("<HB", 8, 0x45) + struct.pack("<ii", -65536, -131072)
    fde0, fde1 = 32, 52
    body = struct.pack("<iIIIBBH", f0 - (sec + fde0), 0x40, 0, 3, 0x00, 0, 0)
    body += struct.pack("<iIIIBBH", f1 - (sec + fde1), 0x100, fre1, 2,
                        0x11, 16, 0)
    hdr = struct.pack("<HBBBbbBIIIII", 0xdee2, 2, 5, 2, 0, 0, 4, 2, 5,
                      len(fres), 0, 40) + b"\xa5" * 4
    return sfr_seed(2, sec, 0x10000, 0x20000, hdr + body + bytes(fres))


def sframe_corpus(out, tmp):
    seeds = {}
    srcs = [os.path.join(ROOT, "tests/asm/sfr_x86.s"),
            os.path.join(ROOT, "tests/asm/sfr_plt.s")]
    objs = []
    for s in srcs:
        o = os.path.join(tmp, os.path.basename(s)[:-2] + ".o")
        sh("as", "--gsframe", "-o", o, s)
        objs.append(o)
    linked = [os.path.join(tmp, "x.elf"), os.path.join(tmp, "plt.so")]
    sh("ld", "-o", linked[0], "-e", "0", "-Ttext=0x401000", objs[0])
    sh("ld", "-shared", "-o", linked[1], objs[1])
    csrc = os.path.join(tmp, "p.c")
    with open(csrc, "w") as f:
        f.write("#include <stdio.h>\n"
                "static int r(int n) { return n < 2 ? n : r(n - 1) + r(n - 2); }\n"
                "int main(int c, char **v) { char b[4096]; snprintf(b, "
                "sizeof(b), \"%d\", r(c + 20)); puts(b); return 0; }\n")
    prog = os.path.join(tmp, "prog")
    sh("gcc", "-O2", "-Wa,--gsframe", "-o", prog, csrc)
    linked.append(prog)
    for path in linked:
        secs, tlo, thi = sections(path)
        addr, data = secs[".sframe"]
        n = os.path.basename(path).replace(".", "_")
        seeds["%s_v1" % n] = sfr_seed(0, addr, tlo, thi, data)
        seeds["%s_v2" % n] = sfr_seed(0, addr, tlo, thi, v1_to_v2(data, 0))
        seeds["%s_v2_pcrel" % n] = sfr_seed(0, addr, tlo, thi,
                                            v1_to_v2(data, 1))
    for o in objs:
        secs, _, _ = sections(o)
        _, data = secs[".sframe"]
        seeds[os.path.basename(o).replace(".", "_") + "_rel"] = \
            sfr_seed(1, 0x10000, 0, 0, data)
    seeds["a64_v2"] = a64_seed()
    if shutil.which("aarch64-linux-gnu-as"):
        o = os.path.join(tmp, "a64.o")
        e = os.path.join(tmp, "a64.elf")
        sh("aarch64-linux-gnu-as", "--gsframe", "-o", o,
           os.path.join(ROOT, "tests/asm/sfr_a64.s"))
        sh("aarch64-linux-gnu-ld", "-o", e, "-e", "0", "-Ttext=0x400000", o)
        secs, tlo, thi = sections(e)
        addr, data = secs[".sframe"]
        seeds["a64_elf_v1"] = sfr_seed(2, addr, tlo, thi, data)
        seeds["a64_elf_v2_pcrel"] = sfr_seed(2, addr, tlo, thi,
                                             v1_to_v2(data, 1))
    # SFrame v3: objects and images binutils 2.46+ made (difftest-tc.sh)
    v3 = os.environ.get("KUW_SFR3_DIR",
                        os.path.join(ROOT, "build/difftc/sid"))
    for n in ("x86-kern", "x86-flex", "x86-flex.o", "x86-kern-O2.o",
              "a64-kern", "a64-kern-pac.o", "a64-frames", "a64-a64-pauth"):
        path = os.path.join(v3, n)
        if not os.path.exists(path):
            continue
        secs, tlo, thi = sections(path)
        if ".sframe" not in secs or secs[".sframe"][1][2] != 3:
            continue
        addr, data = secs[".sframe"]
        mode = (2 if n.startswith("a64") else 0) | \
            (1 if n.endswith(".o") else 0)
        if mode & 1:
            addr, tlo, thi = 0x10000, 0, 0
        seeds["v3_" + n.replace("-", "_").replace(".", "_")] = \
            sfr_seed(mode, addr, tlo, thi, data)
    d = os.path.join(out, "fuzz_sframe")
    os.makedirs(d, exist_ok=True)
    for k, v in sorted(seeds.items()):
        open(os.path.join(d, k), "wb").write(v)
    return len(seeds)


OPS = {"addr": 0x03, "deref": 0x06, "const1u": 0x08, "const1s": 0x09,
       "const2u": 0x0a, "const2s": 0x0b, "const4u": 0x0c, "const4s": 0x0d,
       "const8u": 0x0e, "const8s": 0x0f, "constu": 0x10, "consts": 0x11,
       "dup": 0x12, "drop": 0x13, "over": 0x14, "pick": 0x15, "swap": 0x16,
       "rot": 0x17, "abs": 0x19, "and": 0x1a, "div": 0x1b, "minus": 0x1c,
       "mod": 0x1d, "mul": 0x1e, "neg": 0x1f, "not": 0x20, "or": 0x21,
       "plus": 0x22, "plus_uconst": 0x23, "shl": 0x24, "shr": 0x25,
       "shra": 0x26, "xor": 0x27, "eq": 0x29, "ge": 0x2a, "gt": 0x2b,
       "le": 0x2c, "lt": 0x2d, "ne": 0x2e, "nop": 0x96,
       "deref_size": 0x94, "call_frame_cfa": 0x9c}


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def encode(text):
    """'DW_OP_breg7 (rsp): 8; DW_OP_deref' -> bytes, or None."""
    out = bytearray()
    for op in text.split(";"):
        m = re.match(r"\s*DW_OP_(\w+?)(\d*)(?: \(\w+\))?(?::\s*(-?\d+))?\s*$",
                     op)
        if not m:
            return None
        name, num, arg = m.group(1), m.group(2), m.group(3)
        if name in ("lit", "breg", "reg") and num:
            out.append({"lit": 0x30, "reg": 0x50, "breg": 0x70}[name]
                       + int(num))
            if name == "breg":
                out += sleb(int(arg or 0))
            continue
        name += num
        if name not in OPS:
            return None
        out.append(OPS[name])
        if name in ("plus_uconst", "constu"):
            out += uleb(int(arg))
        elif name == "consts":
            out += sleb(int(arg))
        elif name in ("const1u", "deref_size", "pick"):
            out += struct.pack("<B", int(arg) & 0xff)
    return bytes(out)


def dwop_corpus(out):
    exprs = set()
    for lib in ("/lib/x86_64-linux-gnu/libc.so.6",
                "/lib64/ld-linux-x86-64.so.2",
                "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"):
        if not os.path.exists(lib):
            continue
        txt = subprocess.run(["readelf", "--debug-dump=frames", lib],
                             capture_output=True, text=True).stdout
        for m in re.finditer(r"expression(?::\s*r\d+ \(\w+\))? \((DW_OP.*)\)\s*$",
                             txt, re.M):
            e = encode(m.group(1))
            if e:
                exprs.add(e)
    hand = [
        bytes([0x33, 0x31, 0x1c, 0x12, 0x28, 0xfa, 0xff]),  # count down
        bytes([0x2f, 0xfd, 0xff]),                          # skip to itself
        bytes([0x31, 0x28, 0x04, 0x00, 0x35, 0x2f, 0x01, 0x00, 0x37]),
        bytes([0x9c, 0x38, 0x1c, 0x06]),                    # cfa-8, deref
        bytes([0x77, 0x00, 0x94, 0x04, 0x33, 0x24]),        # rsp deref4 <<3
        bytes([0x31, 0x32, 0x33, 0x17, 0x15, 0x02, 0x16, 0x14, 0x13]),
        bytes([0x3f, 0x30, 0x1b]),                          # div by zero
        bytes([0x92, 0x10, 0x7f, 0x06, 0x06]),              # bregx, chain
    ]
    d = os.path.join(out, "fuzz_dwop")
    os.makedirs(d, exist_ok=True)
    n = 0
    for i, e in enumerate(sorted(exprs) + hand):
        # flags: push initial for register rules; all registers valid.
        for flags in ((0, 3) if i % 2 else (1, 2)):
            blob = struct.pack("<BQ", flags, (1 << 17) - 1) + e
            open(os.path.join(d, "e%02d_%d" % (i, flags)), "wb").write(blob)
            n += 1
    return n


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "tests/fuzz/corpus")
    with tempfile.TemporaryDirectory() as tmp:
        a = sframe_corpus(out, tmp)
    b = dwop_corpus(out)
    print("mkcorpus_sfr: %d fuzz_sframe seeds, %d fuzz_dwop seeds" % (a, b))


if __name__ == "__main__":
    main()
