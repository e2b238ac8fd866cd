# SPDX-License-Identifier: GPL-2.0-or-later
"""
The parts of coherence.py (see there) where the host watch does not see
a change: events lost to a host queue overflow, and the changes it cannot
see at all (a link from outside the export, a mount over a cached
directory, the inotify fallback).
"""
import os
import random
import subprocess

import coherence as co
import rnfix

# Host changes while the server is stopped: the inotify watch's host
# queue (fs.inotify.max_queued_events, 16,384 by default) overflows.
FLOOD = 20000
DRAIN_BOUND = 120	# s for the server to take the rest and the sync
# With fanotify the host queue is unbounded (it overflows when the
# server's memory cgroup cannot hold an event, which took the server
# with it in a 32 MiB one). The inotify watch's overflows the same way as
# an event: the same RN_EV_OVERFLOW, the same drop of every cache; the
# lifetimes are given long, so that only that drop keeps the mount right.
OVERFLOW_OPTS = "watch=inotify,entry_timeout=100000,attr_timeout=100000"


def names(m, roots):
    return {f"{d}/{n}" for root in roots for d in co.DIRS
            for n in os.listdir(os.path.join(root, d))}


def tree_differs(m, shown):
    """Everything under both roots: the names BACKING has and those the
    mount showed before (a listing of the mount now would fetch the
    attributes of all it lists), then what it lists."""
    why = co.differs(m, sorted(names(m, [m.back]) | shown))
    return why or co.differs(m, sorted(names(m, [m.back, m.mnt])))


