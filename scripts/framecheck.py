#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check kernel callchains against the machine code, independently of kunwind.

    framecheck.py -k VMLINUX [--module KO[=TEXTADDR[,SEC=ADDR...]]]...
                  [--proc-modules FILE] [--module-dir DIR]
                  [--kaslr OFFSET | --nokaslr] [--format FMT]
                  [--json] [--problems | --summary] [--strict-skipped]
                  [INPUT...]

INPUT (stdin when none) holds callchains as clients print them: `perf
script` output, bpftrace kstack maps (default, perf and raw modes),
/proc/PID/stack, or hex addresses one a line (chains split by blank
lines); --format auto (the default) tells them apart per file.

Every return address of a chain (every frame but the first, which is the
interrupted or sampled pc) is judged from the machine code: the
instruction that ends right before it must be a call, and a direct call's
target must be the function of the frame below (deeper), or reach it by
tail calls.  Classes:

  verified     after a direct call of the frame below's function
  tail call    after a direct call of a function that jumps to it
  indirect     after an indirect call (or a thunk, or a callee that jumps
               indirectly): plausible, not provable
  skipped      after a direct call of another function: a frame is missing
  wrong        not after a call
  boundary     the frame below is exception entry code: this frame is an
               interrupted pc, not a return address
  unknown      not in any known text

