# SPDX-License-Identifier: GPL-2.0-or-later
"""
Per-user watcher limits (fs.fanotify.max_user_groups, max_user_marks,
fs.inotify.max_user_instances), met at start and while running.

  watch_limits.py SERVER [FILTER]

  groups_fanotify   no fanotify group left, -o watch=fanotify: exits
                    non-zero with one line naming max_user_groups, nothing
                    mounted; the same without -f (the daemon's parent says
                    it on the terminal and fails).
  groups_auto       no fanotify group left, default watch=auto: one line
                    naming max_user_groups and the inotify fallback; the
                    mount serves and delivers exact events.
  marks             no fanotify mark left: the server's one mark does not
                    count (FAN_UNLIMITED_MARKS), it starts and delivers.
  instances         no inotify instance left, -o watch=inotify: one line
                    naming max_user_instances, nothing mounted.
  running_*         all three limits met after the server started (with
                    fanotify and with watch=inotify): it needs no new group,
                    mark or instance, and delivers in a new directory.

A limit is set to 0 for root (the only user that can run the server), so
other root programs on the machine meet it too: each is held only until
the server has met it (bounded), and restored on every path.
"""
import contextlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

GROUPS = "/proc/sys/fs/fanotify/max_user_groups"
MARKS = "/proc/sys/fs/fanotify/max_user_marks"
INSTANCES = "/proc/sys/fs/inotify/max_user_instances"


def knob_name(path):
    return path[len("/proc/sys/"):].replace("/", ".")


@contextlib.contextmanager
def knobs_zero(chk, *paths):
    """Sets each knob to 0 for the body; restores them on every path."""
    old = {}
    try:
        for p in paths:
            with open(p) as f:
                old[p] = f.read().strip()
            with open(p, "w") as f:
                f.write("0")
        yield
    finally:
        for p, v in old.items():
            with open(p, "w") as f:
                f.write(v)
    chk.ok("knobs_restored",
           all(open(p).read().strip() == v for p, v in old.items()),
           "a knob was not restored")


def said(m):
    """The server's log but its start-up lines on cache lifetimes
    (cache_policy.c) and on the watch (delivery.c), which every start
    writes."""
    return "".join(ln for ln in m.server_log().splitlines(keepends=True)
                   if not ln.startswith(("rnotifyfs: caches: ",
                                         "rnotifyfs: watch: ")))


def log_lines(m, word):
    return [ln for ln in said(m).splitlines() if word in ln]


def start_refused(chk, m):
    """The server exits non-zero, nothing mounted, one line naming knob."""
    argv = [m.server, "-f", "-o", m.opts, m.back, m.mnt]
    with open(m.log, "ab") as log:
        m.proc = subprocess.Popen(argv, stdout=log, stderr=log)
    try:
        m.proc.wait(10)
    except subprocess.TimeoutExpired:
        pass
    chk.ok("exits_nonzero", m.proc.poll() not in (None, 0),
           f"server still running or exited 0: {m.proc.poll()}")


def check_refusal(chk, m, knob):
    lines = said(m).splitlines()
    chk.info(f"{m.opts}, {knob_name(knob)} = 0: {lines!r}")
    chk.ok("nothing_mounted", not rnfix.is_mounted(m.mnt), "mounted")
    chk.ok("one_line", len(lines) == 1, f"{len(lines)} lines")
    chk.ok("names_sysctl", any(knob_name(knob) in ln for ln in lines),
           f"no line names {knob_name(knob)}")


def delivers(chk, m, ino, sub="d"):
    """A watcher (ino) on MNT/sub gets exactly CREATE f, DELETE f for a
    remote mknod and unlink of sub/f."""
    wd = ino.add(m.mpath(sub))
    os.mknod(m.bpath(f"{sub}/f"))
    os.unlink(m.bpath(f"{sub}/f"))

    def here(evs):
        return [e for e in evs if e[0] == os.fsencode(m.mpath(sub))]
    ok, seen = m.collect(ino, sub, expect=lambda evs: len(here(evs)) >= 2)
    got = [(rnfix.mask_str(e[1]), e[3].decode()) for e in here(seen)]
    chk.ok(f"delivers_in_{sub}", wd > 0 and ok and
           got == [("CREATE", "f"), ("DELETE", "f")], f"got {got}")


def delivers_new(chk, m):
    ino = rnfix.Inotify()
    try:
        delivers(chk, m, ino)
    finally:
        ino.close()


