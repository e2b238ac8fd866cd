# SPDX-License-Identifier: GPL-2.0-or-later
"""
Work outside the export: the fanotify filesystem mark sees every change
on the backing file system, and a user beside the export (a home
directory on the same file system) may make as many as they like. The
server must drop them at a bounded cost, so that the export's own remote
events keep flowing and the host queue (kernel memory charged to the
server) does not grow.

  flood.py SERVER [SECONDS]        (default 10)

Layout: /tmp/rnotify-flood.X/quiet/fs is a tmpfs of the test's own, whose
backing/ is the export and outside/ the flooder's: one file system, as
a home directory beside an export, but not the one every other fanotify
server on this machine watches (they would pay for the flood too, and
their own floods would blur its figures). For SECONDS the flooder
renames outside/r/d1 to d2 and back (a directory rename anywhere used to
empty the server's directory cache), each time followed by a create and
an unlink in the next of LEAVES directories at the bottom of a chain
DEPTH deep (each uncached directory cost a walk up to the top of the
file system, and there are more of them than the cache holds). The
flooder pays one syscall per change (it holds a dirfd of each leaf).

Meanwhile a prober makes one file in the export every PROBE_EVERY
seconds, and a watcher on the mount reads their CREATEs. The server
runs in a memory cgroup of its own when one can be made, so the kernel
memory of its fanotify queue is counted; the queue's length is read
directly too (FIONREAD on the server's fanotify fd, through
pidfd_getfd).

  all_delivered   every probe's CREATE arrives (by DRAIN s after the end)
  delay           no probe's CREATE later than DELAY_MAX s
  queue_bounded   the host queue never held more than QUEUE_MAX bytes
  memory_bounded  the server's cgroup grew by less than MEM_MAX bytes
The figures (delays, queue, memory, changes made) are printed as INFO.
"""
import ctypes
import fcntl
import os
import struct
import subprocess
import sys
import termios
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "pylib"))
sys.path.insert(0, os.path.join(HERE, "..", "stress"))
import rnfix  # noqa: E402
import memcg  # noqa: E402

DEPTH = 1000		# the chain above the leaves
LEAVES = 6000		# more than the server's directory cache holds
PROBE_EVERY = 0.02	# seconds between the export's own changes
DRAIN = 30		# seconds the probes may still take after the flood
DELAY_MAX = 3.0		# seconds, for any probe (9 s and rising before)
QUEUE_MAX = 4 << 20	# bytes of events waiting in the host queue
MEM_MAX = 32 << 20	# growth of the server's cgroup
CG_LIMIT = 2 << 30	# the cgroup's limit: far above any healthy use

_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_libc.syscall.restype = ctypes.c_long
SYS_PIDFD_OPEN = 434
SYS_PIDFD_GETFD = 438


def make_tree(outside):
    """outside/r/d1 and the chain with its leaves; a dirfd of the chain's
    bottom, whose leaves the flooder reaches by a one-step path."""
    os.makedirs(os.path.join(outside, "r", "d1"))
    fd = os.open(outside, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(DEPTH):
        try:
            os.mkdir("a", dir_fd=fd)
        except FileExistsError:
            pass
        nfd = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    for i in range(LEAVES):
        os.mkdir(f"l{i}", dir_fd=fd)
    return fd


def flooder(outside, bottom, stop_at, out):
    """Renames a directory and back, then a create and an unlink in the
    next leaf, until stop_at; writes how many changes it made."""
    r = os.open(os.path.join(outside, "r"), os.O_RDONLY | os.O_DIRECTORY)
    leaves = [f"l{i}/f" for i in range(LEAVES)]
    names = ("d1", "d2")
    n = 0
    while time.monotonic() < stop_at:
        for _ in range(64):
            os.rename(names[n & 1], names[~n & 1], src_dir_fd=r,
                      dst_dir_fd=r)
            leaf = leaves[n % LEAVES]
            os.mknod(leaf, dir_fd=bottom)
            os.unlink(leaf, dir_fd=bottom)
            n += 1
    with open(out, "w") as f:
        f.write(f"{n * 3}\n")


def prober(back, stop_at, out):
    """A file in the export every PROBE_EVERY s; writes when each was
    made (CLOCK_MONOTONIC, which the watcher reads too)."""
    made = []
    nxt = time.monotonic()
    while nxt < stop_at:
        os.mknod(os.path.join(back, f"p{len(made)}"))
        made.append(time.monotonic())
        nxt += PROBE_EVERY
        time.sleep(max(0.0, nxt - time.monotonic()))
    with open(out, "w") as f:
        f.write(" ".join(f"{t:.6f}" for t in made))


class HostQueue:
    """The server's fanotify fd, duplicated here: FIONREAD says how many
    bytes of events wait in it."""

    def __init__(self, pid):
        self.fd = -1
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                what = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if what == "anon_inode:[fanotify]":
                pidfd = _libc.syscall(SYS_PIDFD_OPEN, pid, 0)
                if pidfd < 0:
                    return
                self.fd = _libc.syscall(SYS_PIDFD_GETFD, pidfd, int(fd), 0)
                os.close(pidfd)
                return

    def pending(self):
        if self.fd < 0:
            return -1
        buf = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0" * 4)
        return struct.unpack("i", buf)[0]

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)


def cgroup():
    try:
        return memcg.Memcg(CG_LIMIT)
    except memcg.Skip as e:
        print(f"INFO flood: no memory cgroup for the server ({e}); "
              "its kernel memory is not counted", flush=True)
        return None


def cg_bytes(cg):
    if not cg:
        return -1
    return cg.number("memory.usage_in_bytes" if cg.v1 else "memory.current")


def rss(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) << 10
    except OSError:
        pass
    return -1


