# SPDX-License-Identifier: GPL-2.0-or-later
"""
Memory exhaustion: the server runs out of address space under a lookup
load, answers ENOMEM and nothing else, and serves and delivers again once
the kernel forgets the inodes it looked up.

  memory.py SERVER

  limit_hit    once the server has started, its RLIMIT_AS is set a few MiB
               above what it uses (`prlimit --pid`); a child then looks up
               FILES files through the mount. Every failed lookup fails
               ENOMEM, some do (the limit was met), the child finishes (no
               request hangs) and the server stays up.
  recovers     still at the limit, `echo 2 > /proc/sys/vm/drop_caches`
               makes the kernel FORGET the looked-up inodes; the server
               closes their fds (waited for). Under the same limit it
               then writes and reads through the mount, delivers exact
               remote events, looks up AGAIN files and exits 0 on SIGTERM;
               its lines about failed requests are rate-limited and
               counted.

The FORGETs arrive while the server is out of memory: libfuse would need
a request allocation to pass one on, fail ("fuse: failed to allocate
request") and drop it, and the inode's fd and memory would stay held for
good. The session's read hook (src/session_io.c) takes FORGET and
BATCH_FORGET before libfuse and allocates nothing; this checks it does.

An address-space limit is used because a memory cgroup does not fail an
allocation, it kills the biggest process in it (the server): errors can
only be clean where malloc() can say no. Sizes are printed as INFO lines,
not asserted.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

FILES = 10000
START_LIMIT = 128 << 20	# bytes: too few for a 64 MiB malloc arena a thread
MARGIN = 4 << 20	# bytes of address space left to the server
AGAIN = 200		# lookups after recovery (the limit allows ~500)
LOAD_BOUND = 120	# seconds for the lookups (a hang fails)
LOG_INTERVAL = 5	# src/util/log_limit.h LOG_LIMIT_INTERVAL


def status(pid):
    """VmSize, VmRSS (kB) and the number of open fds of pid."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmSize", "VmRSS", "Threads"):
                out[k] = int(v.split()[0])
    out["fds"] = rnfix.fd_count(pid)
    return out


def fmt(st):
    return (f"VmSize {st['VmSize'] >> 10} MiB, RSS {st['VmRSS'] >> 10} MiB, "
            f"{st['Threads']} threads, {st['fds']} fds")


def run_lookups(chk, m, n, name):
    """rnfix.lstat_names() in a child, bounded; its error counts or None."""
    out = os.path.join(m.tmp, f"{name}.json")
    pid = rnfix.fork(rnfix.lstat_names, m.mpath("big"), n, out)
    done = rnfix.wait_until(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid,
                            LOAD_BOUND, 0.05)
    if not chk.ok(f"{name}_finish", done,
                  f"lookups still running after {LOAD_BOUND} s"):
        chk.info(rnfix.abort_connection(m.mnt))
        os.waitpid(pid, 0)
        return None
    with open(out) as f:
        return json.load(f)


def pin_limit(chk, pid):
    """RLIMIT_AS MARGIN above what the server uses. A libfuse worker
    thread may start (a stack: more than MARGIN) between the reading and
    the setting, leaving the server above its limit: then again, from the
    new size. Once set, no thread can start. The server's status at the
    setting, or None."""
    for _ in range(5):
        base = status(pid)
        limit = (base["VmSize"] << 10) + MARGIN
        set_limit(pid, limit)
        if status(pid)["VmSize"] << 10 <= limit:
            chk.info(f"started: {fmt(base)}; RLIMIT_AS set to "
                     f"{limit >> 20} MiB")
            return base
    chk.ok("limit_set", False, "the server kept growing past the limit")
    return None


def limit_hit(chk, m):
    pid = m.proc.pid
    base = pin_limit(chk, pid)
    if base is None:
        return None
    errs = run_lookups(chk, m, FILES, "load")
    if errs is None:
        return None
    chk.info(f"{FILES} lookups under the limit: {errs}; server "
             + (fmt(status(pid)) if m.proc.poll() is None else "gone"))
    bad = {k: v for k, v in errs.items() if k not in ("ok", "ENOMEM")}
    chk.ok("limit_met", errs.get("ENOMEM", 0) > 0,
           f"no lookup failed: raise FILES or lower MARGIN ({errs})")
    chk.ok("only_enomem", not bad, f"other errors {bad}")
    chk.ok("alive_at_limit", m.proc.poll() is None,
           f"server exited {m.proc.returncode}: {m.server_log()[-300:]}")
    return base


