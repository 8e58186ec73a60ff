#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Semantic comparison of `kunwind-dump rows` with binutils.

  compare.py readelf READELF_OUT OURS_OUT [--rel]
      readelf --debug-dump=frames-interp vs our .eh_frame/.debug_frame rows
  compare.py sframe OBJDUMP_OUT OURS_OUT [--rel]
      objdump --sframe vs our .sframe rows
  compare.py pac READELF_RAW OURS_OUT [--rel]
      AArch64: our RA-signing state (ra_signed) at every row vs the one
      the DW_CFA_AARCH64_negate_ra_state(_with_pc) and remember/restore
      ops of readelf --debug-dump=frames (raw) give
  compare.py sfoverlap OBJDUMP_OUT
      how many SFrame FDEs overlap the next one, as objdump shows them
  compare.py ehsf OURS_OUT
      our .eh_frame rows vs our .sframe rows of the same object (CFA, FP, RA)
  compare.py addrs READELF_OUT N
      print N addresses to query: FDE starts, ends, random pcs inside FDEs,
      gaps between them (deterministic)
  compare.py blob BLOB ELF [STEXT] [--debug-frame]
      `kunwind-dump export ELF -o BLOB` checked field by field against the
      ELF file (own parser) and the format of include/kunwind/blob.h
  compare.py rules READELF_OUT ADDRS RULES_OUT
      `kunwind-dump rules FILE ADDR...` (compiled tables and lookup) vs the
      rule readelf shows in force at each address, or none outside FDEs

Rows are compared semantically: for every FDE, at every row pc of either
side, the rule in force (last row at or below that pc) must be the same,
same_value ('s') and undefined ('u') included.  readelf also prints 'u'
for a register with no rule yet, so its 'u' matches our 'u' or no rule.
--rel: the file is relocatable; binutils prints section-relative pcs, so
FDEs are matched in order and rows compared as offsets from the FDE start.

--arm64: AArch64 register names and SFrame rules (RA tracked, not fixed).

Prints one summary line "<mode>: <n> FDEs, <m> rows compared, <k> mismatches"
(first mismatches before it) and exits 1 on any mismatch.
"""
import bisect
import re
import sys
import subprocess

X86_NAMES = ["rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
             "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra"]
A64_NAMES = ["x%d" % i for i in range(30)] + ["ra", "sp", "pc"]
NAMES = X86_NAMES
NUM = {n: i for i, n in enumerate(X86_NAMES)}
NUM["rip"] = 16
SP, FP, RA = 7, 6, 16
MAX_SHOW = 20


def set_arm64():
    """AArch64 register names (readelf and ours agree: x0..x29, ra, sp)."""
    global NAMES, NUM, SP, FP, RA
    NAMES = A64_NAMES
    NUM = {n: i for i, n in enumerate(A64_NAMES)}
    NUM["x30"] = 30
    SP, FP, RA = 31, 29, 30


def regnum(name):
    """DWARF number of a register name from readelf or from us."""
    if name in NUM:
        return NUM[name]
    m = re.fullmatch(r"r(\d+)", name)
    if m:
        return int(m.group(1))
    m = re.fullmatch(r"r(\d+) \((\w+)\)", name)
    if m:
        return int(m.group(1))
    raise ValueError("unknown register name %r" % name)


def norm_val(v):
    """Rule text → canonical: c+N/v+N kept, register names → 'r<N>',
    "(reg+N)" (saved at reg + N) → '*r<N>+N', "reg+N" (value reg + N) →
    'r<N>+N', or 'r<N>' when N is 0 (a register rule)."""
    if v in ("u", "s", "exp", "vexp"):
        return v
    m = re.fullmatch(r"([cv])([+-]\d+)", v)
    if m:
        return "%s%+d" % (m.group(1), int(m.group(2)))
    m = re.fullmatch(r"\((.+?)([+-]\d+)\)", v)
    if m:
        return "*r%d%+d" % (regnum(m.group(1)), int(m.group(2)))
    m = re.fullmatch(r"(.+?)([+-]\d+)", v)
    if m:
        if int(m.group(2)) == 0:
            return "r%d" % regnum(m.group(1))
        return "r%d%+d" % (regnum(m.group(1)), int(m.group(2)))
    return "r%d" % regnum(v)


def norm_cfa(v):
    """CFA text → 'r<N>+N', '*r<N>+N' (loaded from there) or 'exp'."""
    if v == "exp":
        return "exp"
    deref = v.startswith("(") and v.endswith(")")
    m = re.fullmatch(r"(.+?)([+-]\d+)", v[1:-1] if deref else v)
    if not m:
        raise ValueError("bad CFA %r" % v)
    return "%sr%d%+d" % ("*" if deref else "", regnum(m.group(1)),
                         int(m.group(2)))


# ---------------------------------------------------------------- ours

def parse_rules(tokens):
    """The rules of one row of ours, from its "reg=rule" tokens."""
    rules = {}
    for kv in tokens:
        k, v = kv.split("=", 1)
        if k == "ra_signed":
            rules["pac"] = v
        elif k == "cfa":
            rules["cfa"] = norm_cfa(v)
        else:
            rules[regnum(k)] = norm_val(v)
    return rules


def parse_ours(path):
    """{src: [fde]} with fde = dict(start, end, pcmask, rows=[(pc, rules)])."""
    out = {}
    cur = None
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            t = line.split()
            if t[0] == "fde":
                a, b = t[1].split("-")
                cur = {"start": int(a, 16), "end": int(b, 16), "src": t[2],
                       "pcmask": 0, "signal": False, "rows": [], "line": ln}
                for x in t[3:]:
                    if x.startswith("pcmask="):
                        cur["pcmask"] = int(x[7:], 0)
                    elif x == "signal":
                        cur["signal"] = True
                out.setdefault(t[2], []).append(cur)
                continue
            if cur is None:
                raise ValueError("%s:%d: row before any fde" % (path, ln))
            cur["rows"].append((int(t[0], 16), parse_rules(t[1:])))
    return out


# ---------------------------------------------------------------- readelf

ENTRY = re.compile(r"^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) (CIE|FDE)(.*)$")
FDE_RE = re.compile(r"cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)")


def split_vals(s):
    """Whitespace split, joining readelf's 'r3 (rbx)' register rules."""
    toks = s.split()
    out = []
    for t in toks:
        if t.startswith("(") and out and re.fullmatch(r"r\d+", out[-1]):
            out[-1] = out[-1] + " " + t
        else:
            out.append(t)
    return out


