# SPDX-License-Identifier: GPL-2.0-or-later
"""
The server alone in a small memory cgroup, a client outside it looking up
far more files than the cgroup has room to keep: the inode bound the
server derives from the cgroup's limit keeps what it pins small, so the
cgroup's OOM killer never picks it, and it serves and delivers after.

  memcg.py SERVER [OPTS]

  A memory cgroup of LIMIT (v1: memory.limit_in_bytes in a child of our
  group; v2: memory.max in a sibling, as a v2 group with processes cannot
  have children with controllers) holds only the server and its watchdog:
  a shell joins it and execs the server. OPTS go to the server with -o:
  `memcg.py SERVER max_inodes=0` turns the bound off and must fail.

  survives   this process, outside the cgroup, lstat()s FILES files
             through the mount (in a child, bounded): every one succeeds,
             the server is alive, the cgroup's OOM killer killed nothing.
  bounded    the server's fds come back under the bound it derives from
             LIMIT, give or take shed.c's sixteenth and what this test
             holds (waited for), and its anonymous memory (the inode
             table, libfuse's buffers) stayed under ANON_MAX throughout.
  serves     a file opened before the load still reads; another stats.
  delivers   a remote append to a watched file in a watched directory
             gives exactly MODIFY and CLOSE_WRITE on each watch.

The files are made, and stat()ed again just before the load, by this
process, so their backing dentries and inodes are cached and charged to
this process's cgroup: what the server's cgroup is charged for is then
the server's own (its heap: ~200 B a known inode; an O_PATH file: ~250 B
a held fd). Without the bound the heap grows with every file the kernel
keeps, ~10 MiB by 51,000 files, and the OOM killer takes the server.

What this does not test: backing lookups that miss the caches charge the
ext4 inode and dentry (~1.3 KiB a file) to the server's cgroup too, and
ext4 allocates the inode with GFP_NOFS, under which the cgroup cannot
reclaim dentries or inodes: once the cgroup is full of them the OOM
killer may take the server, bound or not, as it takes a plain C lstat()
loop in the same cgroup (see rnotifyfs(8), LIMITS). Whether it does is a matter of
chance, not of the server, so this test keeps the caches warm. An
`echo 2 > /proc/sys/vm/drop_caches` by someone else during the load
makes them cold, and at LIMIT the server is then likely killed.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

LIMIT = 12 << 20	# bound 1536; the server's peak use with it: ~2.3 MiB
FILES = 80000		# without the bound it is killed at ~51,000
INODE_COST = 2048	# src/fs/shed_bound.h FS_SHED_INODE_COST
BOUND_MIN = 1024	# src/fs/shed_bound.h FS_SHED_MIN
ANON_MAX = LIMIT // 4	# 0.7-0.9 MiB measured with the bound; see bounded()
LOAD_BOUND = 120	# seconds for the lookups (a hang fails)
SETTLE = 30		# seconds for the kernel's FORGETs to come back
HELD = 8		# fds for what the test holds: w, watched, held (twice)


class Skip(Exception):
    pass


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def keyed(path):
    """A "key value" per line file as a dict of ints."""
    out = {}
    for line in read(path).splitlines():
        k, _, v = line.partition(" ")
        if v.strip().isdigit():
            out[k] = int(v)
    return out


def hierarchies():
    """The v1 memory hierarchy's and the v2 hierarchy's mount points."""
    v1 = v2 = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fstype, _, opts = post.split()[:3]
            where = pre.split()[4]
            if fstype == "cgroup" and "memory" in opts.split(","):
                v1 = where
            elif fstype == "cgroup2" and v2 is None:
                v2 = where
    return v1, v2


def own_group(v1):
    """Our group in the v1 memory hierarchy (v1) or in v2's."""
    for line in read("/proc/self/cgroup").splitlines():
        _, ctl, path = line.split(":", 2)
        if (v1 and "memory" in ctl.split(",")) or (not v1 and not ctl):
            return path
    raise Skip("no memory cgroup line in /proc/self/cgroup")


