# SPDX-License-Identifier: GPL-2.0-or-later
"""
Cache coherence (issue 36): the client kernel keeps names, attributes and
pages until the server invalidates them (src/fs/cache_policy.c), so
whatever a watcher on the mount reads right after a remote change's event
must show that change.

  remote    N remote changes of every kind (create, write, append,
            truncate, chmod, chown, utimes, rename, rename over, unlink,
            mkdir, rmdir, link, symlink, setxattr), each made on BACKING
            while the client holds the old state in its caches (stat,
            listing, content, read just before), and right after its last
            event is read from an inotify watch on the mount: lstat
            (mode, size, owner, link count, mtime to the ns), content,
            symlink target, xattr and the listings of the directories
            involved, through the mount, equal BACKING's exactly. A file
            held open for writing and mapped (the page-cache path, not
            FUSE passthrough) shows each remote write in its mapping.
  overflow  the server in a small memory cgroup, stopped; a flood beside
            the export fills the cgroup, so that the host queue
            overflows (the fanotify event cannot be allocated); changes
            of every kind to cached objects are made then, and lost. Once
            a later change's event is read, every name, attribute and
            content through the mount equals BACKING's (the server drops
            every cache at the overflow).
  kept      missing names, file pages and listings kept from one open to
            the next: see coherence_kept.py.
  unseen    what the host watch cannot see keeps today's 1 s timeouts: a
            file of the export linked from outside it and written there,
            and (-o watch=inotify) a file made in a directory made just
            before: through the mount each shows its new state within
            the timeout and a margin (a bound, not a sleep).

usage: coherence.py RNOTIFYFS [--changes N] [--only PART]
"""
import argparse
import errno
import mmap
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402
from rnfix import (IN_ATTRIB, IN_CLOSE_WRITE, IN_CREATE, IN_DELETE,  # noqa
                   IN_ISDIR, IN_MODIFY, IN_MOVED_TO)

EVENT_WAIT = 10		# s for an event through the mount
UNSEEN_BOUND = 1 + 2	# attr_timeout and entry_timeout's 1 s, a margin
XATTR = "user.k"
DIRS = ("a", "b")


def meta(root, rel):
    """rel's attributes under root, by lstat alone: a read would make the
    kernel ask for them again (it drops its atime on each read)."""
    try:
        st = os.lstat(os.path.join(root, rel))
    except FileNotFoundError:
        return ("absent",)
    out = (st.st_mode, st.st_uid, st.st_gid, st.st_nlink, st.st_mtime_ns)
    return out if os.path.isdir(os.path.join(root, rel)) else \
        out + (st.st_size,)


def state(root, rel):
    """What a reader sees of rel under root: attributes, then content,
    listing, target or xattr. A last lstat leaves the kernel's cache
    with the attributes and nothing marked stale (the read's atime), so
    that a later check sees what the kernel kept, not what it fetched."""
    p = os.path.join(root, rel)
    out = [meta(root, rel)]
    if out[0] == ("absent",):
        return tuple(map(str, out))
    if os.path.isdir(p) and not os.path.islink(p):
        out.append(sorted(os.listdir(p)))
    elif os.path.islink(p):
        out.append(os.readlink(p))
    else:
        with open(p, "rb") as f:
            out.append(f.read())
        try:
            out.append(os.getxattr(p, XATTR, follow_symlinks=False))
        except OSError as e:
            out.append(errno.errorcode.get(e.errno, e.errno))
    meta(root, rel)
    return tuple(map(str, out))


class Tree:
    """What the changes act on, kept by name on BACKING."""

    def __init__(self, m, rnd):
        self.m = m
        self.rnd = rnd
        self.n = 0
        for d in DIRS:
            os.mkdir(m.bpath(d))
            for i in range(8):
                self.write_new(f"{d}/seed{i}")

    def fresh(self, d, prefix):
        self.n += 1
        return f"{d}/{prefix}{self.n}"

    def write_new(self, rel):
        with open(self.m.bpath(rel), "wb") as f:
            f.write(os.urandom(self.rnd.randrange(1, 3000)))

    def entries(self, kind):
        out = []
        for d in DIRS:
            for name in sorted(os.listdir(self.m.bpath(d))):
                p = self.m.bpath(f"{d}/{name}")
                if kind == "file" and os.path.islink(p):
                    continue
                if kind == "file" and os.path.isfile(p):
                    out.append(f"{d}/{name}")
                elif kind == "dir" and os.path.isdir(p):
                    out.append(f"{d}/{name}")
        return out

    def pick(self, kind):
        e = self.entries(kind)
        return self.rnd.choice(e) if e else None


# Each change: returns (dir watched, name, event mask wanted, paths to
# check), or None when there is nothing to act on.
def ch_create(t):
    rel = t.fresh(t.rnd.choice(DIRS), "c")
    t.write_new(rel)
    return rel, IN_CLOSE_WRITE, [rel]


