# SPDX-License-Identifier: GPL-2.0-or-later
"""
Stress with exact accounting: 8 remote writers on BACKING and 4 local
writers through the mount do a random mix of create, write, chmod,
rename, unlink, mkdir, rmdir and directory rename, while one inotify
reader watches every directory of the mount (adding a watch on each new
directory as it appears).

  load.py SERVER --ops N [--mix stable|churn] [--rate R] [--queue Q]
          [--seed S] [--name NAME]

Exactness by construction:
- Each writer owns wNN/a and wNN/b and never touches anything else, so
  every event can be traced to the writer whose log predicts it.
- Names are never reused (f1, f2, ... d1, ...): host fanotify merges
  queued events about one object and name, and inotify merges identical
  consecutive events; with fresh names neither can fold a create, delete
  or rename into another, so CREATE, DELETE, MOVED_FROM, MOVED_TO (and
  ISDIR) must match the logs exactly, as multisets per writer.
- MODIFY and ATTRIB: repeated changes of one kind to one file may merge
  while queued on the host, so each logged (file, kind) needs at least
  one event and never more than were logged.
- Mixes. stable (the default): content and mode change only on files
  that stay (up to 16 per writer, never renamed or deleted); the others
  are created, renamed and deleted. churn: any file is written or
  chmod-ed (once per name), also just before it is renamed or deleted,
  which is when a replay finds the object gone or moved.
- New directories stay empty, so a change inside one never happens before
  the reader could have watched it; their own watches may only see
  DELETE_SELF, MOVE_SELF and IGNORED.
- The end of the load must arrive by itself: once the writers have
  exited, the reader, knowing their logs, reads until every logged event
  has come, with nothing changing on the host; it fails if TAIL_WAIT
  seconds pass with none read while some are still missing. Each
  writer's last change is a create of a fresh name, whose event must
  come exactly once, so an end held back shows; and BACKING is a tmpfs
  of its own, where no change of anyone else wakes the server (see
  rnfix.Mount). Only then
  comes a remote sentinel create, which proves that nothing else
  follows: replay is serial in host order and local events are
  synchronous, so once its CREATE is read every event has been read. (A
  sentinel alone would carry along an event the server held back until
  a next change.)
CLOSE_WRITE is counted, not compared (a replayed write shows one more
open/close than the host's).

Losses: if the server logs a host queue overflow (the only overflow a
stock kernel lets it report), remote events may be missing, and the check
says how many; extra or doubled events fail either way. An IN_Q_OVERFLOW
read by the reader relaxes the same way. --rate throttles each remote
writer to R ops/s so replay (serial, a few thousand events/s) keeps up.
"""
import argparse
import collections
import os
import random
import select
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
import rnfix  # noqa: E402
from rnfix import (IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO,  # noqa
                   IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_ISDIR,
                   IN_DELETE_SELF, IN_MOVE_SELF, IN_IGNORED, IN_Q_OVERFLOW)

REMOTE = 8
LOCAL = 4
MAX_FILES = 48
MAX_DIRS = 8
MAX_KEEPERS = 16
KEY = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | \
    IN_ATTRIB
SELF_OK = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED
OPS = ["create", "write", "chmod", "rename", "unlink", "mkdir", "rmdir",
       "rendir"]
WEIGHTS = [20, 20, 15, 15, 15, 6, 5, 4]


def writer_name(i):
    return f"w{i:02d}" if i < REMOTE else f"l{i - REMOTE:02d}"


