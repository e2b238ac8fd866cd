# SPDX-License-Identifier: GPL-2.0-or-later
"""
A change to a file the client kernel has forgotten: a remote write or
chmod, then the same file renamed or deleted on BACKING before the server
replays the change. The MODIFY or ATTRIB must still reach a watcher of
the file's directory, with the old name, before the rename or delete.

  forgotten.py SERVER

The client kernel forgets (FUSE_FORGET) the inode of a file nothing holds
whenever it prunes its caches: memory reclaim, or `echo 2 >
/proc/sys/vm/drop_caches` by anyone on the machine. A watch on the
directory does not pin the files in it. The server then no longer holds
the file or its name, and the backing store no longer has the name
either. This was issue 5's lost event: the churn load (load.py --mix
churn) lost an IN_MODIFY or IN_ATTRIB whenever another test's drop_caches
came between a file's replayed CREATE and the replay of its change.

Each case, on a fresh file f in a watched directory:
  the remote CREATE of f is read by the watcher; (dropped) drop_caches,
  until the server holds no fd on f any more: the kernel forgot it; the
  server is stopped (SIGSTOP); f is changed and then renamed or deleted
  on BACKING; the server continues (SIGCONT). The watcher must read the
  change for f before the rename (one cookie) or the delete, and nothing
  else.

A renamed file must then show through the mount with the backing
store's mode and size (moved_attrs): a stand-in (ghost) shown for it
must not stay. create_write_rename makes one without drop_caches: f is
created, written and renamed while the server is stopped, so the replayed
CREATE finds it gone.

The same cases without drop_caches (the kernel keeps f) are the control.
drop_caches is machine-wide, as in memory.py: this suite runs as root.
Not covered here: a prune while the change is being replayed, between
the replayer choosing the node and its syscall (the replayer holds the
object open for that; only the churn load under drop_caches shows it).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402
from rnfix import (IN_ATTRIB, IN_CLOSE_WRITE, IN_CREATE, IN_DELETE,  # noqa
                   IN_MODIFY, IN_MOVED_FROM, IN_MOVED_TO)

BOUND = 10	# seconds for any one wait


def write(p):
    with open(p, "ab") as f:
        f.write(b"x" * 10)


def chmod(p):
    os.chmod(p, 0o600)


def rename(p):
    os.rename(p, p + "-moved")


# name, change, its event, end, renamed (else deleted), created before
# the server stops (else while it is stopped: the replayed CREATE finds
# the file gone and shows a stand-in)
CASES = [
    ("write_rename", write, IN_MODIFY, rename, True, True),
    ("chmod_rename", chmod, IN_ATTRIB, rename, True, True),
    ("write_unlink", write, IN_MODIFY, os.unlink, False, True),
    ("chmod_unlink", chmod, IN_ATTRIB, os.unlink, False, True),
    ("create_write_rename", write, IN_MODIFY, rename, True, False),
]


def server_holds(m, path):
    """Does the server hold an fd on the backing object at path?"""
    return path in rnfix.fd_targets(m.proc.pid)


def expected(name, change, moved, early):
    """The events, in order (CLOSE_WRITE is left out: counted apart)."""
    evs = [] if early else [(IN_CREATE, name)]
    evs += [(change, name)]
    if moved:
        evs += [(IN_MOVED_FROM, name), (IN_MOVED_TO, name + "-moved")]
    else:
        evs += [(IN_DELETE, name)]
    return evs


def show(evs):
    return ", ".join(f"{rnfix.mask_str(m)} {n}" for m, n in evs) or "none"


def same_attrs(m, rel):
    """The mount shows rel with the backing store's mode and size."""
    try:
        a, b = os.stat(m.mpath(rel)), os.stat(m.bpath(rel))
    except OSError as e:
        return False, str(e)
    return (a.st_mode, a.st_size) == (b.st_mode, b.st_size), \
        f"mount {oct(a.st_mode)} {a.st_size} bytes, " \
        f"backing {oct(b.st_mode)} {b.st_size} bytes"


def create(chk, m, ino, name, forget):
    f = m.bpath(f"d/{name}")
    os.mknod(f, 0o644)
    created = ino.wait_for(lambda e: e[1] & IN_CREATE and
                           e[3] == name.encode(), BOUND)
    chk.ok(f"{name}/created", created, "the remote CREATE was not read")
    if forget:
        gone = False
        for _ in range(3):	# again only if something still held it
            rnfix.drop_dentries()
            gone = rnfix.wait_until(lambda: not server_holds(m, f), BOUND)
            if gone:
                break
        chk.ok(f"{name}/forgotten", gone,
               "the kernel did not forget the file (the server holds it)")


def one_case(chk, m, ino, case, forget):
    name, change, kind, end, moved, early = case
    f = m.bpath(f"d/{name}")
    if early:
        create(chk, m, ino, name, forget)
    with m.paused():
        if not early:
            os.mknod(f, 0o644)
        change(f)
        end(f)
    want = expected(name, kind, moved, early)

    def changes(evs):
        return [(e[1] & ~IN_CLOSE_WRITE, e[3].decode()) for e in evs
                if e[1] & ~IN_CLOSE_WRITE]
    ok, seen = m.collect(ino, "d", BOUND,
                         expect=lambda evs: len(changes(evs)) >= len(want))
    chk.ok(f"{name}/sentinel", ok, "the events did not come by themselves "
           "(INFO above), or the sentinel's CREATE was not read")
    got = changes(seen)
    chk.ok(f"{name}/events", got == want,
           f"got {show(got)}; want {show(want)}")
    if moved:
        cookies = {e[2] for e in seen if e[1] & (IN_MOVED_FROM | IN_MOVED_TO)}
        chk.ok(f"{name}/one_cookie", len(cookies) == 1 and 0 not in cookies,
               f"cookies {sorted(cookies)}")
        chk.ok(f"{name}/moved_attrs", *same_attrs(m, f"d/{name}-moved"))


def run(server, label, forget):
    chk = rnfix.Checks(f"forgotten/{label}")
    m = rnfix.Mount(server, "forgotten")
    os.mkdir(m.bpath("d"))
    if not chk.ok("mount", m.start(), m.server_log()[-300:]):
        m.close()
        return chk
    ino = rnfix.Inotify()
    ino.add(m.mpath("d"))
    for case in CASES:
        one_case(chk, m, ino, case, forget)
    ino.close()
    chk.ok("server_stops", m.stop(), "server did not exit 0 on SIGTERM")
    m.close()
    return chk


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    failed = 0
    for label, forget in (("kept", False), ("dropped", True)):
        failed += run(sys.argv[1], label, forget).failed
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
