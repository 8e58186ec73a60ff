#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of scripts/framecheck.py, the frame checker independent of
kunwind: chains whose truth is known from the machine code.

A small program with a known call graph (f calls g calls h, a call through
a function pointer, a sibling call, a function called twice, a fake entry
stub) is built with gcc for x86_64 (and with aarch64-linux-gnu-gcc when
installed); the return addresses come from this file's own reading of
objdump's listing, not from the checker.  The chains go through every
input format, then are corrupted (a frame dropped, two swapped, one
replaced) and must be flagged.  On a test kernel's vmlinux (when built;
FRAMECHECK_VMLINUX picks another) real call sites make chains, and 10^5
frames are timed.

Prints "ok NAME" / "not ok NAME" per test and "N passed, N failed[, N
skipped]", like the unit runner (scripts/check.sh adds these up).
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FC = os.path.join(REPO, 'scripts', 'framecheck.py')

TESTS = []


class Skip(Exception):
    pass


def test(fn):
    TESTS.append(fn)
    return fn


def fc(image, text, *args, rc=None):
    """framecheck --json on text: (exit status, result of the input)."""
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
        f.write(text)
    try:
        p = subprocess.run([sys.executable, FC, '-k', image, '--json']
                           + list(args) + [f.name], capture_output=True,
                           text=True)
    finally:
        os.unlink(f.name)
    if p.returncode not in (0, 1):
        raise AssertionError('framecheck exit %d: %s' % (p.returncode,
                                                        p.stderr))
    if rc is not None:
        assert p.returncode == rc, (p.returncode, p.stdout[-2000:])
    return p.returncode, json.loads(p.stdout)['results'][0]


def classes(res):
    return [[fr['class'] for fr in c['frames']] for c in res['chains']]


# ------------------------------------------------------------ the program

PROG = r'''
#define N __attribute__((noinline, noipa))
N int h(int x) { __asm__ volatile("" ::: "memory"); return x * 3 + 1; }
N int g(int x) { return h(x) + 1; }
N int f(int x) { return g(x) * 2; }
int (*volatile fp)(int) = h;
N int viaptr(int x) { return fp(x) + 5; }
N int tailer(int x) { return h(x + 7); }
N int calls_tailer(int x) { return tailer(x) + 2; }
N int twice(int x) { return h(x) * h(x + 1); }
int fake_vector(void);
int VEC(void);  /* an entry stub's name on this arch */
N int main(void)
{
	return f(1) + viaptr(2) + calls_tailer(3) + twice(4) + fake_vector() +
		VEC();
}
/* An "entry stub" between the kernel's entry text markers, and one
 * known by its name only. */
__asm__(".text\n"
	".globl __entry_text_start\n__entry_text_start:\n"
	".globl fake_vector\n.type fake_vector, %function\nfake_vector:\n"
	"\tnop\n\t" CALL " g\n\tnop\n\tret\n"
	".size fake_vector, .-fake_vector\n"
	".globl __entry_text_end\n__entry_text_end:\n\tnop\n"
	".globl " VECS "\n.type " VECS ", %function\n"
	VECS ":\n\tnop\n\tnop\n\tret\n"
	".size " VECS ", .-" VECS "\n");
'''

ARCHES = {
    'x86_64': {'cc': 'gcc', 'objdump': 'objdump', 'call': 'call',
               'vec': 'asm_test_vector',
               'flags': ['-fcf-protection=none']},
    'arm64': {'cc': 'aarch64-linux-gnu-gcc',
              'objdump': 'aarch64-linux-gnu-objdump', 'call': 'bl',
              'vec': 'el1h_64_test_vector',
              'flags': ['-mbranch-protection=none']},
}
BUILT = {}


