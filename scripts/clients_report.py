#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check-clients, host side: the clients' outputs out of a guest's
serial log, every frame checked by scripts/framecheck.py, one table, KTAP.

    clients_report.py report LOG -k VMLINUX [--module KO]... --arch ARCH
                      --out DIR --ktap FILE [--title T] [--min-frames N]
    clients_report.py image DBG_VMLINUX IMAGE OUT

report: the data blocks scripts/init/clients.sh printed ("kuw-clients:
begin NAME", base64 of a gzip stream, "end NAME BYTES MD5") are decoded
into DIR/NAME.txt, checked against their size and MD5; each module KO
(kunwind.ko) is placed at the .text address the guest read in sysfs; then
framecheck.py --nokaslr judges every frame of every output (the guest
booted nokaslr), following tail calls 6 deep.  The table: client, switch, chains (perf samples with a
kernel chain, bpftrace's distinct stacks, tasks with a stack), frames
checked, and each class.  Results (KTAP, FILE): each output came back
whole; each has chains; no frame is "not after a call" with the switch
off or on; x86_64: nearly every frame verified (verified, tail call,
after an indirect call (kthread's thread function, the syscall table) or
exception boundary: at least 99 %; the skipped ones are shown), both
ways; arm64:
the sampling clients skip fewer callers with the switch on than off;
--min-frames: the frames checked, all outputs together, at least N.

image: a stock kernel's -dbg vmlinux trimmed to symbols and tables (its
code sections NOBITS, scripts/check-stock.sh) gets the code back from the
image that booted: arm64's Image is the kernel from _text on, byte for
byte (its header's image size must be _end - _text); an x86 bzImage holds
the vmlinux ELF compressed (setup header payload_offset and
payload_length), whose sections are copied by name.  The result is the
trimmed file with each code section's bytes (and the x86 tables of what
the kernel patches at boot, .altinstructions and .parainstructions)
appended and its header made PROGBITS, which is all
framecheck.py reads.
"""
import argparse
import base64
import gzip
import hashlib
import lzma
import os
import re
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FRAMECHECK = os.path.join(HERE, 'framecheck.py')
TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
CLIENTS = ('perf', 'kprobe', 'profile', 'stack')
LABEL = {'perf': 'perf record -a -g (cpu-clock)',
         'kprobe': 'bpftrace kprobe kstack',
         'profile': 'bpftrace profile kstack',
         'stack': '/proc/PID/stack'}
SUMMARY = re.compile(
    r'^framecheck: chains (\d+) frames (\d+) verified (\d+) indirect (\d+) '
    r'tail (\d+) skipped (\d+) wrong (\d+) boundary (\d+) unknown (\d+) '
    r'\((.*)\)$')
FIELDS = ('chains', 'frames', 'verified', 'indirect', 'tail', 'skipped',
          'wrong', 'boundary', 'unknown')
VERIFIED_MIN = 0.99


# ------------------------------------------------------------- the log

def blocks(path):
    """{name: (bytes or None, problem)} of the data blocks in a log."""
    out, cur, data = {}, None, []
    with open(path, errors='replace') as f:
        for line in f:
            s = TS.sub('', line.rstrip('\n'))
            i = s.find('kuw-clients: ')
            if i < 0:
                continue
            w = s[i + len('kuw-clients: '):].split()
            if not w:
                continue
            if w[0] == 'begin' and len(w) == 2:
                if cur is not None:
                    out[cur] = (None, 'no end line')
                cur, data = w[1], []
            elif w[0] == 'data' and len(w) == 2 and cur is not None:
                data.append(w[1])
            elif w[0] == 'end' and len(w) == 4 and cur == w[1]:
                try:
                    raw = base64.b64decode(''.join(data), validate=True)
                except ValueError as e:
                    out[cur] = (None, 'base64: %s' % e)
                else:
                    if len(raw) != int(w[2]):
                        out[cur] = (None, '%d bytes, not %s' % (len(raw), w[2]))
                    elif hashlib.md5(raw).hexdigest() != w[3]:
                        out[cur] = (None, 'MD5 differs')
                    else:
                        try:
                            out[cur] = (gzip.decompress(raw), '')
                        except (OSError, EOFError) as e:
                            out[cur] = (None, 'gzip: %s' % e)
                cur = None
    if cur is not None:
        out[cur] = (None, 'no end line (the guest died?)')
    return out


def module_texts(text):
    """{name: .text address} from the "modules" block."""
    out = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == 'text':
            try:
                out[w[1]] = int(w[2], 16)
            except ValueError:
                pass
    return out


# ------------------------------------------------------------- report

class Ktap:
    def __init__(self):
        self.lines = []
        self.n = 0

    def diag(self, text):
        for s in text.splitlines():
            self.lines.append('# ' + s)

    def res(self, good, name, skip=None):
        self.n += 1
        if skip is not None:
            self.lines.append('ok %d %s # SKIP %s' % (self.n, name, skip))
        else:
            self.lines.append('%s %d %s' % ('ok' if good else 'not ok',
                                            self.n, name))
        print('host: ' + self.lines[-1], flush=True)

    def write(self, path):
        with open(path, 'w') as f:
            f.write('KTAP version 1\n1..%d\n' % self.n)
            f.write('\n'.join(self.lines) + '\n')


def framecheck(args, inputs, extra):
    # --hops 6: 7.3's slab frees reach _raw_spin_unlock_irqrestore
    # through 4 to 5 tail calls (putname -> kmem_cache_free -> ...)
    cmd = [sys.executable, FRAMECHECK, '-k', args.vmlinux, '--nokaslr',
           '--hops', '6'] + extra + inputs
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError('framecheck: %s' % p.stderr.strip())
    return p.stdout


def report(args):
    kt = Ktap()
    os.makedirs(args.out, exist_ok=True)
    got = blocks(args.log)
    for name in sorted(got):
        data, why = got[name]
        if data is None:
            kt.res(False, 'output %s came back whole (%s)' % (name, why))
            continue
        with open(os.path.join(args.out, name + '.txt'), 'wb') as f:
            f.write(data)
    if not got:
        kt.res(False, 'the guest printed outputs')
    extra = []
    texts = module_texts(got.get('modules', (b'', ''))[0].decode()
                         if got.get('modules', (None,))[0] else '')
    for ko in args.module:
        name = os.path.basename(ko).split('.')[0].replace('-', '_')
        if name in texts:
            extra += ['--module', '%s=%x' % (ko, texts[name])]
        else:
            kt.diag('%s: no .text address from the guest, its frames '
                    'stay unknown' % name)
    # Functions an ftrace ops with IPMODIFY redirects (enabled_functions,
    # flag I): the consumers the switch hands to kunwind, each to its
    # function of the same prototype, kuw_NAME (module/serve.c).  A call
    # of NAME then lands in kuw_NAME: framecheck --redirect.
    hooked = set()
    for sw in ('off', 'on'):
        data = got.get('ftrace-' + sw, (None,))[0]
        for line in (data or b'').decode(errors='replace').splitlines():
            w = line.split()
            if len(w) >= 3 and re.match(r'^\(\d+\)$', w[1]) and \
                    'I' in w[2:4]:
                hooked.add(w[0])
    for name in sorted(hooked):
        extra += ['--redirect', '%s=kuw_%s' % (name, name)]
    if hooked:
        kt.diag('redirected by ftrace (IPMODIFY): %s' % ' '.join(sorted(hooked)))
    runs = [(c, sw) for c in CLIENTS for sw in ('off', 'on')
            if got.get('%s-%s' % (c, sw), (None,))[0] is not None]
    if not runs:
        kt.write(args.ktap)
        return 1
    inputs = [os.path.join(args.out, '%s-%s.txt' % r) for r in runs]
    counts = {}
    for line in framecheck(args, inputs, extra + ['--summary']).splitlines():
        m = SUMMARY.match(line)
        if m:
            name = os.path.basename(m.group(10))[:-len('.txt')]
            counts[name] = dict(zip(FIELDS, map(int, m.groups()[:9])))
    # the table
    head = ('client', 'switch', 'chains', 'frames', 'verified', 'tail',
            'indirect', 'skipped', 'wrong', 'boundary', 'unknown')
    rows = []
    total = 0
    for c, sw in runs:
        k = counts.get('%s-%s' % (c, sw))
        if k is None:
            continue
        total += k['frames']
        rows.append((LABEL[c], sw) + tuple(str(k[f]) for f in (
            'chains', 'frames', 'verified', 'tail', 'indirect', 'skipped',
            'wrong', 'boundary', 'unknown')))
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    table = ['  '.join(x.ljust(w[i]) if i < 2 else x.rjust(w[i])
                       for i, x in enumerate(r)) for r in [head] + rows]
    title = 'kernel frames of real clients%s, checked by framecheck.py' % (
        ' (%s)' % args.title if args.title else '')
    print(title)
    print('\n'.join(table))
    print('frames checked: %d' % total, flush=True)
    kt.diag(title)
    kt.diag('\n'.join(table))
    # the results
    for c, sw in runs:
        name = '%s-%s' % (c, sw)
        k = counts.get(name)
        lab = '%s, switch %s' % (LABEL[c], sw)
        if k is None:
            kt.res(False, '%s: checked (framecheck gave no summary)' % lab)
            continue
        kt.res(k['chains'] > 0, '%s: callchains found (%d, %d frames)'
               % (lab, k['chains'], k['frames']))
        good = k['wrong'] == 0
        if not good:
            bad = framecheck(args, [os.path.join(args.out, name + '.txt')],
                             extra + ['--problems'])
            wrong = [b for b in bad.split('\nchain ')
                     if 'not after a call' in b]
            kt.diag('\nchain '.join(wrong[:8])[:6000])
        kt.res(good, '%s: no frame "not after a call" (%d of %d)'
               % (lab, k['wrong'], k['frames']))
        if args.arch == 'x86_64' and k['frames']:
            v = k['verified'] + k['tail'] + k['indirect'] + k['boundary']
            good = v >= VERIFIED_MIN * k['frames']
            if k['skipped']:
                bad = framecheck(args, [os.path.join(
                    args.out, name + '.txt')], extra + ['--problems'])
                kt.diag(bad[:4000])
            kt.res(good, '%s: nearly every frame verified (%.2f %% verified, '
                   'tail call, indirect or boundary, %.2f %% verified; '
                   '%d skipped)' % (lab, 100.0 * v / k['frames'],
                                    100.0 * k['verified'] / k['frames'],
                                    k['skipped']))
    # Which consumer each client goes through, and whether kunwind
    # answered it with the switch on (/dev/kunwind/consumers: NAME STATE
    # CALLS KUNWIND FALLBACK)
    cons = {}
    data = got.get('consumers-on', (None,))[0]
    for line in (data or b'').decode(errors='replace').splitlines():
        w = line.split()
        if len(w) == 5 and w[2].isdigit():
            cons[w[0]] = (w[1], int(w[2]), int(w[3]), int(w[4]))
    if cons:
        kt.diag('consumers after the runs with the switch on '
                '(state calls kunwind fallback):')
        kt.diag('\n'.join('  %s %s %d %d %d' % ((n,) + v)
                          for n, v in sorted(cons.items())))
    if args.arch == 'arm64':
        for c in CLIENTS:
            off, on = counts.get(c + '-off'), counts.get(c + '-on')
            if off is None or on is None:
                continue
            via = 'stack_trace_save_tsk' if c == 'stack' else \
                'perf_callchain_kernel'
            st = cons.get(via)
            if st is None or st[0] != 'on' or not st[2]:
                kt.res(True, '%s: switch on skips fewer callers than off'
                       % LABEL[c], skip='kunwind did not answer %s with '
                       'the switch on (%s)' % (via, 'state %s, %d calls, '
                       '%d by kunwind' % st[:3] if st else 'not listed'))
                continue
            lab = '%s: switch on skips fewer callers than off (on %d of %d ' \
                'frames, off %d of %d)' % (LABEL[c], on['skipped'],
                                           on['frames'], off['skipped'],
                                           off['frames'])
            if c == 'stack':
                # sleeping tasks: the frame-record walk misses no caller
                # there, so equal counts are right
                kt.res(on['skipped'] <= off['skipped'], lab.replace(
                    'skips fewer callers', 'skips no more callers'))
            elif off['skipped'] == 0 and on['skipped'] == 0:
                kt.res(True, lab, skip='no caller skipped either way')
            else:
                kt.res(on['skipped'] < off['skipped'], lab)
    if args.min_frames:
        kt.res(total >= args.min_frames, 'frames checked: %d, at least %d'
               % (total, args.min_frames))
    kt.write(args.ktap)
    return 0


# ------------------------------------------------------------- image

def elf_sections(d):
    E = '<' if d[5] == 1 else '>'
    shoff, = struct.unpack_from(E + 'Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(E + 'HHH', d, 0x3a)
    secs = []
    for i in range(shnum):
        secs.append(list(struct.unpack_from(E + 'IIQQQQIIQQ', d,
                                            shoff + i * shentsize)))
    stro = secs[shstrndx][4]

    def name(o):
        return d[stro + o:d.index(b'\0', stro + o)].decode()
    return E, shoff, shentsize, [(name(s[0]), s) for s in secs]


def elf_symbol(d, want):
    E, _, _, secs = elf_sections(d)
    for _, s in secs:
        if s[1] != 2:    # SHT_SYMTAB
            continue
        stro = secs[s[6]][1][4]
        for off in range(s[4], s[4] + s[5], 24):
            nm, _, _, _, value, _ = struct.unpack_from(E + 'IBBHQQ', d, off)
            if nm and d[stro + nm:d.index(b'\0', stro + nm)] == want:
                return value
    return None


def bzimage_vmlinux(img):
    setup_sects = img[0x1f1] or 4
    off, length = struct.unpack_from('<II', img, 0x248)
    payload = img[(setup_sects + 1) * 512 + off:][:length]
    # (the build appends the uncompressed size after the stream)
    if payload[:2] == b'\x1f\x8b':
        return zlib.decompressobj(31).decompress(payload)
    if payload[:6] == b'\xfd7zXZ\x00':
        return lzma.LZMADecompressor().decompress(payload)
    for magic, tool in ((b'\x28\xb5\x2f\xfd', 'zstd'), (b'\x02\x21\x4c\x18', 'lz4'),
                        (b'BZh', 'bzip2'), (b'\x5d\x00\x00', 'lzma')):
        if payload.startswith(magic):
            if tool == 'lzma':
                return lzma.decompress(payload, format=lzma.FORMAT_ALONE)
            # without the 4-byte size: the tools refuse trailing data
            return subprocess.run([tool, '-dc'], input=payload[:-4],
                                  capture_output=True, check=True).stdout
    raise ValueError('bzImage payload in an unknown format')


def image(args):
    with open(args.dbg, 'rb') as f:
        d = bytearray(f.read())
    with open(args.image, 'rb') as f:
        img = f.read()
    E, shoff, shentsize, secs = elf_sections(d)
    src = None
    if img[0x202:0x206] == b'HdrS':
        img = bzimage_vmlinux(img)
    if img[:4] == b'\x7fELF':
        _, _, _, isecs = elf_sections(img)
        src = {n: s for n, s in isecs}

        def code(name, s):
            t = src.get(name)
            if t is None or t[1] == 8 or t[3] != s[3] or t[5] != s[5]:
                raise ValueError('%s: not in the image at %#x, %#x bytes'
                                 % (name, s[3], s[5]))
            return img[t[4]:t[4] + t[5]]
    elif img[0x38:0x3c] == b'ARM\x64':
        text = elf_symbol(d, b'_text')
        end = elf_symbol(d, b'_end')
        size, = struct.unpack_from('<Q', img, 16)
        if text is None or end is None or size != end - text:
            raise ValueError('Image size %#x is not _end - _text of %s'
                             % (size, args.dbg))

        def code(name, s):
            o = s[3] - text
            if o < 0 or o + s[5] > len(img):
                raise ValueError('%s: outside the Image' % name)
            return img[o:o + s[5]]
    else:
        raise ValueError('%s: neither an arm64 Image nor a bzImage' %
                         args.image)
    n = 0
    for i, (name, s) in enumerate(secs):
        # NOBITS, allocated, executable (code the trim emptied), or the
        # alternatives' table (x86: framecheck.py reads it)
        if s[1] != 8 or not s[5] or not (
                (s[2] & 6) == 6 or name in ('.altinstructions',
                                            '.parainstructions')):
            continue
        body = code(name, s)
        while len(d) % 16:
            d.append(0)
        s[1], s[4] = 1, len(d)    # PROGBITS, at the end of the file
        d += body
        struct.pack_into(E + 'IIQQQQIIQQ', d, shoff + i * shentsize, *s)
        n += 1
    if not n:
        raise ValueError('%s: no code section to fill' % args.dbg)
    with open(args.out, 'wb') as f:
        f.write(d)
    print('%s: %d sections from %s' % (args.out, n, args.image))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('report')
    r.add_argument('log')
    r.add_argument('-k', '--vmlinux', required=True)
    r.add_argument('--module', action='append', default=[])
    r.add_argument('--arch', required=True, choices=('x86_64', 'arm64'))
    r.add_argument('--out', required=True)
    r.add_argument('--ktap', required=True)
    r.add_argument('--title', default='')
    r.add_argument('--min-frames', type=int, default=0)
    i = sub.add_parser('image')
    i.add_argument('dbg')
    i.add_argument('image')
    i.add_argument('out')
    args = ap.parse_args()
    try:
        return report(args) if args.cmd == 'report' else image(args)
    except (OSError, ValueError, RuntimeError,
            subprocess.CalledProcessError) as e:
        print('clients_report.py: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