def parse_readelf(path):
    """{'eh_frame'|'debug_frame': [fde]} with CIE rows filled in."""
    secs = {}
    cies = None
    entries = None
    cur = None
    cols = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"Contents of the \.(eh_frame|debug_frame) section",
                         line)
            if m:
                cies = {}
                entries = secs.setdefault(m.group(1), [])
                cur = None
                continue
            if entries is None:
                continue
            m = ENTRY.match(line)
            if m:
                off = int(m.group(1), 16)
                cols = None
                if m.group(4) == "CIE":
                    cur = {"rows": []}
                    cies[off] = cur
                else:
                    fm = FDE_RE.search(m.group(5))
                    if not fm:
                        raise ValueError("bad FDE line %r" % line)
                    cur = {"off": off, "cie": int(fm.group(1), 16),
                           "start": int(fm.group(2), 16),
                           "end": int(fm.group(3), 16), "rows": [],
                           "cies": cies}
                    entries.append(cur)
                continue
            if re.match(r"^[0-9a-f]+ ZERO terminator", line):
                cur = None
                continue
            if cur is None:
                continue
            s = line.strip()
            if not s:
                continue
            if s.startswith("LOC"):
                cols = split_vals(s)[2:]
                continue
            if cols is None:
                continue
            m = re.match(r"^([0-9a-f]{8,16}) (.*)$", line)
            if not m:
                continue
            vals = split_vals(m.group(2))
            if len(vals) != len(cols) + 1:
                raise ValueError("row/column mismatch: %r / %r" % (line, cols))
            rules = {"cfa": norm_cfa(vals[0])}
            for c, v in zip(cols, vals[1:]):
                rules[regnum(c)] = norm_val(v)
            cur["rows"].append((int(m.group(1), 16), rules))
    # An FDE without instructions prints no table: its rule is the CIE's.
    for ents in secs.values():
        for fde in ents:
            cie = fde.pop("cies").get(fde["cie"])
            if not fde["rows"]:
                if cie is None or not cie["rows"]:
                    raise ValueError("FDE at 0x%x: no rows and no CIE rows"
                                     % fde["off"])
                fde["rows"] = [(fde["start"], cie["rows"][-1][1])]
    return secs


