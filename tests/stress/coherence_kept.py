# SPDX-License-Identifier: GPL-2.0-or-later
"""
The parts of coherence.py (see there) for the caches kept where the host
watch sees every change (src/fs/cache_policy.c): missing names (negative
entries), file pages kept from one open to the next, and directory
listings kept from one open to the next.

  kept           rounds of: a name missing through the mount, looked up
                 twice (lstat, open), then made on BACKING by each way
                 a name comes to exist (create, mkdir, mknod, symlink,
                 link, rename onto it, a directory moved in from outside
                 the export): right after its event, lstat through the
                 mount shows BACKING's. A file's content read through an
                 open that writes (the page cache, not passthrough), then
                 rewritten on BACKING at the same size, or truncated:
                 right after its event a read through the file held open
                 and through a new open (nothing else holding it) gives
                 BACKING's bytes. A listing read twice, then a create,
                 unlink, rename in it or out of it on BACKING: right
                 after the event the listing equals BACKING's.
                 A name the client looked up as missing after the host
                 removed it but before the replay of that removal (a
                 directory removed or renamed, a file removed, each
                 first dropped from the client's dentry cache): the
                 removal still comes through the mount, exactly; a
                 kept missing name must not make the replay fail.
"""
import os
import random

import coherence as co
import rnfix
from rnfix import IN_CLOSE_WRITE, IN_CREATE, IN_DELETE, IN_ISDIR, \
    IN_MODIFY, IN_MOVED_FROM, IN_MOVED_TO

NEW_NAME = IN_CREATE | IN_MOVED_TO
GONE_NAME = IN_DELETE | IN_MOVED_FROM
PAGE_SIZE = 3 * 4096 + 100


def missing(m, rel):
    """Two lookups of rel through the mount, both ENOENT: the kernel
    holds a negative entry for it if the server replied one."""
    gone = 0
    try:
        os.lstat(m.mpath(rel))
    except FileNotFoundError:
        gone += 1
    try:
        os.close(os.open(m.mpath(rel), os.O_RDONLY))
    except FileNotFoundError:
        gone += 1
    return gone == 2


def make_name(m, rel, how, rnd):
    """Makes rel exist on BACKING, as how says."""
    p = m.bpath(rel)
    if how == "create":
        with open(p, "wb") as f:
            f.write(os.urandom(rnd.randrange(1, 100)))
    elif how == "mkdir":
        os.mkdir(p)
    elif how == "mknod":
        os.mknod(p)
    elif how == "symlink":
        os.symlink("t", p)
    elif how == "link":
        os.link(m.bpath("a/seed0"), p)
    elif how == "rename":
        src = p + ".src"
        os.mknod(src)
        return src
    elif how == "dir_moved_in":
        out = os.path.join(m.quiet, "outside", os.path.basename(rel))
        os.makedirs(out)
        os.rename(out, p)
    return None


MAKERS = ("create", "mkdir", "mknod", "symlink", "link", "rename",
          "dir_moved_in")


def name_event(m, rel, mask=NEW_NAME):
    d, name = os.path.split(rel)
    key = (os.fsencode(m.mpath(d)), os.fsencode(name))
    return lambda e: (e[0], e[3]) == key and e[1] & mask


def negative_round(m, ino, rnd, i, stale):
    how = MAKERS[i % len(MAKERS)]
    rel = f"{co.DIRS[i % 2]}/miss{i}"
    if not missing(m, rel):
        stale.append(f"{how} {rel}: not missing through the mount before")
        return
    src = make_name(m, rel, how, rnd)
    if src:
        # The source's CREATE first, then the rename onto the name.
        if not ino.wait_for(name_event(m, os.path.relpath(src, m.back)),
                            co.EVENT_WAIT):
            stale.append(f"{how} {rel}: no event for its source")
            return
        os.rename(src, m.bpath(rel))
    # A file written as it is made: its last event, not its CREATE.
    last = IN_CLOSE_WRITE if how == "create" else NEW_NAME
    if not ino.wait_for(name_event(m, rel, last), co.EVENT_WAIT):
        stale.append(f"{how} {rel}: no event")
        return
    a, b = co.meta(m.back, rel), co.meta(m.mnt, rel)
    if a != b:
        stale.append(f"{how} {rel}: backing {a}, mount {b}")


def read_at(fd, size):
    return os.pread(fd, size + 1, 0)


