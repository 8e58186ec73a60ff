#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the test bed's result pipeline, no QEMU needed:
scripts/ktap.py on made-up serial logs, and the guest's KTAP helpers
(scripts/init/ktap.sh, under busybox sh when installed, else sh) feeding it.

Prints "ok NAME" / "not ok NAME" per test and "N passed, N failed", like
the unit runner (scripts/check.sh adds these up).
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'scripts'))
import ktap  # noqa: E402

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def run(text, *args):
    """ktap.py on text as a serial log: (exit status, output lines)."""
    with tempfile.NamedTemporaryFile('w', suffix='.log', delete=False) as f:
        f.write(text)
    try:
        p = subprocess.run([sys.executable, os.path.join(REPO, 'scripts',
                                                         'ktap.py')]
                           + list(args) + [f.name], capture_output=True,
                           text=True)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout.splitlines()


def guest(*lines):
    return ''.join('kuw-guest: %s\n' % x for x in lines)


def kern(*lines):
    return ''.join('[    1.%06d] %s\n' % (i, x) for i, x in enumerate(lines))


SUITE = kern('KTAP version 1', '1..0',
             '    KTAP version 1', '    # Subtest: s1', '    1..2',
             '    ok 1 a',
             '        KTAP version 1', '        # Subtest: b',
             '        ok 1 p0', '        ok 2 p1 # SKIP no',
             '    # b: pass:1 fail:0 skip:1 total:2',
             '    ok 2 b', 'ok 1 s1')
GUEST = guest('KTAP version 1', '1..3', '# kunit suite registered: s1',
              'ok 1 insmod kunwind.ko',
              '    # Subtest: hook.sh', '    KTAP version 1', '    1..2',
              '    # some detail', '    ok 1 first',
              '    ok 2 second # SKIP why', 'ok 2 hook.sh',
              'ok 3 rmmod kunwind')


def expect(rc, out, summary, code):
    assert out[-1] == summary, (out[-1], summary, out)
    assert rc == code, (rc, code, out)


@test
def ktap_counts_leaves_of_kunit_and_guest():
    rc, out = run(SUITE + GUEST)
    # kunit: a, p0 (p1 skipped); guest: insmod, first, rmmod (second skipped)
    expect(rc, out, '5 passed, 0 failed, 2 skipped', 0)
    assert 'guest:     ok 1 first' in out, out
    assert 'kunit:     # Subtest: s1' in out, out


@test
def ktap_guest_that_never_finished_fails():
    rc, out = run(SUITE + GUEST.split('ok 2 hook.sh')[0].rsplit('\n', 1)[0]
                  + '\n')
    assert rc == 1
    assert any('did not finish' in x for x in out), out
    assert any('hook.sh' in x and 'no result line' in x for x in out), out


@test
def ktap_no_guest_output_fails():
    rc, out = run(SUITE)
    assert rc == 1 and any('never started' in x for x in out), out


@test
def ktap_failed_leaf_with_its_context():
    log = SUITE + GUEST.replace('    ok 1 first', '    not ok 1 first') \
        .replace('ok 2 hook.sh', 'not ok 2 hook.sh')
    rc, out = run(log)
    expect(rc, out, '4 passed, 1 failed, 2 skipped', 1)
    i = out.index('FAIL guest: not ok hook.sh > first (line 22)')
    assert out[i + 1] == '    | # some detail', out


@test
def ktap_parent_failure_without_failed_child_counts_once():
    rc, out = run(SUITE + GUEST.replace('ok 2 hook.sh', 'not ok 2 hook.sh'))
    expect(rc, out, '5 passed, 1 failed, 2 skipped', 1)


@test
def ktap_kunit_suite_init_failure():
    log = kern('    # failed to initialize (-12)', 'not ok 2 s2') + \
        SUITE + GUEST
    rc, out = run(log)
    expect(rc, out, '5 passed, 1 failed, 2 skipped', 1)


@test
def ktap_kunit_plan_short():
    log = SUITE.replace('    1..2', '    1..3') + GUEST
    rc, out = run(log)
    assert rc == 1 and any('plan 1..3 but 2 results' in x for x in out), out


@test
def ktap_kunit_suite_cut_by_a_crash():
    log = kern('    KTAP version 1', '    # Subtest: s0', '    1..2',
               '    ok 1 a') + SUITE + GUEST
    rc, out = run(log)
    assert rc == 1 and any('s0' in x and 'never reported' in x
                           for x in out), out


@test
def ktap_registered_suite_never_reported():
    log = SUITE + GUEST.replace('# kunit suite registered: s1',
                                '# kunit suite registered: s1\n'
                                'kuw-guest: # kunit suite registered: s9')
    rc, out = run(log)
    assert rc == 1 and 'FAIL kunit: suite s9 registered but never reported' \
        in out, out


@test
def ktap_guest_numbering_and_extra_results():
    rc, out = run(SUITE + GUEST.replace('ok 3 rmmod', 'ok 4 rmmod'))
    assert rc == 1 and any('numbered 4, expected 3' in x for x in out), out
    rc, out = run(SUITE + GUEST + guest('ok 4 more'))
    assert rc == 1 and any('plan 1..3 but 4 results' in x for x in out), out


@test
def ktap_lost_line_is_one_failure_not_a_cascade():
    log = guest('KTAP version 1', '1..5', 'ok 1 a', 'ok 3 c', 'ok 4 d',
                'ok 5 e')
    rc, out = run(log)
    fails = [x for x in out if x.startswith('FAIL')]
    # the gap, and the guest's plan of 5 with 4 results
    assert len(fails) == 2, out
    assert any('numbered 3, expected 2' in x for x in fails), out


