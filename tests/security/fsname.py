# SPDX-License-Identifier: GPL-2.0-or-later
"""
Mount option injection through the backing path (issue #30, item 3): the
server names its mount after BACKING (fsname=BACKING), so a path with a
comma such as /tmp/x/a,allow_other must not become a second mount
option. Each BACKING below is mounted in turn and must show:

  - the mount and super options a plain BACKING gets, nothing more (no
    allow_other, no suid, no dev, no other option smuggled in);
  - BACKING itself as the mount's source in /proc/self/mountinfo
    (decoded from the kernel's octal escapes), byte for byte;
  - another user (nobody) refused at the mount (EACCES), as without
    allow_other.

  fsname.py SERVER
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

NOBODY = 65534
# label, BACKING's last component
PATHS = [
    ("plain", "backing"),
    ("comma_allow_other", "a,allow_other"),
    ("comma_many", "a,allow_other,suid,dev"),
    # A backslash escapes the next byte in libfuse's option parser: an
    # escape that forgot the backslash itself lets this one through.
    ("backslash_comma", "b\\,allow_other"),
    # "\054" is an octal escape of ',' in the same parser.
    ("backslash_octal", "c\\054allow_other"),
    ("trailing_backslash", "d\\"),
    ("space_tab_newline", "e f\tg\nh,allow_other"),
]


def unescape(field):
    """A mountinfo field: the kernel writes ' ', '\\t', '\\n' and '\\\\'
    as three octal digits after a backslash."""
    out = bytearray()
    i = 0
    while i < len(field):
        c = field[i:i + 4]
        if field[i:i + 1] == b"\\" and len(c) == 4 and c[1:].isdigit():
            out.append(int(c[1:], 8))
            i += 4
        else:
            out += field[i:i + 1]
            i += 1
    return bytes(out)


def mount_entry(mnt):
    """(mount options, source, super options) of the last mount on mnt."""
    want = os.fsencode(mnt)
    found = None
    with open("/proc/self/mountinfo", "rb") as f:
        for line in f:
            p = line.rstrip(b"\n").split(b" ")
            if unescape(p[4]) != want:
                continue
            sep = p.index(b"-", 6)
            found = (p[5], unescape(p[sep + 2]), p[sep + 3])
    return found


def other_user_errno(mnt):
    """What stat() of mnt gives a process running as nobody: 0 or errno."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.stat(mnt)
        except OSError as e:
            code = e.errno
        os.write(w, str(code).encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 64)
    os.close(r)
    os.waitpid(pid, 0)
    return int(out or b"-1")


def one(chk, server, label, back, plain_opts):
    m = rnfix.Mount(server, "fsname", back=back)
    try:
        if not chk.ok(f"{label}/mount", m.start(), m.server_log()[-300:]):
            return None
        entry = mount_entry(m.mnt)
        if not chk.ok(f"{label}/in_mountinfo", entry is not None,
                      f"{m.mnt!r} not in /proc/self/mountinfo"):
            return None
        mopts, source, sopts = entry
        chk.info(f"{label}: source {source!r}, options {mopts!r}, "
                 f"super options {sopts!r}")
        chk.ok(f"{label}/no_allow_other", b"allow_other" not in sopts,
               f"super options {sopts!r}")
        if plain_opts is not None:
            chk.ok(f"{label}/options_as_plain",
                   (mopts, sopts) == plain_opts,
                   f"{mopts!r} {sopts!r}, a plain BACKING gets "
                   f"{plain_opts[0]!r} {plain_opts[1]!r}")
        chk.ok(f"{label}/fsname_is_backing", source == os.fsencode(m.back),
               f"{source!r}, want {os.fsencode(m.back)!r}")
        err = other_user_errno(m.mnt)
        chk.ok(f"{label}/other_user_refused", err == 13,
               f"nobody's stat() got {rnfix.errname(err) if err else 0}")
        chk.ok(f"{label}/server_stops", m.stop(), "no exit 0 on SIGTERM")
        return mopts, sopts
    finally:
        m.close()


def main():
    chk = rnfix.Checks("fsname")
    plain = None
    for label, back in PATHS:
        opts = one(chk, sys.argv[1], label, back, plain)
        if label == "plain":
            plain = opts
    chk.exit()


if __name__ == "__main__":
    main()
