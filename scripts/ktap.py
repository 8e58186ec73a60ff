#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The test bed's one result parser: KTAP (Documentation/dev-tools/ktap.rst).

Every check of the test bed that runs in a guest reports KTAP:

  - KUnit, printed by the kernel: the timestamped lines of a serial log;
  - the guest's /init (scripts/init/*.sh) and the checks it runs
    (scripts/guest/*.sh, nested as subtests): one KTAP document whose lines
    are prefixed "kuw-guest: " on the serial console, so that they stand
    out from kernel messages (see scripts/init/ktap.sh);
  - host-side steps of a script (make check-stock's builds): a plain KTAP
    file (--ktap FILE).

Leaves are counted (a parent's result is its children's); a parent that
failed with no failing child (a KUnit suite whose init failed, a guest check
that exited non-zero) counts as one failure.  Also failures: a plan ("1..N")
with fewer results; in the guest's and host files' documents (strict),
a plan with more results or results numbered out of order; a subtest that
never got its result line; a KUnit suite the guest saw registered (its
"# kunit suite registered: NAME" lines) that never reported; a guest
document that never started or never finished (its plan is its end);
and every kernel WARNING/BUG/oops/KASAN/KFENCE/UBSAN/lockdep/SLUB report,
RCU stall or panic.

    ktap.py [--quiet] [--allow-oops] [--ktap FILE]... [LOG]...
    ktap.py --diag NAME LOG

Prints the results in log order (indented as nested; "kunit:" from the
kernel, "guest:" from /init, "host:" from --ktap files), then one
"FAIL ..." line per failure with the lines that preceded its result,
and last "P passed, F failed, S skipped".  Exit status 0 if nothing
failed, 1 otherwise.

--diag NAME prints only the diagnostic lines of the guest results named
NAME or "NAME ..." (make demo shows its sections with it).
--allow-oops: an oops is expected (make demo); "BUG:", "Oops:" and
"general protection fault" (KASAN's NULL dereference) lines (arm64:
"Unable to handle kernel ...", "Internal error: ...") do not fail the
run.

scripts/oops_traces.py reads serial logs with kernel_messages() below.
"""
import argparse
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
GUEST = re.compile(r'kuw-guest: ?(?P<rest>.*)$')

VERSION = re.compile(r'^(?P<ind>\s*)K?TAP version \d+\s*$')
PLAN = re.compile(r'^(?P<ind>\s*)1\.\.(?P<n>\d+)\s*$')
RESULT = re.compile(r'^(?P<ind>\s*)(?P<ok>ok|not ok)\b(?:\s+(?P<num>\d+))?'
                    r'(?:\s+-)?\s*(?P<name>[^#]*?)\s*(?:#\s*(?P<dir>.*))?$')
SUBTEST = re.compile(r'^(?P<ind>\s*)# Subtest: (?P<name>.*\S)\s*$')
DIAG = re.compile(r'^(?P<ind>\s*)#\s?(?P<text>.*)$')
REGISTERED = re.compile(r'^kunit suite registered: (?P<name>\S+)')

# Kernel reports that fail a run, matched on the message text (timestamp
# stripped).
PROBLEMS = [
    r'^WARNING: ',
    r'^BUG: ',
    r'^Oops: ',
    r'^general protection fault',
    r'^kernel BUG at',
    r'^Kernel panic',
    r'^UBSAN: ',
    # (kuw_hung is kunit/hung_payload.ko's task, held in D state on
    # purpose for the hung-task detector: scripts/guest/hung_task.sh)
    r'^INFO: (task (?!kuw_hung:).* blocked|rcu_|possible|lockdep)',
    # lockdep on a lock it was never told of
    r'^INFO: trying to register non-static key',
    # RCU stalls ("rcu: INFO: rcu_sched detected stalls on CPUs/tasks:")
    r'^rcu: INFO: ',
    # SLUB's own checks (slub_debug, /sys/kernel/slab/*/validate):
    # "BUG kmalloc-192 (Not tainted): Poison overwritten", and the counts
    # a validation finds wrong
    r'^BUG [^ :]+ \([^)]*\): ',
    r'^SLUB:? .*counted but counter=',
    r'^PANIC: ',
    r'^Internal error: ',
    r'Watchdog detected hard LOCKUP',
    r'^watchdog: ',
    r'^list_(add|del) corruption',
    r'^kobject: .* is not initialized',
    r'^Unable to handle kernel',
    r'^unchecked MSR access error',
    # kunwind's own cross-checks at load (what the code says against
    # kallsyms, ...)
    r'^kunwind: .* disagree\b',
]
PROBLEM = re.compile('|'.join('(?:%s)' % p for p in PROBLEMS))
# (KASAN's inline checks turn a NULL write into a general protection fault
# on the shadow address: the debug profile's form of the same oops)
OOPS = re.compile(r'^(?:BUG: |Oops: |general protection fault|'
                  r'Unable to handle kernel |Internal error: )')


