# SPDX-License-Identifier: GPL-2.0-or-later
"""
Every user has exactly the rights they have on the backing directory:
the server runs as root and serves them all (allow_other, as a VM's
guest users will be), so each operation through the mount must end as
the same operation made by the same user on the backing directory.

  callers.py SERVER [SECONDS]

Users and a group are made for the run and removed after it. Checks:
- create_race: a host user makes and removes a 0600 file holding a
  secret under one name in a sticky, world-writable directory, in a
  loop, while another user opens the same name with O_CREAT|O_RDWR
  through the mount (SECONDS, default 8). That user never gets an fd on
  the host user's file, and nothing changes owner.
- Each operation of a table (open for reading under ACLs that deny and
  grant, with supplementary groups, creates under umasks and default
  ACLs, sticky and set-group-ID directories, chown and chgrp, links,
  renames, xattrs) is run by one user natively on BACKING/native and
  through the mount on MNT/mounted, identical trees: the error, and the
  mode, owner, group and ACL of what it made or changed, must be the
  same.
"""
import atexit
import errno
import json
import os
import pwd
import grp
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402

USERS = ["rnsec-host", "rnsec-eve", "rnsec-bob"]
TEAM = "rnsec-team"
OTHER = "rnsec-other"
ACL = "system.posix_acl_access"
DEFAULT_ACL = "system.posix_acl_default"


def drop_accounts():
    for u in USERS:
        subprocess.run(["userdel", u], stderr=subprocess.DEVNULL)
    for g in [TEAM, OTHER] + USERS:
        subprocess.run(["groupdel", g], stderr=subprocess.DEVNULL)


def make_accounts():
    drop_accounts()
    atexit.register(drop_accounts)
    for g in (TEAM, OTHER):
        subprocess.run(["groupadd", g], check=True)
    for u in USERS:
        subprocess.run(["useradd", "-M", "-U", "-s", "/usr/sbin/nologin",
                        u], check=True)
    subprocess.run(["usermod", "-a", "-G", TEAM, "rnsec-eve"], check=True)


def ids(user):
    pw = pwd.getpwnam(user)
    groups = [g.gr_gid for g in grp.getgrall() if user in g.gr_mem]
    return pw.pw_uid, pw.pw_gid, groups


def become(user, umask=0o022):
    uid, gid, groups = ids(user)
    os.setgroups(groups)
    os.setgid(gid)
    os.setuid(uid)
    os.umask(umask)