class Writer:
    """One writer's state and the log of the key events it caused."""

    def __init__(self, root, wname, seed, log, mix):
        self.root = root
        self.stable = mix == "stable"
        self.w = wname
        self.rng = random.Random(seed)
        self.files = {}		# name -> [subdir, written, chmodded]
        self.keepers = {}	# stable mix: name -> subdir
        self.dirs = {}		# name -> subdir (empty directories)
        self.next = 0
        self.log = log
        self.counts = collections.Counter()

    def fresh(self, prefix):
        self.next += 1
        return f"{prefix}{self.next}"

    def path(self, sub, name):
        return os.path.join(self.root, self.w, sub, name)

    def emit(self, sub, mask, name):
        self.log.write(f"{self.w}/{sub}\t{mask}\t{name}\n")

    def pick_op(self):
        if len(self.files) >= MAX_FILES:
            return "unlink"
        op = self.rng.choices(OPS, WEIGHTS)[0]
        if self.stable and op in ("write", "chmod"):
            return op
        if op in ("write", "chmod", "rename", "unlink") and not self.files:
            return "create"
        if op == "mkdir" and len(self.dirs) >= MAX_DIRS:
            return "rmdir"
        if op in ("rmdir", "rendir") and not self.dirs:
            return "mkdir"
        return op

    def one(self):
        op = self.pick_op()
        sub = self.rng.choice("ab")
        if self.stable and op in ("write", "chmod"):
            op = self.keeper_op(op, sub)
        elif op == "create":
            name = self.fresh("f")
            os.mknod(self.path(sub, name), 0o644)
            self.files[name] = [sub, False, False]
            self.emit(sub, IN_CREATE, name)
        elif op == "mkdir":
            name = self.fresh("d")
            os.mkdir(self.path(sub, name))
            self.dirs[name] = sub
            self.emit(sub, IN_CREATE | IN_ISDIR, name)
        elif op == "rmdir":
            name = self.rng.choice(sorted(self.dirs))
            where = self.dirs.pop(name)
            os.rmdir(self.path(where, name))
            self.emit(where, IN_DELETE | IN_ISDIR, name)
        else:
            op = self.file_op(op, sub)
        self.counts[op] += 1

    def last(self):
        """A create of a fresh name: the writer's last change is one whose
        event must come exactly once (a last MODIFY may merge into an
        earlier one, a CLOSE_WRITE is not compared), so an end held
        back shows."""
        name = self.fresh("e")
        os.mknod(self.path("a", name), 0o644)
        self.emit("a", IN_CREATE, name)
        self.counts["create"] += 1

    def keeper_op(self, op, sub):
        """Stable mix: content and mode change only on files that stay."""
        if len(self.keepers) < MAX_KEEPERS:
            name = self.fresh("k")
            os.mknod(self.path(sub, name), 0o644)
            self.keepers[name] = sub
            self.emit(sub, IN_CREATE, name)
            op = "create"
        else:
            name = self.rng.choice(sorted(self.keepers))
            p = self.path(self.keepers[name], name)
            if op == "write":
                with open(p, "ab") as f:
                    f.write(b"x" * self.rng.randint(1, 64))
                self.emit(self.keepers[name], IN_MODIFY, name)
            else:
                os.chmod(p, self.rng.choice([0o600, 0o640, 0o644]))
                self.emit(self.keepers[name], IN_ATTRIB, name)
        return op

    def file_op(self, op, sub):
        if op == "rendir":
            old = self.rng.choice(sorted(self.dirs))
            new = self.fresh("d")
            src = self.dirs.pop(old)
            os.rename(self.path(src, old), self.path(sub, new))
            self.dirs[new] = sub
            self.emit(src, IN_MOVED_FROM | IN_ISDIR, old)
            self.emit(sub, IN_MOVED_TO | IN_ISDIR, new)
            return op
        eligible = sorted(n for n, st in self.files.items()
                          if not (op == "write" and st[1])
                          and not (op == "chmod" and st[2]))
        if not eligible:
            eligible = sorted(self.files)
            op = "rename"
        name = self.rng.choice(eligible)
        st = self.files[name]
        p = self.path(st[0], name)
        if op == "write":
            with open(p, "ab") as f:
                f.write(b"x" * self.rng.randint(1, 64))
            st[1] = True
            self.emit(st[0], IN_MODIFY, name)
        elif op == "chmod":
            os.chmod(p, self.rng.choice([0o600, 0o640, 0o644]))
            st[2] = True
            self.emit(st[0], IN_ATTRIB, name)
        elif op == "unlink":
            os.unlink(p)
            del self.files[name]
            self.emit(st[0], IN_DELETE, name)
        else:
            new = self.fresh("f")
            os.rename(p, self.path(sub, new))
            del self.files[name]
            self.files[new] = [sub, False, False]
            self.emit(st[0], IN_MOVED_FROM, name)
            self.emit(sub, IN_MOVED_TO, new)
        return op


def run_writer(i, root, args, tmp, remote):
    """A forked writer: does its share of ops, logs, exits."""
    w = writer_name(i)
    n = args.ops // (REMOTE + LOCAL)
    with open(os.path.join(tmp, f"{w}.log"), "w") as log:
        wr = Writer(root, w, args.seed * 100 + i, log, args.mix)
        start = time.monotonic()
        for k in range(n):
            if remote and args.rate:
                ahead = start + k / args.rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)	# pacing, not waiting for a result
            wr.one()
        wr.last()
    with open(os.path.join(tmp, f"{w}.ops"), "w") as f:
        f.write(" ".join(f"{k}={v}" for k, v in sorted(wr.counts.items())))