def indent(s):
    return len(s.expandtabs(8))


class Result:
    def __init__(self, ok, num, name, directive, lineno, diag):
        self.ok = ok
        self.num = num
        self.name = name
        self.directive = directive
        self.lineno = lineno
        self.diag = diag
        self.context = []        # lines since the previous result
        self.children = None     # the Frame of its subtests, if any

    @property
    def skipped(self):
        return self.directive.upper().startswith('SKIP')


class Frame:
    """One KTAP (sub)document: version, plan, results at one indentation."""

    def __init__(self, ind, lineno):
        self.ind = ind
        self.lineno = lineno
        self.name = None
        self.version = False
        self.plan = None
        self.results = []
        self.next_num = 1        # the number the next result should have
        self.diag = []           # diagnostics since the last result
        self.alldiag = []        # all its diagnostic lines

    def fresh(self):
        return not self.results


class Stream:
    """A KTAP stream: one or more top-level documents, nested subtests."""

    def __init__(self, tag, strict):
        self.tag = tag
        self.strict = strict
        self.docs = []
        self.stack = []
        self.orphans = []        # subtests that never got their result line
        self.display = []        # (lineno, text) for the listing
        self.misnumbered = []
        self.recent = []         # lines since the last result

    def _push(self, ind, no):
        f = Frame(ind, no)
        if not self.stack:
            self.docs.append(f)
        self.stack.append(f)
        return f

    def _orphan(self, f):
        """A subtest whose parent result never came."""
        if f in self.docs:
            self.docs.remove(f)
        self.orphans.append(f)

    def _close_deeper(self, ind):
        while self.stack and self.stack[-1].ind > ind:
            self._orphan(self.stack.pop())

    def _frame_for_header(self, ind, no, what):
        """The frame a version/Subtest/plan line at ind belongs to."""
        self._close_deeper(ind)
        top = self.stack[-1] if self.stack else None
        if top is not None and top.ind == ind and top.fresh() and \
                getattr(top, what) in (None, False):
            return top
        if top is not None and top.ind == ind:
            # Same level, but that frame already has results: it ended
            # (a top-level document, or a subtest without a result line).
            self.stack.pop()
            if self.stack:
                self._orphan(top)
        return self._push(ind, no)

    def feed(self, line, no):
        m = VERSION.match(line)
        if m:
            f = self._frame_for_header(indent(m.group('ind')), no, 'version')
            f.version = True
            return
        m = SUBTEST.match(line)
        if m:
            f = self._frame_for_header(indent(m.group('ind')), no, 'name')
            f.name = m.group('name')
            self.display.append((no, line))
            return
        m = PLAN.match(line)
        if m:
            f = self._frame_for_header(indent(m.group('ind')), no, 'plan')
            f.plan = int(m.group('n'))
            return
        m = RESULT.match(line)
        if m:
            self._result(m, line, no)
            return
        m = DIAG.match(line)
        if m:
            ind = indent(m.group('ind'))
            f = None
            for fr in reversed(self.stack):
                if fr.ind <= ind:
                    f = fr
                    break
            if f is None and self.stack:
                f = self.stack[-1]
            if f is None:
                f = self._push(ind, no)
            f.diag.append(m.group('text'))
            f.alldiag.append(m.group('text'))
        # anything else: an unknown line, allowed; kept as context only
        self.recent.append(line.strip())
        del self.recent[:-12]

    def _result(self, m, line, no):
        ind = indent(m.group('ind'))
        children = None
        while self.stack and self.stack[-1].ind > ind:
            f = self.stack.pop()
            if children is not None:
                self._orphan(children)
            children = f
        if children is not None and children in self.docs:
            self.docs.remove(children)
        top = self.stack[-1] if self.stack else None
        if top is None or top.ind < ind:
            top = self._push(ind, no)
        num = int(m.group('num')) if m.group('num') else None
        r = Result(m.group('ok') == 'ok', num, m.group('name').strip(),
                   (m.group('dir') or '').strip(), no, top.diag)
        top.diag = []
        r.context, self.recent = self.recent, []
        if children is not None:
            r.children = children
            if not children.name:
                children.name = r.name
        if self.strict and num is not None and num != top.next_num:
            # One failure per gap (a lost line), then count on from it.
            self.misnumbered.append((r, top.next_num))
        top.next_num = (num if num is not None else top.next_num) + 1
        top.results.append(r)
        self.display.append((no, line))

    def finish(self):
        while len(self.stack) > 1:
            self._orphan(self.stack.pop())
        self.stack = []


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []       # (text, diagnostic lines)

    def fail(self, text, diag=()):
        self.failed += 1
        self.failures.append((text, list(diag)))