def as_user(user, fn, *args, umask=0o022):
    """fn(*args) run by user in a child; its JSON-able result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            become(user, umask)
            out = fn(*args)
        except OSError as e:
            out = {"errno": errno.errorcode.get(e.errno, str(e.errno))}
        except BaseException as e:
            out = {"raised": repr(e)}
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = rnfix.read_all(r)
    os.waitpid(pid, 0)
    return json.loads(data or b"null")


def setfacl(*args):
    subprocess.run(["setfacl"] + list(args), check=True)


def describe(path):
    """What a check compares of an object: type and mode, owner and
    group by name, and its ACLs."""
    st = os.lstat(path)
    out = {"mode": oct(st.st_mode),
           "owner": pwd.getpwuid(st.st_uid).pw_name,
           "group": grp.getgrgid(st.st_gid).gr_name}
    if not stat.S_ISLNK(st.st_mode):
        for name, key in ((ACL, "acl"), (DEFAULT_ACL, "default_acl")):
            try:
                out[key] = os.getxattr(path, name).hex()
            except OSError:
                pass
    return out


# The fixture, made by root under ROOT (BACKING/native and BACKING/mounted).
def build_tree(root):
    os.makedirs(root)
    os.chmod(root, 0o755)
    team = grp.getgrnam(TEAM).gr_gid
    host = pwd.getpwnam("rnsec-host")

    def mkfile(rel, mode, owner=0, group=0, data=b"data\n"):
        p = os.path.join(root, rel)
        with open(p, "wb") as f:
            f.write(data)
        os.chown(p, owner, group)
        os.chmod(p, mode)
        return p

    def mkdir(rel, mode, owner=0, group=0):
        p = os.path.join(root, rel)
        os.mkdir(p)
        os.chown(p, owner, group)
        os.chmod(p, mode)
        return p

    setfacl("-m", "user:rnsec-eve:---", mkfile("acl_deny", 0o644))
    setfacl("-m", "user:rnsec-eve:r--",
            mkfile("acl_grant", 0o600, host.pw_uid, host.pw_gid))
    mkfile("team_only", 0o640, 0, team)
    mkdir("sticky", 0o1777)
    mkfile("sticky/hosts", 0o644, host.pw_uid, host.pw_gid)
    mkdir("setgid", 0o2775, 0, team)
    mkdir("open", 0o777)
    setfacl("-d", "-m", "user:rnsec-bob:rwx",
            mkdir("inherit", 0o777))
    mkdir("closed", 0o700, host.pw_uid, host.pw_gid)
    mkfile("closed/inside", 0o644, host.pw_uid, host.pw_gid)
    setfacl("-m", "user:rnsec-eve:r-x", mkdir("acl_dir", 0o700))
    mkfile("acl_dir/inside", 0o644)
    mkfile("open/evefile", 0o644, *ids("rnsec-eve")[:2])
    mkfile("suid", 0o4775, host.pw_uid, team)
    mkfile("suid_w", 0o6775, host.pw_uid, team)


def op_read(root, rel):
    with open(os.path.join(root, rel), "rb") as f:
        return {"read": f.read().decode()}


def op_write(root, rel):
    fd = os.open(os.path.join(root, rel), os.O_WRONLY)
    os.close(fd)
    return {"opened": True}


def op_create(root, rel, mode=0o666):
    fd = os.open(os.path.join(root, rel), os.O_CREAT | os.O_RDWR, mode)
    os.close(fd)
    return describe(os.path.join(root, rel))


def op_mkdir(root, rel):
    os.mkdir(os.path.join(root, rel), 0o777)
    return describe(os.path.join(root, rel))


def op_mknod(root, rel):
    os.mknod(os.path.join(root, rel), 0o666 | stat.S_IFREG)
    return describe(os.path.join(root, rel))


def op_symlink(root, rel):
    os.symlink("target", os.path.join(root, rel))
    return describe(os.path.join(root, rel))


def op_unlink(root, rel):
    os.unlink(os.path.join(root, rel))
    return {"unlinked": True}


def op_rename(root, rel, new):
    os.rename(os.path.join(root, rel), os.path.join(root, new))
    return describe(os.path.join(root, new))


def op_link(root, rel, new):
    os.link(os.path.join(root, rel), os.path.join(root, new))
    return describe(os.path.join(root, new))


def op_chown(root, rel, owner, group):
    uid = pwd.getpwnam(owner).pw_uid if owner else -1
    gid = grp.getgrnam(group).gr_gid if group else -1
    os.chown(os.path.join(root, rel), uid, gid)
    return describe(os.path.join(root, rel))


def op_chmod(root, rel, mode):
    os.chmod(os.path.join(root, rel), mode)
    return describe(os.path.join(root, rel))


def op_setfacl(root, rel):
    r = subprocess.run(["setfacl", "-m", "user:rnsec-bob:rw-",
                        os.path.join(root, rel)], stderr=subprocess.DEVNULL)
    if r.returncode:
        return {"setfacl": r.returncode}
    return describe(os.path.join(root, rel))


def op_append(root, rel):
    with open(os.path.join(root, rel), "ab") as f:
        f.write(b"more\n")
    return describe(os.path.join(root, rel))


def op_list(root, rel):
    return {"names": sorted(os.listdir(os.path.join(root, rel)))}


def op_user_xattr(root, rel):
    os.setxattr(os.path.join(root, rel), "user.note", b"x")
    return {"value": os.getxattr(os.path.join(root, rel),
                                 "user.note").decode()}


# (name, user, umask, fn, args)
TABLE = [
    ("acl_deny_read", "rnsec-eve", 0o022, op_read, ("acl_deny",)),
    ("acl_deny_other_user", "rnsec-bob", 0o022, op_read, ("acl_deny",)),
    ("acl_grant_read", "rnsec-eve", 0o022, op_read, ("acl_grant",)),
    ("acl_grant_not_write", "rnsec-eve", 0o022, op_write, ("acl_grant",)),
    ("acl_grant_not_others", "rnsec-bob", 0o022, op_read, ("acl_grant",)),
    ("acl_dir_list", "rnsec-eve", 0o022, op_list, ("acl_dir",)),
    ("acl_dir_read", "rnsec-eve", 0o022, op_read, ("acl_dir/inside",)),
    ("acl_dir_refused", "rnsec-bob", 0o022, op_list, ("acl_dir",)),
    ("group_member_read", "rnsec-eve", 0o022, op_read, ("team_only",)),
    ("group_other_read", "rnsec-bob", 0o022, op_read, ("team_only",)),
    ("closed_dir_read", "rnsec-eve", 0o022, op_read, ("closed/inside",)),
    ("closed_dir_create", "rnsec-eve", 0o022, op_create, ("closed/new",)),
    ("create_umask_022", "rnsec-eve", 0o022, op_create, ("open/u022",)),
    ("create_umask_077", "rnsec-eve", 0o077, op_create, ("open/u077",)),
    ("mkdir_umask_027", "rnsec-eve", 0o027, op_mkdir, ("open/d027",)),
    ("mknod_owner", "rnsec-bob", 0o022, op_mknod, ("open/node",)),
    ("symlink_owner", "rnsec-bob", 0o022, op_symlink, ("open/link",)),
    ("create_default_acl", "rnsec-eve", 0o077, op_create, ("inherit/f",)),
    ("mkdir_default_acl", "rnsec-eve", 0o077, op_mkdir, ("inherit/d",)),
    ("sticky_unlink_other", "rnsec-eve", 0o022, op_unlink,
     ("sticky/hosts",)),
    ("sticky_rename_other", "rnsec-eve", 0o022, op_rename,
     ("sticky/hosts", "sticky/mine")),
    ("sticky_create", "rnsec-eve", 0o022, op_create, ("sticky/eves",)),
    ("setgid_create", "rnsec-eve", 0o022, op_create, ("setgid/f",)),
    ("setgid_mkdir", "rnsec-eve", 0o022, op_mkdir, ("setgid/d",)),
    ("setgid_nonmember", "rnsec-bob", 0o022, op_create,
     ("setgid/bobs",)),
    ("chown_to_other", "rnsec-eve", 0o022, op_chown,
     ("open/evefile", "rnsec-bob", None)),
    ("chgrp_member", "rnsec-eve", 0o022, op_chown,
     ("open/evefile", None, TEAM)),
    ("chgrp_nonmember", "rnsec-eve", 0o022, op_chown,
     ("open/evefile", None, OTHER)),
    ("chmod_not_owner", "rnsec-bob", 0o022, op_chmod,
     ("open/evefile", 0o666)),
    ("chmod_setgid_nonmember", "rnsec-eve", 0o022, op_chmod,
     ("open/evefile", 0o2755)),
    ("setfacl_owner", "rnsec-eve", 0o022, op_setfacl, ("open/evefile",)),
    ("setfacl_not_owner", "rnsec-bob", 0o022, op_setfacl,
     ("acl_grant",)),
    ("link_other", "rnsec-eve", 0o022, op_link,
     ("acl_grant", "open/hardlink")),
    ("user_xattr_not_writer", "rnsec-bob", 0o022, op_user_xattr,
     ("acl_deny",)),
    ("user_xattr_acl_writer", "rnsec-bob", 0o022, op_user_xattr,
     ("open/evefile",)),
    ("user_xattr_owner", "rnsec-eve", 0o022, op_user_xattr,
     ("open/evefile",)),
    ("suid_write_clears", "rnsec-eve", 0o022, op_append, ("suid_w",)),
    ("suid_chmod_not_owner", "rnsec-eve", 0o022, op_chmod,
     ("suid_w", 0o777)),
    ("suid_chown_clears", "rnsec-host", 0o022, op_chown,
     ("suid", None, "rnsec-host")),
]


def compare_table(c, m):
    native = m.bpath("native")
    mounted = m.mpath("mounted")
    for name, user, umask, fn, args in TABLE:
        want = as_user(user, fn, native, *args, umask=umask)
        got = as_user(user, fn, mounted, *args, umask=umask)
        c.ok(name, got == want and want is not None,
             f"through the mount {got}, natively {want}")


# The race of the create over a host user's file.
def host_loop(path, until):
    """As the host user: make path 0600 with a secret, check it is still
    ours, remove it. Exits 3 if it ever was not."""
    stolen = 0
    while time.monotonic() < until:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            continue
        os.write(fd, b"secret")
        if os.fstat(fd).st_uid != os.getuid():
            stolen += 1
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass
    os._exit(3 if stolen else 0)


def client_loop(path, until, out):
    """As another user, through the mount: open the name with O_CREAT.
    Writes how many opens it made and how many showed the secret or a
    file not its own."""
    opened = leaked = foreign = 0
    while time.monotonic() < until:
        try:
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            continue
        opened += 1
        if b"secret" in os.read(fd, 64):
            leaked += 1
        if os.fstat(fd).st_uid != os.getuid():
            foreign += 1
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass
    with open(out, "w") as f:
        json.dump([opened, leaked, foreign], f)


def create_race(c, m, seconds):
    shared = m.bpath("race")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    out = os.path.join(m.tmp, "race.json")
    until = time.monotonic() + seconds

    def host():
        become("rnsec-host")
        host_loop(os.path.join(shared, "target"), until)

    def client():
        become("rnsec-eve")
        client_loop(m.mpath("race/target"), until, out)

    # Root makes the file the client writes its counts to.
    with open(out, "w"):
        pass
    os.chmod(out, 0o666)
    pids = [rnfix.fork(host), rnfix.fork(client)]
    codes = rnfix.reap(pids, seconds + 30)
    try:
        with open(out) as f:
            opened, leaked, foreign = json.load(f)
    except (OSError, ValueError):
        opened = leaked = foreign = -1
    c.info(f"create_race: {opened} opens through the mount in {seconds} s")
    c.ok("create_race/no_secret", opened > 0 and leaked == 0,
         f"the client read the host user's secret {leaked} times "
         f"({opened} opens)")
    c.ok("create_race/no_foreign_fd", opened > 0 and foreign == 0,
         f"{foreign} of {opened} fds were on another user's file")
    c.ok("create_race/no_chown", codes.get(pids[0]) == 0,
         f"the host user's file changed owner (exit {codes.get(pids[0])})")


def main():
    server = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 8
    c = rnfix.Checks("callers")
    make_accounts()
    opts = ",".join(o for o in ("allow_other",
                                os.environ.get("RNOTIFYFS_OPTS")) if o)
    m = rnfix.Mount(server, "callers", opts)
    try:
        build_tree(m.bpath("native"))
        build_tree(m.bpath("mounted"))
        if not c.ok("mount", m.start(), m.server_log()):
            c.exit()
        compare_table(c, m)
        create_race(c, m, seconds)
    finally:
        m.close()
    c.exit()


if __name__ == "__main__":
    main()
