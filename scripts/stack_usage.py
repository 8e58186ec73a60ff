#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kunwind's deepest stack path from an entry point (docs/stack.md).

Reads the call graphs with frame sizes that gcc writes next to each object
with -fcallgraph-info=su (the .ci files of a build with KUW_STACK_INFO=1,
see Kbuild) and prints, for each entry function given, the call path
under it whose frames add up to the most, one line per function:
"<bytes> <function> (<qualifiers>)", then "total <bytes>".  Functions
outside the files read (the kernel's) count 0 and are named with
"external"; a call cycle is reported and cut (each function at most once
on a path), a frame gcc calls "dynamic" (not bounded) is named.

Usage: stack_usage.py [--max BYTES] DIR ENTRY...
Exit 1 when an entry is not found or, with --max, a total is over BYTES.
"""
import os
import re
import sys

NODE = re.compile(r'^node: \{ title: "(?P<t>[^"]*)" label: "(?P<l>[^"]*)"'
                  r'(?P<ext> shape : ellipse)?')
EDGE = re.compile(r'^edge: \{ sourcename: "(?P<s>[^"]*)" '
                  r'targetname: "(?P<d>[^"]*)"')
SIZE = re.compile(r'\\n(?P<n>\d+) bytes \((?P<q>[^)]*)\)')


def read(top):
    size, qual, name, calls = {}, {}, {}, {}
    for d, _, files in os.walk(top):
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
    return size, qual, name, calls


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
