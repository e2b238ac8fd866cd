# SPDX-License-Identifier: GPL-2.0-or-later
"""
Server death: kill -9 the server while 4 processes do I/O through the
mount, 2 remote writers change BACKING and a watcher reads events.

  death.py SERVER

Checks: the mount answers ENOTCONN within a bound; every process that was
doing I/O on the mount exits within a bound (none hangs in a request);
`fusermount3 -u` works; a new server on the same mount point serves and
delivers a remote change to a new watcher. Figures printed as INFO lines
are measured, not asserted (the machine is noisy).
"""
import errno
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

LOCAL = 4
REMOTE = 2
WARM_OPS = 200		# ops each worker does before the kill
BOUND = 10		# seconds: ENOTCONN, exits, unmount


def mount_worker(root, i, ready):
    """Loops over create/write/read/stat/unlink until the mount dies."""
    d = os.path.join(root, f"m{i}")
    n = 0
    while True:
        try:
            p = os.path.join(d, f"f{n % 50}")
            with open(p, "ab") as f:
                f.write(b"y" * 100)
            with open(p, "rb") as f:
                f.read()
            os.stat(d)
            os.listdir(d)
            if n % 3 == 0:
                os.unlink(p)
        except OSError as e:
            if e.errno in (errno.ENOTCONN, errno.ECONNABORTED):
                os._exit(0)
            if e.errno != errno.ENOENT:
                os._exit(2)
        n += 1
        if n == WARM_OPS:
            os.write(ready, b"m")


def remote_worker(root, i, ready):
    """Changes BACKING forever; killed by the test."""
    d = os.path.join(root, f"r{i}")
    n = 0
    while True:
        p = os.path.join(d, f"g{n % 50}")
        with open(p, "ab") as f:
            f.write(b"z")
        os.chmod(p, 0o600 if n % 2 else 0o644)
        if n % 3 == 0:
            os.unlink(p)
        n += 1
        if n == WARM_OPS:
            os.write(ready, b"r")


def watcher(mnt, ready):
    """Reads events until the watches go away with the mount."""
    ino = rnfix.Inotify()
    for i in range(LOCAL):
        ino.add(os.path.join(mnt, f"m{i}"))
    for i in range(REMOTE):
        ino.add(os.path.join(mnt, f"r{i}"))
    os.write(ready, b"w")
    while True:
        ino.read(1.0)


def enotconn(path):
    """stat in a child: a dead server's mount may block the caller."""
    try:
        r = subprocess.run(["stat", path], capture_output=True, timeout=2)
    except subprocess.TimeoutExpired:
        return False
    return b"not connected" in r.stderr


def stuck_threads(pid):
    """Which threads of pid are blocked, and where."""
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{pid}/task/{t}/wchan") as f:
                out.append(f"thread {t} {state} in {f.read()}")
    except OSError:
        pass
    return ", ".join(out) or "no threads"


def scenario(server, name, remote):
    """kill -9 under load; remote: how many writers on BACKING."""
    chk = rnfix.Checks(f"death/{name}")
    m = rnfix.Mount(server, "death")
    for i in range(LOCAL):
        os.mkdir(m.bpath(f"m{i}"))
    for i in range(REMOTE):
        os.mkdir(m.bpath(f"r{i}"))
    if not chk.ok("mount", m.start(), m.server_log()[-300:]):
        chk.exit()
    rfd, wfd = os.pipe()
    watch = rnfix.fork(watcher, m.mnt, wfd)
    locals_ = [rnfix.fork(mount_worker, m.mnt, i, wfd)
               for i in range(LOCAL)]
    remotes = [rnfix.fork(remote_worker, m.back, i, wfd)
               for i in range(remote)]
    got = b""
    end = time.monotonic() + 60
    while len(got) < 1 + LOCAL + remote and time.monotonic() < end:
        got += os.read(rfd, 16)
    os.close(rfd)
    os.close(wfd)
    chk.ok("load_running", len(got) == 1 + LOCAL + remote,
           f"only {got!r} ready")
    t0 = time.monotonic()
    os.kill(m.proc.pid, signal.SIGKILL)
    ok = rnfix.wait_until(lambda: enotconn(m.mnt), BOUND)
    t_enotconn = time.monotonic() - t0
    chk.ok("enotconn", ok, f"stat({m.mnt}) not ENOTCONN after {BOUND} s")
    st = rnfix.reap(locals_, BOUND)
    t_exit = time.monotonic() - t0
    hung = [p for p in locals_ if p not in st]
    chk.ok("no_process_hangs", not hung,
           f"{len(hung)} of {LOCAL} mount workers still running")
    chk.ok("workers_saw_enotconn", all(v == 0 for v in st.values()),
           f"exit codes {sorted(st.values())} (0 = ENOTCONN seen)")
    gone = rnfix.wait_until(lambda: m.proc.poll() is not None, BOUND)
    chk.ok("server_process_gone", gone,
           "killed server still not reaped: " + stuck_threads(m.proc.pid))
    if not (ok and gone and not hung):
        chk.info("aborting the FUSE connection to recover: "
                 + rnfix.abort_connection(m.mnt))
        rnfix.wait_until(lambda: m.proc.poll() is not None, BOUND)
    for p in hung + remotes + [watch]:
        os.kill(p, signal.SIGKILL)
    rnfix.reap(hung + remotes + [watch], BOUND)
    r = subprocess.run(["fusermount3", "-u", m.mnt], capture_output=True,
                       timeout=BOUND)
    chk.ok("fusermount3_u", r.returncode == 0 and not rnfix.is_mounted(m.mnt),
           f"exit {r.returncode}: {r.stderr.decode().strip()}")
    if ok and not hung:
        chk.info(f"ENOTCONN after {t_enotconn * 1000:.0f} ms, all mount "
                 f"workers exited after {t_exit * 1000:.0f} ms")
    chk.ok("restart_serves", m.start(),
           f"restart failed: {m.server_log()[-300:]}")
    chk.ok("restart_delivers", m.sync(), "no remote event after restart")
    try:
        with open(m.mpath("m0/after"), "wb") as f:
            f.write(b"ok")
        data = open(m.bpath("m0/after"), "rb").read()
    except OSError as e:
        data = str(e).encode()
    chk.ok("restart_writes", data == b"ok", f"got {data!r}")
    chk.ok("server_stops", m.stop(), "server did not exit 0 on SIGTERM")
    m.close()
    return chk.failed


def main():
    bad = scenario(sys.argv[1], "replayer_idle", 0)
    bad += scenario(sys.argv[1], "replayer_busy", REMOTE)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
