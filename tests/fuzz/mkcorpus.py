#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the seed corpora of the libFuzzer targets from real objects.

  mkcorpus.py OUTDIR [ELF...]

Writes OUTDIR/fuzz_ehframe/, fuzz_debugframe/, fuzz_ehhdr/ and fuzz_blob/
in the input layouts the targets document (tests/fuzz/fuzz_*.c): the real
section bytes with their real link-time addresses and text range.  Without ELF arguments
it picks small shared objects and programs of this machine.  Seeds larger
than 48 KiB are skipped so the committed corpus stays small.

The blob seeds are written by this script's own implementation of the
format documented in include/kunwind/blob.h, independent of module/engine/blob.c.
"""
import glob
import os
import struct
import sys

MAX_SEED = 48 * 1024
SHF_ALLOC, SHF_EXEC = 2, 4


def sections(path):
    with open(path, "rb") as f:
        img = f.read()
    if img[:4] != b"\x7fELF" or img[4] != 2 or img[5] != 1:
        return None, None
    etype, = struct.unpack_from("<H", img, 16)
    shoff, = struct.unpack_from("<Q", img, 40)
    shnum, shstrndx = struct.unpack_from("<HH", img, 60)
    secs = []
    for i in range(shnum):
        (name, typ, flags, addr, off, size) = struct.unpack_from(
            "<IIQQQQ", img, shoff + 64 * i)
        secs.append([name, typ, flags, addr, off, size])
    stro = secs[shstrndx][4]
    out = {}
    for s in secs:
        end = img.index(b"\0", stro + s[0])
        s[0] = img[stro + s[0]:end].decode()
        data = img[s[4]:s[4] + s[5]] if s[1] != 8 else b""
        out.setdefault(s[0], (s[1], s[2], s[3], data))
    tlo = min((v[2] for v in out.values()
               if v[1] & (SHF_ALLOC | SHF_EXEC) == SHF_ALLOC | SHF_EXEC
               and v[3]), default=0)
    thi = max((v[2] + len(v[3]) for v in out.values()
               if v[1] & (SHF_ALLOC | SHF_EXEC) == SHF_ALLOC | SHF_EXEC
               and v[3]), default=0)
    return out, (etype, tlo, thi)


def fnv1a(data, h=2166136261):
    for b in data:
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def blob(arch, src, stext, tlo, thi, addr, data, owner=b"vmlinux",
         sects=()):
    """Version 2: a 160-byte header, a 48-byte entry per section, data."""
    kind = 0 if owner == b"vmlinux" else 1
    bid = bytes(range(1, 21))
    hdr = bytearray(struct.pack("<8sHHBBBBQQQQIIH6x32s64s",
                                b"KUWBLOB\0", 2, 160, arch, src, kind,
                                len(bid), stext, tlo, thi, addr, len(data),
                                0, len(sects), bid, owner))
    for name, a, size in sects:
        hdr += struct.pack("<32sQQ", name, a, size)
    b = hdr + data
    struct.pack_into("<I", b, 52, fnv1a(b))
    return bytes(b)


def write(outdir, target, name, data):
    if len(data) > MAX_SEED:
        return False
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    return True


def seeds_for(outdir, path):
    secs, info = sections(path)
    if not secs:
        return 0
    etype, tlo, thi = info
    base = os.path.basename(path)
    n = 0
    for sec, debug in ((".eh_frame", 0), (".debug_frame", 1)):
        if sec not in secs or not secs[sec][3]:
            continue
        _, flags, addr, data = secs[sec]
        mode = debug | (2 if etype == 1 else 0)
        if etype == 1:          # unrelocated object: any wide text range
            tlo, thi = 0, 1 << 48
        seed = struct.pack("<BQQQ", mode, addr, tlo, thi) + data
        n += write(outdir, "fuzz_ehframe", "%s%s" % (base, sec), seed)
        if debug:
            n += write(outdir, "fuzz_debugframe", "%s%s" % (base, sec), seed)
        if etype != 1 and thi > tlo:
            b = blob(1, debug, tlo, tlo, thi, addr, data)
            n += write(outdir, "fuzz_blob", "%s%s.blob" % (base, sec),
                       b"\0" + struct.pack("<i", 0x10) + b)
        if etype == 1 and debug:
            # a module blob: text sections laid out from 0x10000
            sects, a = [], 0x10000
            for name, v in secs.items():
                if v[1] & (SHF_ALLOC | SHF_EXEC) == SHF_ALLOC | SHF_EXEC \
                        and v[3] and len(name) < 32 and len(sects) < 64:
                    sects.append((name.encode(), a, len(v[3])))
                    a += (len(v[3]) + 15) & ~15
            if sects:
                b = blob(1, 1, 0, 0x10000, a, 0, data, b"mod", sects)
                n += write(outdir, "fuzz_blob", "%s%s.blob" % (base, sec),
                           b"\0" + struct.pack("<i", 0x10) + b)
    if ".eh_frame_hdr" in secs and ".eh_frame" in secs and etype != 1:
        h = secs[".eh_frame_hdr"]
        e = secs[".eh_frame"]
        seed = struct.pack("<QQQQI", h[2], e[2], tlo, thi, len(h[3])) + \
            h[3] + e[3]
        n += write(outdir, "fuzz_ehhdr", base + ".hdr", seed)
    return n


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    outdir = argv[1]
    files = argv[2:]
    if not files:
        cands = sorted(glob.glob("/lib/x86_64-linux-gnu/lib*.so.*") +
                       ["/usr/bin/true", "/usr/bin/cat", "/usr/bin/ls"])
        sized = []
        seen = set()
        for c in cands:
            if os.path.realpath(c) in seen:
                continue
            seen.add(os.path.realpath(c))
            try:
                secs, _ = sections(c)
            except (OSError, ValueError, struct.error):
                continue
            if secs and ".eh_frame" in secs:
                sized.append((len(secs[".eh_frame"][3]), c))
        sized.sort()
        # a spread of sizes, small first
        pick = [c for s, c in sized if 200 < s < 16384][:12]
        pick += [c for s, c in sized if 16384 <= s < MAX_SEED][:3]
        files = pick
    total = 0
    for f in files:
        total += seeds_for(outdir, f)
    print("mkcorpus: %d seeds from %d files" % (total, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