QUEUE_KNOB = "/proc/sys/fs/inotify/max_queued_events"
READER_QUEUE = 1 << 21
# Seconds with no event read while logged events are still missing, after
# the writers exited: the end of the load did not come by itself.
TAIL_WAIT = 10


def reader_inotify():
    """An inotify fd whose queue holds READER_QUEUE events. The reader, a
    Python loop, reads more slowly than the replay delivers a backlog: at
    the default 16,384 a 1M-op run read IN_Q_OVERFLOW, which hid whatever
    the server might have lost. The kernel reads the limit once, at
    inotify_init, so it is raised around that call only."""
    with open(QUEUE_KNOB) as f:
        old = f.read().strip()
    try:
        with open(QUEUE_KNOB, "w") as f:
            f.write(str(READER_QUEUE))
        return rnfix.Inotify()
    finally:
        with open(QUEUE_KNOB, "w") as f:
            f.write(old)


class Reader:
    """The watcher: every directory of the mount, events to files."""

    def __init__(self, mnt, tmp, idle):
        self.mnt = os.fsencode(mnt)
        self.tmp = tmp
        self.idle = idle
        self.ino = reader_inotify()
        self.static = set()
        self.out = {}
        self.stats = collections.Counter()
        self.unexpected = []
        self.have = collections.Counter()
        self.need = None	# key event -> how many must come, once known
        self.missing = 0	# keys of need not yet come

    def watch_tree(self):
        for top, dirs, _ in os.walk(self.mnt):
            self.static.add(self.ino.add(top))

    def rel(self, path):
        return os.path.relpath(path, self.mnt).decode()

    def strange(self, ev):
        self.stats["strange"] += 1
        if len(self.unexpected) < 20:
            self.unexpected.append(
                f"{self.rel(ev[0])}: {rnfix.mask_str(ev[1])} "
                f"{ev[3].decode(errors='replace')}")

    def dynamic_event(self, ev):
        if ev[1] & ~(SELF_OK | IN_ISDIR):
            self.strange(ev)
        else:
            self.stats["self"] += 1

    def static_event(self, ev):
        path, mask, cookie, name, _ = ev
        rel = self.rel(path)
        if rel == "s" and mask & IN_CREATE and name == b"done":
            return True
        if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
            self.ino.add(os.path.join(path, name))
        w = rel.split("/")[0]
        if rel.count("/") != 1 or not mask & (KEY | IN_CLOSE_WRITE):
            self.strange(ev)
        elif mask & IN_CLOSE_WRITE:
            self.stats["close_write"] += 1
        else:
            if w not in self.out:
                self.out[w] = open(os.path.join(self.tmp, f"{w}.got"), "w")
            self.out[w].write(f"{rel}\t{mask}\t{name.decode()}\t{cookie}\n")
            self.stats["key"] += 1
            self.count_key((rel, str(mask), name.decode()))
        return False

    def count_key(self, key):
        self.have[key] += 1
        if self.need is not None and self.have[key] == self.need.get(key):
            self.missing -= 1

    def writers_ended(self):
        """Loads what the writers logged: each key event must come as
        often as logged, MODIFY and ATTRIB at least once (see account())."""
        self.need = collections.Counter()
        for i in range(REMOTE + LOCAL):
            for x in read_lines(os.path.join(self.tmp,
                                             f"{writer_name(i)}.log")):
                self.need[tuple(x)] += 1
        for k in self.need:
            if int(k[1]) in (IN_MODIFY, IN_ATTRIB):
                self.need[k] = 1
        self.missing = sum(1 for k, n in self.need.items()
                           if self.have[k] < n)

    def tail_told(self, tail_fd, ended_at, last):
        """True once the parent is told whether the end of the load came
        by itself: every logged event read ("c"), or TAIL_WAIT s without
        an event read ("n"), since the writers ended (at ended_at)."""
        now = time.monotonic()
        if self.missing and now - max(last, ended_at) < TAIL_WAIT:
            return False
        self.stats["tail"] = int(not self.missing)
        self.stats["tail_missing"] = self.missing
        self.stats["tail_ms"] = int(max(0.0, last - ended_at) * 1000)
        os.write(tail_fd, b"n" if self.missing else b"c")
        return True

    def run(self, ready_fd, ended_fd, tail_fd):
        """ended_fd becomes readable when the writers have exited; then
        the reader tells the parent on tail_fd whether the end came by
        itself (tail_told()), and reads on until the sentinel."""
        self.watch_tree()
        os.write(ready_fd, b"r")
        last = time.monotonic()
        done = False
        ended_at = None
        told = False
        while not done and time.monotonic() - last < self.idle:
            fds = [self.ino.fd] + ([ended_fd] if ended_at is None else [])
            ready = select.select(fds, [], [],
                                  0.1 if ended_at and not told else 1.0)[0]
            if ended_fd in ready and ended_at is None:
                ended_at = time.monotonic()
                self.writers_ended()
            if ended_at is not None and not told:
                told = self.tail_told(tail_fd, ended_at, last)
            for ev in self.ino.read(0):
                last = time.monotonic()
                self.stats["events"] += 1
                if ev[1] & IN_Q_OVERFLOW:
                    self.stats["overflow"] += 1
                elif self.ino_wd_static(ev):
                    done = self.static_event(ev) or done
                else:
                    self.dynamic_event(ev)
        for f in self.out.values():
            f.close()
        with open(os.path.join(self.tmp, "reader"), "w") as f:
            f.write(f"done={int(done)}\n")
            for k, v in self.stats.items():
                f.write(f"{k}={v}\n")
            for u in self.unexpected:
                f.write(f"unexpected={u}\n")

    def ino_wd_static(self, ev):
        return ev[4] in self.static


