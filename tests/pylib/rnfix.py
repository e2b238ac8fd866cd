# SPDX-License-Identifier: GPL-2.0-or-later
"""
The fixture shared by the stress and security suites (tests/stress,
tests/security): checks that print "PASS name" / "FAIL name: why", a
temporary export served by rnotifyfs, and an inotify reader.

A Mount owns /tmp/rnotify-PREFIX.XXXXXX/{backing,mnt} and the server it
started; Mount.close() (also run at exit and on SIGINT/SIGTERM) stops the
server, unmounts whatever is left and removes the tree. Every wait is a
poll of a condition with a bound, never a bare sleep.
"""
import atexit
import contextlib
import ctypes
import errno
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ISDIR = 0x40000000
IN_ALL_EVENTS = 0xfff
IN_OPEN = 0x20
IN_ACCESS = 0x1
IN_CLOSE_NOWRITE = 0x10
# What a typical watcher asks for: everything but read-side noise.
MASK_DEFAULT = IN_ALL_EVENTS & ~(IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE)

_NAMES = [(IN_ACCESS, "ACCESS"), (IN_MODIFY, "MODIFY"),
          (IN_ATTRIB, "ATTRIB"), (IN_CLOSE_WRITE, "CLOSE_WRITE"),
          (IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"), (IN_OPEN, "OPEN"),
          (IN_MOVED_FROM, "MOVED_FROM"), (IN_MOVED_TO, "MOVED_TO"),
          (IN_CREATE, "CREATE"), (IN_DELETE, "DELETE"),
          (IN_DELETE_SELF, "DELETE_SELF"), (IN_MOVE_SELF, "MOVE_SELF"),
          (IN_Q_OVERFLOW, "Q_OVERFLOW"), (IN_IGNORED, "IGNORED"),
          (IN_ISDIR, "ISDIR")]


def mask_str(mask):
    return "|".join(n for b, n in _NAMES if mask & b) or hex(mask)


class Checks:
    """Counts and prints check lines."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.passed = 0
        self.failed = 0

    def ok(self, name, cond, why=""):
        full = f"{self.prefix}/{name}"
        if cond:
            print(f"PASS {full}", flush=True)
            self.passed += 1
        else:
            print(f"FAIL {full}: {why}", flush=True)
            self.failed += 1
        return cond

    def info(self, text):
        print(f"INFO {self.prefix}: {text}", flush=True)

    def exit(self):
        sys.exit(1 if self.failed else 0)


def fork(fn, *a):
    """Runs fn(*a) in a child; its pid. The child exits 0 when fn returns
    and 1 when it raises (a child must never return into the test)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fn(*a)
            code = 0
        except BaseException as e:
            print(f"INFO child {fn.__name__}: {e!r}", flush=True)
        os._exit(code)
    return pid


def reap(pids, bound):
    """pid -> exit status for those that exit within bound."""
    out = {}
    end = time.monotonic() + bound
    while len(out) < len(pids) and time.monotonic() < end:
        for pid in pids:
            if pid not in out:
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    out[pid] = os.waitstatus_to_exitcode(st)
        time.sleep(0.01)
    return out


def read_all(fd):
    """Everything read from fd until end of file (a pipe's writers all
    closed); fd is closed."""
    out = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    os.close(fd)
    return out


# How long a check waits for the events it expects to come by themselves,
# before it makes a sentinel (see Mount.collect).
EXPECT_WAIT = 10


def read_expected(ino, expect, seen, skip=lambda e: False,
                  wait=EXPECT_WAIT):
    """Reads ino's events into seen, with nothing changing meanwhile, until
    the events a check expects have all come, for wait seconds at most.
    expect is their number, or a function of the events read (but those
    skip() drops) that says whether all have come. True once they have."""
    def came():
        evs = [e for e in seen if not skip(e)]
        return expect(evs) if callable(expect) else len(evs) >= expect
    end = time.monotonic() + wait
    while not came() and time.monotonic() < end:
        seen += ino.read(max(0.0, end - time.monotonic()))
    return came()


def drop_dentries():
    """The kernel drops unused dentries and inodes, machine-wide (the
    suite runs as root): names a client no longer holds, files it
    forgets."""
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2")


def wait_until(cond, timeout, step=0.01):
    """Polls cond() until it is true or timeout seconds passed."""
    end = time.monotonic() + timeout
    while True:
        if cond():
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(step)


_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p,
                                    ctypes.c_uint32]


