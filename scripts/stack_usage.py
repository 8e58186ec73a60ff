#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kunwind's deepest stack path from an entry point (README, "Stack use").

Reads the call graphs with frame sizes that gcc writes next to each object
with -fcallgraph-info=su (the .ci files of a build with KUW_STACK_INFO=1,
see Kbuild) and prints, for each entry function given, the call path
under it whose frames add up to the most, one line per function:
"<bytes> <function> (<qualifiers>)", then "total <bytes>".  DIR may be
several directories joined by ":" (kunwind's objects, and the kernel's
that define the functions kunwind calls, see "kbuild" below): a call to a
function defined in any of them counts its frame and goes on into it; a
static call's trampoline (__SCT__kuw_sc_FN, module/kuw_call.h) is a jump
to FN.  Functions outside the files read count 0 and are named with
"external"; a call cycle is reported and cut (each function at most once
on a path), a frame gcc calls "dynamic" (not bounded) is named.

Usage: stack_usage.py [--max BYTES] DIR[:DIR...] ENTRY...
Exit 1 when an entry is not found or, with --max, a total is over BYTES.

       stack_usage.py kbuild KDIR OUT OBJ...
Compiles each kernel object OBJ (e.g. arch/x86/kernel/unwind_orc.o) of
the kernel build KDIR again, with the command line its build used (its
.cmd file) plus -fcallgraph-info=su, into OUT (KDIR is not touched); an
object the build does not have is skipped.  Exit 1 when a compile fails.
"""
import os
import re
import shlex
import subprocess
import sys

NODE = re.compile(r'^node: \{ title: "(?P<t>[^"]*)" label: "(?P<l>[^"]*)"'
                  r'(?P<ext> shape : ellipse)?')
EDGE = re.compile(r'^edge: \{ sourcename: "(?P<s>[^"]*)" '
                  r'targetname: "(?P<d>[^"]*)"')
SIZE = re.compile(r'\\n(?P<n>\d+) bytes \((?P<q>[^)]*)\)')


def read(tops):
    size, qual, name, calls = {}, {}, {}, {}
    for d, _, files in (w for top in tops.split(':') for w in os.walk(top)):
        for f in files:
            if not f.endswith('.ci'):
                continue
            with open(os.path.join(d, f), encoding='utf-8') as fh:
                for line in fh:
                    m = NODE.match(line)
                    if m:
                        t = m.group('t')
                        name[t] = m.group('l').split('\\n')[0]
                        s = SIZE.search(m.group('l'))
                        if s and not m.group('ext'):
                            size[t] = int(s.group('n'))
                            qual[t] = s.group('q')
                        continue
                    m = EDGE.match(line)
                    if m:
                        calls.setdefault(m.group('s'), set()).add(m.group('d'))
    # a static call's trampoline jumps to its function (x86; kuw_call.h)
    for t in list(name):
        if t.startswith('__SCT__kuw_sc_') and t not in size:
            calls.setdefault(t, set()).add(t[len('__SCT__kuw_sc_'):])
    return size, qual, name, calls


def kbuild(kdir, out, objs):
    """Compile kernel objects again with -fcallgraph-info=su into out."""
    os.makedirs(out, exist_ok=True)
    status = 0
    for obj in objs:
        cmdf = os.path.join(kdir, os.path.dirname(obj),
                            '.%s.cmd' % os.path.basename(obj))
        if not os.path.exists(cmdf):
            print('%s: not in this kernel build, skipped' % obj)
            continue
        cmd = None
        with open(cmdf, encoding='utf-8') as fh:
            for line in fh:
                m = re.match(r'^(?:saved)?cmd_\S+ := (.*)$', line)
                if m:
                    cmd = m.group(1)
                    break
        if cmd is None:
            print('%s: no command in %s' % (obj, cmdf))
            status = 1
            continue
        # the compiler's part: objtool and the like come after " ; "
        argv = shlex.split(cmd.split(' ; ')[0])
        if argv and os.path.basename(argv[0]) == 'ccache':
            argv = argv[1:]
        dst = os.path.join(out, obj.replace('/', '_'))
        new = []
        skip = False
        for a in argv:
            if skip:
                new.append(dst)
                skip = False
            elif a == '-o':
                new.append(a)
                skip = True
            elif a.startswith('-Wp,-MMD,') or a.startswith('-Wp,-MD,'):
                continue
            else:
                new.append(a)
        new.insert(1, '-fcallgraph-info=su')
        r = subprocess.run(new, cwd=kdir, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False)
        if r.returncode:
            sys.stdout.write(r.stdout.decode(errors='replace'))
            print('%s: compile failed' % obj)
            status = 1
    return status


def deepest(t, size, calls, on_path, memo, cycles):
    """(bytes, path) of the deepest path from t; t is on no path yet."""
    if t in memo:
        return memo[t]
    on_path.add(t)
    best = (0, [])
    for d in sorted(calls.get(t, ())):
        if d in on_path:
            cycles.add((t, d))
            continue
        r = deepest(d, size, calls, on_path, memo, cycles)
        if r[0] > best[0] or (r[0] == best[0] and len(r[1]) > len(best[1])):
            best = r
    on_path.discard(t)
    res = (size.get(t, 0) + best[0], [t] + best[1])
    # a result cut by a cycle depends on the path: keep it only when none was
    if not cycles:
        memo[t] = res
    return res


def main():
    args = sys.argv[1:]
    if args and args[0] == 'kbuild':
        if len(args) < 4:
            sys.stderr.write(__doc__)
            return 2
        return kbuild(args[1], args[2], args[3:])
    limit = None
    if len(args) > 1 and args[0] == '--max':
        limit = int(args[1])
        args = args[2:]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    size, qual, name, calls = read(args[0])
    status = 0
    for entry in args[1:]:
        roots = [t for t in name if name[t] == entry and t in size]
        if not roots:
            print('%s: not found in %s' % (entry, args[0]))
            status = 1
            continue
        cycles = set()
        total, path = deepest(roots[0], size, calls, set(), {}, cycles)
        print('deepest path from %s:' % entry)
        for t in path:
            q = qual.get(t)
            print('%6d %s (%s)' % (size.get(t, 0), name.get(t, t),
                                   q if q else 'external'))
        print('total %d%s' % (total, '' if limit is None or total <= limit
                                else ', over the bound of %d' % limit))
        if limit is not None and total > limit:
            status = 1
        for s, d in sorted(cycles):
            print('cycle cut: %s -> %s' % (name.get(s, s), name.get(d, d)))
    return status


if __name__ == '__main__':
    sys.exit(main())