class Memcg:
    """A memory cgroup of limit bytes for the server; raises Skip."""

    def __init__(self, limit):
        v1, v2 = hierarchies()
        self.v1 = v1 is not None
        name = f"rnotify-memcg-{os.getpid()}"
        if self.v1:
            self.home = v1 + own_group(True).rstrip("/")
            self.path = os.path.join(self.home, name)
            self.make("memory.limit_in_bytes", limit)
        elif v2:
            group = own_group(False)
            self.home = v2 + group.rstrip("/")
            base = v2 + os.path.dirname(group).rstrip("/")
            if "memory" not in read(f"{base}/cgroup.subtree_control"):
                raise Skip(f"v2: no memory controller in {base}'s "
                           "cgroup.subtree_control")
            self.path = os.path.join(base, name)
            self.make("memory.max", limit)
        else:
            raise Skip("no memory cgroup hierarchy is mounted")
        self.procs = os.path.join(self.path, "cgroup.procs")
        probe = subprocess.run(["sh", "-c", 'echo $$ > "$0"', self.procs],
                               capture_output=True, text=True)
        if probe.returncode:
            self.remove()
            raise Skip(f"cannot move a process into {self.path}: "
                       f"{probe.stderr.strip()}")

    def make(self, limit_file, limit):
        try:
            os.mkdir(self.path)
        except OSError as e:
            raise Skip(f"mkdir {self.path}: {e.strerror}")
        try:
            write(os.path.join(self.path, limit_file), str(limit))
        except OSError as e:
            os.rmdir(self.path)
            raise Skip(f"{limit_file}: {e.strerror}")

    def wrap(self):
        """argv prefix: the command joins the cgroup, then runs."""
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', self.procs]

    def file(self, name):
        return os.path.join(self.path, name)

    def oom_kills(self):
        if self.v1:
            return keyed(self.file("memory.oom_control")).get("oom_kill", 0)
        return keyed(self.file("memory.events")).get("oom_kill", 0)

    def anon(self):
        stat = keyed(self.file("memory.stat"))
        return stat.get("rss" if self.v1 else "anon", 0)

    def number(self, name):
        """The number in file name, -1 if there is none (older kernels)."""
        try:
            return int(read(self.file(name)))
        except (OSError, ValueError):
            return -1

    def usage(self):
        """Peak usage, times the limit was hit, and kernel memory now."""
        if self.v1:
            return {"peak": self.number("memory.max_usage_in_bytes"),
                    "limit_hit": self.number("memory.failcnt"),
                    "kmem": self.number("memory.kmem.usage_in_bytes")}
        return {"peak": self.number("memory.peak"),
                "limit_hit": keyed(self.file("memory.events")).get("max", 0),
                "kmem": keyed(self.file("memory.stat")).get("kernel", -1)}

    def remove(self):
        """Once the server and its watchdog are gone; what is left (a
        stuck process) is moved to our own group first."""
        if not rnfix.wait_until(lambda: not read(self.procs).split(), 10,
                                0.05):
            for pid in read(self.procs).split():
                try:
                    write(os.path.join(self.home, "cgroup.procs"), pid)
                except OSError:
                    pass
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return True
            except FileNotFoundError:
                return True
            except OSError:
                time.sleep(0.1)
        return False


def load(chk, m, cg):
    """The lookups in a child, bounded, sampling the server's anonymous
    memory meanwhile; (error counts or None, largest sample)."""
    out = os.path.join(m.tmp, "load.json")
    pid = rnfix.fork(rnfix.lstat_names, m.mpath("many"), FILES, out)
    anon = [cg.anon()]

    def done():
        anon.append(cg.anon())
        return os.waitpid(pid, os.WNOHANG)[0] == pid

    t0 = time.monotonic()
    if not chk.ok("load_finishes", rnfix.wait_until(done, LOAD_BOUND, 0.1),
                  f"lookups still running after {LOAD_BOUND} s"):
        chk.info(rnfix.abort_connection(m.mnt))
        os.waitpid(pid, 0)
        return None, max(anon)
    chk.info(f"{FILES} lookups in {time.monotonic() - t0:.1f} s")
    with open(out) as f:
        return json.load(f), max(anon)


def survives(chk, m, cg):
    errs, anon = load(chk, m, cg)
    use = cg.usage()
    chk.info(f"cgroup: peak {use['peak'] >> 10} KiB of {LIMIT >> 10}, "
             f"limit hit {use['limit_hit']} times, kernel memory "
             f"{use['kmem'] >> 10} KiB, largest anonymous "
             f"{anon >> 10} KiB, OOM kills {cg.oom_kills()}")
    chk.ok("lookups", errs == {"ok": FILES}, f"got {errs}")
    chk.ok("alive", m.proc.poll() is None,
           f"server exited {m.proc.returncode}: {m.server_log()[-300:]}")
    chk.ok("no_oom_kill", cg.oom_kills() == 0,
           f"the cgroup's OOM killer killed {cg.oom_kills()}")
    return anon


