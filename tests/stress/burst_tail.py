# SPDX-License-Identifier: GPL-2.0-or-later
"""
The end of a burst arrives by itself, run after run (issue 31).

  burst_tail.py SERVER [--runs N] [--writers W] [--files F] [--name NAME]

For each host watcher (the default, fanotify as root, and
-o watch=inotify), one mount; in each of N runs, W remote processes at
once each create and remove F files sW-I (open O_CREAT, close, unlink)
while an inotify watch on MNT asks for CREATE and DELETE: in even runs
in the export's root, as the issue's reporter did, in odd runs in a
fresh directory. Then the host stays silent: no sentinel, no sync,
nothing that could carry along an event waiting for a next one. Every
name's CREATE and then its DELETE must arrive, and nothing else, within
BOUND seconds of the last writer's exit.

BACKING is on a tmpfs of its own (rnfix.Mount's quiet dir): on /tmp's file
system the fanotify watcher is woken by every change of anyone there,
and with it a server that held the last event back until a next one
passed this test on a busy machine.

One check per watcher: every run exact. The slowest run's time to its
last event is printed, not checked. A second check per watcher makes one
more burst while the server is stopped (SIGSTOP), so that the whole
burst waits in the host's queue, where fanotify merges a writer's CREATE
and DELETE of one name into one event; then the server goes on, and the
same must arrive with nothing else changing.
"""
import argparse
import contextlib
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402
from rnfix import IN_CREATE, IN_DELETE  # noqa: E402

BOUND = 10	# seconds after the last writer's exit


def writer(dirpath, w, files):
    for i in range(files):
        p = os.path.join(dirpath, f"s{w}-{i}")
        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        os.unlink(p)


def judge(events, writers, files):
    """None if events are exactly every name's CREATE then DELETE, else
    why."""
    state = {}
    for _, mask, _, name, _ in events:
        n = name.decode(errors="replace")
        k = state.get(n, 0)
        if mask == IN_CREATE and k == 0:
            state[n] = 1
        elif mask == IN_DELETE and k == 1:
            state[n] = 2
        else:
            return f"out of place: {rnfix.mask_str(mask)} {n}"
    want = {f"s{w}-{i}" for w in range(writers) for i in range(files)}
    if set(state) - want:
        return f"unexpected names: {sorted(set(state) - want)[:3]}"
    missing = sorted(n for n in want if state.get(n) != 2)
    if missing:
        return (f"{len(events)} of {2 * len(want)} events within {BOUND} s "
                f"of the last writer's exit; {len(missing)} names "
                f"incomplete, e.g. {missing[:3]}")
    return None


def one_run(m, d, writers, files, paused=False):
    """(why or None, seconds from the last writer's exit, or the server's
    going on if paused, to the last event). d: a fresh directory, or ""
    for the export's root."""
    if d:
        os.mkdir(m.bpath(d))
        if not m.sync():
            return "the directory's CREATE did not reach the mount", 0.0
    ino = rnfix.Inotify()
    try:
        if ino.add(m.mpath(d), IN_CREATE | IN_DELETE) < 0:
            return "cannot watch", 0.0
        with m.paused() if paused else contextlib.nullcontext():
            pids = [rnfix.fork(writer, m.bpath(d), w, files)
                    for w in range(writers)]
            st = rnfix.reap(pids, 120)
        if len(st) != writers or any(st.values()):
            return f"writers: {st}", 0.0
        t0 = time.monotonic()
        last = t0
        want = 2 * writers * files
        got = []
        while len(got) < want and time.monotonic() < t0 + BOUND:
            evs = ino.read(max(0.0, t0 + BOUND - time.monotonic()))
            if evs:
                last = time.monotonic()
                got += evs
        # Anything more already queued is one too many.
        got += ino.read(0)
        return judge(got, writers, files), last - t0
    finally:
        ino.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--name", default="stress/burst_tail")
    a = ap.parse_args()
    chk = rnfix.Checks(a.name)
    for label, opts in (("default", None), ("inotify", "watch=inotify")):
        m = rnfix.Mount(a.server, "tail", opts)
        if not chk.ok(f"{label}/mount", m.start(), m.server_log()[-300:]):
            m.close()
            continue
        bad, slowest = [], 0.0
        for run in range(a.runs):
            why, took = one_run(m, f"r{run}" if run % 2 else "",
                                a.writers, a.files)
            slowest = max(slowest, took)
            if why:
                bad.append(f"run {run}: {why}")
        chk.info(f"{label}: {a.runs - len(bad)} of {a.runs} runs of "
                 f"{a.writers}x{a.files} exact; slowest last event "
                 f"{slowest:.2f} s after the writers")
        chk.ok(f"{label}/{a.runs}_runs_{a.writers}x{a.files}", not bad,
               f"{len(bad)} of {a.runs} runs failed; " + "; ".join(bad[:3]))
        why, took = one_run(m, "paused", a.writers, a.files, paused=True)
        chk.info(f"{label}: paused burst's last event {took:.2f} s after "
                 f"the server went on")
        chk.ok(f"{label}/paused_burst_{a.writers}x{a.files}", not why,
               why or "")
        m.close()
    chk.exit()


if __name__ == "__main__":
    main()