def set_limit(pid, soft):
    """The soft limit only: raising a hard one needs CAP_SYS_RESOURCE."""
    subprocess.run(["prlimit", "--pid", str(pid), f"--as={soft}:"],
                   check=True)


def forget_all(chk, m, base):
    """drop_caches until the server holds no more fds than at start."""
    pid = m.proc.pid
    ok = False
    for _ in range(2):	# a second drop only if some were held
        rnfix.drop_dentries()
        ok = rnfix.wait_until(lambda: status(pid)["fds"] <= base["fds"] + 4,
                              10, 0.2)
        if ok:
            break
    chk.info("after drop_caches under the limit: " + fmt(status(pid)))
    chk.ok("fds_released", ok, "the server still holds the inodes' fds "
           "(FORGETs lost to ENOMEM?)")


def recovers(chk, m, base):
    forget_all(chk, m, base)
    try:
        with open(m.mpath("d/w"), "wb") as f:
            f.write(b"after")
        data = open(m.mpath("d/w"), "rb").read()
        os.unlink(m.mpath("d/w"))
    except OSError as e:
        data = repr(e).encode()
    chk.ok("writes_reads", data == b"after", f"got {data!r}")
    chk.ok("sync", m.sync(), "a remote create did not reach a watcher")
    ino = rnfix.Inotify()
    try:
        ino.add(m.mpath("d"))
        os.mknod(m.bpath("d/f"))
        os.rename(m.bpath("d/f"), m.bpath("d/g"))
        os.unlink(m.bpath("d/g"))
        ok, seen = m.collect(ino, "d", expect=4)
    finally:
        ino.close()
    got = [(rnfix.mask_str(e[1]), e[3].decode()) for e in seen]
    chk.ok("delivers", ok and got == [("CREATE", "f"), ("MOVED_FROM", "f"),
                                      ("MOVED_TO", "g"), ("DELETE", "g")]
           and seen[1][2] == seen[2][2] != 0, f"got {got}")
    # Under the same limit again: what the forgotten inodes held is free.
    errs = run_lookups(chk, m, AGAIN, "again")
    chk.ok("looks_up_again", errs is not None and errs["ok"] == AGAIN,
           f"errors {errs}")


def log_bounded(chk, m, elapsed):
    """libfuse's and the server's lines about a failed request (one per
    request) are rate-limited per message: the first at once, then one
    counted line per interval."""
    lines = m.server_log().splitlines()
    fuse = {}
    for ln in lines:
        if ln.startswith(("fuse: ", "rnotifyfs: request: ")):
            fuse[ln] = fuse.get(ln, 0) + 1
    chk.info(f"server log: {len(lines)} lines in {elapsed:.0f} s: "
             + ", ".join(f"{v} x {k!r}" for k, v in fuse.items()))
    most = 2 + int(elapsed / LOG_INTERVAL)
    chk.ok("log_some", fuse, "no line about a failed request: was the "
           "limit met?")
    chk.ok("log_bounded", all(v <= most for v in fuse.values()),
           f"more than {most} lines of one message")


def main():
    server = sys.argv[1]
    chk = rnfix.Checks("memory")
    m = rnfix.Mount(server, "memory",
                    wrap=["prlimit", f"--as={START_LIMIT}"])
    os.mkdir(m.bpath("big"))
    os.mkdir(m.bpath("d"))
    for i in range(FILES):
        os.mknod(m.bpath(f"big/f{i}"))
    t0 = time.monotonic()
    if chk.ok("mount", m.start(), m.server_log()[-300:]):
        base = limit_hit(chk, m)
        if base and m.proc.poll() is None:
            recovers(chk, m, base)
        log_bounded(chk, m, time.monotonic() - t0)
        chk.ok("server_stops", m.stop(), "server did not exit 0 on SIGTERM")
        held = [ln for ln in m.server_log().splitlines()
                if "more times" in ln or "not logged" in ln]
        chk.info(f"lines held back, as counted by the server: {held}")
    m.close()
    chk.exit()


if __name__ == "__main__":
    main()