Only binutils' objdump is used besides the standard library: each function
is disassembled once (all functions needed at once in one objdump run over
their bytes), symbols and relocations are read from the ELF files
directly.  Exit status: 1 when a frame is wrong (or, with
--strict-skipped, skipped), 2 on bad usage or input.
"""
import argparse
import bisect
import json
import mmap
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

CLASSES = ('verified', 'tail', 'indirect', 'skipped', 'wrong', 'boundary',
           'unknown')
LABELS = {'verified': 'verified', 'tail': 'tail call',
          'indirect': 'indirect (plausible)', 'skipped': 'skipped',
          'wrong': 'not after a call', 'boundary': 'exception boundary',
          'unknown': 'unknown', 'pc': 'pc'}

EM_X86_64, EM_AARCH64 = 62, 183
SHF_ALLOC, SHF_EXECINSTR = 2, 4
SHT_SYMTAB, SHT_RELA, SHT_NOBITS = 2, 4, 8
ET_REL = 1

# Calls through these are indirect in effect: retpoline and call-depth
# thunks, static call trampolines, ftrace's patched call sites.
# ftrace_stub: the call at ftrace's ftrace_call label, patched to the
# ops' function while ftrace runs.
THUNK = re.compile(r'^(__x86_indirect_|__SCT__|__fentry__$|_mcount$|'
                   r'ftrace_stub$)')
# arm64 functions ftrace's patched entry calls (-fpatchable-function-entry:
# the entry's NOPs become "mov x9, x30; bl ftrace_caller" while ftrace
# traces the function; with CALL_OPS a bl to a per-ops trampoline).
A64_FTRACE_ENTRY = re.compile(r'^(ftrace_caller|ftrace_regs_caller|'
                              r'ftrace_common)$')
# Exception entry code by name (the section markers come first).
ENTRY_NAME = {
    EM_X86_64: re.compile(r'^(asm_|entry_SYSCALL|entry_INT80|entry_SYSENTER|'
                          r'entry_SYSRETQ|common_interrupt_return|'
                          r'native_irq_return|xen_asm_|nmi$|'
                          r'error_entry$|paranoid_entry$)'),
    EM_AARCH64: re.compile(r'^(el[01][th]_(64|32)_|el1_interrupt$|'
                           r'__sys_trace|vectors$|__bad_stack$|'
                           r'call_on_irq_stack$)'),
}
ENTRY_MARKS = (('__entry_text_start', '__entry_text_end'),
               ('__irqentry_text_start', '__irqentry_text_end'),
               ('__softirqentry_text_start', '__softirqentry_text_end'))
MAX_HOPS = 3
# The better of two judgements of one return address (alternatives).
RANK = {'verified': 0, 'tail': 1, 'indirect': 2, 'skipped': 3, 'wrong': 4}


class Error(Exception):
    pass


def die(msg):
    print('framecheck: %s' % msg, file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- ELF


class Section:
    __slots__ = ('idx', 'name', 'type', 'flags', 'addr', 'off', 'size',
                 'link', 'info', 'align', 'entsize', 'base')

    @property
    def is_text(self):
        return (self.flags & (SHF_ALLOC | SHF_EXECINSTR)) == \
            (SHF_ALLOC | SHF_EXECINSTR) and self.type != SHT_NOBITS


class Elf:
    """The parts of an ELF64 file the checker needs: sections, symbols,
    relocations of text."""

    def __init__(self, path):
        self.path = path
        try:
            f = open(path, 'rb')
        except OSError as e:
            raise Error('%s: %s' % (path, e.strerror))
        with f:
            self.data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        d = self.data
        if d[:4] != b'\x7fELF' or d[4] != 2:
            raise Error('%s: not an ELF64 file' % path)
        self.E = E = '<' if d[5] == 1 else '>'
        self.type, self.machine = struct.unpack_from(E + 'HH', d, 16)
        shoff, = struct.unpack_from(E + 'Q', d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(E + 'HHH', d, 0x3a)
        self.sections = []
        for i in range(shnum):
            s = Section()
            (name, s.type, s.flags, s.addr, s.off, s.size, s.link, s.info,
             s.align, s.entsize) = struct.unpack_from(
                 E + 'IIQQQQIIQQ', d, shoff + i * shentsize)
            s.idx, s.name, s.base = i, name, None
            self.sections.append(s)
        strs = self.sections[shstrndx]
        for s in self.sections:
            s.name = self.cstr(strs.off + s.name)

    def cstr(self, off):
        end = self.data.find(b'\0', off)
        return self.data[off:end].decode('utf-8', 'replace')

    def bytes_at(self, sec, start, size):
        o = sec.off + start
        return self.data[o:o + size]

    def symbols(self):
        """(name, value, size, type, bind, shndx) of every symbol."""
        for s in self.sections:
            if s.type != SHT_SYMTAB:
                continue
            strtab = self.sections[s.link].off
            body = self.data[s.off:s.off + s.size]
            names = {}
            for nm, info, _, shndx, value, size in struct.iter_unpack(
                    self.E + 'IBBHQQ', body):
                name = names.get(nm)
                if name is None:
                    name = names[nm] = self.cstr(strtab + nm) if nm else ''
                yield name, value, size, info & 15, info >> 4, shndx
            return

    def relocations(self):
        """(target section, offset, type, symbol index, addend)."""
        for s in self.sections:
            if s.type != SHT_RELA or not s.info:
                continue
            tgt = self.sections[s.info]
            if not tgt.is_text:
                continue
            body = self.data[s.off:s.off + s.size]
            for off, info, addend in struct.iter_unpack(self.E + 'QQq', body):
                yield tgt, off, info & 0xffffffff, info >> 32, addend


def module_layout(elf, text_addr=None, core_addr=None):
    """Give the module's text sections their load addresses the way the
    kernel's loader lays out core text: executable, non-.init sections in
    header order, each aligned.  text_addr is where .text is (sysfs), or
    core_addr where the core starts (/proc/modules)."""
    off, where = 0, {}
    for s in elf.sections:
        if s.is_text and not s.name.startswith('.init'):
            a = max(s.align, 1)
            off = (off + a - 1) // a * a
            where[s.name] = off
            off += s.size
    if core_addr is None:
        if text_addr is None or '.text' not in where:
            raise Error('%s: no .text to place' % elf.path)
        core_addr = text_addr - where['.text']
    for s in elf.sections:
        if s.name in where and s.base is None:
            s.base = core_addr + where[s.name]


# ---------------------------------------------------------------- symbols


class Func:
    __slots__ = ('start', 'size', 'name', 'obj', 'sec', 'rank', 'dend',
                 'insns', 'ends')

    def __repr__(self):
        return self.name


class Obj:
    def __init__(self, elf, name):
        self.elf, self.name = elf, name
        self.module = elf.type == ET_REL
        self.relocs = {}      # call site -> (target, symbol name, addend)


class Image:
    """The kernel (link-time addresses) and its modules (load addresses)."""

    def __init__(self, vmlinux, modules):
        self.vm = Elf(vmlinux)
        self.machine = self.vm.machine
        if self.machine not in (EM_X86_64, EM_AARCH64):
            raise Error('%s: machine %d is neither x86_64 nor arm64'
                        % (vmlinux, self.machine))
        self.objs = [Obj(self.vm, 'vmlinux')]
        for s in self.vm.sections:
            if s.is_text:
                s.base = s.addr
        for path, name, placer in modules:
            e = Elf(path)
            if e.machine != self.machine:
                raise Error('%s: another architecture than %s'
                            % (path, vmlinux))
            placer(e)
            self.objs.append(Obj(e, name))
        self.funcs = []
        self.byname = {}
        self.anon = {}
        self.marks = {}
        for o in self.objs:
            self._read_symbols(o)
        # Several symbols at one address: the sized function first, then
        # global before local.
        self.funcs.sort(key=lambda f: (f.start, f.rank))
        dedup, kept = [], {}
        for f in self.funcs:
            if f.start not in kept:
                dedup.append(f)
                kept[f.start] = f
        self.funcs = dedup
        # Aliases name the function kept at their address.
        self.byname = {n: list({kept[f.start].start: kept[f.start]
                                for f in fs}.values())
                       for n, fs in self.byname.items()}
        self.starts = [f.start for f in self.funcs]
        for i, f in enumerate(self.funcs):
            nxt = self.funcs[i + 1].start if i + 1 < len(self.funcs) else None
            send = f.sec.base + f.sec.size
            if f.size:
                f.dend = f.start + f.size
            else:
                f.dend = min(nxt, send) if nxt and nxt > f.start else send
        self.texts = sorted((s.base, s.base + s.size, o)
                            for o in self.objs for s in o.elf.sections
                            if s.is_text and s.base is not None)
        self.entry = []
        for a, b in ENTRY_MARKS:
            if a in self.marks and b in self.marks:
                self.entry.append((self.marks[a], self.marks[b]))
        for s in self.vm.sections:
            if s.is_text and s.name in ('.entry.text', '.irqentry.text',
                                        '.softirqentry.text'):
                self.entry.append((s.base, s.base + s.size))
        self.entry_name = ENTRY_NAME[self.machine]
        self.alts, self.alt_sites, self.alt_func = self._read_alts()
        self.pv, self.pv_sites = self._read_paravirt()
        self.vm_range = (min(a for a, _, o in self.texts if o is self.objs[0]),
                         max(b for _, b, o in self.texts
                             if o is self.objs[0]))
        for o in self.objs[1:]:
            self._read_relocs(o)

    def _read_alts(self):
        """x86 alternatives of vmlinux (.altinstructions): the code the
        kernel patches in at boot for the CPU's features, over the
        instructions the file has.  {site: [(site length, replacement,
        replacement length)]}, the sorted sites, and the replacements'
        section as one function to disassemble.  An entry is s32
        instr_offset, s32 repl_offset (each from its own field), the
        feature word(s), u8 instrlen, u8 replacementlen: 12 bytes (6.1),
        14 (6.3 on: cpuid and flags); the size is the one under which
        every entry lands in text and in the replacements."""
        if self.machine != EM_X86_64:
            return {}, [], None
        secs = {s.name: s for s in self.vm.sections}
        ai, ar = secs.get('.altinstructions'), secs.get('.altinstr_replacement')
        if ai is None or ar is None or ai.type == SHT_NOBITS or \
                ar.type == SHT_NOBITS:
            return {}, [], None
        body = self.vm.bytes_at(ai, 0, ai.size)
        lo, hi = ar.addr, ar.addr + ar.size
        for size in (12, 14, 16):
            if ai.size % size:
                continue
            alts, good = {}, True
            for o in range(0, ai.size, size):
                io, ro = struct.unpack_from(self.vm.E + 'ii', body, o)
                ilen, rlen = body[o + size - 2], body[o + size - 1]
                site, repl = ai.addr + o + io, ai.addr + o + 4 + ro
                if not (self.in_text(site) and
                        (rlen == 0 or lo <= repl and repl + rlen <= hi)):
                    good = False
                    break
                alts.setdefault(site, []).append((ilen, repl, rlen))
            if good:
                f = Func()
                f.start, f.size, f.name, f.obj, f.sec = \
                    lo, ar.size, '.altinstr_replacement', self.objs[0], ar
                f.rank, f.dend, f.insns, f.ends = (0, 0), hi, None, None
                return alts, sorted(alts), f
        return {}, [], None

    def _read_paravirt(self):
        """x86 paravirt call sites (.parainstructions, up to 6.7: u64
        site, u8 type, u8 length, padded to 16 bytes): an indirect call
        through pv_ops that the kernel patches at boot into a direct call
        of the native function (5 bytes, then NOPs).  {site: length} and
        the sorted sites; nothing when an entry does not check out."""
        if self.machine != EM_X86_64:
            return {}, []
        sec = {s.name: s for s in self.vm.sections}.get('.parainstructions')
        if sec is None or sec.type == SHT_NOBITS or sec.size % 16:
            return {}, []
        body = self.vm.bytes_at(sec, 0, sec.size)
        pv = {}
        for o in range(0, sec.size, 16):
            site, = struct.unpack_from(self.vm.E + 'Q', body, o)
            n = body[o + 9]
            if not (self.in_text(site) and 5 <= n <= 16):
                return {}, []
            pv[site] = n
        return pv, sorted(pv)

    def pv_at(self, addr):
        """The paravirt site whose patched direct call returns to addr."""
        i = bisect.bisect_right(self.pv_sites, addr - 1) - 1
        if i >= 0 and self.pv_sites[i] + 5 == addr:
            return self.pv_sites[i]
        return None

    def alts_at(self, addr):
        """Replacements of the alternative site that holds the byte before
        the return address addr: [(address in the replacement that
        stands for addr, site)]."""
        i = bisect.bisect_right(self.alt_sites, addr - 1) - 1
        out = []
        for site in self.alt_sites[max(i - 2, 0):i + 1]:
            for ilen, repl, rlen in self.alts[site]:
                if site < addr <= site + ilen and addr - site <= rlen:
                    out.append((repl + addr - site, site))
        return out

    def _read_symbols(self, o):
        secs = o.elf.sections
        for name, value, size, typ, bind, shndx in o.elf.symbols():
            if not name or typ not in (0, 2, 10) or shndx == 0 or \
                    shndx >= len(secs):
                continue
            sec = secs[shndx]
            if not sec.is_text or sec.base is None:
                continue
            if o.module:
                value += sec.base
            if name in ('__entry_text_start', '__entry_text_end',
                        '__irqentry_text_start', '__irqentry_text_end',
                        '__softirqentry_text_start',
                        '__softirqentry_text_end',
                        '__sched_text_start', '__sched_text_end'):
                if o is self.objs[0]:
                    self.marks[name] = value
                continue
            if name[0] == '$' or name.startswith('.L'):
                continue
            f = Func()
            f.start, f.size, f.name, f.obj, f.sec = value, size, name, o, sec
            f.rank = (0 if typ == 2 else 1, 0 if bind else 1)
            f.insns = f.ends = None
            self.funcs.append(f)
            self.byname.setdefault(name, []).append(f)

    def _read_relocs(self, o):
        syms = list(o.elf.symbols())
        secs = o.elf.sections
        for tsec, off, typ, si, addend in o.elf.relocations():
            if tsec.base is None or si >= len(syms):
                continue
            name, value, _, styp, _, shndx = syms[si]
            target = None
            if styp == 3 and shndx < len(secs):      # section symbol
                name = secs[shndx].name
                if secs[shndx].base is not None:
                    target = secs[shndx].base + addend
            elif shndx and shndx < len(secs):
                if secs[shndx].base is not None:
                    target = secs[shndx].base + value + addend
            else:
                fs = [f for f in self.byname.get(name, ())
                      if f.obj is self.objs[0]]
                if fs:
                    target = fs[0].start + addend
            o.relocs[tsec.base + off] = (target, name, addend)

    def func_at(self, addr):
        """The function containing addr: the nearest sized symbol around
        it, else the nearest label before it; code after a sized function
        that no symbol names is one function from that end to the next
        symbol."""
        i = bisect.bisect_right(self.starts, addr) - 1
        label = None
        for j in range(i, max(i - 64, -1), -1):
            f = self.funcs[j]
            if f.size:
                if addr < f.start + f.size:
                    return f
                if label is None and addr < f.sec.base + f.sec.size:
                    label = self._anon(f, i)
                return label
            if label is None and addr < f.dend:
                label = f
        return label

    def _anon(self, f, i):
        start = f.start + f.size
        g = self.anon.get(start)
        if g is None:
            g = self.anon[start] = Func()
            g.start, g.name, g.obj, g.sec, g.rank = \
                start, '?(after %s)' % f.name, f.obj, f.sec, f.rank
            nxt = self.starts[i + 1] if i + 1 < len(self.starts) else None
            send = f.sec.base + f.sec.size
            g.dend = min(nxt, send) if nxt and nxt > start else send
            g.size, g.insns, g.ends = g.dend - start, None, None
        return g

    def in_text(self, addr):
        for a, b, _ in self.texts:
            if a <= addr < b:
                return True
        return False

    def in_entry(self, addr, func):
        for a, b in self.entry:
            if a <= addr < b:
                return True
        return func is not None and bool(self.entry_name.match(func.name))


# ---------------------------------------------------------------- code

X86_PREFIX = {'notrack', 'bnd', 'cs', 'ds', 'ss', 'es', 'fs', 'gs', 'lock',
              'data16', 'addr32', 'rex', 'rex.W', 'rex.B', 'rex.R', 'rex.X',
              'rep', 'repz', 'repnz', 'repe', 'repne'}
A64_ICALL = {'blr', 'blraa', 'blraaz', 'blrab', 'blrabz'}
A64_IJMP = {'br', 'braa', 'braaz', 'brab', 'brabz'}
A64_COND = {'cbz', 'cbnz', 'tbz', 'tbnz'}
HEX = re.compile(r'(?:0x)?([0-9a-f]+)')


def classify_x86(text):
    """(kind, target) of one objdump line's instruction text."""
    toks = text.split(None, 1)
    while toks and toks[0] in X86_PREFIX and len(toks) > 1:
        toks = toks[1].split(None, 1)
    if not toks:
        return 'other', None
    m = toks[0]
    ops = toks[1].strip() if len(toks) > 1 else ''
    if m in ('call', 'callq'):
        if ops.startswith('*'):
            return 'icall', None
        h = HEX.match(ops)
        return ('call', int(h.group(1), 16)) if h else ('icall', None)
    if m in ('jmp', 'jmpq'):
        if ops.startswith('*'):
            return 'ijmp', None
        h = HEX.match(ops)
        return ('jmp', int(h.group(1), 16)) if h else ('ijmp', None)
    if m[0] == 'j':
        h = HEX.match(ops)
        return ('cjmp', int(h.group(1), 16)) if h else ('other', None)
    if m in ('lret', 'lretq'):
        return 'lret', None
    return 'other', None