class Inotify:
    """One inotify fd; events come out as (path, mask, cookie, name, wd)."""

    def __init__(self):
        self.fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.paths = {}
        self.buf = b""

    def add(self, path, mask=MASK_DEFAULT):
        """Returns the wd, or -errno."""
        p = path if isinstance(path, bytes) else os.fsencode(path)
        wd = _libc.inotify_add_watch(self.fd, p, mask)
        if wd < 0:
            return -ctypes.get_errno()
        self.paths[wd] = p
        return wd

    def read(self, timeout):
        """Every event available within timeout seconds (maybe none)."""
        import select
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return []
        try:
            data = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return []
        out = []
        off = 0
        while off < len(data):
            wd, mask, cookie, ln = struct.unpack_from("iIII", data, off)
            name = data[off + 16:off + 16 + ln].rstrip(b"\0")
            off += 16 + ln
            out.append((self.paths.get(wd, b"?"), mask, cookie, name, wd))
            if mask & IN_IGNORED:
                self.paths.pop(wd, None)
        return out

    def wait_for(self, pred, timeout, seen=None):
        """Reads until pred(event) holds; earlier events go to seen."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for ev in self.read(max(0.0, end - time.monotonic())):
                if pred(ev):
                    return True
                if seen is not None:
                    seen.append(ev)
        return False

    def close(self):
        os.close(self.fd)


def is_mounted(path):
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            return any(line.split()[4] == os.fsencode(path) for line in f)
    except OSError:
        return False


def unmount(path):
    if not is_mounted(path):
        return True
    subprocess.run(["fusermount3", "-u", path], stderr=subprocess.DEVNULL)
    if is_mounted(path):
        subprocess.run(["umount", "-l", path], stderr=subprocess.DEVNULL)
    return not is_mounted(path)


def abort_connection(mnt):
    """Aborts the FUSE connection of mnt through fusectl (a last resort
    for a mount whose server cannot answer any more); says what it did."""
    conn = "/sys/fs/fuse/connections"
    dev = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            p = line.split()
            if p[4] == mnt:
                dev = p[2].split(":")[1]
    if dev is None:
        return "not mounted"
    with open("/proc/mounts") as f:
        mounted_here = not any(ln.split()[2] == "fusectl" for ln in f)
    if mounted_here:
        subprocess.run(["mount", "-t", "fusectl", "none", conn])
    try:
        with open(f"{conn}/{dev}/abort", "w") as f:
            f.write("1")
        what = f"wrote 1 to {conn}/{dev}/abort"
    except OSError as e:
        what = f"{conn}/{dev}/abort: {e.strerror}"
    if mounted_here:
        subprocess.run(["umount", conn])
    return what


_live = []
_owner = os.getpid()


def _cleanup_all():
    # A forked writer inherits the handlers, not the job.
    if os.getpid() != _owner:
        os._exit(1)
    for m in list(_live):
        m.close()


def _on_signal(signo, frame):
    _cleanup_all()
    sys.exit(128 + signo)


atexit.register(_cleanup_all)
signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)


class Mount:
    """A temporary export and the rnotifyfs server that serves it.

    Layout: tmp (/tmp/rnotify-PREFIX.X) holds MNT, the server's log and
    whatever a test writes as it goes; tmp/quiet, the quiet dir, is a
    tmpfs of its own that holds BACKING (quiet/back) and whatever a test
    moves into the export or out of it, which must be on BACKING's file
    system. The fanotify watcher marks the backing store's whole file
    system: on /tmp's, any change of anyone (a build beside the test)
    wakes the server and would carry along an event that waits for a
    next one, so no check could see that the last event never comes by
    itself. The test's own log writes stay off the quiet tmpfs for the
    same reason."""

    def __init__(self, server, prefix, opts=None, wrap=None, back="backing"):
        self.server = server
        self.opts = opts
        self.wrap = wrap or []	# e.g. ["prlimit", "--nofile=128"]
        self.tmp = tempfile.mkdtemp(prefix=f"rnotify-{prefix}.", dir="/tmp")
        os.chmod(self.tmp, 0o755)
        self.quiet = os.path.join(self.tmp, "quiet")
        self.back = os.path.join(self.quiet, back)
        self.mnt = os.path.join(self.tmp, "mnt")
        self.log = os.path.join(self.tmp, "server.log")
        os.mkdir(self.quiet)
        os.mkdir(self.mnt)
        self.proc = None
        self.seq = 0
        _live.append(self)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755",
                        "rnotify-quiet", self.quiet], check=True)
        os.makedirs(self.back)

    def start(self, timeout=10, sync=True):
        """Starts the server; True once it mounted and (sync) a remote
        change reached MNT."""
        argv = self.wrap + [self.server, "-f"]
        if self.opts:
            argv += ["-o", self.opts]
        argv += [self.back, self.mnt]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=log)
        if not wait_until(lambda: is_mounted(self.mnt)
                          or self.proc.poll() is not None, timeout):
            return False
        return is_mounted(self.mnt) and (not sync or self.sync(timeout))

    def sync(self, timeout=10):
        """A remote create in BACKING reaches a watcher on MNT, and so
        does its delete: a watcher added after sync() must not read the
        delete's replay (load.py's reader read DELETE .sync1 at times).
        Each of the two is waited for before the next change, so neither
        needs a later change to come: a server that held a last event
        back fails here. (An earlier change's event it releases is no
        check's: sync() is a barrier, not an expectation.)"""
        ino = Inotify()
        try:
            if ino.add(self.mnt, IN_CREATE | IN_DELETE) < 0:
                return False
            self.seq += 1
            name = f".sync{self.seq}".encode()
            path = os.path.join(os.fsencode(self.back), name)
            os.mknod(path)
            ok = ino.wait_for(lambda e: e[2:4] == (0, name)
                              and e[1] & IN_CREATE, timeout)
            os.unlink(path)
            return ok and ino.wait_for(lambda e: e[2:4] == (0, name)
                                       and e[1] & IN_DELETE, timeout)
        finally:
            ino.close()

    def collect(self, ino, sentinel_dir="", timeout=10, expect=None):
        """Returns (ok, every event read before a sentinel's CREATE).

        A sentinel (a remote create in BACKING/sentinel_dir, which ino
        watches) proves that nothing else follows; but it is a change
        too, and would carry along an event that the server held back
        until a next one. So first, with expect (see read_expected()),
        the events the check wants are read with no sentinel, for up to
        EXPECT_WAIT seconds; then the sentinel is made. ok is False if
        they did not all come by themselves (an INFO line says so) or
        the sentinel's CREATE did not come within timeout."""
        seen = []
        came = True
        if expect is not None:
            came = read_expected(ino, expect, seen, _is_sentinel)
            if not came:
                print(f"INFO collect: the expected events had not all "
                      f"come {EXPECT_WAIT} s after the change, with "
                      f"nothing else changing; read {len(seen)}",
                      flush=True)
        self.seq += 1
        name = f".sentinel{self.seq}".encode()
        p = os.path.join(os.fsencode(self.bpath(sentinel_dir)), name)
        os.mknod(p)
        ok = ino.wait_for(lambda e: e[3] == name and e[1] & IN_CREATE,
                          timeout, seen)
        os.unlink(p)
        # The sentinel's DELETE is read by the next collect: drop it there.
        seen = [e for e in seen if not _is_sentinel(e)]
        return ok and came, seen

    def bpath(self, rel):
        return os.path.join(self.back, rel)

    def mpath(self, rel):
        return os.path.join(self.mnt, rel)

    def server_log(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    @contextlib.contextmanager
    def paused(self):
        """The server stopped (SIGSTOP) for the block, continued after it
        whatever happens: changes made meanwhile queue up on the host.
        SIGSTOP only starts the stop: until each thread has stopped, a
        pump thread may still read the block's first change."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        if not wait_until(lambda: all_threads_stopped(self.proc.pid), 5,
                          0.001):
            os.kill(self.proc.pid, signal.SIGCONT)
            raise RuntimeError("the server's threads did not stop in 5 s")
        try:
            yield
        finally:
            os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self, timeout=5):
        """SIGTERM; True if the server exited 0 within timeout."""
        if not self.proc or self.proc.poll() is not None:
            return self.proc is not None and self.proc.returncode == 0
        self.proc.terminate()
        try:
            return self.proc.wait(timeout) == 0
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False

    def close(self):
        if self not in _live:
            return
        _live.remove(self)
        self.stop()
        unmount(self.mnt)
        if os.environ.get("RNOTIFY_KEEP"):	# for a post-mortem
            print(f"INFO kept {self.tmp}, its tmpfs still mounted",
                  flush=True)
        else:
            subprocess.run(["umount", "-l", self.quiet],
                           stderr=subprocess.DEVNULL)
            shutil.rmtree(self.tmp, ignore_errors=True)


def _is_sentinel(ev):
    return ev[3].startswith(b".sentinel")


def errname(e):
    return errno.errorcode.get(e, str(e))


def all_threads_stopped(pid):
    """Has each thread of process pid stopped (or exited)? A thread asleep
    in a request to the mount ("D": its server's threads stop too) cannot
    run on before it stops either: it stops on its way back."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                state = f.read().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if state not in "TtDZX":
            return False
    return True


def fd_count(pid):
    """How many fds process pid holds."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def fd_targets(pid):
    """What process pid's fds lead to (readlink), those still open."""
    d = f"/proc/{pid}/fd"
    out = []
    for fd in os.listdir(d):
        try:
            out.append(os.readlink(os.path.join(d, fd)))
        except OSError:
            pass
    return out


def lstat_names(mnt, n, out):
    """lstat()s mnt/fI for I < n; writes {errno name: count} to out (run in
    a child: a process under a memory limit may not survive it)."""
    errs = {"ok": 0}
    for i in range(n):
        try:
            os.lstat(os.path.join(mnt, f"f{i}"))
            errs["ok"] += 1
        except OSError as e:
            k = errname(e.errno)
            errs[k] = errs.get(k, 0) + 1
    with open(out, "w") as f:
        json.dump(errs, f)
