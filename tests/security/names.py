# SPDX-License-Identifier: GPL-2.0-or-later
"""
Hostile names, made remotely (on BACKING) and locally (through the
mount): each must reach a watcher on the mount as the exact bytes, in
CREATE, MOVED_FROM/MOVED_TO and DELETE, and land in BACKING as the exact
bytes; or fail with the error the native file system gives. Never
truncated, never altered.

  names.py SERVER

Names: newline, non-UTF-8 bytes, control bytes, 255 bytes (ASCII and
multi-byte UTF-8), names that look like paths or options ("..", "...",
"a\\b", "-rf", leading and trailing spaces), '*' and '?'. 256 bytes must
fail with ENAMETOOLONG both ways, and ".." / "." with the native error.
"""
import errno
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

HOSTILE = [
    ("newline", b"a\nb"),
    ("only_newline", b"\n"),
    ("non_utf8", b"\xff\xfe\x80bad"),
    ("control", b"\x01\x1b[31mred"),
    ("bytes_255", b"n" * 255),
    ("utf8_255", "é".encode() * 127 + b"x"),
    ("dots3", b"..."),
    ("backslash", b"a\\b"),
    ("option", b"-rf"),
    ("leading_spaces", b"  lead"),
    ("trailing_space", b"trail "),
    ("star", b"*"),
    ("glob", b"a*b?[c]"),
    ("percent", b"%s%n%x"),
]
REFUSED = [
    ("bytes_256", b"n" * 256),
    ("dotdot", b".."),
    ("dot", b"."),
]


def native_errno(fn, path):
    try:
        fn(path)
    except OSError as e:
        return e.errno
    return 0


def evs(seen):
    return [(rnfix.mask_str(e[1]), e[3]) for e in seen]


def show(events):
    return ", ".join(f"{m} {n!r}" for m, n in events)


def remote_then_local(chk, m, ino, label, name):
    b = os.fsencode(m.bpath("h"))
    mt = os.fsencode(m.mpath("h"))
    renamed = name[:-1] + (b"Z" if name[-1:] != b"Z" else b"Y")
    steps = [
        ("remote_create", lambda: os.mknod(os.path.join(b, name)),
         [("CREATE", name)]),
        ("remote_rename", lambda: os.rename(os.path.join(b, name),
                                            os.path.join(b, renamed)),
         [("MOVED_FROM", name), ("MOVED_TO", renamed)]),
        ("remote_delete", lambda: os.unlink(os.path.join(b, renamed)),
         [("DELETE", renamed)]),
        ("local_create", lambda: os.mknod(os.path.join(mt, name)),
         [("CREATE", name)]),
        ("local_rename", lambda: os.rename(os.path.join(mt, name),
                                           os.path.join(mt, renamed)),
         [("MOVED_FROM", name), ("MOVED_TO", renamed)]),
    ]
    for step, act, want in steps:
        try:
            act()
        except OSError as e:
            chk.ok(f"{label}/{step}", False, f"{rnfix.errname(e.errno)}")
            return
        ok, seen = m.collect(ino, "h", expect=len(want))
        got = evs(seen)
        chk.ok(f"{label}/{step}", ok and got == want,
               f"got [{show(got)}], want [{show(want)}]")
    on_disk = renamed in os.listdir(b)
    chk.ok(f"{label}/exact_bytes_in_backing", on_disk,
           f"{renamed!r} not in BACKING")
    os.unlink(os.path.join(mt, renamed))
    m.collect(ino, "h")


def refused(chk, m, ino, label, name):
    b = os.fsencode(m.bpath("h"))
    mt = os.fsencode(m.mpath("h"))
    native = os.fsencode(m.bpath("native"))
    for how, root in (("remote", b), ("local", mt)):
        for op, fn in (("mknod", os.mknod), ("mkdir", os.mkdir)):
            want = native_errno(fn, os.path.join(native, name))
            got = native_errno(fn, os.path.join(root, name))
            ok, seen = m.collect(ino, "h", expect=0)
            chk.ok(f"{label}/{how}_{op}",
                   want != 0 and got == want and not seen,
                   f"{rnfix.errname(got)} (native "
                   f"{rnfix.errname(want)}), events [{show(evs(seen))}]")
            chk.info(f"{label} {how} {op}: {rnfix.errname(got)}")


def main():
    chk = rnfix.Checks("names")
    m = rnfix.Mount(sys.argv[1], "names")
    os.mkdir(m.bpath("h"))
    os.mkdir(m.bpath("native"))
    if not chk.ok("mount", m.start(), m.server_log()[-300:]):
        chk.exit()
    ino = rnfix.Inotify()
    ino.add(m.mpath("h"))
    for label, name in HOSTILE:
        remote_then_local(chk, m, ino, label, name)
    for label, name in REFUSED:
        refused(chk, m, ino, label, name)
    chk.ok("server_alive", m.proc.poll() is None, "server died")
    chk.ok("server_stops", m.stop(), "no exit 0 on SIGTERM")
    m.close()
    chk.exit()


if __name__ == "__main__":
    main()