@test
def ktap_kernel_reports_fail():
    for msg in ('WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x10',
                'BUG: KASAN: slab-out-of-bounds in f+0x1/0x10',
                'UBSAN: array-index-out-of-bounds in x.c:2:3',
                'Kernel panic - not syncing: x'):
        rc, out = run(SUITE + GUEST + kern(msg))
        assert rc == 1 and out[-2].startswith('FAIL kernel'), (msg, out)


@test
def ktap_allow_oops():
    log = SUITE + GUEST + kern('BUG: kernel NULL pointer dereference, '
                               'address: 0000000000000000',
                               'Oops: 0002 [#1] SMP')
    rc, _ = run(log)
    assert rc == 1
    rc, out = run(log, '--allow-oops')
    expect(rc, out, '5 passed, 0 failed, 2 skipped', 0)
    rc, out = run(log + kern('WARNING: at x'), '--allow-oops')
    assert rc == 1
    # KASAN's form of a NULL write (the debug profile)
    log = SUITE + GUEST + kern('general protection fault, probably for '
                               'non-canonical address 0xdffffc0000000000: '
                               '0000 [#1] PREEMPT SMP KASAN')
    rc, _ = run(log)
    assert rc == 1
    rc, out = run(log, '--allow-oops')
    expect(rc, out, '5 passed, 0 failed, 2 skipped', 0)
    # arm64's oops
    log = SUITE + GUEST + kern('Unable to handle kernel NULL pointer '
                               'dereference at virtual address '
                               '0000000000000000')
    rc, _ = run(log)
    assert rc == 1
    rc, out = run(log, '--allow-oops')
    expect(rc, out, '5 passed, 0 failed, 2 skipped', 0)


@test
def ktap_diag_of_named_results():
    log = guest('KTAP version 1', '1..3', '# $ cat tables', '# vmlinux x',
                'ok 1 tables', '# one', 'ok 2 rules a', '# two',
                'not ok 3 rules b')
    rc, out = run(log, '--diag', 'rules')
    assert out == ['one', 'two'], out
    rc, out = run(log, '--diag', 'tables')
    assert out == ['$ cat tables', 'vmlinux x'], out


@test
def ktap_guest_lines_glued_to_kernel_output():
    # The console is shared: a kernel message may precede a guest line.
    log = SUITE + GUEST.replace('kuw-guest: ok 3',
                                '[    2.0] random: crng init done'
                                'kuw-guest: ok 3')
    rc, out = run(log)
    expect(rc, out, '5 passed, 0 failed, 2 skipped', 0)


@test
def ktap_plain_host_file():
    with tempfile.NamedTemporaryFile('w', suffix='.ktap', delete=False) as f:
        f.write('KTAP version 1\n1..2\nok 1 build\nok 2 dkms # SKIP no\n')
    try:
        rc, out = run(SUITE + GUEST, '--ktap', f.name)
    finally:
        os.unlink(f.name)
    expect(rc, out, '6 passed, 0 failed, 3 skipped', 0)
    assert out[0] == 'host: ok 1 build', out


def shell():
    bb = shutil.which('busybox')
    return [bb, 'sh'] if bb else ['sh']


@test
def ktap_sh_helpers_make_what_the_parser_reads():
    """scripts/init/ktap.sh as /init uses it: prefix, checks, a nested
    hook with stray output and a failure, a hook that exits non-zero."""
    with tempfile.TemporaryDirectory() as d:
        hook = os.path.join(d, 'hook.sh')
        with open(hook, 'w') as f:
            f.write('. %s/scripts/init/ktap.sh\nktap_plan 3\n'
                    'echo "stray output"\nok "one"\n'
                    'skip "two" "not here"\n'
                    'diag "why three failed"\nnotok "three"\n' % REPO)
        bad = os.path.join(d, 'bad.sh')
        with open(bad, 'w') as f:
            f.write('. %s/scripts/init/ktap.sh\nktap_plan 1\nok "fine"\n'
                    'exit 3\n' % REPO)
        init = ('KTAP_PREFIX="kuw-guest: "\n. %s/scripts/init/ktap.sh\n'
                'ktap_plan 5\ncheck "true works" true\n'
                'check "false fails" sh -c "echo no; exit 1"\n'
                'ktap_subtest hook.sh sh %s\nktap_subtest bad.sh sh %s\n'
                'ok "after # SKIP nothing"\n' % (REPO, hook, bad))
        env = dict(os.environ, TMPDIR=d)
        p = subprocess.run(shell() + ['-c', init], capture_output=True,
                           text=True, env=env, cwd=d)
        text = p.stdout
    assert 'kuw-guest:     # stray output\n' in text, text
    rc, out = run(text)
    # passed: true works, one, fine; skipped: two, after; failed: false
    # fails, three, bad.sh (it exited 3: no failed child)
    assert rc == 1, out
    want = ['FAIL guest: not ok false fails (line 5)', '    | # no',
            'FAIL guest: not ok hook.sh > three (line 13)',
            '    | # why three failed',
            'FAIL guest: not ok bad.sh (line 21)',
            '    | # bad.sh: exit status 3, 0 failed',
            '3 passed, 3 failed, 2 skipped']
    assert out[-7:] == want, out


def main():
    passed = failed = 0
    for t in TESTS:
        try:
            t()
        except Exception as e:  # noqa: B902  any error fails the test
            failed += 1
            print('not ok %s' % t.__name__)
            print('  %s' % (e,))
            continue
        passed += 1
        print('ok %s' % t.__name__)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