def count_frame(frame, tally, tag, strict, path, lenient_plan=False):
    """Count a frame's leaves and check its plan; True if anything failed."""
    bad = False
    for r in frame.results:
        name = path + [r.name or '(unnamed)']
        sub = r.children
        if sub is not None and sub.results:
            child_bad = count_frame(sub, tally, tag, strict, name)
            if not r.ok and not child_bad:
                tally.fail('%s: not ok %s (line %d)'
                           % (tag, ' > '.join(name), r.lineno), r.context)
                child_bad = True
            bad = bad or child_bad
            continue
        if r.skipped:
            tally.skipped += 1
        elif r.ok:
            tally.passed += 1
        else:
            tally.fail('%s: not ok %s (line %d)'
                       % (tag, ' > '.join(name), r.lineno), r.context)
            bad = True
    if frame.plan is not None:
        got = len(frame.results)
        short = got < frame.plan
        extra = strict and not lenient_plan and got > frame.plan
        if short or extra:
            where = ' > '.join(path) if path else 'document'
            tally.fail('%s: %s: plan 1..%d but %d results (line %d)'
                       % (tag, where, frame.plan, got, frame.lineno))
            bad = True
    return bad


def kernel_messages(lines):
    """(line number, message) of each kernel line, timestamp stripped."""
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip('\n')
        if TS.match(line) and not GUEST.search(line):
            yield no, TS.sub('', line, count=1)


