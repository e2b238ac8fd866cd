#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Real tools inside a real mount: does the passthrough behave like a
# native directory? Each scenario runs once in the mount and once in a
# native directory on the same file system, prints a description of the
# state it left, and the two descriptions must be identical.
#
#   tests/e2e/tools.sh RNOTIFYFS_BINARY
#
# Prints one "PASS name" / "FAIL name: why" line per check. The mount is
# undone and the scratch tree removed on every exit path (trap). Needs
# git, gcc, make, tar, python3, util-linux (fallocate, flock, setpriv) and
# fuse3.

set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: $0 RNOTIFYFS_BINARY}
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/rnotify-tools.XXXXXX)
chmod 755 "$tmp"	# the unprivileged-user check walks through it
back=$tmp/back
mnt=$tmp/mnt
nat=$tmp/native
out=$tmp/outside
pid=
failed=0

cleanup() {
	if mountpoint -q "$mnt"; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"
	fi
	kill_and_reap "$pid"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

mount_fs() {
	mkdir -p "$back" "$mnt" "$nat" "$out"
	"$bin" -f -o allow_other,default_permissions "$back" "$mnt" \
		>"$tmp/server.log" 2>&1 &
	pid=$!
	if ! wait_mount "$mnt"; then
		fail mount "server did not mount: $(head -c 300 "$tmp/server.log")"
		exit 1
	fi
	pass mount
}

# A description of the tree under "$1": names, types, modes, sizes,
# link targets and file contents, independent of inode numbers and times.
describe_tree() {
	(cd "$1" && find . -path ./.git -prune -o \
		-printf '%P %y %m %s %l\n' | sort &&
	 find . -path ./.git -prune -o -type f -print0 | sort -z |
		xargs -0 -r md5sum)
}

# Runs scenario function $2 in the mount and natively, compares output.
compare() {
	local name=$1 fn=$2 a b
	rm -rf "$mnt/$name" "$nat/$name"
	mkdir "$mnt/$name" "$nat/$name"
	a=$(cd "$mnt/$name" && "$fn" 2>&1)
	b=$(cd "$nat/$name" && "$fn" 2>&1)
	if [ "$a" = "$b" ]; then
		pass "$name"
	else
		fail "$name" "mount and native differ: $(diff <(echo "$b") \
			<(echo "$a") | head -5 | tr '\n' ' ')"
	fi
}

make_source_tree() {
	local src=$tmp/src
	mkdir -p "$src/dir/sub" "$src/empty"
	echo hello >"$src/dir/a.txt"
	head -c 100000 /dev/urandom >"$src/dir/sub/blob"
	printf 'x%.0s' $(seq 5000) >"$src/long.txt"
	ln -s dir/a.txt "$src/link"
	ln -s /nonexistent "$src/dangling"
	ln "$src/dir/a.txt" "$src/dir/hard"
	chmod 0750 "$src/dir/sub"
	chmod 0600 "$src/long.txt"
	touch -d '2001-02-03 04:05:06' "$src/dir/a.txt"
	tar -C "$src" -cf "$tmp/src.tar" .
}

sc_git() {
	git init -q -b main . && git config user.email t@t &&
		git config user.name t || return
	echo one >f && mkdir d && echo two >d/g && ln -s f l
	git add -A && git commit -qm first
	git checkout -qb side && echo three >>f && git rm -q d/g &&
		git commit -qam second
	git checkout -q main
	git log --format=%s --all | sort
	git status --porcelain
	git fsck --no-progress 2>&1 | grep -v '^Checking' || true
	describe_tree .
}

sc_tar() {
	tar -xf "$tmp/src.tar" && describe_tree .
	stat -c '%n %Y' dir/a.txt
	stat -c '%n %h' dir/hard
}

sc_cp_a() {
	cp -a "$tmp/src" copy && describe_tree copy
	stat -c '%n %Y %a' copy/dir/a.txt copy/dir/sub
	cp -a copy copy2 && diff -r copy copy2 && echo same
}

sc_make() {
	printf '#include <stdio.h>\nint main(void){puts("hi");return 0;}\n' \
		>hello.c
	printf 'hello: hello.o\n\tcc -o $@ $^\nhello.o: hello.c\n\tcc -c $<\n' \
		>Makefile
	make -s && ./hello
	make -q && echo up-to-date
	touch hello.c && ! make -q && echo stale
	make -s clean 2>/dev/null; rm -f hello hello.o
	describe_tree .
}

sc_links() {
	echo data >f
	ln -s f sym && readlink sym && cat sym
	ln f hard && stat -c '%h' f hard
	[ "$(stat -c %i f)" = "$(stat -c %i hard)" ] && echo same-inode
	mv hard moved && stat -c '%h' f && cat moved
	rm f && stat -c '%h' moved
	ln -s /nonexistent dang && [ ! -e dang ] && [ -L dang ] && echo dangling
}

sc_rename_flags() {
	echo a >a && echo b >b && mkdir d && echo c >d/c
	"$PY" - <<'EOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def r2(a, b, flags):
    rc = libc.renameat2(-100, a.encode(), -100, b.encode(), flags)
    return 0 if rc == 0 else errno.errorcode[ctypes.get_errno()]
print("noreplace", r2("a", "b", 1))
print("exchange", r2("a", "b", 2))
print("exchange-dir", r2("d", "b", 2))
print("noreplace-new", r2("a", "new", 1))
print("bad-flags", r2("new", "x", 4 | 2 | 1))
EOF
	describe_tree .
}

sc_attrs() {
	echo 12345 >f && chmod 0640 f && truncate -s 3 f
	touch -d '2010-01-01 00:00:00' f && touch -a -d '2011-01-01' f
	stat -c '%s %a %X %Y' f
	chown 65534:65534 f && stat -c '%u %g' f
	mkdir d && chmod 2755 d && chown :65534 d && touch d/x &&
		stat -c '%a %g' d d/x
	mkfifo p && stat -c '%F' p
}

sc_xattr() {
	echo x >f && mkdir d
	"$PY" - <<'EOF'
import os
for p in ("f", "d"):
    os.setxattr(p, "user.k", b"v1")
    os.setxattr(p, "user.big", b"z" * 3000)
    print(p, sorted(os.listxattr(p)), os.getxattr(p, "user.k"),
          len(os.getxattr(p, "user.big")))
    os.removexattr(p, "user.k")
    print(p, sorted(os.listxattr(p)))
    try:
        os.getxattr(p, "user.k")
    except OSError as e:
        print("gone", e.errno)
try:
    os.setxattr("f", "user.big", b"q", os.XATTR_CREATE)
except OSError as e:
    print("create-exists", e.errno)
EOF
}

sc_file_ranges() {
	"$PY" - <<'EOF'
import os
fd = os.open("sparse", os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(fd, b"tail", 1 << 20)
print("size", os.fstat(fd).st_size)
print("data", os.lseek(fd, 0, os.SEEK_DATA))
print("hole", os.lseek(fd, 0, os.SEEK_HOLE))
os.posix_fallocate(fd, 0, 8192)
print("blocks>0", os.fstat(fd).st_blocks > 0)
src = os.open("src", os.O_RDWR | os.O_CREAT, 0o644)
os.write(src, b"0123456789" * 1000)
dst = os.open("dst", os.O_RDWR | os.O_CREAT, 0o644)
n = 0
while n < 10000:
    n += os.copy_file_range(src, dst, 10000 - n, n, n)
print("copied", n, os.pread(dst, 20, 4990))
os.close(fd); os.close(src); os.close(dst)
EOF
	fallocate -l 65536 fa && stat -c '%s' fa
	fallocate -p -o 0 -l 4096 fa && stat -c '%s' fa
	cmp src dst && echo equal
}

sc_many() {
	local i
	mkdir big
	for i in $(seq 600); do : >"big/file-$i-$(printf '%0100d' 0)"; done
	ls big | wc -l
	ls -l big | tail -n +2 | wc -l
	rm -rf big && echo removed
}

check_flock() {
	local f=$mnt/lockme
	: >"$f"
	if flock -n "$back/lockme" flock -n "$f" true; then
		fail flock "a lock on the backing file did not exclude the mount"
	elif ! flock -n "$f" true; then
		fail flock "an unheld lock could not be taken"
	else
		pass flock
	fi
}

check_owner() {
	mkdir -m 1777 "$mnt/pub"
	if ! setpriv --reuid=65534 --regid=65534 --clear-groups \
		touch "$mnt/pub/mine" "$mnt/pub/../pub/again"; then
		fail owner "an unprivileged user could not create"
	elif [ "$(stat -c %u:%g "$back/pub/mine")" != 65534:65534 ]; then
		fail owner "created as $(stat -c %u:%g "$back/pub/mine")"
	else
		pass owner
	fi
}

# The server must never resolve a symlink: a directory the client holds
# (here as the cwd of a shell) stays that inode on the server even when
# its name on the host turns into a symlink pointing outside the export.
check_symlink_escape() {
	mkdir "$mnt/dir"
	(
		cd "$mnt/dir" || exit
		mv "$back/dir" "$back/dir.real"
		ln -s "$out" "$back/dir"
		echo x >new && mkdir newdir && mv new newdir/
	) 2>/dev/null
	if [ -n "$(ls -A "$out")" ]; then
		fail symlink_escape "server wrote outside: $(ls -A "$out")"
	elif [ ! -e "$back/dir.real/newdir/new" ]; then
		fail symlink_escape "write did not reach the held inode"
	else
		pass symlink_escape
	fi
	ln -s / "$back/root"
	if [ "$(stat -c %F "$mnt/root")" = "symbolic link" ] &&
	   [ "$(readlink "$mnt/root")" = / ]; then
		pass symlink_shown_as_symlink
	else
		fail symlink_shown_as_symlink "$(stat -c %F "$mnt/root")"
	fi
}

check_dot_lookup() {
	local got
	mkdir -p "$mnt/h/i"
	got=$("$PY" - "$mnt/h/i" <<'EOF' 2>&1
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class FH(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int),
                ("h", ctypes.c_ubyte * 128)]
fh = FH(128)
mnt = ctypes.c_int()
if libc.name_to_handle_at(-100, sys.argv[1].encode(), ctypes.byref(fh),
                          ctypes.byref(mnt), 0):
    print("encode", os.strerror(ctypes.get_errno())); sys.exit()
mfd = os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY)
fd = libc.open_by_handle_at(mfd, ctypes.byref(fh), os.O_RDONLY)
if fd < 0:
    print("decode", os.strerror(ctypes.get_errno())); sys.exit()
print("same" if os.fstat(fd).st_ino == os.stat(sys.argv[1]).st_ino
      else "different")
EOF
)
	if [ "$got" = same ]; then
		pass export_handle
	else
		fail export_handle "$got"
	fi
}

main() {
	mount_fs
	make_source_tree
	compare git sc_git
	compare tar sc_tar
	compare cp_a sc_cp_a
	compare make sc_make
	compare links sc_links
	compare rename_flags sc_rename_flags
	compare attrs sc_attrs
	compare xattr sc_xattr
	compare file_ranges sc_file_ranges
	compare many sc_many
	check_flock
	check_owner
	check_symlink_escape
	check_dot_lookup
	if kill -0 "$pid" 2>/dev/null; then
		pass server_alive
	else
		fail server_alive "server exited: $(tail -c 300 "$tmp/server.log")"
	fi
	return $failed
}

main