def overflow(server):
    chk = rnfix.Checks("coherence/overflow")
    m = rnfix.Mount(server, "coherence-ovf", opts=OVERFLOW_OPTS)
    rnd = random.Random(3601)
    try:
        t = co.Tree(m, rnd)
        os.mkdir(m.bpath("flood"))
        chk.ok("mounted", m.start(), m.server_log())
        co.warm(m, t)
        shown = names(m, [m.mnt])
        made = 0
        with m.paused():
            for i in range(FLOOD // 2):
                os.mknod(m.bpath(f"flood/f{i}"))
            for i in range(FLOOD // 2):
                os.unlink(m.bpath(f"flood/f{i}"))
            for ch in co.CHANGES * 4:
                made += ch(t) is not None
        chk.ok("overflow_logged",
               rnfix.wait_until(lambda: "overflow" in m.server_log(),
                                DRAIN_BOUND, 0.1), m.server_log()[-2000:])
        # A change after the overflow: once its event is read, the
        # overflow (before it in the host's order) was taken.
        chk.ok("later_event_came", m.sync(DRAIN_BOUND), "no sync event")
        why = tree_differs(m, shown)
        chk.ok("new_state_after_overflow", why is None, why)
        chk.info(f"{made} changes to cached objects made after "
                 f"{FLOOD} that overflowed the host queue")
    finally:
        m.close()
    return chk


def converges(m, rels):
    """Within today's timeouts and a margin, the mount shows BACKING's
    state of rels and their directories (which co.differs() checks too:
    a directory's attributes may still be the cached ones when its new
    entry already shows); the last difference if it does not."""
    last = [None]
    both = list(rels) + sorted({os.path.dirname(r) for r in rels})

    def same():
        last[0] = [(r, co.meta(m.back, r), co.meta(m.mnt, r))
                   for r in both if co.meta(m.back, r) != co.meta(m.mnt, r)]
        return not last[0]
    if rnfix.wait_until(same, co.UNSEEN_BOUND, 0.02):
        return co.differs(m, rels)
    return last[0]


def outside_links(chk, m):
    """A file linked from outside the export and written there: replay
    drops the outside name's events, so the file keeps short
    attributes, whether it had the link when first cached (pre) or got
    it later (post)."""
    out = os.path.join(m.quiet, "outside")
    os.mkdir(out)
    for name in ("pre", "post"):
        with open(m.bpath(f"a/{name}"), "wb") as f:
            f.write(b"x" * 100)
    os.link(m.bpath("a/pre"), os.path.join(out, "pre"))
    m.sync()
    for name in ("pre", "post"):
        co.state(m.mnt, f"a/{name}")
        if name == "post":
            os.link(m.bpath("a/post"), os.path.join(out, "post"))
        for i in range(3):
            with open(os.path.join(out, name), "ab") as f:
                f.write(os.urandom(50 + i))
            why = converges(m, [f"a/{name}"])
            if why:
                break
        chk.ok(f"outside_link_{name}", why is None, why)


def mount_below(chk, m):
    """A tmpfs mounted on a directory the client cached, then unmounted:
    the host watch sees neither, the server's mount table watch does, and
    drops every cache as after a host queue overflow (which cannot be
    forced with fanotify here: its queue is unbounded, and FIONREAD counts
    24 bytes an event against the 64 MiB the server lets it hold). The
    caches kept until invalidated go too: a name missing before (a
    negative entry, gone with its directory's dentry, which the drop
    invalidates) and the listing (read twice: kept from one open to the
    next)."""
    os.mkdir(m.bpath("a/over"))
    os.mknod(m.bpath("a/over/under"))
    co.state(m.mnt, "a/over")
    os.listdir(m.mpath("a/over"))
    chk.ok("mount_below_missing_before",
           not os.path.lexists(m.mpath("a/over/on_top")) and
           not os.path.lexists(m.mpath("a/over/on_top")))
    subprocess.run(["mount", "-t", "tmpfs", "none", m.bpath("a/over")],
                   check=True)
    try:
        os.mknod(m.bpath("a/over/on_top"))
        # By lstat alone first: a listing's READDIRPLUS would replace
        # the negative entry itself.
        chk.ok("mount_below_missing_name_seen", rnfix.wait_until(
            lambda: os.path.lexists(m.mpath("a/over/on_top")),
            co.UNSEEN_BOUND, 0.02), "a/over/on_top still missing")
        chk.ok("mount_below_seen", rnfix.wait_until(
            lambda: os.listdir(m.mpath("a/over")) == ["on_top"],
            co.UNSEEN_BOUND, 0.02), os.listdir(m.mpath("a/over")))
    finally:
        subprocess.run(["umount", "-l", m.bpath("a/over")], check=True)
    chk.ok("unmount_below_seen", rnfix.wait_until(
        lambda: os.listdir(m.mpath("a/over")) == ["under"],
        co.UNSEEN_BOUND, 0.02), os.listdir(m.mpath("a/over")))


def unseen(server):
    chk = rnfix.Checks("coherence/unseen")
    m = rnfix.Mount(server, "coherence-out")
    try:
        co.Tree(m, random.Random(3602))
        chk.ok("mounted", m.start(), m.server_log())
        outside_links(chk, m)
        mount_below(chk, m)
    finally:
        m.close()
    m = rnfix.Mount(server, "coherence-ino", opts="watch=inotify")
    try:
        co.Tree(m, random.Random(3603))
        chk.ok("inotify_mounted", m.start(), m.server_log())
        chk.ok("inotify_log_says_1s",
               "caches: names kept for 1 s, attributes for 1 s (the "
               "inotify watch" in m.server_log(), m.server_log())
        check = subprocess.run([server, "--check", "-o", "watch=inotify",
                                m.back], capture_output=True, text=True)
        chk.ok("inotify_check_says_1s",
               "caches:           names 1 s, attributes 1 s: the inotify"
               in check.stdout, check.stdout)
        for i in range(5):
            co.warm(m, None)
            d = f"a/new{i}"
            os.mkdir(m.bpath(d))
            with open(m.bpath(f"{d}/f"), "wb") as f:
                f.write(os.urandom(100))
            os.chmod(m.bpath(f"{d}/f"), 0o600)
            why = converges(m, [d, f"{d}/f", "a/seed0"])
            if why:
                break
        chk.ok("inotify_new_directory", why is None, why)
    finally:
        m.close()
    return chk
