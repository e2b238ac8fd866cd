# SPDX-License-Identifier: GPL-2.0-or-later
"""
Deep trees (issue #30, item 4): a client can build a tree thousands of
directories deep through the mount, and a server that walked it with
one stack frame per level died of SIGSEGV at every start after that.

  deep.py SERVER [DEPTH [ONLY]]   (default 2000 levels; ONLY: run the
                                   parts whose WATCHER/WAY holds it)

For each host watcher (fanotify, the default, and -o watch=inotify), a
tree of DEPTH directories named TOP/d/d/... (paths longer than
PATH_MAX through the mount) is made six ways, each on a mount of its
own:

  start     in BACKING before the server starts
  moved_in  outside the export, then renamed into BACKING
  remote    by a host process in BACKING while the server runs
  local     by a client through the mount (mkdirat from a dir fd)
            (remote and local: then the server is restarted on it)
  long      as start, with paths below BACKING twice PATH_MAX long
  fds       as start, with the server limited to 64 fds (RLIMIT_NOFILE):
            a walk that held fds per level left the deep part unwatched

and then a remote change in its deepest directory and one in TOP must
reach inotify watches on those directories on the mount as exactly
CREATE and DELETE of that name, each read on its own (nothing is made
after it to push it out); then the tree goes (rm -r on the host, rm -r
through the mount, or a rename out of the export) and the watch on the
mount's root reads exactly that. The server must stay up throughout
and still deliver a remote change at the end.

Every walk here holds at most two fds: down by mkdirat/openat from the
previous level, up by "..".
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

# Below TOP: "d" makes paths of 2 bytes a level (a 2,000-level tree is
# then just within PATH_MAX on the host, as in the audit's report);
# "long" uses "dir", 4 bytes a level, for paths well past PATH_MAX.
NAMES = {"long": "dir"}
DIRFLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
WAIT = 30	# seconds for one event (a deep remote build may lag)
QUIET = 0.3	# seconds of nothing more after the events wanted
FDS = 64	# the server's fd limit in "fds"


def build(parent, top, depth):
    """mkdir -p parent/top/d/d/... (depth levels), one level at a time
    from the previous level's fd; returns the deepest one's fd."""
    fd = os.open(parent, DIRFLAGS)
    name = top
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        nfd = os.open(name, DIRFLAGS, dir_fd=fd)
        os.close(fd)
        fd = nfd
        name = NAMES.get(top, "d")
    return fd


def walk(parent, top, depth):
    """The fd of the deepest level of parent/top/d/...; None if a level
    is missing."""
    fd = os.open(parent, DIRFLAGS)
    name = top
    try:
        for _ in range(depth):
            nfd = os.open(name, DIRFLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
            name = NAMES.get(top, "d")
    except OSError:
        os.close(fd)
        return None
    return fd


def rm_tree(parent, top):
    """rm -r parent/top with two fds at most: down the first
    subdirectory, files unlinked, then up by ".." removing the level."""
    names = [top]
    fd = os.open(parent, DIRFLAGS)
    cur = os.open(top, DIRFLAGS, dir_fd=fd)
    os.close(fd)
    while names:
        sub = None
        with os.scandir(cur) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    sub = e.name
                    break
                os.unlink(e.name, dir_fd=cur)
        if sub is not None:
            nfd = os.open(sub, DIRFLAGS, dir_fd=cur)
            os.close(cur)
            cur = nfd
            names.append(sub)
        else:
            up = os.open("..", DIRFLAGS, dir_fd=cur)
            os.close(cur)
            cur = up
            os.rmdir(names.pop(), dir_fd=cur)
    os.close(cur)


def show(evs):
    return ", ".join(f"{rnfix.mask_str(m)} {n!r}" for m, n in evs) or "none"


def read_exact(ino, wd, want):
    """Reads until the events on wd are want (or WAIT passes), then QUIET
    more seconds; (ok, events on wd, events elsewhere)."""
    got, other = [], []
    end = time.monotonic() + WAIT
    while len(got) < len(want) and time.monotonic() < end:
        for e in ino.read(end - time.monotonic()):
            (got if e[4] == wd else other).append((e[1], e[3]))
    for e in ino.read(QUIET):
        (got if e[4] == wd else other).append((e[1], e[3]))
    return got == want, got, other


def remote_pair(chk, label, ino, wd, dfd, name):
    """A remote create then delete of name in the directory open as dfd
    (on the host) reach wd exactly."""
    b = name.encode()
    os.mknod(name, dir_fd=dfd)
    ok, got, other = read_exact(ino, wd, [(rnfix.IN_CREATE, b)])
    chk.ok(f"{label}/create", ok and not other,
           f"got [{show(got)}], elsewhere [{show(other)}]")
    os.unlink(name, dir_fd=dfd)
    ok, got, other = read_exact(ino, wd, [(rnfix.IN_DELETE, b)])
    chk.ok(f"{label}/delete", ok and not other,
           f"got [{show(got)}], elsewhere [{show(other)}]")


def watch_fd(ino, fd):
    return ino.add(f"/proc/self/fd/{fd}")


def events_in_tree(chk, label, m, top, depth):
    """Remote changes at the deepest level and in top reach watches on
    them on the mount."""
    ino = rnfix.Inotify()
    mfd = None
    bfd = None
    try:
        # A remote build may still be reaching the mount: wait for it.
        rnfix.wait_until(lambda: os.path.isdir(m.mpath(top)), WAIT, 0.05)
        end = time.monotonic() + WAIT
        while mfd is None and time.monotonic() < end:
            mfd = walk(m.mnt, top, depth)
            if mfd is None:
                time.sleep(0.05)
        if not chk.ok(f"{label}/deepest_on_mount", mfd is not None,
                      f"level {depth} not reachable through the mount"):
            return
        # The server has read the tree's own events: a file made in a
        # new directory while it still catches up with more than the
        # scan's memory of names may be reported twice (rnotifyfs(8),
        # LIMITS).
        chk.ok(f"{label}/caught_up", m.sync(WAIT), "no sync within bound")
        bfd = walk(m.back, top, depth)
        deep_wd = watch_fd(ino, mfd)
        top_wd = ino.add(m.mpath(top))
        if not chk.ok(f"{label}/watches", deep_wd > 0 and top_wd > 0,
                      f"inotify_add_watch: {deep_wd}, {top_wd}"):
            return
        remote_pair(chk, f"{label}/deepest", ino, deep_wd, bfd, "leaf")
        tfd = os.open(m.bpath(top), DIRFLAGS)
        try:
            remote_pair(chk, f"{label}/top", ino, top_wd, tfd, "leaf")
        finally:
            os.close(tfd)
    finally:
        for fd in (mfd, bfd):
            if fd is not None:
                os.close(fd)
        ino.close()


def removal(chk, label, m, top, how, outside):
    """The tree goes (how); the mount's root watch reads exactly the
    DELETE of top."""
    ino = rnfix.Inotify()
    try:
        wd = ino.add(m.mnt)
        if how == "host_rm":
            rm_tree(m.back, top)
        elif how == "client_rm":
            rm_tree(m.mnt, top)
        else:
            os.rename(m.bpath(top), os.path.join(outside, top))
        want = [(rnfix.IN_DELETE | rnfix.IN_ISDIR, top.encode())]
        ok, got, _ = read_exact(ino, wd, want)
        chk.ok(f"{label}/{how}", ok, f"got [{show(got)}], want [{show(want)}]")
    finally:
        ino.close()


def one(chk, server, watcher, way, depth):
    label = f"{watcher}/{way}"
    opts = "watch=inotify" if watcher == "inotify" else None
    wrap = ["prlimit", f"--nofile={FDS}:{FDS}"] if way == "fds" else None
    m = rnfix.Mount(server, "deep", opts=opts, wrap=wrap)
    outside = os.path.join(m.quiet, "outside")
    os.mkdir(outside)
    top = way
    try:
        if way in ("start", "long", "fds"):
            os.close(build(m.back, top, depth))
        elif way == "moved_in":
            os.close(build(outside, top, depth))
        t0 = time.monotonic()
        if not chk.ok(f"{label}/server_starts", m.start(timeout=60),
                      f"exit status {m.proc.poll()}: "
                      f"{m.server_log()[-300:]}"):
            return
        chk.info(f"{label}: started in {time.monotonic() - t0:.2f} s")
        checks(chk, label, m, way, top, depth, outside)
    except OSError as e:
        # The server died under a client's or the test's feet (ENOTCONN).
        chk.ok(f"{label}/no_error", False,
               f"{e!r}; server exit status {m.proc.poll()}")
    finally:
        # shutil.rmtree (Mount.close) recurses once per level itself.
        m.stop()
        rnfix.unmount(m.mnt)
        for d in (m.back, outside):
            if os.path.isdir(os.path.join(d, top)):
                rm_tree(d, top)
        m.close()


def checks(chk, label, m, way, top, depth, outside):
    """The part of one() after the server started."""
    ino = rnfix.Inotify()
    try:
        wd = ino.add(m.mnt)
        t0 = time.monotonic()
        if way == "moved_in":
            os.rename(os.path.join(outside, top), m.bpath(top))
            want = [(rnfix.IN_CREATE | rnfix.IN_ISDIR, top.encode())]
        elif way == "remote":
            os.close(build(m.back, top, depth))
            want = [(rnfix.IN_CREATE | rnfix.IN_ISDIR, top.encode())]
        elif way == "local":
            os.close(build(m.mnt, top, depth))
            want = [(rnfix.IN_CREATE | rnfix.IN_ISDIR, top.encode())]
        else:
            want = []
        ok, got, _ = read_exact(ino, wd, want)
        chk.ok(f"{label}/arrives", ok,
               f"got [{show(got)}], want [{show(want)}]")
        chk.info(f"{label}: made in {time.monotonic() - t0:.2f} s")
    finally:
        ino.close()
    events_in_tree(chk, label, m, top, depth)
    if way in ("remote", "local"):
        # What the audit saw: such a tree killed the server at every
        # start after it was made.
        chk.ok(f"{label}/server_stops_once", m.stop(),
               "no exit 0 on SIGTERM")
        rnfix.unmount(m.mnt)
        if not chk.ok(f"{label}/server_restarts", m.start(timeout=60),
                      f"exit status {m.proc.poll()}: "
                      f"{m.server_log()[-300:]}"):
            return
        events_in_tree(chk, f"{label}/restarted", m, top, depth)
    how = {"start": "host_rm", "moved_in": "moved_out",
           "remote": "client_rm", "local": "host_rm",
           "long": "client_rm", "fds": "host_rm"}[way]
    t0 = time.monotonic()
    removal(chk, label, m, top, how, outside)
    chk.info(f"{label}: removed in {time.monotonic() - t0:.2f} s")
    chk.ok(f"{label}/server_alive", m.proc.poll() is None,
           f"server exited {m.proc.returncode}: "
           f"{m.server_log()[-300:]}")
    chk.ok(f"{label}/still_delivers", m.proc.poll() is None and
           m.sync(WAIT), "a remote create at the root did not arrive")
    chk.ok(f"{label}/server_stops", m.stop(), "no exit 0 on SIGTERM")


def main():
    chk = rnfix.Checks("deep")
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    for watcher in ("fanotify", "inotify"):
        for way in ("start", "moved_in", "remote", "local", "long",
                    "fds"):
            if only in f"{watcher}/{way}":
                one(chk, sys.argv[1], watcher, way, depth)
    chk.exit()


if __name__ == "__main__":
    main()