def mib(n):
    return f"{n / (1 << 20):.1f} MiB" if n >= 0 else "n/a"


def watch(m, ino, hq, cg, end, total):
    """Reads the probes' CREATEs until, after end, all total() of them
    arrived (or DRAIN s passed); samples the queue and memory meanwhile.
    total() is None until the prober has said how many it made."""
    seen = {}
    peak = {"queue": 0, "cg": cg_bytes(cg), "rss": rss(m.proc.pid)}
    last = 0.0
    n = None
    while True:
        now = time.monotonic()
        if now >= end:
            n = n if n is not None else total()
            if (n is not None and len(seen) >= n) or now > end + DRAIN:
                break
        for ev in ino.read(0.05):
            if ev[1] & rnfix.IN_CREATE and ev[3].startswith(b"p"):
                seen.setdefault(int(ev[3][1:]), time.monotonic())
        if now - last >= 0.25:
            last = now
            peak["queue"] = max(peak["queue"], hq.pending())
            peak["cg"] = max(peak["cg"], cg_bytes(cg))
            peak["rss"] = max(peak["rss"], rss(m.proc.pid))
    return seen, peak


def result(path):
    with open(path) as f:
        return f.read().split()


def run(chk, m, cg, secs, bottom):
    outside = os.path.join(os.path.dirname(m.back), "outside")
    hq = HostQueue(m.proc.pid)
    chk.ok("queue_readable", hq.fd >= 0,
           "no fanotify fd of the server to read the queue's length from")
    ino = rnfix.Inotify()
    ino.add(m.mnt, rnfix.IN_CREATE)
    cg0, rss0 = cg_bytes(cg), rss(m.proc.pid)
    flood_out = os.path.join(m.tmp, "flood.out")
    probe_out = os.path.join(m.tmp, "probe.out")
    t0 = time.monotonic()
    end = t0 + secs
    pids = [rnfix.fork(flooder, outside, bottom, end, flood_out),
            rnfix.fork(prober, m.back, end, probe_out)]

    def probes_made():
        done, st = os.waitpid(pids[1], os.WNOHANG)
        if done != pids[1]:
            return None
        codes[done] = os.waitstatus_to_exitcode(st)
        return len(result(probe_out)) if codes[done] == 0 else 0
    codes = {}
    seen, peak = watch(m, ino, hq, cg, end, probes_made)
    codes.update(rnfix.reap([p for p in pids if p not in codes], 10))
    chk.ok("actors_ran", sorted(codes.values()) == [0, 0],
           f"exit codes {codes}")
    made = [float(t) for t in result(probe_out)]
    changes = int(result(flood_out)[0])
    delays = sorted(seen[i] - made[i] for i in seen if i < len(made))
    lost = len(made) - len(delays)
    q = delays[int(len(delays) * 0.99) - 1] if delays else -1
    chk.info(f"{secs:.0f} s: {changes} changes outside the export "
             f"({changes / secs:.0f}/s), {len(made)} probes inside, "
             f"{lost} not delivered by {DRAIN} s after the flood")
    if delays:
        chk.info(f"probe delay: median {delays[len(delays) // 2]:.3f} s, "
                 f"p99 {q:.3f} s, max {delays[-1]:.3f} s")
    chk.info(f"host queue: peak {mib(peak['queue'])} waiting; server "
             f"cgroup: {mib(cg0)} before, peak {mib(peak['cg'])} "
             f"(+{mib(peak['cg'] - cg0) if cg else 'n/a'}); server RSS "
             f"{mib(rss0)} before, peak {mib(peak['rss'])}")
    chk.ok("all_delivered", lost == 0, f"{lost} of {len(made)} probes' "
           f"CREATE not read {DRAIN} s after the flood")
    chk.ok("delay", delays and delays[-1] <= DELAY_MAX,
           f"a probe's CREATE came {delays[-1] if delays else -1:.2f} s "
           f"late (bound {DELAY_MAX} s)")
    chk.ok("queue_bounded", 0 <= peak["queue"] <= QUEUE_MAX,
           f"{mib(peak['queue'])} waited in the host queue "
           f"(bound {mib(QUEUE_MAX)})")
    if cg:
        chk.ok("memory_bounded", peak["cg"] - cg0 <= MEM_MAX,
               f"the server's cgroup grew by {mib(peak['cg'] - cg0)} "
               f"(bound {mib(MEM_MAX)})")
    hq.close()
    ino.close()
    chk.ok("server_alive", m.proc.poll() is None, "server died")
    chk.ok("still_delivers", m.sync(60), "no remote event after the flood")


def main():
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 10
    chk = rnfix.Checks("flood")
    cg = cgroup()
    try:
        m = rnfix.Mount(sys.argv[1], "flood", wrap=cg.wrap() if cg else None,
                        back="fs/backing")
        fs = os.path.dirname(m.back)
        try:
            os.rmdir(m.back)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755",
                            "rnotify-flood", fs], check=True)
            os.mkdir(m.back)
            # Made before the server starts: its events are not the test.
            bottom = make_tree(os.path.join(fs, "outside"))
            try:
                if chk.ok("mount", m.start(), m.server_log()[-300:]):
                    run(chk, m, cg, secs, bottom)
                    chk.ok("server_stops", m.stop(30),
                           "no exit 0 on SIGTERM")
            finally:
                os.close(bottom)
        finally:
            m.stop()
            rnfix.unmount(m.mnt)
            if rnfix.is_mounted(fs):
                subprocess.run(["umount", fs])
            chk.ok("tmpfs_unmounted", not rnfix.is_mounted(fs),
                   f"{fs} is still mounted")
            m.close()
    finally:
        if cg:
            chk.ok("cgroup_removed", cg.remove(), f"{cg.path} is left")
    chk.exit()


if __name__ == "__main__":
    main()