def read_lines(path):
    try:
        with open(path) as f:
            return [ln.rstrip("\n").split("\t") for ln in f]
    except FileNotFoundError:
        return []


def read_kv(path):
    kv = collections.Counter()
    extra = []
    for ln in read_lines(path):
        k, _, v = ln[0].partition("=")
        if k == "unexpected":
            extra.append(v)
        else:
            kv[k] = int(v)
    return kv, extra


def cookie_errors(got, expected_pairs):
    """Each MOVED_FROM/MOVED_TO pair shares one cookie, as logged."""
    by_cookie = collections.defaultdict(list)
    for rel, mask, name, cookie in got:
        if int(mask) & (IN_MOVED_FROM | IN_MOVED_TO):
            by_cookie[cookie].append((int(mask) & IN_MOVED_TO, rel, name))
    bad = 0
    for cookie, halves in by_cookie.items():
        halves.sort()
        if cookie == "0" or len(halves) != 2 or halves[0][0] or \
                not halves[1][0] or \
                (halves[0][1:], halves[1][1:]) not in expected_pairs:
            bad += 1
    return bad


def account(chk, tmp, w, relaxed):
    """Compares one writer's log with the events it got; (exp, missing)."""
    log = read_lines(os.path.join(tmp, f"{w}.log"))
    got = read_lines(os.path.join(tmp, f"{w}.got"))
    exp = collections.Counter(tuple(x) for x in log)
    rec = collections.Counter(tuple(x[:3]) for x in got)
    # Host fanotify may merge repeated changes of one kind to one file
    # while they wait in its queue: at least one event, never more.
    merged = 0
    for k, n in exp.items():
        if int(k[1]) in (IN_MODIFY, IN_ATTRIB) and 0 < rec[k] < n:
            exp[k] = rec[k]
            merged += n - rec[k]
    missing = exp - rec
    extra = rec - exp
    pairs = set()
    for a, b in zip(log, log[1:]):
        if int(a[1]) & IN_MOVED_FROM and int(b[1]) & IN_MOVED_TO:
            pairs.add(((a[0], a[2]), (b[0], b[2])))
    bad_cookies = cookie_errors(got, pairs) if not missing else 0

    def show(c):
        return ", ".join(f"{k[0]} {rnfix.mask_str(int(k[1]))} {k[2]}"
                         f"{' x%d' % n if n > 1 else ''}"
                         for k, n in list(c.items())[:5])
    chk.ok(f"{w}/no_extra_or_doubled", not extra,
           f"{sum(extra.values())} events not caused by {w}: {show(extra)}")
    chk.ok(f"{w}/every_change_delivered", not missing or relaxed,
           f"{sum(missing.values())} of {sum(exp.values())} missing: "
           f"{show(missing)}")
    chk.ok(f"{w}/rename_cookies", bad_cookies == 0,
           f"{bad_cookies} rename cookies unpaired or wrong")
    return sum(exp.values()) + merged, sum(missing.values()), merged


def make_tree(back):
    os.mkdir(os.path.join(back, "s"))
    for i in range(REMOTE + LOCAL):
        for sub in "ab":
            os.makedirs(os.path.join(back, writer_name(i), sub))


