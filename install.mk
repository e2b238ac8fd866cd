# Installs rnotifyfs like a FUSE file system: the server, a mount helper
# so that "mount -t fuse.rnotifyfs" and fstab lines work, the man page and
# an example systemd mount unit. Included by the Makefile (after "all", so
# "all" stays the default goal); also usable as
#   make -f Makefile -f install.mk install
# PREFIX and DESTDIR as usual; nothing here builds (install what "make"
# built in $(B)).

ifndef RNOTIFY_INSTALL_MK
RNOTIFY_INSTALL_MK := 1

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MAN8DIR ?= $(PREFIX)/share/man/man8
EXAMPLEDIR ?= $(PREFIX)/share/doc/rnotifyfs/examples
# fuse3's mount helper: invoked as mount.fuse.TYPE it runs
# "TYPE SOURCE MOUNTPOINT -o OPTIONS" (TYPE looked up in PATH).
MOUNT_FUSE ?= /sbin/mount.fuse3
INSTALL ?= install

.PHONY: install uninstall
install: $(B)/rnotifyfs
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MAN8DIR) $(DESTDIR)$(EXAMPLEDIR)
	$(INSTALL) -m 755 $(B)/rnotifyfs $(DESTDIR)$(BINDIR)/rnotifyfs
	ln -sf $(MOUNT_FUSE) $(DESTDIR)$(SBINDIR)/mount.fuse.rnotifyfs
	$(INSTALL) -m 644 docs/rnotifyfs.8 $(DESTDIR)$(MAN8DIR)/rnotifyfs.8
	$(INSTALL) -m 644 dist/mnt-rnotify.mount \
		$(DESTDIR)$(EXAMPLEDIR)/mnt-rnotify.mount
	$(INSTALL) -m 644 dist/rnotifyfs-agent@.service \
		$(DESTDIR)$(EXAMPLEDIR)/rnotifyfs-agent@.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rnotifyfs \
		$(DESTDIR)$(SBINDIR)/mount.fuse.rnotifyfs \
		$(DESTDIR)$(MAN8DIR)/rnotifyfs.8 \
		$(DESTDIR)$(EXAMPLEDIR)/mnt-rnotify.mount \
		$(DESTDIR)$(EXAMPLEDIR)/rnotifyfs-agent@.service
	-rmdir $(DESTDIR)$(EXAMPLEDIR) $(DESTDIR)$(PREFIX)/share/doc/rnotifyfs

endif
