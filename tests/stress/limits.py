# SPDX-License-Identifier: GPL-2.0-or-later
"""
Resource exhaustion: the server meets a limit, says so in a clear log
line or error, keeps serving, and nothing crashes or hangs.

  limits.py SERVER

  fd_limit        server under `prlimit --nofile=128`: files created and
                  held open through the mount past the limit fail with
                  EMFILE and nothing else; once they are closed the mount
                  reads, writes and delivers remote changes again.
  inotify_watches -o watch=inotify with max_user_watches lowered (and
                  restored at once): a clear log line, the server serves
                  and still delivers in the directories it could watch.
  host_burst_kept SIGSTOP the server (fanotify, queue=600: about 7,000 such
                  events) while a remote writer makes 40,000 changes,
                  then SIGCONT: the server waits for room and the host's
                  fanotify queue keeps the rest (up to 64 MiB), so every
                  name gets its CREATE and then its DELETE, nothing is
                  dropped and no overflow is logged. Without the wait,
                  about 4,800 were dropped.
  host_overflow   the same with watch=inotify, whose host queue is
                  bounded: the overflow is logged, the server serves and
                  delivers again.
  host_overflow_agent  the same, the replays made by an agent on the
                  mount (-o agent_socket, rnotifyfs --agent, as in a
                  virtiofs guest), killed before the burst: the overflow
                  is counted and logged all the same, and delivery
                  resumes through the next agent.
"""
import errno
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

FD_LIMIT = 128
WATCH_DIRS = 60
BURST = 20000
LOG_INTERVAL = 5	# src/deliver/overflow_log.h OVERFLOW_LOG_INTERVAL


def start(chk, m):
    ok = m.start()
    chk.ok("mount", ok, m.server_log()[-300:])
    return ok


def alive_and_serving(chk, m, timeout=10):
    chk.ok("server_alive", m.proc.poll() is None,
           f"server exited {m.proc.returncode}: {m.server_log()[-300:]}")
    chk.ok("delivers_after", m.proc.poll() is None and m.sync(timeout),
           "a remote create did not reach a watcher")


def fd_limit(server):
    chk = rnfix.Checks("limits/fd_limit")
    m = rnfix.Mount(server, "limits", wrap=["prlimit",
                                            f"--nofile={FD_LIMIT}"])
    if not start(chk, m):
        return m, chk
    errs = {}
    held = []
    n = 3 * FD_LIMIT
    for i in range(n):
        try:
            held.append(os.open(m.mpath(f"f{i}"),
                                os.O_CREAT | os.O_RDWR, 0o644))
        except OSError as e:
            errs[e.errno] = errs.get(e.errno, 0) + 1
    chk.info(f"{len(held)} of {n} files created and held open, errors "
             + ", ".join(f"{rnfix.errname(k)} x{v}" for k, v in errs.items()))
    chk.ok("some_succeed", held, "no create succeeded")
    chk.ok("only_emfile", set(errs) == {errno.EMFILE},
           f"errors {sorted(rnfix.errname(e) for e in errs)}")
    chk.ok("alive_when_out_of_fds", m.proc.poll() is None, "server died")
    for fd in held:
        os.close(fd)
    try:
        with open(m.mpath("f0"), "r+b") as f:
            f.write(b"still")
        data = open(m.bpath("f0"), "rb").read()
    except OSError as e:
        data = str(e).encode()
    chk.ok("writes_after_close", data == b"still", f"got {data!r}")
    alive_and_serving(chk, m)
    return m, chk


def inotify_used():
    """inotify watches held on this machine now (all users: root's)."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fdinfo"):
                with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                    n += f.read().count("inotify wd:")
        except OSError:
            pass
    return n


def inotify_watches(server):
    chk = rnfix.Checks("limits/inotify_watches")
    m = rnfix.Mount(server, "limits", opts="watch=inotify")
    for i in range(WATCH_DIRS):
        os.mkdir(m.bpath(f"d{i:02d}"))
    knob = "/proc/sys/fs/inotify/max_user_watches"
    old = open(knob).read().strip()
    limit = inotify_used() + WATCH_DIRS // 2
    try:
        with open(knob, "w") as f:
            f.write(str(limit))
        ok = m.start(sync=False)
        # The server watches after it mounted: keep the limit until it
        # has met it (bounded), so that the knob is low for seconds only.
        rnfix.wait_until(lambda: "No space left" in m.server_log(), 10)
    finally:
        with open(knob, "w") as f:
            f.write(old)
    chk.ok("knob_restored", open(knob).read().strip() == old, "not restored")
    chk.ok("mount", ok, m.server_log()[-300:])
    log = m.server_log()
    lines = [ln for ln in log.splitlines() if "inotify" in ln]
    chk.info(f"max_user_watches {limit} for {WATCH_DIRS + 1} dirs; log: "
             + (lines[0] if lines else "nothing") +
             f" ({len(lines)} such lines)")
    chk.ok("clear_log_line", any("No space left" in ln or "limit" in ln
                                 for ln in lines),
           f"no log line names the limit: {log[-300:]!r}")
    if ok:
        alive_and_serving(chk, m)
    return m, chk


def watcher_with_room(n):
    """An inotify fd made while max_queued_events is at least n, then
    restored: the test's own watcher must not be the one that overflows."""
    knob = "/proc/sys/fs/inotify/max_queued_events"
    old = open(knob).read().strip()
    try:
        with open(knob, "w") as f:
            f.write(str(max(n, int(old))))
        ino = rnfix.Inotify()
    finally:
        with open(knob, "w") as f:
            f.write(old)
    return ino