def groups_fanotify(server):
    chk = rnfix.Checks("watch_limits/groups_fanotify")
    m = rnfix.Mount(server, "wlimits", opts="watch=fanotify")
    with knobs_zero(chk, GROUPS):
        start_refused(chk, m)
    check_refusal(chk, m, GROUPS)
    # Without -f the parent returns once the mount is up: it must fail
    # and say why before it daemonizes.
    with knobs_zero(chk, GROUPS):
        r = subprocess.run([server, "-o", m.opts, m.back, m.mnt],
                           capture_output=True, text=True, timeout=10)
    chk.info(f"daemon: exit {r.returncode}, stderr {r.stderr!r}")
    chk.ok("daemon_exits_nonzero", r.returncode != 0,
           f"exit {r.returncode}")
    chk.ok("daemon_says_why", knob_name(GROUPS) in r.stderr,
           f"stderr {r.stderr!r}")
    chk.ok("daemon_nothing_mounted", not rnfix.is_mounted(m.mnt), "mounted")
    return m, chk


def groups_auto(server):
    chk = rnfix.Checks("watch_limits/groups_auto")
    m = rnfix.Mount(server, "wlimits")
    os.mkdir(m.bpath("d"))
    with knobs_zero(chk, GROUPS):
        ok = m.start(sync=False)
    lines = log_lines(m, "fanotify")
    chk.info(f"{knob_name(GROUPS)} = 0: {lines!r}")
    chk.ok("mount", ok and m.sync(), m.server_log()[-300:])
    chk.ok("one_line", len(said(m).splitlines()) == 1,
           f"log {said(m)!r}")
    chk.ok("names_sysctl_and_fallback",
           len(lines) == 1 and knob_name(GROUPS) in lines[0]
           and "inotify instead" in lines[0], f"lines {lines!r}")
    if ok:
        delivers_new(chk, m)
    return m, chk


def marks(server):
    chk = rnfix.Checks("watch_limits/marks")
    m = rnfix.Mount(server, "wlimits", opts="watch=fanotify")
    os.mkdir(m.bpath("d"))
    with knobs_zero(chk, MARKS):
        ok = m.start(sync=False)
    chk.ok("mount", ok and m.sync(), m.server_log()[-300:])
    chk.ok("silent", said(m) == "", f"log {said(m)!r}")
    if ok:
        delivers_new(chk, m)
    return m, chk


def instances(server):
    chk = rnfix.Checks("watch_limits/instances")
    m = rnfix.Mount(server, "wlimits", opts="watch=inotify")
    with knobs_zero(chk, INSTANCES):
        start_refused(chk, m)
    check_refusal(chk, m, INSTANCES)
    return m, chk


def running(server, name, opts):
    chk = rnfix.Checks(f"watch_limits/running_{name}")
    m = rnfix.Mount(server, "wlimits", opts=opts)
    os.mkdir(m.bpath("d"))
    if not chk.ok("mount", m.start(), m.server_log()[-300:]):
        return m, chk
    # The watcher's own instance first: the limits hold for it too.
    ino = rnfix.Inotify()
    try:
        with knobs_zero(chk, GROUPS, MARKS, INSTANCES):
            delivers(chk, m, ino)
            # A new directory: inotify needs a new watch (not limited
            # here), fanotify nothing.
            ino.add(m.mnt)
            os.mkdir(m.bpath("n"))
            seen = []
            ok = ino.wait_for(lambda e: e[3] == b"n", 10, seen)
            chk.ok("new_dir_created", ok, f"before it: {seen}")
            if ok:
                delivers(chk, m, ino, "n")
    finally:
        ino.close()
    chk.ok("silent", said(m) == "", f"log {said(m)!r}")
    return m, chk


def main():
    server = sys.argv[1]
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    failed = 0
    for fn, args in ((groups_fanotify, ()), (groups_auto, ()),
                     (marks, ()), (instances, ()),
                     (running, ("fanotify", "watch=fanotify")),
                     (running, ("inotify", "watch=inotify"))):
        if only not in fn.__name__ + "_".join(args):
            continue
        m, chk = fn(server, *args)
        if m.proc and m.proc.poll() is None:
            chk.ok("server_stops", m.stop(),
                   "server did not exit 0 on SIGTERM")
        m.close()
        failed += chk.failed
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