def classify_a64(text):
    toks = text.split(None, 1)
    if not toks:
        return 'other', None
    m = toks[0]
    ops = toks[1].strip() if len(toks) > 1 else ''
    last = ops.split(',')[-1].strip().split()[0] if ops else ''
    if m == 'bl':
        h = HEX.match(last)
        return ('call', int(h.group(1), 16)) if h else ('icall', None)
    if m in A64_ICALL:
        return 'icall', None
    if m == 'nop':
        return 'nop', None
    if m == 'b':
        h = HEX.match(last)
        return ('jmp', int(h.group(1), 16)) if h else ('ijmp', None)
    if m in A64_IJMP:
        return 'ijmp', None
    if m.startswith('b.') or m in A64_COND:
        h = HEX.match(last)
        return ('cjmp', int(h.group(1), 16)) if h else ('other', None)
    return 'other', None


class Code:
    """Functions' instructions, from objdump over their bytes: one run
    for every function asked for at once (the bytes laid end to end,
    separated by padding that puts the decoder back in step).  -z: zeros
    are instructions too (objdump -D otherwise prints "..." for them, and
    the instruction before would seem to end after them: a noreturn call
    at a function's end, followed by its alignment)."""

    def __init__(self, image):
        self.image = image
        x86 = image.machine == EM_X86_64
        self.classify = classify_x86 if x86 else classify_a64
        if x86:
            self.objdump, self.arch = 'objdump', 'i386:x86-64'
            self.pad = b'\x90' * 16          # nops: at most 15 swallowed
            self.align = 0
        else:
            tool = 'aarch64-linux-gnu-objdump'
            self.objdump = tool if shutil.which(tool) else 'objdump'
            self.arch = 'aarch64'
            self.pad = b'\0' * 8
            self.align = 4
        self.runs = 0

    def need(self, funcs):
        todo = [f for f in set(funcs) if f is not None and f.insns is None]
        if not todo:
            return
        todo.sort(key=lambda f: f.start)
        blob, places = bytearray(), []
        for f in todo:
            size = f.dend - f.start
            places.append((len(blob), size, f))
            blob += f.obj.elf.bytes_at(f.sec, f.start - f.sec.base, size)
            blob += self.pad
            if self.align and len(blob) % self.align:
                blob += b'\0' * (self.align - len(blob) % self.align)
        with tempfile.NamedTemporaryFile(prefix='framecheck.',
                                         suffix='.bin') as t:
            t.write(blob)
            t.flush()
            try:
                out = subprocess.run(
                    [self.objdump, '-D', '-z', '-b', 'binary', '-m',
                     self.arch, '--no-show-raw-insn', t.name],
                    capture_output=True,
                    text=True, check=True).stdout
            except (OSError, subprocess.CalledProcessError) as e:
                raise Error('%s: %s' % (self.objdump, e))
        self.runs += 1
        lines = []
        for line in out.splitlines():
            c = line.find(':\t')
            if c < 0:
                continue
            try:
                off = int(line[:c], 16)
            except ValueError:
                continue
            lines.append((off, line[c + 2:]))
        offs = [o for o, _ in lines]
        for start, size, f in places:
            i = bisect.bisect_left(offs, start)
            insns = []
            while i < len(lines) and lines[i][0] < start + size:
                off, text = lines[i]
                end = lines[i + 1][0] if i + 1 < len(lines) else off + 4
                if self.align:      # arm64: every instruction 4 bytes
                    end = min(end, off + 4)
                kind, tgt = self.classify(text)
                a = f.start + off - start
                name = None
                if tgt is not None:
                    tgt = (f.start + tgt - start) & 0xffffffffffffffff
                rel = self._reloc(f, a, a + end - off)
                if rel is not None and kind in ('call', 'jmp', 'cjmp'):
                    tgt, name = rel
                insns.append((a, a + end - off, kind, tgt, name))
                i += 1
            f.insns = insns
            f.ends = [x[1] for x in insns]

    def _reloc(self, f, a, end):
        rel = f.obj.relocs
        if not rel:
            return None
        for p in range(a, end):
            r = rel.get(p)
            if r is not None:
                target, name, addend = r
                if target is not None and self.image.machine == EM_X86_64:
                    target += end - p    # S + A - P, from the insn's end
                return target, name
        return None

    def insn_before(self, f, addr):
        """The instruction of f that ends at addr, or None."""
        self.need([f])
        i = bisect.bisect_left(f.ends, addr)
        if i < len(f.ends) and f.ends[i] == addr:
            return f.insns[i]
        return None

    def insn_at(self, f, addr):
        self.need([f])
        i = bisect.bisect_right(f.ends, addr)
        if i < len(f.insns) and f.insns[i][0] <= addr:
            return f.insns[i]
        return None

    def exits(self, f):
        """Where f jumps out of itself: (direct targets, indirect?); with
        the jumps of the alternatives patched into it (x86's memset is
        one: a jump to memset_orig or memset_erms, or nothing)."""
        self.need([f])
        out, indirect = [], False
        lo, hi = f.start, f.dend
        insns = list(f.insns)
        img, alt = self.image, self.image.alt_func
        if alt is not None and f.obj is img.objs[0]:
            i = bisect.bisect_left(img.alt_sites, lo)
            while i < len(img.alt_sites) and img.alt_sites[i] < hi:
                self.need([alt])
                for _, repl, rlen in img.alts[img.alt_sites[i]]:
                    j = bisect.bisect_left(alt.ends, repl + 1)
                    while j < len(alt.insns) and alt.insns[j][1] <= repl + rlen:
                        insns.append(alt.insns[j])
                        j += 1
                i += 1
        for a, _, kind, tgt, name in insns:
            if kind == 'ijmp':
                indirect = True
            elif kind in ('jmp', 'cjmp'):
                if tgt is None:
                    if name:
                        out.append((None, name))
                elif not lo <= tgt < hi:
                    out.append((tgt, name))
        return out, indirect


