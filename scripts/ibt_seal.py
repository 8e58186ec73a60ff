#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The functions an x86_64 vmlinux seals at boot, read from its ELF.

    ibt_seal.py VMLINUX       one function name a line (sorted)

objtool lists, in the section .ibt_endbr_seal, every ENDBR64 of a function
whose address is never taken; apply_seal_endbr() overwrites each with a
poison NOP at boot, so that an indirect call to it faults under IBT.  Each
entry is a 32-bit offset from the entry itself to the ENDBR
(arch/x86/kernel/alternative.c: "addr = (void *)s + *s").  The names are
the function symbols (nm's t, T, W) at those addresses.  Read with binutils
(readelf, objcopy, nm) only, independently of the kernel and of kunwind:
make check-ibt compares it with what the running kernel's text shows.

Exit status 2 when the vmlinux has no such section (a kernel that seals
nothing, or built without CONFIG_X86_KERNEL_IBT).
"""
import os
import re
import struct
import subprocess
import sys
import tempfile


def section(vmlinux, name):
    out = subprocess.run(["readelf", "-SW", vmlinux], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and m.group(1) == name:
            return int(m.group(2), 16), int(m.group(3), 16)
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    vmlinux = sys.argv[1]
    sec = section(vmlinux, ".ibt_endbr_seal")
    if not sec:
        print(f"{vmlinux}: no .ibt_endbr_seal section", file=sys.stderr)
        sys.exit(2)
    addr, size = sec
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "seal.bin")
        subprocess.run(["objcopy", "-O", "binary", "--only-section",
                        ".ibt_endbr_seal", vmlinux, raw], check=True)
        with open(raw, "rb") as f:
            data = f.read()
    if len(data) != size or size % 4:
        sys.exit(f"{vmlinux}: .ibt_endbr_seal: {len(data)} bytes read, "
                 f"{size} in the section header")
    targets = set()
    for i in range(size // 4):
        (off,) = struct.unpack_from("<i", data, 4 * i)
        targets.add((addr + 4 * i + off) & (2**64 - 1))
    names = set()
    out = subprocess.run(["nm", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTW" and int(f[0], 16) in targets:
            names.add(f[2])
    for n in sorted(names):
        print(n)


if __name__ == "__main__":
    main()