# ---------------------------------------------------------------- objdump

def sf_reg(name):
    """A register of objdump's SFrame notation: sp, fp, ra or r<N>."""
    if name == "sp":
        return SP
    if name == "fp":
        return FP
    if name == "ra":
        return RA
    m = re.fullmatch(r"r(\d+)", name)
    if not m:
        raise ValueError("unknown SFrame register %r" % name)
    return int(m.group(1))


def sf_loc(v, what):
    """objdump's "reg+N", "(reg+N)" (loaded from there), "c+N" (default
    FDE: saved at CFA + N) → our canonical text."""
    m = re.fullmatch(r"(\()?(\w+?)([+-]\d+)(\))?", v)
    if not m or bool(m.group(1)) != bool(m.group(4)):
        raise ValueError("bad SFrame %s %r" % (what, v))
    off = int(m.group(3))
    if m.group(2) == "c":
        # objdump prints the CFA-based rule as c+N, loaded or not; gas
        # emits only "saved at" (DW_CFA_val_offset has no SFrame form)
        return "c%+d" % off
    reg = sf_reg(m.group(2))
    if what == "CFA":
        return "%sr%d%+d" % ("*" if m.group(1) else "", reg, off)
    if m.group(1):
        return "*r%d%+d" % (reg, off)
    return "r%d" % reg if off == 0 else "r%d%+d" % (reg, off)


def parse_objdump_sframe(path):
    """objdump --sframe of binutils 2.40 (v1) to 2.46+ (v3): FDEs with
    start, size, PCMASK, signal ("attr" S) and rows."""
    fdes = []
    cur = None
    fixed_ra = -8
    fixed_fp = None
    with open(path) as f:
        for line in f:
            s = line.strip()
            m = re.match(r"CFA fixed RA offset:\s*(-?\d+)", s)
            if m:
                fixed_ra = int(m.group(1))
                continue
            m = re.match(r"CFA fixed FP offset:\s*(-?\d+)", s)
            if m:
                fixed_fp = int(m.group(1))
                continue
            m = re.match(r"func idx \[(\d+)\]: pc = (0x[0-9a-f]+|-?\d+), "
                         r"size = (\d+) bytes(?:, attr = \"(\w*)\")?", s)
            if m:
                cur = {"start": int(m.group(2), 0),
                       "size": int(m.group(3)), "pcmask": False,
                       "signal": "S" in (m.group(4) or ""), "rows": []}
                fdes.append(cur)
                continue
            if s.startswith("STARTPC"):
                cur["pcmask"] = "[m]" in s
                continue
            m = re.match(r"^([0-9a-f]{16})\s+(.*)$", s)
            if m and cur is not None:
                pc = int(m.group(1), 16)
                if m.group(2).strip() == "RA undefined":
                    # outermost frame; the CFA is not used (ours: SP+0)
                    cur["rows"].append((pc, {"cfa": "r%d+0" % SP, RA: "u"}))
                    continue
                t = m.group(2).split()
                if len(t) < 3:
                    raise ValueError("bad SFrame row %r" % line)
                cfa, fp, ra = t[0], t[1], t[2]
                rules = {"cfa": sf_loc(cfa, "CFA")}
                if fp != "u":
                    rules[FP] = sf_loc(fp, "FP")
                elif fixed_fp is not None:
                    rules[FP] = "c%+d" % fixed_fp
                if ra.endswith("[s]"):
                    rules["pac"] = "1"
                    ra = ra[:-3]
                # f: the header's fixed offset; U: a flexible FDE's padding
                # (the fixed offset too); u: not tracked (AMD64: fixed)
                if ra in ("f", "U") or (ra == "u" and RA == 16):
                    if RA == 16 or fixed_ra:
                        rules[RA] = "c%+d" % fixed_ra
                elif ra != "u":
                    rules[RA] = sf_loc(ra, "RA")
                cur["rows"].append((pc, rules))
    return fdes


# ---------------------------------------------------------------- compare

def rule_at(rows, pcs, pc):
    """Rule of the last row at or below pc (rows sorted; pcs their pcs)."""
    i = bisect.bisect_right(pcs, pc)
    return rows[i - 1][1] if i else None


