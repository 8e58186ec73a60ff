#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse a guest serial log of the kunwind test bed.

Counts KUnit results (KTAP printed by the kernel), guest-side checks
(lines "kuw-guest: ok|not ok ..."), and turns every sign of trouble into a
failure: a failed test, a suite KUnit registered that never reported, a
plan ("1..N") with fewer results, a kernel WARNING/BUG/oops/KASAN/UBSAN/
lockdep report, a panic, or a guest that never printed "kuw-guest: done"
(crash or timeout).

    ktap.py LOG [--quiet]

Prints one line per failure and, last, "guest: P passed, F failed, S skipped".
Exit status: 0 if nothing failed, 1 otherwise.
"""
import argparse
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(?P<indent>\s*)(?P<ok>ok|not ok)\b\s*(?P<num>\d+)?\s*-?\s*'
                    r'(?P<name>[^#]*?)\s*(?:#\s*(?P<dir>.*))?$')
PLAN = re.compile(r'^(?P<indent>\s*)1\.\.(?P<n>\d+)\s*$')
SUBTEST = re.compile(r'^(?P<indent>\s*)# Subtest: (?P<name>\S+)')
GUEST = re.compile(r'kuw-guest: (?P<rest>.*)$')

# Kernel reports that fail a run.  Each is matched on the message text
# (timestamp stripped).
PROBLEMS = [
    r'^WARNING: ',
    r'^BUG: ',
    r'^Oops: ',
    r'^general protection fault',
    r'^kernel BUG at',
    r'^Kernel panic',
    r'^UBSAN: ',
    r'^INFO: (task .* blocked|rcu_|possible|lockdep)',
    r'^watchdog: ',
    r'^list_(add|del) corruption',
    r'^kobject: .* is not initialized',
    r'^Unable to handle kernel',
    r'^unchecked MSR access error',
]
PROBLEM = re.compile('|'.join('(?:%s)' % p for p in PROBLEMS))


def indent_of(s):
    return len(s.expandtabs(8)) // 4


def parse(lines):
    failures = []
    passed = failed = skipped = 0
    results = []      # (depth, status, name, lineno) for KUnit output
    plans = []        # (depth, n, index into results when seen)
    guest_suites = []
    reported_suites = set()
    done = False
    started = False
    problems = []

    for no, raw in enumerate(lines, 1):
        line = raw.rstrip('\n')
        g = GUEST.search(line)
        if g:
            rest = g.group('rest')
            if rest == 'done':
                done = True
            elif rest == 'start':
                started = True
            elif rest.startswith('suite '):
                guest_suites.append(rest[6:].strip())
            else:
                m = RESULT.match(rest)
                if m and not m.group('indent'):
                    d = (m.group('dir') or '').strip()
                    name = m.group('name').strip() or '(unnamed)'
                    if d.upper().startswith('SKIP'):
                        skipped += 1
                    elif m.group('ok') == 'ok':
                        passed += 1
                    else:
                        failed += 1
                        failures.append('guest: not ok %s' % name)
            continue
        msg = TS.sub('', line, count=1)
        if PROBLEM.search(msg) and TS.match(line):
            problems.append('kernel (log line %d): %s' % (no, msg.strip()))
            continue
        m = RESULT.match(msg)
        if m and TS.match(line):
            results.append((indent_of(m.group('indent')),
                            m.group('ok'), (m.group('name') or '').strip(),
                            (m.group('dir') or '').strip(), no))
            continue
        m = PLAN.match(msg)
        if m and TS.match(line):
            plans.append((indent_of(m.group('indent')), int(m.group('n')),
                          len(results)))

    # Leaves: a result is a parent when the result just before it is deeper
    # (its children).  Count leaves; parents that failed without any failing
    # child (suite init errors) count as failures too.
    for i, (depth, ok, name, d, no) in enumerate(results):
        if depth == 0:
            reported_suites.add(name)
        has_children = i > 0 and results[i - 1][0] > depth
        if has_children:
            if ok == 'not ok':
                child_failed = False
                j = i - 1
                while j >= 0 and results[j][0] > depth:
                    if results[j][1] == 'not ok':
                        child_failed = True
                    j -= 1
                if not child_failed:
                    failed += 1
                    failures.append('kunit: not ok %s (line %d)' % (name, no))
            continue
        if d.upper().startswith('SKIP'):
            skipped += 1
        elif ok == 'ok':
            passed += 1
        else:
            failed += 1
            failures.append('kunit: not ok %s (line %d)' % (name, no))

    # Plans: the results at depth d following a plan, until a shallower
    # result closes it, must number N.
    for depth, n, start in plans:
        got = 0
        for r in results[start:]:
            if r[0] < depth:
                break
            if r[0] == depth:
                got += 1
        if got < n:
            failed += 1
            failures.append('kunit: plan 1..%d at depth %d has only %d results'
                            % (n, depth, got))

    for s in guest_suites:
        if s not in reported_suites:
            failed += 1
            failures.append('kunit: suite %s registered but never reported' % s)

    for p in problems:
        failed += 1
        failures.append(p)
    if not started:
        failed += 1
        failures.append('guest: /init never started')
    elif not done:
        failed += 1
        failures.append('guest: did not finish (crash, hang or timeout)')
    return passed, failed, skipped, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args()
    with open(a.log, errors='replace') as f:
        lines = f.readlines()
    p, fl, s, failures = parse(lines)
    if not a.quiet:
        for x in failures:
            print('FAIL ' + x)
    print('guest: %d passed, %d failed, %d skipped' % (p, fl, s))
    return 1 if fl else 0


if __name__ == '__main__':
    sys.exit(main())