def ch_write(t):
    rel = t.pick("file")
    with open(t.m.bpath(rel), "r+b") as f:
        f.write(os.urandom(t.rnd.randrange(1, 4000)))
    return rel, IN_CLOSE_WRITE, [rel]


def ch_append(t):
    rel = t.pick("file")
    with open(t.m.bpath(rel), "ab") as f:
        f.write(os.urandom(t.rnd.randrange(1, 500)))
    return rel, IN_CLOSE_WRITE, [rel]


def ch_truncate(t):
    rel = t.pick("file")
    os.truncate(t.m.bpath(rel), t.rnd.randrange(0, 5000))
    return rel, IN_MODIFY, [rel]


def ch_chmod(t):
    rel = t.pick("file")
    mode = os.lstat(t.m.bpath(rel)).st_mode & 0o777
    os.chmod(t.m.bpath(rel), t.rnd.choice([m for m in (0o600, 0o644,
                                                        0o640, 0o604)
                                           if m != mode] or [0o600]))
    return rel, IN_ATTRIB, [rel]


def ch_chown(t):
    rel = t.pick("file")
    os.chown(t.m.bpath(rel), t.rnd.choice((0, 1, 2, 65534)),
             t.rnd.choice((0, 1, 2, 65534)))
    return rel, IN_ATTRIB, [rel]


def ch_utimes(t):
    rel = t.pick("file")
    ns = t.rnd.randrange(10**18, 2 * 10**18)
    os.utime(t.m.bpath(rel), ns=(ns, ns + t.rnd.randrange(10**9)))
    return rel, IN_ATTRIB, [rel]


def ch_rename(t):
    rel = t.pick("file")
    to = t.fresh(t.rnd.choice(DIRS), "r")
    os.rename(t.m.bpath(rel), t.m.bpath(to))
    return to, IN_MOVED_TO, [rel, to]


def ch_rename_over(t):
    files = t.entries("file")
    if len(files) < 2:
        return None
    rel, to = t.rnd.sample(files, 2)
    # Two names of one file: rename does nothing, and says nothing.
    if os.lstat(t.m.bpath(rel)).st_ino == os.lstat(t.m.bpath(to)).st_ino:
        return None
    os.rename(t.m.bpath(rel), t.m.bpath(to))
    return to, IN_MOVED_TO, [rel, to]


def ch_unlink(t):
    files = t.entries("file")
    if len(files) < 6:
        return ch_create(t)
    rel = t.rnd.choice(files)
    os.unlink(t.m.bpath(rel))
    return rel, IN_DELETE, [rel]


def ch_mkdir(t):
    rel = t.fresh(t.rnd.choice(DIRS), "d")
    os.mkdir(t.m.bpath(rel), t.rnd.choice((0o755, 0o700, 0o750)))
    return rel, IN_CREATE | IN_ISDIR, [rel]


def ch_rmdir(t):
    rel = t.pick("dir")
    if rel is None:
        return ch_mkdir(t)
    os.rmdir(t.m.bpath(rel))
    return rel, IN_DELETE | IN_ISDIR, [rel]


def ch_link(t):
    rel = t.pick("file")
    to = t.fresh(t.rnd.choice(DIRS), "l")
    os.link(t.m.bpath(rel), t.m.bpath(to))
    return to, IN_CREATE, [rel, to]


def ch_symlink(t):
    rel = t.fresh(t.rnd.choice(DIRS), "s")
    os.symlink(f"target-{t.rnd.randrange(10**6)}", t.m.bpath(rel))
    return rel, IN_CREATE, [rel]


def ch_setxattr(t):
    rel = t.pick("file")
    os.setxattr(t.m.bpath(rel), XATTR, os.urandom(t.rnd.randrange(1, 64)))
    return rel, IN_ATTRIB, [rel]


CHANGES = [ch_create, ch_write, ch_append, ch_truncate, ch_chmod, ch_chown,
           ch_utimes, ch_rename, ch_rename_over, ch_unlink, ch_mkdir,
           ch_rmdir, ch_link, ch_symlink, ch_setxattr]


def warm(m, t):
    """The client's caches hold the present state of everything."""
    for d in DIRS:
        for name in os.listdir(m.mpath(d)):
            state(m.mnt, f"{d}/{name}")


def watch_dirs(m):
    ino = rnfix.Inotify()
    for d in DIRS:
        if ino.add(m.mpath(d)) < 0:
            raise OSError(f"inotify_add_watch {m.mpath(d)}")
    return ino


OBJECT_CHANGES = {"ch_write", "ch_append", "ch_truncate", "ch_chmod",
                  "ch_chown", "ch_utimes", "ch_setxattr"}