def same_rules(theirs, ours, u_is_none, s_is_none=False):
    """Equal rule dicts, 's' (DW_CFA_same_value) and 'u' included.  With
    u_is_none a 'u' on their side (readelf's mark for 'no rule yet' as well
    as DW_CFA_undefined) also matches no rule; with s_is_none 's' on either
    side is no rule (SFrame, which cannot say 'same value', against
    .eh_frame)."""
    if theirs is None or ours is None:
        return theirs is ours
    keys = set(theirs) | set(ours)
    for k in keys:
        a = theirs.get(k)
        b = ours.get(k)
        if s_is_none and a == "s":
            a = None
        if s_is_none and b == "s":
            b = None
        if a == b:
            continue
        if u_is_none and a == "u" and b is None:
            continue
        return False
    return True


def fmt_rules(r):
    if r is None:
        return "none"
    parts = []
    for k in sorted(r, key=lambda x: -1 if x == "cfa" else
                    (999 if isinstance(x, str) else x)):
        name = k if isinstance(k, str) else \
            (NAMES[k] if k < len(NAMES) else "r%d" % k)
        parts.append("%s=%s" % (name, r[k]))
    return " ".join(parts)


class Result:
    def __init__(self, mode):
        self.mode = mode
        self.fdes = 0
        self.rows = 0
        self.bad = 0
        self.tolerated = 0

    def miss(self, msg):
        self.bad += 1
        if self.bad <= MAX_SHOW:
            print("  mismatch: " + msg)

    def done(self):
        extra = ""
        if self.tolerated:
            extra = " (%d rows: %s)" % (self.tolerated, self.tolerated_why)
        if self.mode == "blob":
            print("blob: %d fields checked, %d mismatches"
                  % (self.rows, self.bad))
        else:
            print("%s: %d FDEs, %d rows compared, %d mismatches%s"
                  % (self.mode, self.fdes, self.rows, self.bad, extra))
        return 1 if self.bad else 0


def rebase(rows, base):
    return [(pc - base, r) for pc, r in rows]


def cmp_rows(res, tag, theirs, ours, lo, hi, u_is_none, keys=None,
             tolerate=None, s_is_none=False):
    """Compare two row lists over [lo, hi) at every row pc of either side.
    tolerate(pc, a, b, theirs_rows), when given, may excuse a difference
    (counted in res.tolerated)."""
    theirs = sorted(theirs, key=lambda x: x[0])
    ours = sorted(ours, key=lambda x: x[0])
    tp = [pc for pc, _ in theirs]
    op = [pc for pc, _ in ours]
    for pc in sorted(set(tp) | set(op) | {lo}):
        if pc < lo or pc >= hi:
            continue
        a = rule_at(theirs, tp, pc)
        b = rule_at(ours, op, pc)
        if keys is not None:
            a = {k: v for k, v in a.items() if k in keys} if a else a
            b = {k: v for k, v in b.items() if k in keys} if b else b
        res.rows += 1
        if not same_rules(a, b, u_is_none, s_is_none):
            if tolerate and tolerate(pc, a, b, theirs):
                res.tolerated += 1
                continue
            res.miss("%s pc 0x%x: theirs %s | ours %s"
                     % (tag, pc, fmt_rules(a), fmt_rules(b)))


def rel_pick(ours, used, i, size):
    """In a relocatable object binutils prints section-relative pcs, so FDEs
    are matched by position: ours[i] when it has the same length, else the
    first unused FDE of that length (a walker may report in address order
    what the section holds in emission order)."""
    cands = [i] if i < len(ours) else []
    cands += range(len(ours))
    for j in cands:
        f = ours[j]
        if j not in used and f["end"] - f["start"] == size:
            used.add(j)
            return f
    return None


