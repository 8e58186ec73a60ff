#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pull call traces out of a guest serial log.

    oops_traces.py LOG            kernel's and kunwind's traces side by side
    oops_traces.py LOG --kernel   the kernel's trace, one frame a line
    oops_traces.py LOG --kunwind  kunwind's trace, one frame a line

The kernel's trace is, on x86_64, the faulting function (RIP) and the
first "Call Trace:" block of an oops, without its "?" lines (stale
addresses found on the stack, not frames); on arm64 the first "Call
trace:" block, which starts at the faulting pc itself (frame records from
the oops' pt_regs; 6.13+ marks each frame's source, " (P)", which is
dropped).  kunwind's is the block that follows
"kunwind: Call Trace:", and its "end of trace:" line says why it stopped.
Test results are not read here: scripts/ktap.py parses those (and gives
this script its reader of serial logs).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import kernel_messages  # noqa: E402  the test bed's log reader


def messages(lines):
    return (m for _, m in kernel_messages(lines))


def kernel_trace(msgs):
    """The faulting function (from RIP), then the Call Trace frames; on
    arm64 the "Call trace:" frames (the first is the faulting pc)."""
    frames, inside = [], False
    for m in msgs:
        if not inside:
            r = re.match(r'^RIP: 0010:(.*\S)', m)
            if r and not frames:
                frames.append(r.group(1))
            if m.strip() in ('Call Trace:', 'Call trace:'):
                inside = True
            continue
        s = m.strip()
        if s in ('<TASK>', '<IRQ>', '</IRQ>'):
            continue
        if s == '</TASK>' or not m.startswith(' '):
            break
        if s.startswith('? '):
            continue    # a stale address seen on the stack, not a frame
        # arm64 6.13+ marks where a frame's address came from: " (P)" the
        # pc of a pt_regs, " (L)" its link register, " (K)"/" (F)" the
        # kretprobe/fgraph return address it stands for; not part of it.
        s = re.sub(r' \([A-Z]\)$', '', s)
        frames.append(s)
    return frames


def kunwind_end(msgs):
    """kunwind's closing line: why the walk stopped."""
    for m in msgs:
        r = re.match(r'^kunwind: (end of trace: .*)', m)
        if r:
            return r.group(1)
    return ''


def kunwind_trace(msgs):
    frames, inside = [], False
    for m in msgs:
        if not inside:
            if re.match(r'^kunwind: Call Trace:', m):
                inside = True
            continue
        s = m
        if s.startswith('kunwind:'):
            s = s[len('kunwind:'):]
        elif not s.startswith(' '):
            break
        s = s.strip()
        if not s or s.startswith('Call Trace') or s.startswith('end of'):
            if frames:
                break
            continue
        if s in ('<TASK>', '</TASK>', '<IRQ>', '</IRQ>'):
            continue
        frames.append(s)
        if len(frames) >= 64:
            break
    return frames


def unwinder(msgs):
    """The kernel's unwinder, by the oops' format: x86_64 prints RIP."""
    for m in msgs:
        if m.startswith('RIP: 0010:'):
            return 'ORC'
        if m.startswith('pc : '):
            return 'frame records'
    return 'ORC'


def main():
    with open(sys.argv[1], errors='replace') as f:
        msgs = list(messages(f))
    k, u = kernel_trace(msgs), kunwind_trace(msgs)
    mode = sys.argv[2] if len(sys.argv) > 2 else ''
    if mode == '--kernel':
        print('\n'.join(k))
        return 0
    if mode == '--kunwind':
        print('\n'.join(u))
        return 0
    title = 'kernel (%s)' % unwinder(msgs)
    w = max([len(x) for x in k] + [len(title)]) + 2
    print('%-*s| %s' % (w, title, 'kunwind'))
    print('%s+%s' % ('-' * w, '-' * (w + 2)))
    for i in range(max(len(k), len(u), 1)):
        a = k[i] if i < len(k) else ''
        b = u[i] if i < len(u) else ''
        if i == 0 and not u:
            b = '(no "kunwind: Call Trace:" in the log)'
        print('%-*s| %s' % (w, a, b))
    end = kunwind_end(msgs)
    if end:
        print('%-*s| %s' % (w, '', end))
    print("(the kernel's '?' lines, stale addresses on the stack, are left out)")
    if u:
        if k == u:
            print('the two traces agree: %d frames' % len(k))
        else:
            i = next((i for i in range(min(len(k), len(u))) if k[i] != u[i]),
                     min(len(k), len(u)))
            print('the traces differ from frame %d on (kernel %d frames, '
                  'kunwind %d)' % (i, len(k), len(u)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