# ---------------------------------------------------------------- judging


class Checker:
    def __init__(self, image, hops=MAX_HOPS, redirect=None):
        self.img = image
        self.redirect = redirect or {}
        self.code = Code(image)
        self.hops = hops
        self.cache = {}

    def target_func(self, tgt, name):
        if tgt is not None:
            return self.img.func_at(tgt)
        fs = self.img.byname.get(name) if name else None
        return fs[0] if fs else None

    def reaches(self, f, below):
        """Path of tail calls from f to below, or (None, indirect seen)."""
        seen, frontier = {f.start}, [(f, [f.name])]
        indirect = False
        for _ in range(self.hops):
            nxt = []
            self.code.need([g for g, _ in frontier])
            for g, path in frontier:
                outs, ind = self.code.exits(g)
                indirect |= ind
                for tgt, name in outs:
                    if name and THUNK.match(name):
                        indirect = True
                        continue
                    h = self.target_func(tgt, name)
                    if h is None:
                        continue
                    if THUNK.match(h.name):
                        indirect = True
                        continue
                    if below is not None and same(h, below):
                        return path + [h.name], indirect
                    if h.start not in seen:
                        seen.add(h.start)
                        nxt.append((h, path + [h.name]))
            frontier = nxt
            if not frontier:
                break
        return None, indirect

    def judge(self, addr, f, below, below_entry, sched_first=False):
        """Class and detail of the return address addr in function f;
        below is the frame below's function, below_entry whether that is
        exception entry code."""
        key = (addr, below.start if below else None, below_entry, sched_first)
        r = self.cache.get(key)
        if r is None:
            r = self.cache[key] = self._judge(addr, f, below, below_entry,
                                              sched_first)
        return r

    def _judge(self, addr, f, below, below_entry, sched_first):
        cls, detail, target = self._call(addr, f, below, sched_first)
        if below_entry and cls not in ('verified', 'tail'):
            return ('boundary', 'interrupted pc above entry code %s'
                    % (below.name if below else '?'), None)
        return cls, detail, target

    def _call(self, addr, f, below, sched_first):
        insn = self.code.insn_before(f, addr)
        if insn is None:
            i = self.code.insn_at(f, addr)
            where = '' if i is None else ' (inside an instruction at %s)' \
                % sym(f, i[0])
            r = ('wrong', 'not an instruction boundary%s' % where, None)
        else:
            r = self._after(insn, below, sched_first, f)
        if r[0] in ('verified', 'tail'):
            return r
        site = self.img.pv_at(addr) if self.img.pv_sites else None
        if site is not None:
            return ('indirect', 'paravirt call site at %s, patched to a '
                    'direct call at boot' % sym(f, site), None)
        # The kernel may have patched an alternative over the site: the
        # instruction before addr is then one of its replacements'.
        alt = self.img.alt_func
        for raddr, site in (self.img.alts_at(addr) if alt else ()):
            i = self.code.insn_before(alt, raddr)
            if i is None:
                continue
            a = self._after(i, below, sched_first, None)
            if RANK[a[0]] < RANK[r[0]]:
                r = (a[0], a[1] + ' (alternative at %s)' % sym(f, site),
                     a[2])
            # 6.8 on, a pv_ops call is an alternative flagged
            # ALT_FLAG_CALL whose code reads "call BUG_func": the kernel
            # patches in a direct call of the pv_ops slot's target, which
            # the file does not say
            if r[0] == 'skipped' and r[2] == 'BUG_func':
                r = ('indirect', 'pv_ops call site at %s (call BUG_func, '
                     'patched at boot to call the pv_ops target)'
                     % sym(f, site), None)
        return r

    def _after(self, insn, below, sched_first, f):
        """Class of a return address right after the instruction insn (of
        function f, when known)."""
        a, _, kind, tgt, name = insn
        if kind == 'lret' and f is not None and \
                f.name.startswith('secondary_startup_64'):
            # head_64.S pushes .Lafter_lret "for the unwinder" and
            # enters the kernel with lretq: the boot stack's last word
            return 'boundary', 'the boot stack\'s end (the return address ' \
                'head_64.S pushes for unwinders before its lretq)', None
        if kind == 'nop' and f is not None and below is not None and \
                a - f.start in (0, 4) and \
                A64_FTRACE_ENTRY.match(below.name):
            return 'verified', 'ftrace\'s call at the entry of %s (its ' \
                'NOPs patched while traced), into %s' % (f.name,
                                                         below.name), None
        if kind == 'icall':
            return 'indirect', 'indirect call', None
        if kind != 'call':
            return 'wrong', 'after a %s' % ('jump' if 'jmp' in kind else
                                           'non-call instruction'), None
        t = self.target_func(tgt, name)
        tname = t.name if t else (name or '%#x' % tgt)
        if (name and THUNK.match(name)) or (t and THUNK.match(t.name)):
            return 'indirect', 'call %s' % tname, tname
        if sched_first:
            return 'verified', 'call %s (callee not in the chain)' \
                % tname, tname
        to = self.redirect.get(tname)
        if to and below is not None and below.name == to:
            return 'verified', 'call %s, redirected to %s' % (tname, to), \
                tname
        if below is not None:
            if t is not None and same(t, below):
                return 'verified', 'call %s' % tname, tname
            if t is None and name == below.name:
                return 'verified', 'call %s' % tname, tname
            if t is not None and below.name.startswith(t.name + '.cold'):
                return 'verified', 'call %s (its cold part)' % tname, tname
        if t is None:
            return 'indirect', 'call %s (not in the image)' % tname, tname
        path, indirect = self.reaches(t, below)
        if path:
            return 'tail', 'call %s' % ' -> '.join(path), tname
        if indirect:
            return 'indirect', 'call %s, which jumps indirectly' % tname, \
                tname
        if below is None:
            return 'skipped', 'call %s; the frame below is not in known ' \
                'text' % tname, tname
        return 'skipped', 'missing %s (call %s, frame below is %s)' \
            % (tname, tname, below.name), tname

    def prefetch(self, chains):
        """Disassemble everything the chains will need, a few objdump runs
        in all rather than one per function."""
        code = self.code
        fs = [fr.func for c in chains for fr in c.frames if fr.func]
        code.need(fs)
        frontier = set()
        for c in chains:
            for i, fr in enumerate(c.frames):
                if i == 0 or fr.func is None:
                    continue
                insn = code.insn_before(fr.func, fr.addr)
                if insn and insn[2] == 'call':
                    t = self.target_func(insn[3], insn[4])
                    below = c.frames[i - 1].func
                    if t and not (below and same(t, below)):
                        frontier.add(t)
        done = set()
        for _ in range(self.hops):
            frontier = {f for f in frontier if f.start not in done}
            if not frontier:
                break
            code.need(frontier)
            done |= {f.start for f in frontier}
            nxt = set()
            for f in frontier:
                for tgt, name in code.exits(f)[0]:
                    h = self.target_func(tgt, name)
                    if h is not None:
                        nxt.add(h)
            frontier = nxt

    def check(self, chain, first_is_return):
        img = self.img
        frames = chain.frames
        for i, fr in enumerate(frames):
            if fr.func is None:
                fr.cls, fr.detail = 'unknown', 'not in known text'
                continue
            if i == 0 and not first_is_return:
                fr.cls, fr.detail = 'pc', ''
                continue
            below = frames[i - 1] if i else None
            bf = below.func if below else None
            be = bool(below and below.func and
                      img.in_entry(below.addr - below.back, below.func))
            fr.cls, fr.detail, fr.target = self.judge(
                fr.addr, fr.func, bf, be, sched_first=(i == 0))