def reopen_read(m, rel):
    """A new open that writes (so not passthrough) and reads it all."""
    fd = os.open(m.mpath(rel), os.O_RDWR)
    try:
        return os.pread(fd, 1 << 20, 0)
    finally:
        os.close(fd)


def pages_round(m, ino, rnd, i, held, stale):
    """The content of a/pg through the mount, read through the held open
    and a new one; then rewritten or truncated on BACKING."""
    rel = "a/pg"
    before = reopen_read(m, rel)
    if held is not None:
        read_at(held, PAGE_SIZE)
    if before != open(m.bpath(rel), "rb").read():
        stale.append(f"round {i}: content differs before the change")
        return
    ino.read(0)	# the CLOSE_WRITE of our own open
    if i % 4 == 3:
        size = rnd.randrange(0, PAGE_SIZE)
        os.truncate(m.bpath(rel), size)
        mask = IN_MODIFY
    else:
        with open(m.bpath(rel), "r+b") as f:
            f.write(os.urandom(len(before)))
        mask = IN_CLOSE_WRITE
    if not ino.wait_for(name_event(m, rel, mask), co.EVENT_WAIT):
        stale.append(f"round {i}: no event")
        return
    want = open(m.bpath(rel), "rb").read()
    if held is not None and read_at(held, PAGE_SIZE) != want:
        stale.append(f"round {i}: the open held saw old bytes")
    elif reopen_read(m, rel) != want:
        stale.append(f"round {i}: a new open saw old bytes")
    if len(want) < PAGE_SIZE // 2:	# grow it again for the next round
        ino.read(0)	# the CLOSE_WRITE of our own open
        with open(m.bpath(rel), "ab") as f:
            f.write(os.urandom(PAGE_SIZE - len(want)))
        ino.wait_for(name_event(m, rel, IN_CLOSE_WRITE), co.EVENT_WAIT)


def listing_round(m, ino, rnd, i, stale):
    d = co.DIRS[i % 2]
    other = co.DIRS[(i + 1) % 2]
    for _ in range(2):
        shown = sorted(os.listdir(m.mpath(d)))
    if shown != sorted(os.listdir(m.bpath(d))):
        stale.append(f"round {i}: {d} listed otherwise before")
        return
    files = [n for n in shown if n.startswith("ls")]
    kind = i % 4
    if kind == 0 or not files:
        name = f"ls{i}"
        os.mknod(m.bpath(f"{d}/{name}"))
        want = (d, name, IN_CREATE)
    elif kind == 1:
        name = rnd.choice(files)
        os.unlink(m.bpath(f"{d}/{name}"))
        want = (d, name, IN_DELETE)
    elif kind == 2:
        name = rnd.choice(files)
        os.rename(m.bpath(f"{d}/{name}"), m.bpath(f"{d}/ls{i}"))
        want = (d, f"ls{i}", IN_MOVED_TO)
    else:
        name = rnd.choice(files)
        os.rename(m.bpath(f"{d}/{name}"), m.bpath(f"{other}/ls{i}"))
        want = (d, name, IN_MOVED_FROM)
    key = (os.fsencode(m.mpath(want[0])), os.fsencode(want[1]))
    if not ino.wait_for(lambda e: (e[0], e[3]) == key and e[1] & want[2],
                        co.EVENT_WAIT):
        stale.append(f"round {i}: no event for {want}")
        return
    for x in (d, other):
        a, b = sorted(os.listdir(m.bpath(x))), sorted(os.listdir(m.mpath(x)))
        if a != b:
            stale.append(f"round {i} in {x}: backing has "
                         f"{sorted(set(a) - set(b))}, mount "
                         f"{sorted(set(b) - set(a))} more")


REMOVALS = ("rmdir", "rename_dir", "unlink", "write_unlink")
BACKLOG = 200