def wait_children(pids, timeout):
    """Reaps pids within timeout (then kills them); how many failed."""
    end = time.monotonic() + timeout
    bad = 0
    while pids and time.monotonic() < end:
        for pid in list(pids):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                pids.remove(pid)
                bad += status != 0
        time.sleep(0.05)
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return bad + len(pids)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--ops", type=int, default=24000)
    ap.add_argument("--rate", type=float, default=0)
    ap.add_argument("--queue", type=int, default=65536)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--name", default="stress")
    ap.add_argument("--mix", choices=["stable", "churn"], default="stable")
    args = ap.parse_args()
    chk = rnfix.Checks(args.name)
    m = rnfix.Mount(args.server, "stress", f"queue={args.queue}")
    make_tree(m.back)
    if not chk.ok("mount", m.start(), m.server_log()[-300:]):
        chk.exit()
    tmp = m.tmp
    t0 = time.monotonic()
    rfd, wfd = os.pipe()
    ended_r, ended_w = os.pipe()
    tail_r, tail_w = os.pipe()
    reader = rnfix.fork(lambda: Reader(m.mnt, tmp, 120).run(wfd, ended_r,
                                                            tail_w))
    for fd in (wfd, ended_r, tail_w):
        os.close(fd)
    ready = rnfix.wait_until(lambda: bool(os.read(rfd, 1)), 30)
    os.close(rfd)
    chk.ok("reader_ready", ready, "reader did not start")
    pids = [rnfix.fork(run_writer, i, m.back if i < REMOTE else m.mnt,
                       args, tmp, i < REMOTE)
            for i in range(REMOTE + LOCAL)]
    bad = wait_children(set(pids), 600 + args.ops / 100)
    t_write = time.monotonic() - t0
    chk.ok("writers", bad == 0, f"{bad} writers failed or hung")
    # The sentinel only once the reader has read the end, or given up.
    os.write(ended_w, b"e")
    select.select([tail_r], [], [], 300 + args.ops / 200)
    for fd in (ended_w, tail_r):
        os.close(fd)
    os.mknod(os.path.join(m.back, "s", "done"))
    bad = wait_children({reader}, 300 + args.ops / 200)
    t_all = time.monotonic() - t0
    rd, strange = read_kv(os.path.join(tmp, "reader"))
    chk.ok("sentinel_seen", rd["done"] == 1 and not bad,
           f"reader ended without the sentinel ({rd['events']} events)")
    chk.ok("no_unexpected_events", not strange,
           f"{rd['strange']} unexpected: {'; '.join(strange[:5])}")
    srv_overflow = "overflowed" in m.server_log()
    relaxed_remote = srv_overflow or rd["overflow"] > 0
    chk.ok("last_event_without_sentinel", rd["tail"] == 1 or relaxed_remote,
           f"{rd['tail_missing']} logged events had not come {TAIL_WAIT} s "
           f"after the last event read, with nothing changing on the host")
    exp_r = miss_r = exp_l = merged = 0
    for i in range(REMOTE + LOCAL):
        e, miss, mer = account(chk, tmp, writer_name(i),
                               relaxed_remote if i < REMOTE
                               else rd["overflow"])
        merged += mer
        if i < REMOTE:
            exp_r, miss_r = exp_r + e, miss_r + miss
        else:
            exp_l += e
    chk.ok("server_alive", m.proc.poll() is None,
           f"server exited {m.proc.returncode}")
    ops = collections.Counter()
    for i in range(REMOTE + LOCAL):
        for kv in open(os.path.join(tmp, f"{writer_name(i)}.ops")) \
                .read().split():
            k, v = kv.split("=")
            ops[k] += int(v)
    chk.info(f"{sum(ops.values())} ops ({', '.join(f'{k} {v}' for k, v in sorted(ops.items()))}); "
             f"writers done in {t_write:.1f} s, all events in {t_all:.1f} s"
             f" (the last logged one {rd['tail_ms']} ms after the writers)")
    chk.info(f"key events: remote expected {exp_r}, missing {miss_r}, "
             f"merged (host queue or replay) {merged}; "
             f"local expected {exp_l}; read {rd['events']} events "
             f"({rd['close_write']} CLOSE_WRITE, {rd['self']} on new dirs' "
             f"own watches, {rd['overflow']} IN_Q_OVERFLOW); server logged "
             f"host overflow: {'yes' if srv_overflow else 'no'}")
    chk.ok("server_stops", m.stop(), "server did not exit 0 on SIGTERM")
    m.close()
    chk.exit()


if __name__ == "__main__":
    main()