def same(a, b):
    return a.start == b.start or a.name == b.name


def sym(f, addr):
    return '%s+%#x' % (f.name, addr - f.start)


# ---------------------------------------------------------------- input


class Frame:
    __slots__ = ('raw', 'text', 'name', 'off', 'mod', 'addr', 'func',
                 'back', 'cls', 'detail', 'target', 'dso')

    def __init__(self, raw=None, name=None, off=None, mod=None, text='',
                 dso=None):
        self.raw, self.name, self.off, self.mod = raw, name, off, mod
        self.text, self.dso = text, dso
        self.addr = self.func = None
        self.back = 1
        self.cls = self.detail = self.target = None


class Chain:
    def __init__(self, header, line):
        self.header, self.line, self.frames = header, line, []


RE_STACK = re.compile(r'^\[<([0-9a-fx]+)>\]\s+(\S+?)\+(0x[0-9a-f]+)'
                      r'(?:/(0x[0-9a-f]+))?(?:\s+\[(\S+)\])?')
RE_ADDR = re.compile(r'^\s*(?:0x)?([0-9a-f]{4,16})(?:\s+(.*))?$', re.I)
RE_SYM = re.compile(r'^\s*([A-Za-z_.$][\w.$]*)\+(0x[0-9a-f]+|\d+)'
                    r'(?:/0x[0-9a-f]+)?(?:\s+\[(\S+)\])?\s*$')