def cmd_readelf(rpath, opath, rel):
    theirs = parse_readelf(rpath)
    ours = parse_ours(opath)
    # readelf does not show AArch64's RA signing state
    for fdes in ours.values():
        for f in fdes:
            for _, r in f["rows"]:
                r.pop("pac", None)
    res = Result("readelf")
    for sec in ("eh_frame", "debug_frame"):
        t = theirs.get(sec, [])
        o = ours.get(sec, [])
        if len(t) != len(o):
            res.miss("%s: readelf has %d FDEs, we have %d"
                     % (sec, len(t), len(o)))
        used = set()
        if not rel:
            byaddr = {}
            for f in o:
                byaddr.setdefault((f["start"], f["end"]), []).append(f)
        for i, tf in enumerate(t):
            if rel:
                of = rel_pick(o, used, i, tf["end"] - tf["start"])
                if of is None:
                    res.miss("%s FDE #%d: no FDE of length 0x%x in our output"
                             % (sec, i, tf["end"] - tf["start"]))
                    continue
                trows = rebase(tf["rows"], tf["start"])
                orows = rebase(of["rows"], of["start"])
                lo, hi = 0, tf["end"] - tf["start"]
            else:
                cands = byaddr.get((tf["start"], tf["end"]))
                if not cands:
                    res.miss("%s FDE at 0x%x (0x%x-0x%x): not in our output"
                             % (sec, tf["off"], tf["start"], tf["end"]))
                    continue
                of = cands.pop(0)
                trows, orows = tf["rows"], of["rows"]
                lo, hi = tf["start"], tf["end"]
            res.fdes += 1
            if hi == lo:
                continue
            cmp_rows(res, "%s FDE 0x%x-0x%x" % (sec, tf["start"], tf["end"]),
                     trows, orows, lo, hi, True)
    return res.done()


def cmd_sframe(dpath, opath, rel):
    theirs = parse_objdump_sframe(dpath)
    ours = ours_all = parse_ours(opath).get("sframe", [])
    res = Result("sframe")
    if len(theirs) != len(ours_all):
        res.miss("objdump has %d SFrame FDEs, we have %d"
                 % (len(theirs), len(ours_all)))
    used = set()
    if not rel:
        byaddr = {}
        for f in ours:
            byaddr.setdefault(f["start"], []).append(f)
    for i, tf in enumerate(theirs):
        if rel:
            of = rel_pick(ours, used, i, tf["size"])
            if of is None:
                res.miss("SFrame FDE #%d (size %d): no FDE of that size in "
                         "our output" % (i, tf["size"]))
                continue
        else:
            cands = byaddr.get(tf["start"])
            if not cands:
                res.miss("SFrame FDE pc 0x%x: not in our output" % tf["start"])
                continue
            of = cands.pop(0)
        size = of["end"] - of["start"]
        if size != tf["size"]:
            res.miss("SFrame FDE #%d: size %d, ours %d" % (i, tf["size"], size))
            continue
        if bool(of["pcmask"]) != tf["pcmask"]:
            res.miss("SFrame FDE #%d: PCMASK differs" % i)
            continue
        if of["signal"] != tf["signal"]:
            res.miss("SFrame FDE #%d: signal frame differs" % i)
            continue
        res.fdes += 1
        if tf["pcmask"]:
            # rows are offsets in the repeated block on both sides
            trows, orows = tf["rows"], of["rows"]
            lo, hi = 0, max(of["pcmask"], 1)
        elif rel:
            trows = rebase(tf["rows"], tf["start"])
            orows = rebase(of["rows"], of["start"])
            lo, hi = 0, size
        else:
            trows, orows = tf["rows"], of["rows"]
            lo, hi = of["start"], of["end"]
        cmp_rows(res, "SFrame FDE #%d" % i, trows, orows, lo, hi, False)
    return res.done()


def parse_readelf_raw_pac(path):
    """{'eh_frame'|'debug_frame': [fde]} from readelf -wf: per FDE its
    start, end and [(loc, signed)] after each op that can change the
    RA-signing state (CIE ops first)."""
    secs = {}
    cie_state = {}
    cur = None
    sec = None
    with open(path) as f:
        for line in f:
            m = re.match(r"Contents of the (\.\S+) section", line)
            if m:
                sec = m.group(1)[1:]
                secs.setdefault(sec, [])
                cur = None
                continue
            m = ENTRY.match(line.rstrip())
            if m:
                if m.group(4) == "CIE":
                    cur = {"cie": m.group(1), "state": 0, "stack": []}
                    cie_state[m.group(1)] = cur
                else:
                    fm = FDE_RE.search(m.group(5))
                    cie = cie_state.get(fm.group(1), {"state": 0})
                    start = int(fm.group(2), 16)
                    cur = {"start": start, "end": int(fm.group(3), 16),
                           "state": cie["state"], "stack": [],
                           "loc": start, "rows": []}
                    cur["rows"].append((start, cur["state"]))
                    secs[sec].append(cur)
                continue
            if cur is None:
                continue
            t = line.strip()
            m = re.match(r"DW_CFA_(?:advance_loc\d?|set_loc): .*to ([0-9a-f]+)",
                         t) or re.match(r"DW_CFA_set_loc: ([0-9a-f]+)", t)
            if m and "loc" in cur:
                cur["loc"] = int(m.group(1), 16)
                continue
            if t.startswith("DW_CFA_AARCH64_negate_ra_state"):
                cur["state"] ^= 1
            elif t == "DW_CFA_remember_state":
                cur["stack"].append(cur["state"])
                continue
            elif t == "DW_CFA_restore_state":
                cur["state"] = cur["stack"].pop()
            else:
                continue
            if "rows" in cur:
                cur["rows"].append((cur["loc"], cur["state"]))
    return secs


