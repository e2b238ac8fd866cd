#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install into a fresh temporary DESTDIR (PREFIX=/usr/local): the
# exact set of files, the binary, the mount helper link, a man page that
# renders cleanly and lists every option of --help word for word, a
# mount unit systemd accepts, and make uninstall removing it all. Then
# install-mount.sh mounts through mount(8) with the installed server.
#   tests/watchers/install.sh [RNOTIFYFS]   (as root, from the repo root)
NAME=install
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
srv=$(realpath "$srv")
dest=$tmp/dest
p=$dest/usr/local

# -o: install what is built; never rebuild the server under test.
make_install() {
	make -s -C "$here/../.." -o "$(dirname "$srv")/rnotifyfs" \
		-f Makefile -f install.mk B="$(dirname "$srv")" \
		PREFIX=/usr/local DESTDIR="$dest" "$@"
}

check_files() {
	local want got
	want=$(printf '%s\n' bin/rnotifyfs sbin/mount.fuse.rnotifyfs \
		share/doc/rnotifyfs/examples/mnt-rnotify.mount \
		share/doc/rnotifyfs/examples/rnotifyfs-agent@.service \
		share/man/man8/rnotifyfs.8)
	got=$(cd "$p" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort)
	if [ "$got" = "$want" ]; then
		pass files
	else
		fail files "got [$(echo "$got" | paste -sd,)]"
	fi
	if cmp -s "$srv" "$p/bin/rnotifyfs" &&
	   [ "$(stat -c %a "$p/bin/rnotifyfs")" = 755 ]; then
		pass binary
	else
		fail binary "bin/rnotifyfs differs from $srv or is not 755"
	fi
	if [ "$(readlink "$p/sbin/mount.fuse.rnotifyfs")" = /sbin/mount.fuse3 ] &&
	   [ -x /sbin/mount.fuse3 ]; then
		pass helper-link
	else
		fail helper-link "$(readlink "$p/sbin/mount.fuse.rnotifyfs")"
	fi
}

# "  -f       stay in the foreground" lines of --help, continuation lines
# joined, blanks squeezed: each must appear in the rendered page.
help_entries() {
	"$srv" --help | sed -n '/^options:/,$p' | tail -n +2 | awk '
		/^ +-|^ +[a-z_]+=/ { if (e != "") print e; e = $0; next }
		{ e = e " " $0 }
		END { print e }' | tr -s ' ' | sed 's/^ //'
}

check_man() {
	local page=$p/share/man/man8/rnotifyfs.8 text warn missing= e
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$page" 2>/dev/null |
	       tr -s ' \n' '  ')
	if [ -z "$warn" ] && [ -n "$text" ]; then
		pass man-renders
	else
		fail man-renders "groff: $warn"
	fi
	while read -r e; do
		[[ "$text" == *"$e"* ]] || missing="$missing [$e]"
	done < <(help_entries)
	if [ -z "$missing" ] && [ "$(help_entries | wc -l)" -gt 0 ]; then
		pass man-options
	else
		fail man-options "not in the page:$missing"
	fi
}

check_unit() {
	local out
	if out=$(systemd-analyze verify --man=no \
		 "$p/share/doc/rnotifyfs/examples/mnt-rnotify.mount" 2>&1); then
		pass unit-verify
	else
		fail unit-verify "$out"
	fi
}

mount_tests() {
	local out
	out=$(unshare -m --propagation private \
	      "$here/install-mount.sh" "$p" 2>&1)
	echo "$out" | grep -E '^(PASS|FAIL) ' || true
	npass=$((npass + $(echo "$out" | grep -c '^PASS ' || true)))
	nfail=$((nfail + $(echo "$out" | grep -c '^FAIL ' || true)))
	echo "$out" | grep -qE '^[0-9]+ passed, 0 failed$' ||
		echo "$out" | grep -q '^FAIL ' ||
		fail mount "install-mount.sh ended early: $(echo "$out" | tail -n 2)"
}

need systemd-analyze
need unshare
make_install install || die make-install "make install failed"
check_files
check_man
check_unit
mount_tests
make_install uninstall >/dev/null 2>&1
if [ -z "$(find "$dest" ! -type d)" ]; then
	pass uninstall
else
	fail uninstall "left $(find "$dest" ! -type d | paste -sd,)"
fi
finish