RE_SYMOFF = re.compile(r'^([A-Za-z_.$][\w.$]*)\+(0x[0-9a-f]+|\d+)')
RE_DSO = re.compile(r'\s+\(([^()]*)\)\s*$')


RE_NAME = re.compile(r'^([A-Za-z_.$][\w.$]*)$')


def parse_symoff(s):
    """sym+off (offset in hex with 0x, else decimal) or a bare symbol
    (perf script's default): (name, offset or None)."""
    m = RE_SYMOFF.match(s or '')
    if not m:
        m = RE_NAME.match(s or '')
        return (m.group(1), None) if m else (None, None)
    o = m.group(2)
    return m.group(1), int(o, 16) if o.startswith('0x') else int(o)


def frame_from(text):
    """A frame from one line of any format, or None."""
    m = RE_STACK.match(text)
    if m:
        raw = int(m.group(1), 16) if m.group(1) not in ('0', '0x0') else None
        return Frame(raw, m.group(2), int(m.group(3), 16), m.group(5), text)
    m = RE_ADDR.match(text)
    if m:
        rest, dso = (m.group(2) or '').strip(), None
        d = RE_DSO.search(rest)
        if d:
            dso, rest = d.group(1), rest[:d.start()].strip()
        name, off = parse_symoff(rest)
        return Frame(int(m.group(1), 16), name, off, None, text, dso)
    m = RE_SYM.match(text)
    if m:
        name, off = parse_symoff(text.strip())
        return Frame(None, name, off, m.group(3), text)
    return None


def detect(lines):
    """The format of a file, from its first lines."""
    head = lines[:400]
    for line in head:
        if RE_STACK.match(line):
            return 'stack'
        if line.startswith('@') and line.rstrip().endswith('['):
            return 'bpftrace'
    header = any(x.strip() and not x.startswith('#') and not perf_frame(x)
                 for x in head)
    frames = any(perf_frame(x) for x in head)
    return 'perf' if header and frames else 'addr'


