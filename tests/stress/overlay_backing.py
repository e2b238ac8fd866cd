# SPDX-License-Identifier: GPL-2.0-or-later
"""
An export whose BACKING is an overlayfs (with nfs_export=on, which the
fanotify host watch needs for its file handles). With passthrough the
mount stacks one level on its backing file system, so the kernel refuses
a backing file there (ELOOP, docs/rnotifyfs.8): each such open must fall
back to reads through the server, and the server's count of each
inode's io modes must stay right for the opens that follow.

  overlay_backing.py SERVER

  reads        a file of the lower layer reads whole through the mount
  via_server   with the server stopped (SIGSTOP) that read waits, and
               completes once the server goes on: it was not passthrough
  modes        a reader, then a writer, then a second reader all open
               the same file (no EIO), and each reads what the writer
               wrote at once
  remote       a remote write (copied up by the overlayfs) reaches a
               watcher on the mount as MODIFY then CLOSE_WRITE, and the
               reader opened before it reads the new content

Without overlayfs (or nfs_export) in the kernel nothing is checked, and
an INFO line says so.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

DATA = bytes(range(256)) * 4096		# 1 MiB
HALF = len(DATA) // 2
WAIT = 5				# seconds, for a read or an event


def overlay(m):
    """Mounts an overlayfs on BACKING; its lower layer holds f."""
    for d in ("lower", "upper", "work"):
        os.mkdir(os.path.join(m.tmp, d))
    with open(os.path.join(m.tmp, "lower", "f"), "wb") as f:
        f.write(DATA)
    opts = (f"lowerdir={m.tmp}/lower,upperdir={m.tmp}/upper,"
            f"workdir={m.tmp}/work,index=on,nfs_export=on")
    r = subprocess.run(["mount", "-t", "overlay", "overlay", "-o", opts,
                        m.back], capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def read_in_child(fd, offset, want):
    """A child that preads len(want) bytes of fd at offset; it exits 0 if
    they are want."""
    def child():
        if os.pread(fd, len(want), offset) != want:
            raise RuntimeError("read differs")
    return rnfix.fork(child)


def child_status(pid, timeout):
    """pid's exit status once it ends within timeout, else None."""
    return rnfix.reap([pid], timeout).get(pid)


def check_via_server(chk, m):
    """The file is opened while the server runs (an open always asks it);
    the read with the server stopped is of the middle of the file, past
    what the first read read ahead, so only a backing file (passthrough)
    or the server can answer it."""
    fd = os.open(m.mpath("f"), os.O_RDONLY)
    chk.ok("reads", os.pread(fd, 4096, 0) == DATA[:4096], "first read")
    with m.paused():
        pid = read_in_child(fd, HALF, DATA[HALF:HALF + 4096])
        early = child_status(pid, 1)
    later = early if early is not None else child_status(pid, WAIT)
    os.close(fd)
    chk.ok("via_server", early is None and later == 0,
           f"while stopped: {early}, after: {later}")


def check_modes(chk, m):
    f = m.mpath("f")
    try:
        r1 = os.open(f, os.O_RDONLY)
        w = os.open(f, os.O_WRONLY)
        r2 = os.open(f, os.O_RDONLY)
        os.pwrite(w, b"written", 0)
        ok = (os.pread(r1, 7, 0) == b"written" and
              os.pread(r2, 7, 0) == b"written")
        why = "a reader did not read the write"
        for fd in (r1, w, r2):
            os.close(fd)
    except OSError as e:
        ok, why = False, str(e)
    chk.ok("modes", ok, why)


def check_remote(chk, m):
    """The write's events by themselves, then nothing else up to a remote
    sentinel's CREATE (m.collect())."""
    ino = rnfix.Inotify()
    ino.add(m.mnt, rnfix.IN_MODIFY | rnfix.IN_CLOSE_WRITE | rnfix.IN_CREATE)
    reader = os.open(m.mpath("f"), os.O_RDONLY)
    with open(m.bpath("f"), "r+b") as f:
        f.write(b"remote!")
    want = [(rnfix.IN_MODIFY, b"f"), (rnfix.IN_CLOSE_WRITE, b"f")]
    ok, got = m.collect(ino, timeout=WAIT, expect=len(want))
    kinds = [(e[1], e[3]) for e in got]
    chk.ok("remote_events", ok and kinds == want, f"{ok} {got}")
    chk.ok("remote_read", os.pread(reader, 7, 0) == b"remote!",
           "the reader did not read the remote write")
    os.close(reader)
    ino.close()


def main():
    chk = rnfix.Checks("overlay_backing")
    m = rnfix.Mount(sys.argv[1], "ovlback")
    mounted, why = overlay(m)
    if not mounted:
        chk.info(f"no overlayfs with nfs_export here ({why}): not checked")
        m.close()
        chk.exit()
    try:
        if chk.ok("mount", m.start(), m.server_log()[-300:]):
            check_via_server(chk, m)
            check_modes(chk, m)
            check_remote(chk, m)
            chk.ok("server_stops", m.stop(), m.server_log()[-300:])
    finally:
        # The overlayfs goes before close() removes the tree under it.
        m.stop()
        rnfix.unmount(m.mnt)
        subprocess.run(["umount", m.back])
        m.close()
    chk.exit()


if __name__ == "__main__":
    main()