def burst_while_stopped(m):
    with m.paused():
        for i in range(BURST):
            os.mknod(m.bpath(f"d/f{i}"))
        for i in range(BURST):
            os.unlink(m.bpath(f"d/f{i}"))


def host_burst_kept(server):
    chk = rnfix.Checks("limits/host_burst_kept")
    m = rnfix.Mount(server, "limits", opts="queue=600")
    os.mkdir(m.bpath("d"))
    if not start(chk, m):
        return m, chk
    ino = watcher_with_room(4 * BURST)
    ino.add(m.mpath("d"))
    burst_while_stopped(m)
    last = f"f{BURST - 1}".encode()
    seen = []
    done = ino.wait_for(lambda e: e[3] == last and e[1] & rnfix.IN_DELETE,
                        120, seen)
    chk.ok("last_delete_delivered", done, f"{len(seen)} events before")
    kinds = {}
    for _, mask, _, name, _ in seen + [(None, rnfix.IN_DELETE, 0, last, 0)]:
        kinds.setdefault(name, []).append(rnfix.mask_str(mask))
    wrong = [(n, k) for n, k in kinds.items() if k != ["CREATE", "DELETE"]]
    chk.ok("each_name_create_then_delete",
           len(kinds) == BURST and not wrong,
           f"{len(kinds)} names, {len(wrong)} wrong: {wrong[:3]}")
    chk.ok("no_overflow_logged", "overflow" not in m.server_log(),
           m.server_log()[-300:])
    alive_and_serving(chk, m)
    ino.close()
    return m, chk


def start_with_agent(chk, m):
    """Starts the server, then its agent on the mount: True once a remote
    change reached MNT through the agent."""
    sock = os.path.join(m.tmp, "agent.sock")
    m.opts += f",agent_socket={sock}"
    m.agent_sock = sock
    ok = m.start(sync=False) and agent_start(m)
    chk.ok("mount", ok, m.server_log()[-300:])
    return ok


def agent_start(m):
    """Starts an agent: True once the server took its hello and a remote
    change reached MNT through it."""
    n = m.server_log().count("agent: connected")
    with open(os.path.join(m.tmp, "agent.log"), "ab") as log:
        m.agent = subprocess.Popen([m.server, "--agent",
                                    f"--channel={m.agent_sock}", m.mnt],
                                   stdout=log, stderr=log)
    return rnfix.wait_until(
        lambda: m.server_log().count("agent: connected") > n, 10) and \
        m.sync()


def agent_stop(m):
    """Kills the agent, if one was started."""
    agent = getattr(m, "agent", None)
    if agent:
        agent.kill()
        agent.wait()


def host_overflow(server, name, opts, agent=False):
    chk = rnfix.Checks(f"limits/host_overflow_{name}")
    m = rnfix.Mount(server, "limits", opts=opts)
    os.mkdir(m.bpath("d"))
    if not (start_with_agent(chk, m) if agent else start(chk, m)):
        agent_stop(m)
        return m, chk
    ino = rnfix.Inotify()
    ino.add(m.mpath("d"))
    t0 = time.monotonic()
    if agent:
        agent_stop(m)
    burst_while_stopped(m)
    logged = rnfix.wait_until(lambda: "overflow" in m.server_log(), 60, 0.1)
    lines = [ln for ln in m.server_log().splitlines() if "overflow" in ln]
    chk.info(f"{2 * BURST} remote changes while stopped; log: "
             + (lines[0] if lines else "nothing") + f" ({len(lines)} lines)")
    chk.ok("overflow_logged", logged, "no overflow line in the log")
    if agent:
        # What came after the overflow, with no agent there: dropped.
        chk.ok("loss_without_agent_logged",
               rnfix.wait_until(lambda: "remote events not delivered"
                                in m.server_log(), 60, 0.1),
               "no line counting the changes no agent replayed")
        chk.ok("agent_again", agent_start(m),
               "no delivery through a new agent")
    # Delivery resumes once the queue drained: bounded, generous.
    alive_and_serving(chk, m, timeout=120)
    # The first line at once, then at most one a LOG_INTERVAL, counted.
    lines = [ln for ln in m.server_log().splitlines() if "overflow" in ln]
    most = 2 + int((time.monotonic() - t0) / LOG_INTERVAL)
    chk.ok("overflow_log_bounded", 0 < len(lines) <= most,
           f"{len(lines)} overflow lines, at most {most} allowed")
    chk.ok("overflow_log_counts", bool(lines) and "dropped" in lines[0],
           f"first line gives no count: {lines[:1]!r}")
    seen = []
    ino.wait_for(lambda e: False, 0.5, seen)
    overflow = sum(1 for e in seen if e[1] & rnfix.IN_Q_OVERFLOW)
    chk.info(f"watcher on d read {len(seen)} events, {overflow} "
             "IN_Q_OVERFLOW (only ever from its own inotify queue: the "
             "server cannot queue one on a stock kernel)")
    ino.close()
    agent_stop(m)
    return m, chk


def main():
    server = sys.argv[1]
    failed = 0
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    for fn, args in ((fd_limit, ()), (inotify_watches, ()),
                     (host_burst_kept, ()),
                     (host_overflow, ("inotify", "watch=inotify")),
                     (host_overflow, ("agent", "watch=inotify", True))):
        if only not in fn.__name__ + "_".join(map(str, args)):
            continue
        m, chk = fn(server, *args)
        chk.ok("server_stops", m.stop(), "server did not exit 0 on SIGTERM")
        m.close()
        failed += chk.failed
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