def perf_frame(line):
    """A frame of perf script's (tab first, or with a DSO), or None; any
    other line is a sample's header, whose comm may be right-aligned."""
    if line.startswith('\t') or RE_DSO.search(line):
        return frame_from(line)
    return None


def read_chains(lines, fmt):
    """Chains of a file: header text and frames."""
    chains, cur = [], None
    if fmt == 'bpftrace':
        for n, line in enumerate(lines, 1):
            s = line.rstrip()
            if s.startswith('@') and s.endswith('['):
                cur = Chain(s, n)
                chains.append(cur)
            elif cur is not None and s.lstrip().startswith(']'):
                cur.header += ' ' + s.strip()
                cur = None
            elif cur is not None:
                fr = frame_from(s)
                if fr:
                    cur.frames.append(fr)
        return chains
    for n, line in enumerate(lines, 1):
        s = line.rstrip('\n')
        if not s.strip():
            cur = None
            continue
        if s.lstrip().startswith('#'):
            continue
        fr = perf_frame(s) if fmt == 'perf' else frame_from(s)
        if fr is None:
            if fmt == 'perf':
                cur = Chain(s.strip(), n)
                chains.append(cur)
            continue
        if cur is None:
            cur = Chain('', n)
            chains.append(cur)
        cur.frames.append(fr)
    return chains


class Resolver:
    def __init__(self, image, kaslr):
        self.img, self.kaslr = image, kaslr

    def guess_kaslr(self, chains):
        """KASLR offset from frames that give both address and symbol;
        without the symbol's offset (perf script's default), the distance
        rounded down to 64 KiB (KASLR offsets are multiples of it)."""
        votes = {}
        for c in chains:
            for fr in c.frames[:8]:
                if fr.raw is None or fr.name is None:
                    continue
                fs = [f for f in self.img.byname.get(fr.name, ())
                      if f.obj is self.img.objs[0]]
                if len(fs) == 1:
                    d = (fr.raw - fs[0].start - (fr.off or 0)) \
                        & 0xffffffffffffffff
                    if fr.off is None:
                        d &= ~0xffff
                    votes[d] = votes.get(d, 0) + 1
            if sum(votes.values()) > 64:
                break
        if not votes:
            return 0
        return max(votes.items(), key=lambda kv: kv[1])[0]

    def addr_of(self, fr):
        img = self.img
        if fr.raw is not None:
            a = (fr.raw - self.kaslr) & 0xffffffffffffffff
            if img.vm_range[0] <= a < img.vm_range[1]:
                return a
            return fr.raw
        if fr.name is None:
            return None
        fs = img.byname.get(fr.name, ())
        if fr.mod:
            mod = fr.mod.replace('-', '_')
            fs = [f for f in fs if f.obj.name == mod] or fs
        elif len(fs) > 1:
            fs = [f for f in fs if f.obj is img.objs[0]] or fs
        off = fr.off or 0
        fs = [f for f in fs if not f.size or off <= f.size] or fs
        return fs[0].start + off if fs else None

    def resolve(self, chain, first_is_return, keep):
        """Addresses and functions of the chain's kernel frames."""
        img = self.img
        frames = []
        for fr in chain.frames:
            fr.addr = self.addr_of(fr)
            if not keep(fr):
                break
            frames.append(fr)
        chain.frames = frames
        for i, fr in enumerate(frames):
            if fr.addr is None:
                continue
            # A return address may be the first byte after its function
            # (a call that does not return): look it up at addr - 1.
            # The pc, and a pc interrupted under entry code, is itself.
            fr.back = 1
            if i == 0 and not first_is_return:
                fr.back = 0
            elif i > 0:
                below = frames[i - 1]
                if below.func and img.in_entry(below.addr - below.back,
                                               below.func):
                    fr.back = 0
            fr.func = img.func_at(fr.addr - fr.back)


# ---------------------------------------------------------------- main


def parse_module_arg(arg):
    """KO[=TEXTADDR[,SECTION=ADDR...]] -> (path, {section: addr})."""
    path, _, rest = arg.partition('=')
    secs = {}
    if rest:
        parts = rest.split(',')
        secs['.text'] = int(parts[0], 16)
        for p in parts[1:]:
            n, _, a = p.partition('=')
            secs[n] = int(a, 16)
    return path, secs


def modname(path):
    b = os.path.basename(path)
    for ext in ('.ko.xz', '.ko.zst', '.ko.gz', '.ko', '.o'):
        if b.endswith(ext):
            b = b[:-len(ext)]
            break
    return b.replace('-', '_')


def read_proc_modules(path):
    out = {}
    with open(path) as f:
        for line in f:
            t = line.split()   # name size refs deps state address
            if len(t) >= 6:
                try:
                    out[t[0].replace('-', '_')] = int(t[5], 16)
                except ValueError:
                    pass
    return out


def build_image(args):
    mods, proc = [], {}
    if args.proc_modules:
        proc = read_proc_modules(args.proc_modules)
    paths = [parse_module_arg(m) for m in args.module]
    if args.module_dir:
        have = {modname(p) for p, _ in paths}
        for root, _, files in os.walk(args.module_dir):
            for fn in files:
                n = modname(fn)
                if fn.endswith('.ko') and n in proc and n not in have:
                    paths.append((os.path.join(root, fn), {}))
                    have.add(n)
    for path, secs in paths:
        name = modname(path)

        def placer(elf, secs=secs, name=name, path=path):
            for s in elf.sections:
                if s.name in secs:
                    s.base = secs[s.name]
            if '.text' in secs:
                module_layout(elf, text_addr=secs['.text'])
            elif name in proc:
                module_layout(elf, core_addr=proc[name])
            else:
                raise Error('%s: no load address (give KO=ADDR or '
                            '--proc-modules)' % path)
        mods.append((path, name, placer))
    return Image(args.vmlinux, mods)


