# SPDX-License-Identifier: GPL-2.0-or-later
"""
A backlog of remote changes is replayed with the replayer and the request
workers held on one CPU (src/util/cpu_pin.c), and every thread of the server
is back on the process's CPUs once the backlog is gone.

  backlog.py SERVER

  held     the server is stopped (SIGSTOP) while FILES files are created
           on BACKING, then continued; each time a watcher on MNT has read
           HELD_AFTER more of their CREATEs, the server is stopped again,
           up to SNAPSHOTS times: at one of these moments at least two of
           its threads (the replayer and a request worker) are on one CPU,
           the same one, and the others are at home.
  events   every CREATE arrives once, in the order of the creates, and
           nothing else before the sentinel.
  home     then every thread of the server goes back to the CPUs it had
           at the start (waited for: the last turn ends after the
           sentinel's CREATE is read).
  written  with the server stopped, WRITTEN files are created, written
           and closed, and WRITTEN more created and closed empty: each
           one's CREATE and first MODIFY or CLOSE_WRITE are queued one
           after the other, so the replay creates it by an open that it
           keeps for the writer. A watcher gets, file after file, exactly
           CREATE, OPEN, MODIFY, CLOSE_WRITE (CREATE, OPEN, CLOSE_WRITE
           for an empty one), as from a local writer, and every file reads
           back through the mount as written.

On a machine with one CPU a held thread and a thread at home look alike:
only the events are checked.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402
from rnfix import (IN_CLOSE_WRITE, IN_CREATE, IN_MODIFY,  # noqa: E402
                   IN_OPEN)

FILES = 3000
WRITTEN = 200
HELD_AFTER = 10
SNAPSHOTS = 5
BOUND = 30	# seconds for any one wait


def cpus(pid):
    """{tid: Cpus_allowed_list} of every thread of pid."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("Cpus_allowed_list:"):
                        out[int(tid)] = line.split()[1]
        except OSError:
            pass	# a worker that just left
    return out


def single(cpu_list):
    return cpu_list.isdigit()


def read_creates(ino, want, names):
    """Reads until want CREATEs in all (names collects every event)."""
    while sum(1 for m, _ in names if m & IN_CREATE) < want:
        evs = ino.read(BOUND)
        if not evs:
            return False
        names.extend((e[1], e[3]) for e in evs)
    return True


def make_backlog(m):
    """FILES remote creates queued while the server is stopped."""
    with m.paused():
        for i in range(FILES):
            os.mknod(m.bpath(f"d/f{i:04d}"))


def held_now(m, home):
    """The server's threads' CPUs, read with it stopped, and whether at
    least two are held on one CPU, the same one."""
    with m.paused():
        now = cpus(m.proc.pid)
    ones = [c for c in now.values() if c != home]
    return now, (len(ones) >= 2 and len(set(ones)) == 1
                 and single(ones[0]))


def check_held(chk, m, home, ino, names):
    """The replayer's turn ends whenever it empties the queue before the
    reader refills it, and its threads go home until the next turn: a
    snapshot may fall between two turns. So up to SNAPSHOTS are taken,
    HELD_AFTER more CREATEs apart; one of them must find the hold."""
    seen, held = [], False
    for i in range(SNAPSHOTS):
        if not read_creates(ino, HELD_AFTER * (i + 1), names):
            break
        now, held = held_now(m, home)
        seen.append(now)
        if held:
            break
    chk.ok("held", held, f"threads' CPUs at {len(seen)} moments "
           f"mid-backlog {seen}, home {home}")


def first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"event {i}: {rnfix.mask_str(g[0])} {g[1]!r}"
    return f"{len(got)} events for {len(want)}"


def check_home(chk, m, home):
    """The turn that replayed the sentinel may still be ending."""
    pid = m.proc.pid
    ok = rnfix.wait_until(lambda: all(c == home
                                      for c in cpus(pid).values()), BOUND)
    chk.ok("home", ok, f"threads' CPUs {BOUND} s after the backlog "
           f"{cpus(pid)}, home {home}")


def write_files(m):
    """WRITTEN written and WRITTEN empty files, made while stopped."""
    with m.paused():
        for i in range(WRITTEN):
            with open(m.bpath(f"w/full{i:03d}"), "wb") as f:
                f.write(f"content {i}\n".encode())
            os.close(os.open(m.bpath(f"w/empty{i:03d}"),
                             os.O_CREAT | os.O_WRONLY, 0o644))


def written_events():
    want = []
    for i in range(WRITTEN):
        full, empty = f"full{i:03d}".encode(), f"empty{i:03d}".encode()
        want += [(IN_CREATE, full), (IN_OPEN, full), (IN_MODIFY, full),
                 (IN_CLOSE_WRITE, full)]
        want += [(IN_CREATE, empty), (IN_OPEN, empty),
                 (IN_CLOSE_WRITE, empty)]
    return want


def check_written(chk, m):
    ino = rnfix.Inotify()
    try:
        os.mkdir(m.bpath("w"))
        m.sync()
        ino.add(m.mpath("w"), IN_CREATE | IN_OPEN | IN_MODIFY |
                IN_CLOSE_WRITE)
        write_files(m)
        ok, seen = m.collect(ino, "w", BOUND,
                             expect=len(written_events()))
    finally:
        ino.close()
    got = [(e[1], e[3]) for e in seen]
    chk.ok("written_events", ok and got == written_events(),
           f"collect {'ok' if ok else 'failed'}; "
           f"{first_difference(got, written_events())}")
    bad = []
    for i in range(WRITTEN):
        with open(m.mpath(f"w/full{i:03d}"), "rb") as f:
            if f.read() != f"content {i}\n".encode():
                bad.append(i)
        if os.stat(m.mpath(f"w/empty{i:03d}")).st_size:
            bad.append(i)
    chk.ok("written_contents", not bad, f"files read wrong: {bad[:10]}")


def main():
    server = sys.argv[1]
    chk = rnfix.Checks("stress/backlog")
    m = rnfix.Mount(server, "backlog")
    ino = rnfix.Inotify()
    try:
        os.mkdir(m.bpath("d"))
        if not m.start():
            chk.ok("mounts", False, m.server_log())
            return chk.exit()
        home = cpus(m.proc.pid)[m.proc.pid]
        multi = not single(home)
        ino.add(m.mpath("d"), IN_CREATE)
        make_backlog(m)
        names = []
        if multi:
            check_held(chk, m, home, ino, names)
        ok, seen = m.collect(ino, "d", BOUND, expect=FILES - len(names))
        names += [(e[1], e[3]) for e in seen]
        want = [(IN_CREATE, f"f{i:04d}".encode()) for i in range(FILES)]
        chk.ok("events", ok and names == want,
               f"collect {'ok' if ok else 'failed'}; "
               f"{first_difference(names, want)}")
        if multi:
            check_home(chk, m, home)
        check_written(chk, m)
        chk.ok("stops", m.stop(), m.server_log())
    finally:
        ino.close()
        m.close()
    return chk.exit()


if __name__ == "__main__":
    sys.exit(main())
