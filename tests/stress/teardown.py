# SPDX-License-Identifier: GPL-2.0-or-later
"""
Objects going away under watchers: meant for the ASan+LSan build
(build-asan/rnotifyfs), where a crash, a use-after-free or a leak makes
the server's exit status or log fail a check.

  teardown.py SERVER

  rmdir_watched    remote and local rmdir of a watched directory (after
                   its files): exact events per watch, DELETE_SELF and
                   IGNORED on the directory's own watch.
  rename_watched   remote rename of a watched directory to another branch
                   of the tree, then a change inside it: MOVED_FROM/TO
                   with one cookie, MOVE_SELF, and the later CREATE still
                   reaches the moved directory's watch. Then the same
                   locally.
  unmount_busy     unmount while thousands of remote changes are queued
                   for replay: the first fusermount3 -u succeeds (the
                   replayer works in its own copy of the mount), the
                   server notices and exits 0 within a bound.
  unmount_writer   unmount while a host process holds a file open that
                   it wrote (the replayer holds it open on the mount, for
                   the CLOSE_WRITE to come): the same.
  stop_busy        SIGTERM while remote changes are queued for replay:
                   the server exits 0 within a bound without replaying
                   them all (it logs how many it left), the mount is gone
                   and the watch ends with IN_IGNORED.
Every scenario ends with the server stopped and its log free of
sanitizer reports.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

SANITIZER = ("AddressSanitizer", "LeakSanitizer", "runtime error:",
             "UndefinedBehaviorSanitizer")
BURST = 5000
STOP_BURST = 20000


class Watches:
    """One inotify fd; events collected per watched relative path."""

    def __init__(self, m, rels):
        self.m = m
        self.ino = rnfix.Inotify()
        for rel in rels:
            self.ino.add(m.mpath(rel))

    def collect(self, sentinel_dir, expect):
        """The expect events a check wants, by themselves (up to
        rnfix.EXPECT_WAIT s: a sentinel would carry along one held back),
        then events up to a remote sentinel create in sentinel_dir."""
        m = self.m
        seen = []
        came = rnfix.read_expected(self.ino, expect, seen)
        if not came:
            print(f"INFO collect: {len(seen)} of {expect} expected events "
                  "came by themselves", flush=True)
        m.seq += 1
        name = f"sentinel{m.seq}".encode()
        os.mknod(os.path.join(os.fsencode(m.bpath(sentinel_dir)), name))
        ok = self.ino.wait_for(lambda e: e[3] == name and
                               e[1] & rnfix.IN_CREATE, 10, seen) and came
        out = {}
        mnt = os.fsencode(m.mnt)
        for path, mask, cookie, nm, _ in seen:
            rel = os.path.relpath(path, mnt).decode()
            out.setdefault(rel, []).append(
                (rnfix.mask_str(mask) + (" " + nm.decode() if nm else ""),
                 cookie))
        return ok, out


def texts(evs):
    return [t for t, _ in evs]


def cookie_pair(a, b):
    return len(a) == 1 and len(b) == 1 and a[0][1] and a[0][1] == b[0][1]


def rmdir_watched(chk, m):
    for where in ("r", "l"):
        os.makedirs(m.bpath(f"{where}/x"))
        open(m.bpath(f"{where}/x/f"), "w").close()
    m.sync()
    w = Watches(m, ["", "r", "r/x", "l", "l/x"])
    os.unlink(m.bpath("r/x/f"))
    os.rmdir(m.bpath("r/x"))
    os.unlink(m.mpath("l/x/f"))
    os.rmdir(m.mpath("l/x"))
    ok, got = w.collect("", 8)
    chk.ok("sentinel", ok, "the events did not come by themselves, or no "
           "sentinel")
    for where, how in (("r", "remote"), ("l", "local")):
        chk.ok(f"{how}_parent", texts(got.get(where, [])) ==
               ["DELETE|ISDIR x"], f"{where}: {got.get(where)}")
        chk.ok(f"{how}_self", texts(got.get(f"{where}/x", [])) ==
               ["DELETE f", "DELETE_SELF", "IGNORED"],
               f"{where}/x: {got.get(where + '/x')}")


def rename_watched(chk, m):
    for d in ("a/b/x", "c/d", "e/f/y", "g"):
        os.makedirs(m.bpath(d))
    m.sync()
    w = Watches(m, ["a/b", "a/b/x", "c/d", "e/f", "e/f/y", "g"])
    os.rename(m.bpath("a/b/x"), m.bpath("c/d/x2"))
    open(m.bpath("c/d/x2/new"), "w").close()
    os.rename(m.mpath("e/f/y"), m.mpath("g/y2"))
    open(m.mpath("g/y2/new"), "w").close()
    ok, got = w.collect("g", 10)
    chk.ok("sentinel", ok, "the events did not come by themselves, or no "
           "sentinel")
    for how, src, dst, old, new in (("remote", "a/b", "c/d", "x", "x2"),
                                    ("local", "e/f", "g", "y", "y2")):
        frm = got.get(src, [])
        to = [e for e in got.get(dst, []) if "sentinel" not in e[0]]
        chk.ok(f"{how}_moved_from_to",
               texts(frm) == [f"MOVED_FROM|ISDIR {old}"] and
               texts(to) == [f"MOVED_TO|ISDIR {new}"] and
               cookie_pair(frm, to), f"{src}: {frm}, {dst}: {to}")
        own = texts(got.get(f"{src}/{old}", []))
        chk.ok(f"{how}_self_then_inside",
               own == ["MOVE_SELF", "CREATE new", "CLOSE_WRITE new"],
               f"{src}/{old}: {own}")


def unmount_busy(chk, m):
    """The burst is made while the server is stopped, so that its replay
    is under way (its first CREATE read) when the unmount comes."""
    os.mkdir(m.bpath("d"))
    m.sync()
    w = Watches(m, ["d"])
    with m.paused():
        for i in range(BURST):
            os.mknod(m.bpath(f"d/f{i}"))
    first = []
    chk.ok("replay_started", w.ino.wait_for(lambda e: e[3] == b"f0", 10,
                                            first), f"read {first}")
    got = unmounts_at_once(chk, m, w)
    chk.info(f"{BURST} remote creates queued; the watcher read "
             f"{len(first) + len(got) + 1} events before IGNORED")


def unmounts_at_once(chk, m, w):
    """One fusermount3 -u unmounts; the server notices and exits 0, and
    the watch ends with IN_IGNORED. The events read before it."""
    out = subprocess.run(["fusermount3", "-u", m.mnt], capture_output=True,
                         text=True)
    chk.ok("unmounted_at_once", out.returncode == 0 and
           not rnfix.is_mounted(m.mnt), f"exit {out.returncode}: "
           f"{out.stderr.strip()}")
    exited = rnfix.wait_until(lambda: m.proc.poll() is not None, 15)
    chk.ok("server_exits_0", exited and m.proc.returncode == 0,
           f"exit {m.proc.poll()}: {m.server_log()[-300:]}")
    got = []
    chk.ok("watch_ignored", w.ino.wait_for(lambda e: e[1] &
                                           rnfix.IN_IGNORED, 5, got),
           f"no IN_IGNORED; read {got[-5:]}")
    return got


def unmount_writer(chk, m):
    os.mkdir(m.bpath("d"))
    m.sync()
    w = Watches(m, ["d"])
    with open(m.bpath("d/log"), "ab", buffering=0) as f:
        f.write(b"line\n")
        seen = []
        chk.ok("modify_seen", w.ino.wait_for(
            lambda e: e[3] == b"log" and e[1] & rnfix.IN_MODIFY, 10, seen),
            f"read {seen}")
        unmounts_at_once(chk, m, w)


def stop_busy(chk, m):
    """The server is stopped (SIGSTOP) while STOP_BURST files are made on
    BACKING, then continued, and sent SIGTERM once the first CREATE is
    read: the replay has started, and what the server read with it (a
    64 KiB read of the host, hundreds of events) is still queued, as
    replaying it takes a round trip each."""
    os.mkdir(m.bpath("d"))
    m.sync()
    w = Watches(m, ["d"])
    with m.paused():
        for i in range(STOP_BURST):
            os.mknod(m.bpath(f"d/f{i}"))
    got = []
    chk.ok("replay_started", w.ino.wait_for(
        lambda e: e[1] & rnfix.IN_CREATE, 10, got), f"{got[:3]}")
    t0 = time.monotonic()
    chk.ok("server_exits_0", m.stop(timeout=15),
           f"exit {m.proc.poll()}: {m.server_log()[-300:]}")
    took = time.monotonic() - t0
    chk.ok("unmounted", not rnfix.is_mounted(m.mnt), "still mounted")
    ended = w.ino.wait_for(lambda e: e[1] & rnfix.IN_IGNORED, 5, got)
    chk.ok("watch_ignored", ended, f"no IN_IGNORED after {len(got)} events")
    creates = 1 + sum(1 for e in got if e[1] & rnfix.IN_CREATE)
    said = re.search(r"stopping: (\d+) remote events read and left unreplayed",
                     m.server_log())
    left = int(said.group(1)) if said else 0
    chk.ok("backlog_left", left > 0 and creates + left <= STOP_BURST,
           f"{creates} CREATEs seen, {left} said left: "
           f"{m.server_log()[-300:]}")
    chk.info(f"{STOP_BURST} remote creates made; stopped in {took:.2f} s "
             f"after {creates} of their CREATEs, {left} left unreplayed")


def main():
    server = sys.argv[1]
    failed = 0
    for fn in (rmdir_watched, rename_watched, unmount_busy, unmount_writer,
               stop_busy):
        chk = rnfix.Checks(f"teardown/{fn.__name__}")
        m = rnfix.Mount(server, "teardown")
        if chk.ok("mount", m.start(), m.server_log()[-300:]):
            fn(chk, m)
            if m.proc.poll() is None:
                chk.ok("server_stops", m.stop(), "no exit 0 on SIGTERM")
        log = m.server_log()
        bad = [s for s in SANITIZER if s in log]
        chk.ok("no_sanitizer_report", not bad,
               f"{bad}: {log[log.find(bad[0]) - 100:][:400]!r}"
               if bad else "")
        m.close()
        failed += chk.failed
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