def event_of(m, ch, rel, want):
    """Is an event the last one of change ch of rel? A change to a file
    (not to a name) may be reported under another of its names, even one
    it no longer has (a name the host renamed over, which a replayed
    writer still holds open): any name will do, as nothing else changes
    meanwhile."""
    d, name = os.path.split(rel)
    named = (os.fsencode(m.mpath(d)), os.fsencode(name))
    anyname = ch.__name__ in OBJECT_CHANGES
    return lambda e: (anyname or (e[0], e[3]) == named) and \
        e[1] & want == want


def differs(m, rels):
    """The first of rels (and their directories) that the mount shows
    otherwise than BACKING, with both states; None if none does. The
    attributes of all first, by lstat alone (see meta())."""
    rels = list(rels) + sorted({os.path.dirname(r) for r in rels})
    for rel in rels:
        a, b = meta(m.back, rel), meta(m.mnt, rel)
        if a != b:
            return f"{rel}: backing {a}, mount {b}"
    for rel in rels:
        a, b = state(m.back, rel), state(m.mnt, rel)
        if a != b:
            return f"{rel}: backing {a[:6]}, mount {b[:6]}"
    return None


def remote(server, n):
    chk = rnfix.Checks("coherence/remote")
    m = rnfix.Mount(server, "coherence")
    rnd = random.Random(36)
    try:
        t = Tree(m, rnd)
        chk.ok("mounted", m.start(), m.server_log())
        chk.ok("log_says_until_invalidated",
               "caches: names kept until invalidated, attributes until "
               "invalidated" in m.server_log(), m.server_log())
        ino = watch_dirs(m)
        hot_fd, hot_map = hot_open(m)
        stale = []
        lost = []
        history = []
        kinds = {}
        for i in range(n):
            warm_paths(m, t, rnd)
            ch = CHANGES[i % len(CHANGES)]
            made = ch(t)
            if made is None:
                continue
            rel, want, rels = made
            history.append((i, ch.__name__, rels))
            seen = []
            if not ino.wait_for(event_of(m, ch, rel, want), EVENT_WAIT,
                                seen):
                lost.append(f"{ch.__name__} {rel}, read: " + ", ".join(
                    f"{rnfix.mask_str(e[1])} {e[0]} {e[3]}"
                    for e in seen[-6:]))
                break
            why = differs(m, rels)
            if why:
                stale.append(f"after {ch.__name__}: {why}")
            kinds[ch.__name__] = kinds.get(ch.__name__, 0) + 1
            ino.read(0)	# what the checks' own opens made
            if len(stale) > 5:
                break
        if os.environ.get("COHERENCE_DEBUG"):
            for h in history:
                print(h)
        chk.ok("every_event_came", not lost, f"no event for {lost}")
        chk.ok("new_state_after_each_event", not stale,
               "; ".join(stale[:5]))
        chk.info(f"{sum(kinds.values())} changes checked: "
                 + ", ".join(f"{k[3:]} {v}" for k, v in kinds.items()))
        chk.ok("mapping_sees_remote_writes", hot_writes(m, ino, hot_map),
               "a mapping through the mount kept bytes the host replaced")
        hot_map.close()
        os.close(hot_fd)
        ino.close()
    finally:
        m.close()
    return chk


def warm_paths(m, t, rnd):
    """Every few changes, all of the tree; else what the next may touch
    is cached already by the last check."""
    if rnd.randrange(16) == 0:
        warm(m, t)


HOT = "hot"
HOT_SIZE = 8192


def hot_open(m):
    """A file held open for writing and mapped through the mount: its
    reads go through the page cache, not FUSE passthrough."""
    with open(m.bpath(HOT), "wb") as f:
        f.write(b"\0" * HOT_SIZE)
    # Its events first: between its replayed create and its write, the
    # mount shows it empty, as a watcher woken by its CREATE would.
    m.sync()
    fd = os.open(m.mpath(HOT), os.O_RDWR)
    return fd, mmap.mmap(fd, HOT_SIZE, mmap.MAP_SHARED, mmap.PROT_READ)


def hot_writes(m, ino, hot_map):
    root = os.fsencode(m.mnt)
    ino.add(m.mnt)
    for i in range(200):
        hot_map[:]	# the pages are in the cache
        data = os.urandom(HOT_SIZE)
        with open(m.bpath(HOT), "r+b") as f:
            f.write(data)
        if not ino.wait_for(lambda e: e[0] == root and e[3] == b"hot" and
                            e[1] & IN_CLOSE_WRITE, EVENT_WAIT):
            return False
        if hot_map[:] != data:
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--changes", type=int, default=10000)
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    import coherence_kept
    import coherence_lost
    parts = {"remote": lambda: remote(a.server, a.changes),
             "kept": lambda: coherence_kept.kept(a.server,
                                                 max(a.changes // 50, 20)),
             "overflow": lambda: coherence_lost.overflow(a.server),
             "unseen": lambda: coherence_lost.unseen(a.server)}
    failed = 0
    for name, fn in parts.items():
        if a.only and a.only != name:
            continue
        failed += fn().failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
