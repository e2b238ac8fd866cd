# SPDX-License-Identifier: GPL-2.0-or-later
"""
A directory the client holds, moved out of the export on the host: once
the watcher on the mount has the move's event, nothing under the
directory's new place is reachable through the mount any more, not
through an fd the client kept on the directory, nor on a subdirectory
of it. An open file stays open (an open file follows its inode, as after
a local rename); a directory left inside is served as before.

  moved_out.py SERVER

Runs with the default host watch (fanotify) and with -o watch=inotify.
"""
import errno
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

REFUSED = (errno.ESTALE, errno.ENOENT)


def outcome(fn):
    """'ok' with fn's value, or the errno's name."""
    try:
        return ("ok", fn())
    except OSError as e:
        return (errno.errorcode.get(e.errno, str(e.errno)), None)


def refused(got):
    return got[0] in tuple(errno.errorcode[e] for e in REFUSED)


def run(c, server, opts):
    m = rnfix.Mount(server, "moved-out", opts)
    outside = os.path.join(m.quiet, "outside")
    os.mkdir(outside)
    os.makedirs(m.bpath("held/sub"))
    os.mkdir(m.bpath("stay"))
    with open(m.bpath("held/f"), "w") as f:
        f.write("before\n")
    ino = rnfix.Inotify()
    try:
        if not c.ok("mount", m.start(), m.server_log()):
            return
        held = os.open(m.mpath("held"), os.O_RDONLY | os.O_DIRECTORY)
        sub = os.open(m.mpath("held/sub"), os.O_RDONLY | os.O_DIRECTORY)
        stay = os.open(m.mpath("stay"), os.O_RDONLY | os.O_DIRECTORY)
        kept = os.open(m.mpath("held/f"), os.O_RDONLY)
        ino.add(m.mnt)
        os.rename(m.bpath("held"), os.path.join(outside, "held"))
        with open(os.path.join(outside, "held/secret"), "w") as f:
            f.write("outside\n")
        os.mkdir(os.path.join(outside, "held/sub/deeper"))
        with open(os.path.join(outside, "held/sub/secret"), "w") as f:
            f.write("outside\n")
        c.ok("move_event", ino.wait_for(
            lambda e: e[3] == b"held" and
            e[1] & (rnfix.IN_DELETE | rnfix.IN_MOVED_FROM), 10),
            "no DELETE or MOVED_FROM of held on the mount")

        got = outcome(lambda: os.open("secret", os.O_RDONLY, dir_fd=held))
        c.ok("lookup_refused", refused(got), f"openat(held, secret): {got}")
        got = outcome(lambda: sorted(os.listdir(held)))
        c.ok("listing_refused", refused(got), f"listdir(held): {got}")
        got = outcome(lambda: os.open("new", os.O_CREAT | os.O_WRONLY, 0o644,
                                      dir_fd=held))
        c.ok("create_refused", refused(got) and not os.path.exists(
            os.path.join(outside, "held/new")), f"openat(O_CREAT): {got}")
        got = outcome(lambda: os.mkdir("newdir", dir_fd=held))
        c.ok("mkdir_refused", refused(got) and not os.path.exists(
            os.path.join(outside, "held/newdir")), f"mkdirat: {got}")
        got = outcome(lambda: os.stat("deeper", dir_fd=sub))
        c.ok("subdir_lookup_refused", refused(got),
             f"stat(sub, deeper): {got}")
        got = outcome(lambda: sorted(os.listdir(sub)))
        c.ok("subdir_listing_refused", refused(got), f"listdir(sub): {got}")
        got = outcome(lambda: os.open("secret", os.O_RDONLY, dir_fd=sub))
        c.ok("subdir_read_refused", refused(got),
             f"openat(sub, secret): {got}")
        got = outcome(lambda: os.open("new", os.O_CREAT | os.O_WRONLY, 0o644,
                                      dir_fd=sub))
        c.ok("subdir_create_refused", refused(got) and not os.path.exists(
            os.path.join(outside, "held/sub/new")),
            f"openat(sub, O_CREAT): {got}")
        got = outcome(lambda: os.pread(kept, 64, 0))
        c.ok("open_file_stays_open", got == ("ok", b"before\n"),
             f"pread of the file open before the move: {got}")

        with open(m.bpath("stay/here"), "w") as f:
            f.write("inside\n")
        got = outcome(lambda: sorted(os.listdir(stay)))
        c.ok("inside_still_served", got == ("ok", ["here"]),
             f"listdir(stay): {got}")
        for fd in (held, sub, stay, kept):
            os.close(fd)
    finally:
        ino.close()
        m.close()


def main():
    server = sys.argv[1]
    failed = 0
    for name, opts in (("fanotify", None), ("inotify", "watch=inotify")):
        c = rnfix.Checks(f"moved_out/{name}")
        run(c, server, opts)
        failed += c.failed
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