def cmd_pac(rpath, opath, rel):
    theirs = parse_readelf_raw_pac(rpath)
    ours = parse_ours(opath)
    res = Result("pac")
    for sec in ("eh_frame", "debug_frame"):
        t = [f for f in theirs.get(sec, [])]
        o = ours.get(sec, [])
        used = set()
        byaddr = {}
        for f in o:
            byaddr.setdefault((f["start"], f["end"]), []).append(f)
        for i, tf in enumerate(t):
            size = tf["end"] - tf["start"]
            if rel:
                of = rel_pick(o, used, i, size)
            else:
                cands = byaddr.get((tf["start"], tf["end"]))
                of = cands.pop(0) if cands else None
            if of is None:
                res.miss("%s FDE #%d: not in our output" % (sec, i))
                continue
            res.fdes += 1
            trows = [(pc - tf["start"], {"pac": st}) for pc, st in tf["rows"]]
            orows = [(pc - of["start"], {"pac": 1 if r.get("pac") else 0})
                     for pc, r in of["rows"]]
            # several ops at one location: the last one holds
            trows = list({pc: r for pc, r in trows}.items())
            cmp_rows(res, "%s FDE #%d" % (sec, i), trows, orows, 0, size,
                     False)
    return res.done()


def cmd_sfoverlap(dpath):
    """How many FDEs of objdump --sframe overlap the next one (by start;
    PCMASK FDEs left out): kunwind refuses such a table."""
    fdes = sorted((f["start"], f["start"] + f["size"])
                  for f in parse_objdump_sframe(dpath)
                  if not f["pcmask"] and f["size"])
    n = sum(1 for a, b in zip(fdes, fdes[1:]) if a[1] > b[0])
    print("sfoverlap: %d FDEs, %d overlapping the next" % (len(fdes), n))
    return 0


