#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seeds for tests/fuzz/fuzz_cfi.c: the CIE and FDE programs of real objects.

  mkcorpus_cfi.py OUTDIR [ELF...]

Reads each object's .eh_frame (and .debug_frame), and writes one seed per
distinct (CIE program, FDE program) pair in fuzz_cfi's input layout: flags,
code and data alignment factors, return address column, FDE pointer
encoding, address range, CIE program length, the CIE's initial
instructions, the FDE's instructions.  Without ELF arguments it takes a few
objects of this machine (libc, ld.so, the Python interpreter).  At most
MAX_SEEDS seeds, each at most 4 KiB: half of them the longest programs,
half spread over the other sizes, and up to 8 .debug_frame programs.

The committed corpus was made with: libc.so.6, ld-linux-x86-64.so.2,
python3, kunit/robust_test.ko and vmlinux of the test kernel (.eh_frame),
and module/cfi.c built with gcc -g -O2 -fno-asynchronous-unwind-tables
(.debug_frame).

The record parser here is this script's own (DWARF 4 section 6.4.1, LSB
"Exception Frames"), independent of module/engine/ehframe.c.
"""
import glob
import hashlib
import os
import struct
import sys

MAX_SEEDS = 48
MAX_SEED = 4096


def leb(b, o, signed=False):
    """The LEB128 number at b[o] and the offset after it."""
    v = s = 0
    while True:
        c = b[o]
        o += 1
        v |= (c & 0x7f) << s
        s += 7
        if not c & 0x80:
            if signed and c & 0x40:
                v -= 1 << s
            return v, o


def uleb(b, o):
    return leb(b, o)


def sleb(b, o):
    return leb(b, o, True)


def enc_size(enc, addr_size):
    t = enc & 0x0f
    return {0: addr_size, 2: 2, 3: 4, 4: 8, 0xa: 2, 0xb: 4, 0xc: 8}.get(t)


def sections(path):
    with open(path, "rb") as f:
        img = f.read()
    if img[:4] != b"\x7fELF" or img[4] != 2 or img[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", img, 40)
    shnum, shstrndx = struct.unpack_from("<HH", img, 60)
    hdrs = [struct.unpack_from("<IIQQQQ", img, shoff + 64 * i)
            for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = {}
    for name, typ, _flags, _addr, off, size in hdrs:
        n = img[stro + name:img.index(b"\0", stro + name)].decode()
        if n in (".eh_frame", ".debug_frame") and typ != 8:
            out[n] = img[off:off + size]
    return out


def records(sec, debug):
    """Yield (cie_params, cie_insns, fde_insns, fde_range) for each FDE."""
    cies = {}
    o = 0
    while o + 4 <= len(sec):
        length, = struct.unpack_from("<I", sec, o)
        if length == 0:
            o += 4
            continue
        if length == 0xffffffff:
            return      # 64-bit DWARF: not in these seeds
        body = o + 4
        end = body + length
        if end > len(sec):
            return
        cid, = struct.unpack_from("<I", sec, body)
        is_cie = cid == (0xffffffff if debug else 0)
        try:
            if is_cie:
                p = body + 4
                ver = sec[p]
                p += 1
                aug_end = sec.index(b"\0", p)
                aug = sec[p:aug_end].decode("latin-1")
                p = aug_end + 1
                addr_size = 8
                if debug and ver >= 4:
                    addr_size = sec[p]
                    p += 2
                if "eh" in aug:
                    p += 8
                caf, p = uleb(sec, p)
                daf, p = sleb(sec, p)
                if ver == 1:
                    ra = sec[p]
                    p += 1
                else:
                    ra, p = uleb(sec, p)
                fenc, signal, zlen = 0, 0, None
                if aug.startswith("z"):
                    zlen, p = uleb(sec, p)
                    q = p
                    for ch in aug[1:]:
                        if ch == "R":
                            fenc = sec[q]
                            q += 1
                        elif ch == "L":
                            q += 1
                        elif ch == "P":
                            penc = sec[q]
                            q += 1 + enc_size(penc, 8)
                        elif ch == "S":
                            signal = 1
                    p += zlen
                cies[o] = (dict(caf=caf, daf=daf, ra=ra, enc=fenc,
                                signal=signal, addr_size=addr_size,
                                z=zlen is not None), sec[p:end])
            else:
                cie_off = cid if debug else body - cid
                if cie_off not in cies:
                    o = end
                    continue
                params, cie_insns = cies[cie_off]
                p = body + 4
                size = params["addr_size"] if debug else \
                    enc_size(params["enc"], 8)
                if size is None:
                    o = end
                    continue
                p += size
                rng = int.from_bytes(sec[p:p + size], "little")
                p += size
                if params["z"]:
                    zlen, p = uleb(sec, p)
                    p += zlen
                yield params, cie_insns, sec[p:end], rng
        except (IndexError, ValueError):
            return
        o = end


def seed(params, cie_insns, fde_insns, rng, debug):
    flags = (2 if debug else 0) | (4 if params["signal"] else 0) | \
        (8 if params["addr_size"] == 4 else 0)
    hdr = struct.pack("<BBiBBHH", flags, params["caf"] & 0xff,
                      max(-2**31, min(2**31 - 1, params["daf"])),
                      params["ra"] & 0xff, params["enc"] & 0xff,
                      max(0, min(0xffff, rng - 1)), len(cie_insns))
    return hdr + cie_insns + fde_insns


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = os.path.join(sys.argv[1], "fuzz_cfi")
    objs = sys.argv[2:] or [p for pat in (
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/ld-linux-x86-64.so.2",
        "/usr/bin/python3*") for p in glob.glob(pat)][:4]
    found = {}
    dbg = {}
    for path in objs:
        try:
            secs = sections(os.path.realpath(path))
        except OSError:
            continue
        for name, data in secs.items():
            debug = name == ".debug_frame"
            for params, ci, fi, rng in records(data, debug):
                s = seed(params, ci, fi, rng, debug)
                if len(s) <= MAX_SEED:
                    (dbg if debug else found).setdefault(
                        bytes(ci) + b"|" + bytes(fi), s)
    os.makedirs(out, exist_ok=True)
    by_len = sorted(found.values(), key=len, reverse=True)
    half = MAX_SEEDS // 2
    rest = by_len[half:]
    step = max(1, len(rest) // half)
    best = by_len[:half] + rest[::step][:half]
    # a few .debug_frame programs (set_loc with absolute addresses)
    best += sorted(dbg.values(), key=len, reverse=True)[:8]
    for s in best:
        name = hashlib.sha1(s).hexdigest()[:16]
        with open(os.path.join(out, name), "wb") as f:
            f.write(s)
    print("%s: %d seeds from %d programs" % (out, len(best),
                                             len(found) + len(dbg)))


if __name__ == "__main__":
    main()
