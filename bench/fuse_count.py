#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""FUSE requests and notifications a server exchanged, per phase of a load.

usage: fuse_count.py STRACE [PHASES]

STRACE is `strace -f -ttt -y -xx -s 24 -e trace=read,writev` of the
server: a read of /dev/fuse is a request (its header names the opcode),
a writev to it a reply, or a notification when its unique is 0 (the
header's error field is then the notification code). libfuse's -d log
names requests but not notifications, which are half of what a replayed
change costs the kernel.

PHASES (optional) has one line per phase of the load, in order:
"END_TIME LABEL EVENTS ...", END_TIME in seconds since the epoch (the
clock of strace -ttt): bench/profile takes bench/build/lat's lines,
one per op, from strace -ttt of lat's writes. Each phase's counts are
printed per event; without PHASES, the whole trace is one phase.
"""
import collections
import re
import struct
import sys

OPCODES = {
    1: 'LOOKUP', 2: 'FORGET', 3: 'GETATTR', 4: 'SETATTR', 5: 'READLINK',
    6: 'SYMLINK', 8: 'MKNOD', 9: 'MKDIR', 10: 'UNLINK', 11: 'RMDIR',
    12: 'RENAME', 13: 'LINK', 14: 'OPEN', 15: 'READ', 16: 'WRITE',
    17: 'STATFS', 18: 'RELEASE', 20: 'FSYNC', 21: 'SETXATTR',
    22: 'GETXATTR', 23: 'LISTXATTR', 24: 'REMOVEXATTR', 25: 'FLUSH',
    26: 'INIT', 27: 'OPENDIR', 28: 'READDIR', 29: 'RELEASEDIR',
    30: 'FSYNCDIR', 31: 'GETLK', 32: 'SETLK', 33: 'SETLKW', 34: 'ACCESS',
    35: 'CREATE', 36: 'INTERRUPT', 37: 'BMAP', 38: 'DESTROY', 39: 'IOCTL',
    40: 'POLL', 41: 'NOTIFY_REPLY', 42: 'BATCH_FORGET', 43: 'FALLOCATE',
    44: 'READDIRPLUS', 45: 'RENAME2', 46: 'LSEEK', 47: 'COPY_FILE_RANGE',
    48: 'SETUPMAPPING', 49: 'REMOVEMAPPING', 50: 'SYNCFS', 51: 'TMPFILE',
    52: 'STATX',
}
NOTIFY_CODES = {
    1: 'POLL', 2: 'INVAL_INODE', 3: 'INVAL_ENTRY', 4: 'STORE',
    5: 'RETRIEVE', 6: 'DELETE', 7: 'RESEND',
}

CALL = re.compile(r'(\d+) +(\d+\.\d+) (read|writev)\((\d+)<([^>]*)>, (.*)')
RESUMED = re.compile(r'(\d+) +(\d+\.\d+) <\.\.\. (read|writev) resumed>(.*)')
HEX = re.compile(r'\\x([0-9a-f]{2})')


def unhex(s):
    return bytes(int(h, 16) for h in HEX.findall(s))


def fuse_calls(path):
    """(time, call, first bytes) of each completed read or writev of
    /dev/fuse. strace splits a call that blocks, or meets another
    thread's, in two lines: a writev's bytes are on the first, a read's
    on the second."""
    unfinished = {}
    for line in open(path, errors='replace'):
        m = CALL.match(line)
        if m:
            pid, t, call, _, fdpath, rest = m.groups()
            if unhex(fdpath) != b'/dev/fuse':
                continue
            if rest.endswith('<unfinished ...>'):
                unfinished[pid] = (call, rest)
                continue
        else:
            m = RESUMED.match(line)
            if not m or unfinished.get(m.group(1), ('',))[0] != m.group(3):
                continue
            pid, t, call, rest = m.groups()
            if call == 'writev':
                rest = unfinished[pid][1] + rest
            del unfinished[pid]
        done = re.search(r'\) = (-?\d+)$', rest.rstrip())
        quoted = rest.split('"')
        if done and int(done.group(1)) > 0 and len(quoted) > 1:
            yield float(t), call, unhex(quoted[1])


def kind_of(call, head):
    """What one exchange was, or None for one too short to tell."""
    if len(head) < 16:
        return None
    if call == 'read':
        op = struct.unpack_from('<I', head, 4)[0]
        return 'request ' + OPCODES.get(op, str(op))
    _, error, unique = struct.unpack_from('<IiQ', head)
    if unique:
        return 'reply'
    return 'notify ' + NOTIFY_CODES.get(error, str(error))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split('\n\n')[1])
    phases = []
    if len(sys.argv) == 3:
        for line in open(sys.argv[2]):
            f = line.split()
            phases.append((float(f[0]), f[1], int(f[2])))
    counts = collections.defaultdict(collections.Counter)
    for t, call, head in fuse_calls(sys.argv[1]):
        kind = kind_of(call, head)
        if not kind:
            continue
        label = next((p[1] for p in phases if t <= p[0]), 'after')
        counts[label if phases else 'load'][kind] += 1
    rows = [(label, n) for _, label, n in phases] or [('load', 0)]
    if counts['after']:
        rows.append(('after', 0))
    for label, n in rows:
        c = counts[label]
        req = sum(v for k, v in c.items() if k.startswith('request'))
        note = sum(v for k, v in c.items() if k.startswith('notify'))
        if n:
            print('%s: %d events, %.2f requests and %.2f notifications each'
                  % (label, n, req / n, note / n))
        else:
            print('%s: %d requests, %d notifications' % (label, req, note))
        for kind, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
            print('  %-22s %7d' % (kind, v) +
                  ('  %6.2f' % (v / n) if n else ''))


main()