def cmd_ehsf(opath):
    ours = parse_ours(opath)
    eh = [f for f in ours.get("eh_frame", []) if f["end"] > f["start"]]
    eh.sort(key=lambda f: f["start"])
    res = Result("eh_frame-vs-sframe")
    res.tolerated_why = ("FP restored in .eh_frame, still saved in .sframe "
                         "(as 2.40 ignores .cfi_restore of FP); a DWARF "
                         "expression in .eh_frame where .sframe has a "
                         "flexible rule (that one checked against objdump); "
                         "RA undefined in .eh_frame, not in .sframe before "
                         "binutils 2.45")
    keys = {"cfa", FP, RA, "pac"}

    def flexible(v):
        return v is not None and re.fullmatch(r"\*?r\d+([+-]\d+)?", v)

    def tolerate(pc, eh, sf, eh_rows):
        if eh is None or sf is None:
            return False
        # outermost (RA undefined): the CFA is not used
        if eh.get(RA) == "u" and sf.get(RA) == "u":
            return {k: v for k, v in eh.items() if k != "cfa"} == \
                {k: v for k, v in sf.items() if k != "cfa"}
        # binutils before 2.45 has no outermost FRE: RA stays at its slot
        if eh.get(RA) == "u" and sf.get(RA) is not None:
            return {k: v for k, v in eh.items() if k != RA} == \
                {k: v for k, v in sf.items() if k != RA}
        # a DW_OP expression, which our rows show as "exp", against an
        # SFrame v3 flexible rule (register-based, maybe loaded)
        if any(eh.get(k) == "exp" and flexible(sf.get(k)) for k in eh):
            a = {k: v for k, v in eh.items() if v != "exp"}
            b = {k: v for k, v in sf.items()
                 if not (eh.get(k) == "exp" and flexible(v))}
            return a == b
        return fp_after_restore(pc, eh, sf, eh_rows)

    def fp_after_restore(pc, eh, sf, eh_rows):
        """The producer difference seen in kernel epilogues: after
        `pop %rbp; .cfi_restore %rbp` .eh_frame has no rule for rbp while
        .sframe keeps its old save slot.  Everything else must agree, and
        the slot must be the one .eh_frame used earlier in the FDE."""
        if eh is None or sf is None or eh.get(FP) not in (None, "u", "s"):
            return False
        slot = sf.get(FP)
        if slot is None:
            return False
        if {k: v for k, v in eh.items() if k != FP} != \
           {k: v for k, v in sf.items() if k != FP}:
            return False
        return any(r.get(FP) == slot for p, r in eh_rows if p < pc)

    eh_starts = [f["start"] for f in eh]
    longest = max((f["end"] - f["start"] for f in eh), default=0)
    for sf in ours.get("sframe", []):
        if sf["pcmask"]:
            continue
        hit = False
        # eh_frame FDEs that can overlap [sf.start, sf.end)
        i0 = bisect.bisect_left(eh_starts, sf["start"] - longest)
        i1 = bisect.bisect_left(eh_starts, sf["end"])
        for ef in eh[i0:i1]:
            lo = max(ef["start"], sf["start"])
            hi = min(ef["end"], sf["end"])
            if lo >= hi:
                continue
            hit = True
            res.fdes += 1
            cmp_rows(res, "FDE 0x%x-0x%x" % (sf["start"], sf["end"]),
                     ef["rows"], sf["rows"], lo, hi, True, keys,
                     tolerate, s_is_none=True)
        if not hit:
            res.miss("SFrame FDE 0x%x-0x%x has no .eh_frame FDE"
                     % (sf["start"], sf["end"]))
    return res.done()


def fde_list(theirs):
    fdes = []
    for sec in ("eh_frame", "debug_frame"):
        fdes += [f for f in theirs.get(sec, []) if f["end"] > f["start"]]
    fdes.sort(key=lambda f: f["start"])
    return fdes


def cmd_addrs(rpath, n):
    import random
    rnd = random.Random(12345)
    fdes = fde_list(parse_readelf(rpath))
    out = []
    for i in range(n):
        f = fdes[rnd.randrange(len(fdes))]
        k = i % 5
        if k == 0:
            a = f["start"]
        elif k == 1:
            a = f["end"] - 1
        elif k == 2:
            a = f["end"]            # often a gap or the next FDE
        elif k == 3 and f["rows"]:
            a = f["rows"][rnd.randrange(len(f["rows"]))][0]
        else:
            a = rnd.randrange(f["start"], f["end"])
        out.append(a)
    out.append(fdes[0]["start"] - 1)
    out.append(fdes[-1]["end"] + 0x1000)
    print(" ".join("0x%x" % a for a in out))
    return 0


def cmd_rules(rpath, apath, qpath):
    fdes = fde_list(parse_readelf(rpath))
    starts = [f["start"] for f in fdes]
    res = Result("rules")
    res.fdes = len(fdes)
    with open(apath) as f:
        addrs = [int(x, 16) for x in f.read().split()]
    with open(qpath) as f:
        lines = [ln.split() for ln in f if ln.strip()]
    if len(lines) != len(addrs):
        res.miss("%d addresses asked, %d lines answered"
                 % (len(addrs), len(lines)))
    for addr, t in zip(addrs, lines):
        res.rows += 1
        row_pc = int(t[0], 16)
        if t[1] == "none":
            ours = None
            if row_pc != addr:
                res.miss("0x%x: 'none' line names 0x%x" % (addr, row_pc))
        else:
            if row_pc > addr:
                res.miss("0x%x: row starts after it, at 0x%x"
                         % (addr, row_pc))
            ours = parse_rules(t[1:])
        i = bisect.bisect_right(starts, addr) - 1
        theirs = None
        if i >= 0 and fdes[i]["start"] <= addr < fdes[i]["end"]:
            rows = fdes[i]["rows"]
            theirs = rule_at(rows, [p for p, _ in rows], addr)
        if not same_rules(theirs, ours, True):
            res.miss("pc 0x%x: readelf %s | ours %s"
                     % (addr, fmt_rules(theirs), fmt_rules(ours)))
    return res.done()