def parse_serial(lines, tally, allow_oops=False):
    """A serial log: KUnit from the kernel, the guest's KTAP, kernel reports."""
    kern = Stream('kunit', strict=False)
    guest = Stream('guest', strict=True)
    problems = []
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip('\n')
        g = GUEST.search(line)
        if g:
            guest.feed(g.group('rest'), no)
            continue
        if not TS.match(line):
            continue
        msg = TS.sub('', line, count=1)
        if PROBLEM.search(msg):
            if not (allow_oops and OOPS.search(msg)):
                problems.append('kernel (log line %d): %s' % (no, msg.strip()))
            continue
        kern.feed(msg, no)
    kern.finish()
    guest.finish()

    reported = set()
    for d in kern.docs:
        count_frame(d, tally, 'kunit', False, [])
        reported.update(r.name for r in d.results)
    for f in kern.orphans:
        count_frame(f, tally, 'kunit', False, [f.name or '?'])
        tally.fail('kunit: %s started at line %d and never reported'
                   % (f.name or 'a subtest', f.lineno))

    if not guest.docs:
        tally.fail('guest: /init never started (no KTAP from it)')
    registered = []
    for i, d in enumerate(guest.docs):
        for t in d.alldiag:
            m = REGISTERED.match(t)
            if m:
                registered.append(m.group('name'))
        done = d.plan is not None and len(d.results) >= d.plan
        if i == len(guest.docs) - 1 and not done:
            # The guest's own plan is its end: fewer results mean it died.
            d_plan, d.plan = d.plan, None
            count_frame(d, tally, 'guest', True, [])
            tally.fail('guest: did not finish (crash, hang or timeout): '
                       '%d of %s results' % (len(d.results),
                                              d_plan if d_plan is not None
                                              else '(no plan)'))
        else:
            count_frame(d, tally, 'guest', True, [])
    for f in guest.orphans:
        count_frame(f, tally, 'guest', True, [f.name or '?'])
        tally.fail('guest: subtest %s (line %d) has no result line'
                   % (f.name or '?', f.lineno))
    for r, want in guest.misnumbered:
        tally.fail('guest: "%s" numbered %d, expected %d (line %d)'
                   % (r.name, r.num, want, r.lineno))
    for s in registered:
        if s not in reported:
            tally.fail('kunit: suite %s registered but never reported' % s)
    for p in problems:
        tally.fail(p)
    return kern, guest


def parse_plain(lines, tally, tag='host'):
    """A plain KTAP file (host-side results)."""
    st = Stream(tag, strict=True)
    for no, raw in enumerate(lines, 1):
        st.feed(raw.rstrip('\n'), no)
    st.finish()
    if not st.docs:
        tally.fail('%s: no KTAP results' % tag)
    for d in st.docs:
        count_frame(d, tally, tag, True, [])
    for f in st.orphans:
        count_frame(f, tally, tag, True, [f.name or '?'])
        tally.fail('%s: subtest %s (line %d) has no result line'
                   % (tag, f.name or '?', f.lineno))
    for r, want in st.misnumbered:
        tally.fail('%s: "%s" numbered %d, expected %d (line %d)'
                   % (tag, r.name, r.num, want, r.lineno))
    return st


def iter_results(frame):
    for r in frame.results:
        yield r
        if r.children is not None:
            yield from iter_results(r.children)


def read(path):
    with open(path, errors='replace') as f:
        return f.readlines()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('logs', nargs='*', metavar='LOG', help='serial log')
    ap.add_argument('--ktap', action='append', default=[], metavar='FILE',
                    help='plain KTAP file (host-side results)')
    ap.add_argument('--quiet', action='store_true',
                    help='failures and the summary only')
    ap.add_argument('--allow-oops', action='store_true',
                    help='an oops is expected (make demo)')
    ap.add_argument('--diag', metavar='NAME',
                    help="print the diagnostics of the guest's results NAME")
    a = ap.parse_args(argv)
    if not a.logs and not a.ktap:
        ap.error('nothing to parse')

    tally = Tally()
    if a.diag is not None:
        for log in a.logs:
            _, guest = parse_serial(read(log), tally, True)
            for d in guest.docs + guest.orphans:
                for r in iter_results(d):
                    if r.name == a.diag or r.name.startswith(a.diag + ' '):
                        for t in r.diag:
                            print(t)
        return 0

    listing = []
    for path in a.ktap:
        st = parse_plain(read(path), tally)
        listing += ['host: ' + t for _, t in sorted(st.display)]
    for log in a.logs:
        kern, guest = parse_serial(read(log), tally, a.allow_oops)
        shown = [(no, 'kunit: ' + t) for no, t in kern.display] + \
                [(no, 'guest: ' + t) for no, t in guest.display]
        listing += [t for _, t in sorted(shown)]
    if not a.quiet:
        for t in listing:
            print(t)
    for text, diag in tally.failures:
        print('FAIL ' + text)
        for t in diag[-12:]:
            print('    | ' + t)
    print('%d passed, %d failed, %d skipped'
          % (tally.passed, tally.failed, tally.skipped))
    return 1 if tally.failed else 0


if __name__ == '__main__':
    sys.exit(main())
