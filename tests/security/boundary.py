# SPDX-License-Identifier: GPL-2.0-or-later
"""
The export boundary under races: a directory of BACKING is swapped, in a
loop, with a symlink that leads outside the export, while clients look
up, list, open, read and create through the mount; and files outside
the export (next to it, on the same file system) change all the while.

  boundary.py SERVER [SECONDS]        (default 5)

Layout: /tmp/rnotify-boundary.X/quiet/exp/backing is the export;
exp/outside holds SECRET files and is what a server that followed the
symlink would reach. The symlink is relative ("../outside"): the client
kernel, which may follow it from /tmp/rnotify-boundary.X/mnt, reaches
/tmp/rnotify-boundary.X/outside instead (a harmless CLIENT-SIDE copy), so
any SECRET byte read through the mount proves the server followed a
symlink.

Checks: no read returns SECRET; no listing shows a name that exists only
outside; no file is ever created in exp/outside; no event delivered on
the mount names anything outside the export; the server keeps serving.
"""
import ctypes
import errno
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

CLIENTS = 3
RENAME_EXCHANGE = 2
_libc = ctypes.CDLL("libc.so.6", use_errno=True)


def exchange(a, b):
    """renameat2(RENAME_EXCHANGE): the swap is atomic on the host."""
    if _libc.renameat2(-100, os.fsencode(a), -100, os.fsencode(b),
                       RENAME_EXCHANGE):
        raise OSError(ctypes.get_errno(), "renameat2")


def swapper(back, stop_at):
    """d is a directory, then a symlink to ../outside, then back."""
    n = 0
    while time.time() < stop_at:
        exchange(os.path.join(back, "d"), os.path.join(back, "alt"))
        n += 1
    os._exit(0 if n else 1)


def outside_writer(outside, sibling, stop_at):
    """Changes next to the export, where nothing may be reported."""
    n = 0
    while time.time() < stop_at:
        for d in (outside, sibling):
            p = os.path.join(d, f"ow{n % 20}")
            with open(p, "ab") as f:
                f.write(b"x")
            os.chmod(p, 0o600 if n % 2 else 0o644)
            if n % 3 == 0:
                os.unlink(p)
        n += 1
    os._exit(0)


def client(mnt, k, stop_at, result_fd):
    """Lookups, listings, opens, reads and creates through the mount."""
    secret = listed = ops = inside = client_side = made = 0
    errs = {}
    d = os.path.join(mnt, "d")
    n = 0
    while time.time() < stop_at:
        n += 1
        try:
            ops += 1
            with open(os.path.join(d, "secret"), "rb") as f:
                data = f.read()
            secret += b"SECRET" in data
            inside += data == b"inside"
            client_side += data == b"CLIENT-SIDE"
            ops += 1
            listed += "outside_only" in os.listdir(d)
            ops += 1
            fd = os.open(os.path.join(d, f"c{k}_{n}"),
                         os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o644)
            os.close(fd)
            made += 1
            ops += 1
            os.stat(os.path.join(d, "secret"))
        except OSError as e:
            errs[e.errno] = errs.get(e.errno, 0) + 1
    out = f"{ops} {secret} {listed} {inside} {client_side} {made} " + \
        ",".join(
        f"{rnfix.errname(k)}={v}" for k, v in sorted(errs.items()))
    os.write(result_fd, (out + "\n").encode())
    os._exit(0)


def setup(m):
    outside = os.path.join(os.path.dirname(m.back), "outside")
    client_side = os.path.join(os.path.dirname(m.mnt), "outside")
    sibling = os.path.join(os.path.dirname(m.back), "sibling")
    for d, content in ((outside, b"SECRET"), (client_side, b"CLIENT-SIDE")):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "secret"), "wb") as f:
            f.write(content)
    open(os.path.join(outside, "outside_only"), "w").close()
    os.makedirs(sibling)
    os.mkdir(m.bpath("d"))
    with open(m.bpath("d/secret"), "wb") as f:
        f.write(b"inside")
    os.symlink("../outside", m.bpath("alt"))
    return outside, client_side, sibling


def watch_all(m, ino):
    ino.add(m.mnt)
    ino.add(m.mpath("d"))


def main():
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 5
    chk = rnfix.Checks("boundary")
    m = rnfix.Mount(sys.argv[1], "boundary", back="exp/backing")
    outside, client_side, sibling = setup(m)
    if not chk.ok("mount", m.start(), m.server_log()[-300:]):
        chk.exit()
    before = set(os.listdir(outside))
    ino = rnfix.Inotify()
    watch_all(m, ino)
    rfd, wfd = os.pipe()
    stop_at = time.time() + secs
    pids = [rnfix.fork(swapper, m.back, stop_at),
            rnfix.fork(outside_writer, outside, sibling, stop_at)]
    pids += [rnfix.fork(client, m.mnt, k, stop_at, wfd)
             for k in range(CLIENTS)]
    events = []
    while time.time() < stop_at + 1:
        for ev in ino.read(0.2):
            events.append(ev)
            if ev[1] & rnfix.IN_ISDIR and ev[1] & (rnfix.IN_CREATE |
                                                   rnfix.IN_MOVED_TO):
                ino.add(os.path.join(ev[0], ev[3]))
    codes = [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids]
    chk.ok("actors_ran", codes == [0] * len(pids), f"exit codes {codes}")
    os.close(wfd)
    out = rnfix.read_all(rfd)
    results = [(ln + " ").split(" ", 6) for ln in out.decode().splitlines()]
    ops = sum(int(r[0]) for r in results)
    secret = sum(int(r[1]) for r in results)
    listed = sum(int(r[2]) for r in results)
    inside, client_side, made = (sum(int(r[i]) for r in results)
                                 for i in (3, 4, 5))
    chk.info(f"{secs:.0f} s, {CLIENTS} clients, {ops} operations through "
             f"the mount: {inside} reads inside the export, {client_side} "
             f"through the symlink followed by the client kernel, {made} "
             f"creates; errors: {'; '.join(r[6] for r in results)}")
    chk.ok("race_exercised", inside and client_side,
           "the clients never saw both sides of the swap")
    chk.ok("no_read_outside", secret == 0,
           f"{secret} reads returned the SECRET outside the export")
    chk.ok("no_listing_outside", listed == 0,
           f"{listed} listings showed a name that exists only outside")
    created = set(os.listdir(outside)) - before - \
        {f"ow{i}" for i in range(20)}
    chk.ok("no_create_outside", not created,
           f"created outside: {sorted(created)[:5]}")
    # Every swap is a remote rename to replay: a backlog to drain.
    t0 = time.monotonic()
    ok, seen = m.collect(ino, timeout=300)
    events += seen
    chk.info(f"backlog replayed {time.monotonic() - t0:.1f} s after the "
             "race ended")
    bad = [e for e in events if e[3].startswith(b"ow") or
           e[3] in (b"outside_only", b"sibling", b"outside")]
    chk.info(f"{len(events)} events read on the mount")
    chk.ok("sentinel", ok, "the backlog did not drain in 300 s")
    chk.ok("no_event_outside", not bad,
           f"{len(bad)} events about outside objects: "
           + ", ".join(f"{rnfix.mask_str(e[1])} {e[3]!r}" for e in bad[:5]))
    chk.ok("server_alive", m.proc.poll() is None, "server died")
    chk.ok("still_delivers", m.sync(), "no remote event after the race")
    chk.ok("server_stops", m.stop(), "no exit 0 on SIGTERM")
    m.close()
    chk.exit()


if __name__ == "__main__":
    main()