def run_input(checker, text, args, label):
    img = checker.img
    lines = text.splitlines()
    fmt = args.format if args.format != 'auto' else detect(lines)
    chains = read_chains(lines, fmt)
    if args.kaslr is not None:
        kaslr = args.kaslr
    elif args.nokaslr:
        kaslr = 0
    else:
        kaslr = Resolver(img, 0).guess_kaslr(chains)
    res = Resolver(img, kaslr)
    first_ret = args.first_is_return or fmt == 'stack'

    def keep(fr):
        # perf: the kernel part of a chain comes first; its addresses
        # are in the kernel's half (or in the image given).
        if fmt != 'perf' or fr.raw is None:
            return True
        return bool(fr.raw >> 63) or img.in_text(fr.addr)
    for c in chains:
        res.resolve(c, first_ret, keep)
    chains = [c for c in chains if c.frames]
    checker.prefetch(chains)
    counts = dict.fromkeys(CLASSES, 0)
    for c in chains:
        checker.check(c, first_ret)
        for fr in c.frames:
            if fr.cls in counts:
                counts[fr.cls] += 1
    return {'input': label, 'format': fmt, 'kaslr': kaslr, 'chains': chains,
            'counts': counts}


def summary(r):
    c = r['counts']
    return ('framecheck: chains %d frames %d verified %d indirect %d tail %d '
            'skipped %d wrong %d boundary %d unknown %d'
            % (len(r['chains']), sum(c.values()), c['verified'],
               c['indirect'], c['tail'], c['skipped'], c['wrong'],
               c['boundary'], c['unknown']))


def frame_sym(fr):
    if fr.func is not None:
        return sym(fr.func, fr.addr)
    if fr.name:
        return '%s+%#x' % (fr.name, fr.off or 0)
    return '?'


def to_json(r):
    out = dict(r, counts=r['counts'], chains=[])
    out['kaslr'] = '%#x' % r['kaslr']
    for c in r['chains']:
        out['chains'].append({
            'header': c.header, 'line': c.line,
            'frames': [{'addr': '%#x' % fr.raw if fr.raw is not None
                        else None,
                        'link_addr': '%#x' % fr.addr if fr.addr is not None
                        else None,
                        'sym': frame_sym(fr), 'class': fr.cls,
                        'detail': fr.detail, 'call_target': fr.target}
                       for fr in c.frames]})
    out['summary'] = summary(r)
    return out


def print_text(r, args, out):
    bad = ('skipped', 'wrong', 'unknown')
    for n, c in enumerate(r['chains'], 1):
        if args.summary or (args.problems and
                            not any(fr.cls in bad for fr in c.frames)):
            continue
        out.write('chain %d (line %d)%s\n' % (n, c.line, (': ' + c.header)
                                              if c.header else ''))
        for i, fr in enumerate(c.frames):
            a = fr.raw if fr.raw is not None else fr.addr
            out.write('  #%-3d %16s %-44s %s%s\n' % (
                i, '%x' % a if a is not None else '-', frame_sym(fr),
                LABELS[fr.cls], (': ' + fr.detail) if fr.detail else ''))
    out.write(summary(r) + ' (%s)\n' % r['input'])


def main(argv=None):
    p = argparse.ArgumentParser(
        description='Check kernel callchains against the machine code.')
    p.add_argument('-k', '--vmlinux', required=True,
                   help='vmlinux with symbols (or any ELF executable)')
    p.add_argument('--module', action='append', default=[],
                   metavar='KO[=TEXT[,SEC=ADDR...]]',
                   help='a module object and the address of its .text '
                   '(/sys/module/NAME/sections/.text); other sections '
                   'placed as the loader does unless given')
    p.add_argument('--proc-modules', metavar='FILE',
                   help='a copy of /proc/modules: load addresses by name')
    p.add_argument('--module-dir', metavar='DIR',
                   help='find NAME.ko under DIR for modules in '
                   '--proc-modules')
    p.add_argument('--kaslr', type=lambda s: int(s, 16), metavar='HEX',
                   help='KASLR offset (runtime - link address); default: '
                   'from frames with address and symbol, else 0')
    p.add_argument('--nokaslr', action='store_true')
    p.add_argument('--format', default='auto',
                   choices=('auto', 'perf', 'bpftrace', 'stack', 'addr'))
    p.add_argument('--first-is-return', action='store_true',
                   help='the first frame is a return address too (the '
                   'default for /proc/PID/stack)')
    p.add_argument('--hops', type=int, default=MAX_HOPS,
                   help='tail calls to follow (default %d)' % MAX_HOPS)
    p.add_argument('--redirect', action='append', default=[],
                   metavar='FROM=TO',
                   help='calls of FROM land in TO (an ftrace ops with '
                   'IPMODIFY, a livepatch): TO below a call of FROM is '
                   'verified')
    p.add_argument('--json', action='store_true')
    p.add_argument('--problems', action='store_true',
                   help='print only chains with a skipped, wrong or '
                   'unknown frame')
    p.add_argument('--summary', action='store_true',
                   help='print only the summary lines')
    p.add_argument('--strict-skipped', action='store_true',
                   help='exit 1 when a frame is skipped too')
    p.add_argument('inputs', nargs='*', metavar='INPUT')
    args = p.parse_args(argv)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        image = build_image(args)
        redirect = {}
        for r in args.redirect:
            a, _, b = r.partition('=')
            if not a or not b:
                die('--redirect %s: FROM=TO' % r)
            redirect[a] = b
        checker = Checker(image, args.hops, redirect)
        results = []
        for path in args.inputs or ['-']:
            if path == '-':
                text, label = sys.stdin.read(), '<stdin>'
            else:
                with open(path, errors='replace') as f:
                    text, label = f.read(), path
            results.append(run_input(checker, text, args, label))
    except (Error, OSError) as e:
        die(str(e))
    if args.json:
        json.dump({'results': [to_json(r) for r in results],
                   'objdump_runs': checker.code.runs}, sys.stdout, indent=1)
        sys.stdout.write('\n')
    else:
        for r in results:
            print_text(r, args, sys.stdout)
    wrong = sum(r['counts']['wrong'] for r in results)
    skipped = sum(r['counts']['skipped'] for r in results)
    return 1 if wrong or (args.strict_skipped and skipped) else 0


if __name__ == '__main__':
    sys.exit(main())
