#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Host changes of every kind, one kind at a time, for bench/profile kinds.

usage: kinds.py WATCHDIR WRITEDIR N [burst]

Makes N changes of each kind below on WRITEDIR (the backing directory)
while an inotify watch on WATCHDIR (the same directory on the mount)
reads their events. In step (the default), each change waits for its
event before the next is made: each replay is a turn of its own, as for
a lone change. With "burst", the N changes of a kind are made at once
and only the last event is waited for: the replayer works through a
backlog, as under bench/tput. After each kind, prints
"END_TIME LABEL N" (END_TIME on the clock of strace -ttt), the phase
lines fuse_count.py reads. Exits 1 if an event did not come within 10 s.

  create       mknod f<i>               CREATE
  write        open, 1-byte write,      MODIFY, CLOSE_WRITE
               close of f<i>
  attrib       chmod f<i>               ATTRIB
  rename       f<i> -> g<i>             MOVED_FROM, MOVED_TO
  unlink       g<i>                     DELETE
  mkdir        d<i>                     CREATE|ISDIR
  rmdir        d<i>                     DELETE|ISDIR
  churn        open(O_CREAT), close,    CREATE, CLOSE_WRITE, DELETE
               unlink of c<i> (tput's writers' cycle)
"""
import ctypes
import os
import select
import struct
import sys
import time

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
WAIT_S = 10

libc = ctypes.CDLL(None, use_errno=True)


def write_byte(p):
    fd = os.open(p, os.O_WRONLY)
    os.write(fd, b"x")
    os.close(fd)


def churn(p):
    os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    os.unlink(p)


# label, change(i, path of), event that ends it: mask, name
KINDS = [
    ("create", lambda i, at: os.mknod(at("f%d" % i)), IN_CREATE, "f"),
    ("write", lambda i, at: write_byte(at("f%d" % i)), IN_CLOSE_WRITE, "f"),
    ("attrib", lambda i, at: os.chmod(at("f%d" % i), 0o600), IN_ATTRIB, "f"),
    ("rename", lambda i, at: os.rename(at("f%d" % i), at("g%d" % i)),
     IN_MOVED_TO, "g"),
    ("unlink", lambda i, at: os.unlink(at("g%d" % i)), IN_DELETE, "g"),
    ("mkdir", lambda i, at: os.mkdir(at("d%d" % i)), IN_CREATE, "d"),
    ("rmdir", lambda i, at: os.rmdir(at("d%d" % i)), IN_DELETE, "d"),
    ("churn", lambda i, at: churn(at("c%d" % i)), IN_DELETE, "c"),
]


class Watch:
    def __init__(self, path):
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        mask = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM |
                IN_MOVED_TO | IN_CREATE | IN_DELETE)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, os.fsencode(path),
                                                 mask) < 0:
            sys.exit("inotify on %s: %s" % (path,
                                           os.strerror(ctypes.get_errno())))
        self.buf = b""

    def wait_for(self, mask, name):
        end = time.monotonic() + WAIT_S
        want = name.encode()
        while time.monotonic() < end:
            while self.buf:
                _, m, _, ln = struct.unpack_from("iIII", self.buf)
                got = self.buf[16:16 + ln].rstrip(b"\0")
                self.buf = self.buf[16 + ln:]
                if m & mask and got == want:
                    return
            if select.select([self.fd], [], [],
                             max(0.0, end - time.monotonic()))[0]:
                self.buf = os.read(self.fd, 1 << 20)
        sys.exit("no event for %s in %d s" % (name, WAIT_S))


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["burst"]):
        sys.exit(__doc__.split("\n\n")[1])
    watch = Watch(sys.argv[1])
    wdir, n, burst = sys.argv[2], int(sys.argv[3]), len(sys.argv) == 5

    def at(name):
        return os.path.join(wdir, name)

    for label, change, mask, prefix in KINDS:
        for i in range(n):
            change(i, at)
            if not burst:
                watch.wait_for(mask, "%s%d" % (prefix, i))
        if burst:
            watch.wait_for(mask, "%s%d" % (prefix, n - 1))
        print("%.6f %s %d" % (time.time(), label, n), flush=True)


main()