def bounded(chk, m, base, anon):
    """The bound is the one the server derives from LIMIT
    (src/fs/shed_bound.c). Its anonymous memory is ~230 B an inode of it
    (~350 KiB) and what it needs anyway (libfuse's buffers, stacks):
    0.7-0.9 MiB measured. A quarter of the limit leaves room to spare, where
    without the bound it grows past the whole limit."""
    bound = max(LIMIT // 4 // INODE_COST, BOUND_MIN)
    most = base + bound + bound // 16 + HELD	# a 16th: shed.c hysteresis
    pid = m.proc.pid
    ok = rnfix.wait_until(lambda: rnfix.fd_count(pid) <= most, SETTLE, 0.1)
    n = rnfix.fd_count(pid)
    chk.info(f"server holds {n} fds (at start {base}, bound {bound}, "
             f"at most {most})")
    chk.ok("fds_bounded", ok, f"{n} fds after {SETTLE} s")
    chk.ok("anon_bounded", anon <= ANON_MAX,
           f"{anon >> 10} KiB of anonymous memory, bound {ANON_MAX >> 10}")


def serves(chk, m, held):
    os.lseek(held, 0, os.SEEK_SET)
    data = os.read(held, 16)
    chk.ok("open_file_reads", data == b"held", f"read {data!r}")
    try:
        ok = os.stat(m.mpath("many/f7")).st_size == 0
    except OSError as e:
        ok = False
        chk.info(f"stat: {e}")
    chk.ok("stats", ok)


def delivers(chk, m, ino):
    with open(m.bpath("w/watched"), "ab") as f:
        f.write(b"x")
    want = [("w", "MODIFY", "watched"), ("watched", "MODIFY", ""),
            ("w", "CLOSE_WRITE", "watched"), ("watched", "CLOSE_WRITE", "")]
    ok, seen = m.collect(ino, "w", expect=len(want))
    got = [(os.path.basename(e[0]).decode(), rnfix.mask_str(e[1]),
            e[3].decode()) for e in seen]
    chk.ok("delivers", ok and got == want, f"got {got}")


def run(chk, m, cg):
    held = -1
    ino = rnfix.Inotify()
    try:
        if not chk.ok("mount", m.start(), m.server_log()[-300:]):
            return
        base = rnfix.fd_count(m.proc.pid)
        chk.ok("watch", ino.add(m.mpath("w")) > 0 and
               ino.add(m.mpath("w/watched")) > 0)
        held = os.open(m.mpath("held"), os.O_RDONLY)
        # Cached again, in our cgroup, if anything dropped them.
        for i in range(FILES):
            os.lstat(m.bpath(f"many/f{i}"))
        anon = survives(chk, m, cg)
        if m.proc.poll() is not None:
            return
        bounded(chk, m, base, anon)
        serves(chk, m, held)
        delivers(chk, m, ino)
        os.close(held)
        held = -1
        chk.ok("server_stops", m.stop(), m.server_log()[-300:])
    finally:
        if held >= 0:
            os.close(held)
        ino.close()


def main():
    server = sys.argv[1]
    opts = sys.argv[2] if len(sys.argv) > 2 else None
    chk = rnfix.Checks("memcg")
    try:
        cg = Memcg(LIMIT)
    except Skip as e:
        print(f"SKIP memcg: {e}", flush=True)
        return 0
    try:
        m = rnfix.Mount(server, "memcg", opts=opts, wrap=cg.wrap())
        try:
            os.mkdir(m.bpath("many"))
            os.mkdir(m.bpath("w"))
            for i in range(FILES):
                os.mknod(m.bpath(f"many/f{i}"))
            os.mknod(m.bpath("w/watched"))
            with open(m.bpath("held"), "wb") as f:
                f.write(b"held")
            chk.info(f"cgroup {cg.path}, limit {LIMIT >> 20} MiB"
                     + (f", -o {opts}" if opts else ""))
            run(chk, m, cg)
        finally:
            m.close()
    finally:
        chk.ok("cgroup_removed", cg.remove(), f"{cg.path} is still there")
    return chk.exit()


if __name__ == "__main__":
    sys.exit(main())