def elf_sections(path):
    import struct
    with open(path, "rb") as f:
        img = f.read()
    shoff, = struct.unpack_from("<Q", img, 40)
    shnum, shstrndx = struct.unpack_from("<HH", img, 60)
    raw = [struct.unpack_from("<IIQQQQ", img, shoff + 64 * i)
           for i in range(shnum)]
    stro = raw[shstrndx][4]
    secs = {}
    for name, typ, flags, addr, off, size in raw:
        nm = img[stro + name:img.index(b"\0", stro + name)].decode()
        secs.setdefault(nm, (flags, addr, img[off:off + size]))
    return secs


def cmd_blob(bpath, epath, stext, src=0):
    import struct
    res = Result("blob")
    with open(bpath, "rb") as f:
        b = f.read()
    secs = elf_sections(epath)
    flags, addr, data = secs[".debug_frame" if src else ".eh_frame"]
    tx = [(a, a + len(d)) for fl, a, d in secs.values()
          if fl & 6 == 6 and d]
    tlo, thi = min(t[0] for t in tx), max(t[1] for t in tx)
    if stext is None:
        stext = tlo
    (magic, ver, hsz, arch, src_, kind, idl, st, ts, te, sa, ss, ck, ns,
     rsv, bid, owner) = struct.unpack_from("<8sHHBBBBQQQQIIH6s32s64s", b, 0)
    # the build id as readelf -n prints it
    out = subprocess.run(["readelf", "-nW", epath], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    want_id = bytes.fromhex(m.group(1)) if m else b""
    want = [("magic", magic, b"KUWBLOB\0"), ("version", ver, 2),
            ("hdr_size", hsz, 160), ("arch", arch, 2 if SP == 31 else 1),
            ("src", src_, src), ("kind", kind, 0),
            ("build id", bid[:idl], want_id),
            ("build id padding", bid[idl:], bytes(32 - idl)),
            ("owner", owner, b"vmlinux".ljust(64, b"\0")), ("nsect", ns, 0),
            ("stext", st, stext), ("text_start", ts, tlo),
            ("text_end", te, thi), ("sec_addr", sa, addr),
            ("sec_size", ss, len(data)), ("reserved", rsv, bytes(6)),
            ("length", len(b), 160 + len(data)),
            ("bytes", b[160:] == data, True)]
    h = 2166136261
    for i, x in enumerate(b):
        if 52 <= i < 56:
            x = 0
        h = ((h ^ x) * 16777619) & 0xffffffff
    want.append(("checksum", ck, h))
    for name, got, exp in want:
        res.rows += 1
        if got != exp:
            res.miss("%s: %r, expected %r" % (name, got, exp))
    res.fdes = 1
    return res.done()


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    rel = "--rel" in argv
    if "--arm64" in argv:
        set_arm64()
    debug_frame = "--debug-frame" in argv
    args = [a for a in argv[1:]
            if a not in ("--rel", "--arm64", "--debug-frame")]
    try:
        if args[0] == "readelf" and len(args) == 3:
            return cmd_readelf(args[1], args[2], rel)
        if args[0] == "sframe" and len(args) == 3:
            return cmd_sframe(args[1], args[2], rel)
        if args[0] == "sfoverlap" and len(args) == 2:
            return cmd_sfoverlap(args[1])
        if args[0] == "pac" and len(args) == 3:
            return cmd_pac(args[1], args[2], rel)
        if args[0] == "ehsf" and len(args) == 2:
            return cmd_ehsf(args[1])
        if args[0] == "blob" and len(args) in (3, 4):
            return cmd_blob(args[1], args[2],
                            int(args[3], 16) if len(args) == 4 else None,
                            1 if debug_frame else 0)
        if args[0] == "addrs" and len(args) == 3:
            return cmd_addrs(args[1], int(args[2]))
        if args[0] == "rules" and len(args) == 4:
            return cmd_rules(args[1], args[2], args[3])
    except (ValueError, KeyError, IndexError) as e:
        print("%s: parse error: %s" % (args[0], e))
        return 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