def removal_round(m, ino, i, stale):
    """The host removes rel while the replay is busy with a backlog; the
    client looks rel up meanwhile and may keep it as missing. The round
    counts (returns True) if that lookup said ENOENT before the removal
    was replayed; its events must come all the same."""
    how = REMOVALS[i % len(REMOVALS)]
    d = co.DIRS[i % 2]
    name = f"rm{i}"
    rel = f"{d}/{name}"
    if how in ("unlink", "write_unlink"):
        os.mknod(m.bpath(rel))
    else:
        os.mkdir(m.bpath(rel))
    if not ino.wait_for(name_event(m, rel, IN_CREATE), co.EVENT_WAIT):
        stale.append(f"{how} {rel}: no CREATE")
        return False
    rnfix.drop_dentries()
    with m.paused():
        for k in range(BACKLOG):
            os.mknod(m.bpath(f"backlog/r{i}.{k}"))
        if how == "rename_dir":
            os.rename(m.bpath(rel), m.bpath(f"{rel}.to"))
        elif how == "rmdir":
            os.rmdir(m.bpath(rel))
        else:
            if how == "write_unlink":
                with open(m.bpath(rel), "ab") as f:
                    f.write(b"x")
            os.unlink(m.bpath(rel))
    try:
        os.lstat(m.mpath(rel))
        looked_up_missing = False
    except FileNotFoundError:
        looked_up_missing = True
    seen = ino.read(0)
    if how == "rename_dir":
        want = [(IN_MOVED_FROM | IN_ISDIR, name),
                (IN_MOVED_TO | IN_ISDIR, f"{name}.to")]
    elif how == "rmdir":
        want = [(IN_DELETE | IN_ISDIR, name)]
    elif how == "unlink":
        want = [(IN_DELETE, name)]
    else:
        # The write's replay reaches the file by its name, now missing.
        want = [(IN_MODIFY, name), (IN_CLOSE_WRITE, name),
                (IN_DELETE, name)]
    counts = looked_up_missing and not seen
    ok, got = m.collect(ino, d, expect=len(want) - len(seen))
    got = seen + got
    names = [(e[1], e[3].decode()) for e in got]
    if not ok or names != want:
        stale.append(f"{how} {rel}: expected {want}, got {names}")
    elif how == "rename_dir" and got[0][2] != got[1][2]:
        stale.append(f"{how} {rel}: cookies {got[0][2]} and {got[1][2]}")
    return counts


def new_pg(m):
    with open(m.bpath("a/pg"), "wb") as f:
        f.write(os.urandom(PAGE_SIZE))


def kept(server, rounds):
    chk = rnfix.Checks("coherence/kept")
    m = rnfix.Mount(server, "coherence-kept")
    rnd = random.Random(3604)
    try:
        co.Tree(m, rnd)
        new_pg(m)
        os.mkdir(os.path.join(m.quiet, "outside"))
        os.mkdir(m.bpath("backlog"))
        chk.ok("mounted", m.start(), m.server_log())
        chk.ok("log_says_kept",
               "missing names as names, pages and listings as attributes"
               in m.server_log(), m.server_log())
        ino = co.watch_dirs(m)
        stale = []
        for i in range(rounds):
            negative_round(m, ino, rnd, i, stale)
            if len(stale) > 5:
                break
        chk.ok("missing_name_seen_after_event", not stale,
               "; ".join(stale[:5]))
        for held in (False, True):
            stale = []
            fd = os.open(m.mpath("a/pg"), os.O_RDWR) if held else None
            for i in range(rounds):
                pages_round(m, ino, rnd, i, fd, stale)
                if len(stale) > 5:
                    break
            if fd is not None:
                os.close(fd)
            chk.ok("content_after_event_" +
                   ("held_open" if held else "reopened"), not stale,
                   "; ".join(stale[:5]))
        stale = []
        for i in range(rounds):
            listing_round(m, ino, rnd, i, stale)
            if len(stale) > 5:
                break
        chk.ok("listing_after_event", not stale, "; ".join(stale[:5]))
        stale = []
        counted = 0
        for i in range(rounds):
            counted += removal_round(m, ino, i, stale)
            if len(stale) > 5:
                break
        chk.ok("removal_after_missing_lookup", not stale,
               "; ".join(stale[:5]))
        chk.ok("removal_after_missing_lookup_happened",
               counted >= rounds // 2,
               f"only {counted} of {rounds} rounds looked the name up "
               "as missing before its removal was replayed")
        chk.info(f"{counted} of {rounds} removal rounds looked the name "
                 "up as missing before the removal was replayed")
        chk.info(f"{rounds} rounds of each: {len(MAKERS)} ways a missing "
                 "name comes to exist, rewrites and truncates, listings")
        ino.close()
    finally:
        m.close()
    return chk


if __name__ == "__main__":
    raise SystemExit("run through coherence.py --only kept")