def listing(objdump, path):
    """This test's own reading of objdump -d: {function: [(addr,
    mnemonic, operands)]}, by section."""
    out = subprocess.run([objdump, '-d', '--no-show-raw-insn', path],
                         capture_output=True, text=True, check=True).stdout
    funcs, cur, sec = {}, None, None
    for line in out.splitlines():
        m = re.match(r'^Disassembly of section (\S+):', line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r'^([0-9a-f]+) <(\S+)>:$', line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            funcs[m.group(2) + '@sec'] = sec
            continue
        m = re.match(r'^\s+([0-9a-f]+):\t(\S+)\s*(.*)$', line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return funcs


def sites(funcs, caller, callee, call):
    """Return addresses after caller's calls of callee (callee None: the
    indirect calls)."""
    ins = funcs[caller]
    out = []
    for i, (a, mn, ops) in enumerate(ins[:-1]):
        if callee is None:
            if (mn == 'call' and ops.startswith('*')) or mn == 'blr':
                out.append(ins[i + 1][0])
        elif mn == call and ops.endswith('<%s>' % callee):
            out.append(ins[i + 1][0])
    return out


def not_after_call(funcs, name, call):
    """An instruction boundary inside name that follows no call."""
    ins = funcs[name]
    for i in range(1, len(ins)):
        if ins[i - 1][1] not in (call, 'blr'):
            return ins[i][0]
    raise AssertionError('no such address in %s' % name)


def build(arch):
    """The program, its listing and its known chains for one arch."""
    if arch in BUILT:
        return BUILT[arch]
    a = ARCHES[arch]
    if not shutil.which(a['cc']) or not shutil.which(a['objdump']):
        raise Skip('%s not installed' % a['cc'])
    d = tempfile.mkdtemp(prefix='framecheck-test.')
    src = os.path.join(d, 'prog.c')
    with open(src, 'w') as f:
        f.write('#define CALL "%s"\n#define VEC %s\n#define VECS "%s"\n'
                % (a['call'], a['vec'], a['vec']) + PROG)
    exe, obj = os.path.join(d, 'prog'), os.path.join(d, 'prog.o')
    common = [a['cc'], '-O2', '-fno-pie', '-fno-stack-protector',
              '-fno-asynchronous-unwind-tables'] + a['flags']
    subprocess.run(common + ['-nostdlib', '-static', '-no-pie',
                             '-Wl,-e,main', '-o', exe, src], check=True)
    subprocess.run(common + ['-c', '-o', obj, src], check=True)
    fn = listing(a['objdump'], exe)
    call = a['call']
    syms = {}
    for line in subprocess.run(['nm', '-S', exe], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        t = line.split()
        if len(t) == 4:
            syms[t[3]] = (int(t[0], 16), int(t[1], 16))
    one = lambda caller, callee: sites(fn, caller, callee, call)[0]  # noqa
    tail = [x for x in fn['tailer'] if x[1] in ('jmp', 'b') and
            x[2].endswith('<h>')]
    assert tail, 'gcc made no sibling call in tailer: %s' % fn['tailer']
    twice = sites(fn, 'twice', 'h', call)
    assert len(twice) == 2, twice
    k = {
        'h_pc': fn['h'][1][0],
        'g_h': one('g', 'h'), 'f_g': one('f', 'g'), 'main_f': one('main', 'f'),
        'ptr': sites(fn, 'viaptr', None, call)[0],
        'main_ptr': one('main', 'viaptr'),
        'ct_t': one('calls_tailer', 'tailer'),
        'main_ct': one('main', 'calls_tailer'),
        'tw1': twice[0], 'tw2': twice[1],
        'vec_g': one('fake_vector', 'g'),
        'asm_pc': syms[a['vec']][0],
        'f_mid': not_after_call(fn, 'f', call),
    }
    BUILT[arch] = (exe, obj, fn, syms, k, d)
    return BUILT[arch]


def chains_of(k):
    """The known chains, deepest frame first, and their classes."""
    return [
        ([k['h_pc'], k['g_h'], k['f_g'], k['main_f']],
         ['pc', 'verified', 'verified', 'verified']),
        ([k['h_pc'], k['ptr'], k['main_ptr']],
         ['pc', 'indirect', 'verified']),
        ([k['h_pc'], k['ct_t'], k['main_ct']], ['pc', 'tail', 'verified']),
        ([k['h_pc'], k['tw1']], ['pc', 'verified']),
        ([k['h_pc'], k['tw2']], ['pc', 'verified']),
        ([k['h_pc'], k['g_h'], k['vec_g'], k['f_mid'], k['main_f']],
         ['pc', 'verified', 'verified', 'boundary', 'verified']),
        ([k['asm_pc'], k['f_mid'], k['main_f']],
         ['pc', 'boundary', 'verified']),
    ]


def symoff(syms, addr, hexoff=True):
    best = max((v for v in syms.items() if v[1][0] <= addr < sum(v[1])),
               key=lambda v: v[1][0])
    name, (start, size) = best
    return name, addr - start, size


def render(fmt, syms, chains):
    out = []
    for n, (addrs, _) in enumerate(chains):
        if fmt == 'addr':
            out += ['%x' % a for a in addrs] + ['']
        elif fmt == 'perf':
            # perf right-aligns the comm; a hex-looking one too
            out.append('%16s %5d [000] %d.000000: 1 cycles:'
                       % ('cafe' if n % 2 else 'prog', n, n))
            for a in addrs:
                name, off, _ = symoff(syms, a)
                out.append('\t%16x %s+0x%x (/tmp/prog)' % (a, name, off))
            out += ['\t    7fff00001234 [unknown] ([unknown])', '']
        elif fmt.startswith('bpftrace'):
            out.append('@[')
            for a in addrs:
                name, off, _ = symoff(syms, a)
                if fmt == 'bpftrace':
                    out.append('        %s+%d' % (name, off))
                elif fmt == 'bpftrace-perf':
                    out.append('\t%x %s+%d' % (a, name, off))
                else:
                    out.append('%x' % a)
            out += [']: %d' % (n + 1), '']
        elif fmt == 'stack':
            for a in addrs[1:]:
                name, off, size = symoff(syms, a)
                out.append('[<0>] %s+0x%x/0x%x' % (name, off, size))
            out.append('')
    return '\n'.join(out) + '\n'


def check_formats(arch):
    exe, _, _, syms, k, _ = build(arch)
    chains = chains_of(k)
    want = [c for _, c in chains]
    for fmt in ('addr', 'perf', 'bpftrace', 'bpftrace-perf', 'bpftrace-raw'):
        rc, res = fc(exe, render(fmt, syms, chains), rc=0)
        assert classes(res) == want, (fmt, classes(res), want)
        expect_fmt = fmt.split('-')[0]
        assert res['format'] == expect_fmt, (fmt, res['format'])
    # /proc/PID/stack: no pc; the first frame's callee is not shown
    # (the kernel hides scheduler functions), judged as after a call;
    # not the chain that starts in an entry stub.
    chains = [c for c in chains if c[1][1] != 'boundary']
    rc, res = fc(exe, render('stack', syms, chains), rc=0)
    assert res['format'] == 'stack'
    want = [[('verified' if i == 0 and x == 'tail' else x)
             for i, x in enumerate(c[1:])] for _, c in chains]
    assert classes(res) == want, classes(res)
    s, n = res['counts'], sum(want, [])
    assert all(s[c] == n.count(c) for c in s), (s, want)


def check_corrupt(arch):
    exe, _, _, _, k, _ = build(arch)

    def one(addrs, *args, rc=None):
        text = '\n'.join('%x' % a for a in addrs) + '\n'
        rc, res = fc(exe, text, *args, rc=rc)
        return rc, res['chains'][0]['frames']
    # f's frame without g's: g is missing between f and h.
    rc, fr = one([k['h_pc'], k['f_g'], k['main_f']], rc=0)
    assert [x['class'] for x in fr] == ['pc', 'skipped', 'verified'], fr
    assert 'missing g' in fr[1]['detail'], fr[1]
    rc, _ = one([k['h_pc'], k['f_g'], k['main_f']], '--strict-skipped', rc=1)
    # g's and f's frames swapped.
    rc, fr = one([k['h_pc'], k['f_g'], k['g_h'], k['main_f']], rc=0)
    assert [x['class'] for x in fr] == \
        ['pc', 'skipped', 'skipped', 'skipped'], fr
    # g's frame replaced by an address that follows no call.
    rc, fr = one([k['h_pc'], k['f_mid'], k['main_f']], rc=1)
    assert [x['class'] for x in fr] == ['pc', 'wrong', 'verified'], fr
    # A return address off by one: inside an instruction.
    rc, fr = one([k['h_pc'], k['g_h'] + 1, k['f_g']], rc=1)
    assert fr[1]['class'] == 'wrong', fr
    # Outside the image.
    rc, fr = one([k['h_pc'], 0x1000, k['f_g']], rc=0)
    assert fr[1]['class'] == 'unknown', fr


@test
def x86_64_known_chains_in_every_format():
    check_formats('x86_64')


@test
def x86_64_corrupted_chains_are_flagged():
    check_corrupt('x86_64')


@test
def arm64_known_chains_in_every_format():
    check_formats('arm64')


@test
def arm64_corrupted_chains_are_flagged():
    check_corrupt('arm64')


FTRACE_PROG = r'''
/* arm64 ftrace as the kernel patches it: a traced function's entry NOPs
 * (-fpatchable-function-entry=2) become "mov x9, x30; bl ftrace_caller",
 * ftrace_call's "bl ftrace_stub" calls the ops' function (handler). */
__asm__(".text\n"
	".globl ftrace_stub\n.type ftrace_stub, %function\nftrace_stub:\n"
	"\tret\n.size ftrace_stub, .-ftrace_stub\n"
	".globl ftrace_caller\n.type ftrace_caller, %function\nftrace_caller:\n"
	"\tnop\n\tbl ftrace_stub\n\tnop\n\tret\n"
	".size ftrace_caller, .-ftrace_caller\n"
	".globl handler\n.type handler, %function\nhandler:\n"
	"\tnop\n\tret\n.size handler, .-handler\n"
	".globl other\n.type other, %function\nother:\n"
	"\tnop\n\tret\n.size other, .-other\n"
	".globl traced\n.type traced, %function\ntraced:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tret\n.size traced, .-traced\n"
	".globl main\n.type main, %function\nmain:\n"
	"\tnop\n\tbl traced\n\tnop\n\tret\n.size main, .-main\n");
'''


@test
def arm64_ftrace_patched_entry():
    """While ftrace traces a function, its entry NOPs call ftrace_caller:
    the return address after the second NOP, with ftrace's entry code
    below, is verified (with any other function below, or after a later
    NOP, not after a call); ftrace_call's call of ftrace_stub reaches the
    ops' function: indirect."""
    a = ARCHES['arm64']
    if not shutil.which(a['cc']) or not shutil.which(a['objdump']):
        raise Skip('%s not installed' % a['cc'])
    d = tempfile.mkdtemp(prefix='framecheck-test.')
    src, exe = os.path.join(d, 'ftrace.c'), os.path.join(d, 'ftrace')
    with open(src, 'w') as f:
        f.write(FTRACE_PROG)
    subprocess.run([a['cc'], '-nostdlib', '-static', '-no-pie',
                    '-Wl,-e,main', '-o', exe, src], check=True)
    fn = listing(a['objdump'], exe)
    start = {n: ins[0][0] for n, ins in fn.items() if not n.endswith('@sec')}
    call_stub = sites(fn, 'ftrace_caller', 'ftrace_stub', 'bl')[0]
    main_traced = sites(fn, 'main', 'traced', 'bl')[0]
    entry = start['traced'] + 8          # after the second NOP

    def cls(addrs, rc=None):
        _, res = fc(exe, ''.join('%x\n' % x for x in addrs), rc=rc)
        return classes(res)[0]
    assert cls([start['ftrace_caller'], entry, main_traced], rc=0) == \
        ['pc', 'verified', 'verified']
    assert cls([start['handler'], call_stub, entry, main_traced], rc=0) == \
        ['pc', 'indirect', 'verified', 'verified']
    assert cls([start['other'], entry, main_traced], rc=1) == \
        ['pc', 'wrong', 'verified']
    assert cls([start['ftrace_caller'], entry + 4, main_traced], rc=1) == \
        ['pc', 'wrong', 'verified']
    shutil.rmtree(d)


@test
def x86_64_module_object_with_relocations():
    """The program's relocatable object as a module at a kernel address:
    call targets come from its relocations."""
    exe, obj, _, _, _, d = build('x86_64')
    fo = listing('objdump', obj)
    base = 0xffffffffc0001000
    assert fo['g@sec'] == '.text' and fo['f@sec'] == '.text'
    k = {
        'h_pc': base + fo['h'][1][0],
        'g_h': base + fo['g'][[i for i, x in enumerate(fo['g'])
                               if x[1] == 'call'][0] + 1][0],
        'f_g': base + fo['f'][[i for i, x in enumerate(fo['f'])
                               if x[1] == 'call'][0] + 1][0],
        'ct_t': base + fo['calls_tailer'][
            [i for i, x in enumerate(fo['calls_tailer'])
             if x[1] == 'call'][0] + 1][0],
    }
    text = '%x\n%x\n%x\n\n%x\n%x\n\n%x\n%x\n' % (
        k['h_pc'], k['g_h'], k['f_g'], k['h_pc'], k['f_g'],
        k['h_pc'], k['ct_t'])
    want = [['pc', 'verified', 'verified'], ['pc', 'skipped'],
            ['pc', 'tail']]
    _, res = fc(exe, text, '--module', '%s=%x' % (obj, base))
    assert classes(res) == want, classes(res)
    pm = os.path.join(d, 'modules')
    with open(pm, 'w') as f:
        f.write('prog 16384 0 - Live 0x%x (OE)\n' % base)
    _, res = fc(exe, text, '--proc-modules', pm, '--module', obj)
    assert classes(res) == want, classes(res)


# ------------------------------------------------------------ a real kernel


def find_vmlinux():
    v = os.environ.get('FRAMECHECK_VMLINUX')
    if v:
        return v
    cands = [os.path.expanduser(
        '~/.cache/kunwind/kbuild/base-d297585c369a/vmlinux')]
    cands += sorted(glob.glob(os.path.expanduser(
        '~/.cache/kunwind/kbuild/*/vmlinux')))
    for c in cands:
        try:
            with open(c, 'rb') as f:
                h = f.read(20)
        except OSError:
            continue
        if h[:4] == b'\x7fELF' and h[18:20] == b'\x3e\x00':   # x86-64
            return c
    raise Skip('no x86_64 test kernel vmlinux')


KERNEL = {}


def kernel():
    if KERNEL:
        return KERNEL['v']
    v = find_vmlinux()
    smap = os.path.join(os.path.dirname(v), 'System.map')
    syms = {}
    src = open(smap) if os.path.exists(smap) else None
    if src is None:
        out = subprocess.run(['nm', v], capture_output=True, text=True,
                             check=True).stdout
        lines = out.splitlines()
    else:
        with src:
            lines = src.read().splitlines()
    for line in lines:
        t = line.split()
        if len(t) == 3 and t[1] in 'tTwW':
            syms.setdefault(t[2], int(t[0], 16))
    if 'vfs_read' not in syms:
        raise Skip('%s has no vfs_read' % v)
    # A window of real code: its call sites with direct targets.
    start = syms['vfs_read']
    out = subprocess.run(
        ['objdump', '-d', '--no-show-raw-insn', '--start-address=%#x' % start,
         '--stop-address=%#x' % (start + 0x30000), v],
        capture_output=True, text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]+) <(\S+)>:$', line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r'^([0-9a-f]+):\t(\S+)\s*(.*)$', line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    KERNEL['v'] = (v, syms, funcs)
    return KERNEL['v']


def kernel_sites(funcs):
    """(caller, callee, return address) of the window's direct calls of
    whole functions, thunks and ftrace's call left out."""
    out = []
    for caller, ins in funcs.items():
        for i, (a, mn, ops) in enumerate(ins[:-1]):
            m = re.search(r'<([\w.]+)>$', ops)
            if mn == 'call' and m and not re.match(
                    r'__fentry__|__x86_|__SCT__', m.group(1)):
                out.append((caller, m.group(1), ins[i + 1][0]))
    return out


def kernel_code(v, syms, *names):
    """objdump's lines of the first 0x100 bytes of each function."""
    if not all(n in syms for n in names):
        raise Skip('not a kernel with %s' % ', '.join(names))
    out = ''.join(subprocess.run(
        ['objdump', '-d', '--no-show-raw-insn',
         '--start-address=%#x' % syms[n],
         '--stop-address=%#x' % (syms[n] + 0x100), v],
        capture_output=True, text=True, check=True).stdout for n in names)
    return [ln for ln in out.splitlines() if re.match(r'^[0-9a-f]+:', ln)]


def ret_after(lines, fn_start, what):
    """The address after the first instruction of a function (at fn_start)
    whose line has what in it."""
    for i, ln in enumerate(lines[:-1]):
        a = int(ln.split(':')[0], 16)
        if a >= fn_start and what in ln:
            return int(lines[i + 1].split(':')[0], 16)
    raise Skip('no %s' % what)


@test
def kernel_syscall_chain():
    """read(2) as perf shows it: ksys_read calls vfs_read; do_syscall_64
    reaches ksys_read through x64_sys_call's and __x64_sys_read's jumps
    (if this kernel has them); entry code calls do_syscall_64."""
    v, syms, funcs = kernel()
    out = kernel_code(v, syms, 'do_syscall_64', 'entry_SYSCALL_64',
                      'x64_sys_call', 'vfs_read', 'ksys_read')
    rets = [ret_after(out, syms['do_syscall_64'], '<x64_sys_call>'),
            ret_after(out, syms['entry_SYSCALL_64'], '<do_syscall_64>')]
    ks = sites(funcs, 'ksys_read', 'vfs_read', 'call')
    text = 'cat 1 [000] 1.0: 1 cpu-clock:\n' + ''.join(
        '\t%x %s ([kernel.kallsyms])\n' % (a, s) for a, s in
        ((syms['vfs_read'] + 5, 'vfs_read+0x5'), (ks[0], 'ksys_read'),
         (rets[0], 'do_syscall_64'), (rets[1], 'entry_SYSCALL_64')))
    _, res = fc(v, text, '--nokaslr', rc=0)
    got = classes(res)
    assert got == [['pc', 'verified', 'tail', 'verified']], got
    assert 'x64_sys_call -> __x64_sys_read -> ksys_read' in \
        res['chains'][0]['frames'][2]['detail'], res['chains'][0]
    # The same with a KASLR offset, found from perf's symbols.
    off = 0x2a000000
    text2 = re.sub(r'\t([0-9a-f]+) ', lambda m: '\t%x ' % (
        int(m.group(1), 16) + off), text)
    _, res = fc(v, text2, rc=0)
    assert classes(res) == got and res['kaslr'] == '%#x' % off, res['kaslr']
    # perf script's default: symbols without offsets.
    text3 = text2.replace('vfs_read+0x5', 'vfs_read')
    _, res = fc(v, text3, rc=0)
    assert classes(res) == got and res['kaslr'] == '%#x' % off, res['kaslr']


@test
def kernel_interrupt_chain():
    """A timer interrupt in the idle loop: the entry stub calls the C
    handler; the frame above the stub is the pc after hlt, an exception
    boundary, not a return address."""
    v, syms, _ = kernel()
    names = ('__sysvec_apic_timer_interrupt', 'sysvec_apic_timer_interrupt',
             'asm_sysvec_apic_timer_interrupt', 'default_idle')
    out = kernel_code(v, syms, *names)
    addrs = [syms[names[0]] + 5,
             ret_after(out, syms[names[1]], '<%s>' % names[0]),
             ret_after(out, syms[names[2]], '<%s>' % names[1]),
             ret_after(out, syms[names[3]], '\thlt')]
    _, res = fc(v, ''.join('%x\n' % a for a in addrs), '--nokaslr', rc=0)
    assert classes(res) == [['pc', 'verified', 'verified', 'boundary']], \
        res['chains']
    # Without the stub's frame the pc after hlt is wrong.
    _, res = fc(v, ''.join('%x\n' % a for a in addrs[:2] + addrs[3:]),
                '--nokaslr', rc=1)
    assert classes(res) == [['pc', 'verified', 'wrong']], res['chains']


@test
def kernel_alternative_call():
    """A call the kernel patches in at boot: an x86 alternative
    (.altinstructions, read here on its own: s32 site and replacement
    offsets, the feature word(s), u8 lengths) whose replacement calls a
    function the file's code at the site does not.  After the patched
    call the return address is verified with that callee below; with
    another function below, skipped."""
    v, syms, _ = kernel()
    secs = {}
    out = subprocess.run(['readelf', '-SW', v], capture_output=True,
                         text=True, check=True).stdout
    for ln in out.splitlines():
        m = re.match(r'^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+'
                     r'([0-9a-f]+)\s+([0-9a-f]+)', ln)
        if m:
            secs[m.group(1)] = tuple(int(x, 16) for x in m.groups()[1:])
    if '.altinstructions' not in secs or '.altinstr_replacement' not in secs:
        raise Skip('no alternatives in %s' % v)
    (aa, ao, asz), (ra, _, rsz) = secs['.altinstructions'], \
        secs['.altinstr_replacement']
    with open(v, 'rb') as f:
        f.seek(ao)
        body = f.read(asz)
    # the replacements' calls: end address -> callee
    lines = [ln for ln in subprocess.run(
        ['objdump', '-d', '--no-show-raw-insn', '-j', '.altinstr_replacement',
         v], capture_output=True, text=True, check=True).stdout.splitlines()
        if re.match(r'^\s*[0-9a-f]+:\t', ln)]
    calls = {}
    for i, ln in enumerate(lines[:-1]):
        m = re.search(r'\tcall\s+[0-9a-f]+ <([\w.]+)>$', ln)
        if m and not re.match(r'__x86_|__SCT__', m.group(1)):
            calls[int(lines[i + 1].split(':')[0], 16)] = m.group(1)
    found = None
    for size in (12, 14):
        if asz % size:
            continue
        ents = []
        for o in range(0, asz, size):
            io, ro = struct.unpack_from('<ii', body, o)
            ents.append((aa + o + io, aa + o + 4 + ro, body[o + size - 2],
                         body[o + size - 1]))
        if not all(ra <= r < ra + rsz for _, r, _, n in ents if n):
            continue
        for site, repl, ilen, rlen in ents:
            for end, callee in calls.items():
                if repl < end <= repl + rlen and end - repl <= ilen and \
                        callee in syms and syms[callee] != \
                        syms.get('vfs_read'):
                    found = (site + end - repl, callee)
                    break
            if found:
                break
        break
    if not found:
        raise Skip('no alternative that calls a function in %s' % v)
    ret, callee = found
    _, res = fc(v, '%x\n%x\n' % (syms[callee], ret), '--nokaslr', rc=0)
    assert classes(res) == [['pc', 'verified']], res['chains']
    _, res = fc(v, '%x\n%x\n' % (syms['vfs_read'], ret), '--nokaslr')
    assert classes(res) == [['pc', 'skipped']], res['chains']


@test
def kernel_redirected_call():
    """--redirect FROM=TO (an ftrace ops with IPMODIFY): after ksys_read's
    call of vfs_read, vfs_write below is verified only when vfs_read is
    redirected to it."""
    v, syms, funcs = kernel()
    ks = sites(funcs, 'ksys_read', 'vfs_read', 'call')
    if not ks or 'vfs_write' not in syms:
        raise Skip('no ksys_read -> vfs_read call or no vfs_write')
    text = '%x\n%x\n' % (syms['vfs_write'] + 5, ks[0])
    _, res = fc(v, text, '--nokaslr')
    assert classes(res) == [['pc', 'skipped']], res['chains']
    _, res = fc(v, text, '--nokaslr', '--redirect', 'vfs_read=vfs_write',
                rc=0)
    assert classes(res) == [['pc', 'verified']], res['chains']


@test
def kernel_call_sites_and_corruptions_and_timing():
    v, syms, funcs = kernel()
    ss = kernel_sites(funcs)
    assert len(ss) > 300, len(ss)
    byfn = {}
    for caller, callee, ret in ss:
        byfn.setdefault(caller, []).append((callee, ret))
    good, dropped, shifted = [], [], []
    for caller, callee, ret in ss:
        if callee not in syms:
            continue
        good.append([syms[callee], ret])
        shifted.append([syms[callee], ret + 1])
        for c2, r2 in byfn.get(callee, ())[:1]:
            if c2 in syms and c2 != callee:
                good.append([syms[c2], r2, ret])
                dropped.append([syms[c2], ret])
    text = lambda cs: ''.join(  # noqa: E731
        ''.join('%x\n' % a for a in c) + '\n' for c in cs)
    _, res = fc(v, text(good), '--nokaslr', rc=0)
    c = res['counts']
    assert c['wrong'] == 0 and c['skipped'] == 0 and c['unknown'] == 0, c
    assert c['verified'] > 0.95 * sum(c.values()), c
    _, res = fc(v, text(dropped), '--nokaslr')
    c = res['counts']
    assert c['verified'] == 0 and c['wrong'] == 0, c
    assert c['skipped'] >= 0.8 * len(dropped), c
    _, res = fc(v, text(shifted), '--nokaslr', rc=1)
    c = res['counts']
    assert c['wrong'] == len(shifted), c
    # Timing: 10^5 frames of real call sites.
    frames, chains = 0, []
    while frames < 100000:
        for ch in good:
            chains.append(ch)
            frames += len(ch)
            if frames >= 100000:
                break
    distinct = len({a for ch in good for a in ch[1:]})
    with tempfile.NamedTemporaryFile('w', suffix='.txt') as f:
        f.write(text(chains))
        f.flush()
        t0 = time.time()
        p = subprocess.run([sys.executable, FC, '-k', v, '--nokaslr',
                            '--summary', f.name], capture_output=True,
                           text=True)
        dt = time.time() - t0
    assert p.returncode == 0, p.stderr
    line = p.stdout.splitlines()[-1]
    print('# %s frames (%d chains, %d distinct return addresses) in '
          '%.1f s' % (frames, len(chains), distinct, dt))
    print('# ' + line)
    assert ' wrong 0 ' in line and ' skipped 0 ' in line, line
    assert dt < 300, dt


def main():
    passed = failed = skipped = 0
    for t in TESTS:
        try:
            t()
        except Skip as e:
            skipped += 1
            print('ok %s # SKIP %s' % (t.__name__, e))
            continue
        except Exception as e:  # noqa: B902  any error fails the test
            failed += 1
            print('not ok %s' % t.__name__)
            print('  %s' % (e,))
            continue
        passed += 1
        print('ok %s' % t.__name__)
    for d in {b[5] for b in BUILT.values()}:
        shutil.rmtree(d, ignore_errors=True)
    print('%d passed, %d failed%s' % (passed, failed, ', %d skipped'
                                      % skipped if skipped else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
