# rnotify build. `make` builds build/rnotifyfs; `make test` runs the suite.
# Sources are found by wildcard so that each part adds files without
# touching this file.

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3)
FUSE_LIBS := $(shell pkg-config --libs fuse3)
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Isrc $(FUSE_CFLAGS)
LDLIBS += $(FUSE_LIBS) -lpthread

B ?= build
LIB_SRC := $(wildcard src/*/*.c src/*/*/*.c)
LIB_SRC := $(filter-out src/daemon/main.c,$(LIB_SRC))
# virtiofs mode (--socket-path): libvhost-user, built outside the
# repository by scripts/setup-vhost; without it the mode is refused.
VHOST_DIR ?= /var/tmp/rnotify-vhost
ifneq ($(wildcard $(VHOST_DIR)/lib/libvhost-user.a),)
LIB_SRC := $(filter-out src/session/vhost_none.c,$(LIB_SRC))
CPPFLAGS += -I$(VHOST_DIR)/include
LDLIBS += $(VHOST_DIR)/lib/libvhost-user.a
# kernel/run-virtiofs-tests' backend of crafted notifications.
VHOST_TEST_BIN := $(B)/tests/frame_server
else
LIB_SRC := $(filter-out src/session/vhost_io.c src/session/vhost_notify.c,$(LIB_SRC))
endif
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
TESTLIB_SRC := $(wildcard tests/lib/*.c)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(B)/%.o)
# The kernel's side of the protocol: tests only (unit tests and
# frame_server's crafted frames), never the server.
PEER_SRC := $(wildcard tests/peer/*.c)
PEER_OBJ := $(PEER_SRC:%.c=$(B)/%.o)
E2E_SRC := $(wildcard tests/e2e/t_*.c)
E2E_BIN := $(E2E_SRC:tests/e2e/%.c=$(B)/tests/%)

.PHONY: all test asan clean
all: $(B)/rnotifyfs $(UNIT_BIN) $(E2E_BIN) $(VHOST_TEST_BIN)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -MMD -MP -c -o $@ $<

$(B)/librnotify.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/rnotifyfs: $(B)/src/daemon/main.o $(B)/librnotify.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/test_%: $(B)/tests/unit/test_%.o $(PEER_OBJ) $(B)/librnotify.a \
		   $(TESTLIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/t_%: $(B)/tests/e2e/t_%.o $(TESTLIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/frame_server: $(B)/tests/virtiofs/frame_server.o $(PEER_OBJ) \
			 $(B)/librnotify.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

test: all
	tests/run-all $(B)

# AddressSanitizer + UBSan build of everything, in its own tree.
asan:
	$(MAKE) B=build-asan CC=clang \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" all

clean:
	rm -rf build build-asan

include install.mk

-include $(LIB_OBJ:.o=.d) $(B)/src/daemon/main.d $(TESTLIB_OBJ:.o=.d) \
	 $(PEER_OBJ:.o=.d)
-include $(E2E_BIN:$(B)/tests/%=$(B)/tests/e2e/%.d) \
	 $(B)/tests/virtiofs/frame_server.d
-include $(UNIT_BIN:$(B)/tests/%=$(B)/tests/unit/%.d)
