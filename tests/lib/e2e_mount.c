// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mount fixture: one temporary export per test binary.
 *
 * Layout: /tmp/rnotify-e2e.XXXXXX/{backing,mnt}, the temp dir a tmpfs of
 * its own, so that nothing changes on BACKING's file system but what the
 * test changes, and a directory beside BACKING can be renamed into it.
 * The server is $RNOTIFYFS (default build/rnotifyfs), started in the
 * foreground as our child. RNOTIFY_NATIVE=1 starts no server and makes
 * MNT the backing dir.
 *
 * Invariants: all paths the teardown needs are built before the server
 * starts, so the teardown only calls async-signal-safe functions (kill,
 * waitpid, fork, execve, nanosleep) and can run from a signal handler as
 * well as from atexit(). It runs once, and only in the process that
 * mounted (forked remote actors inherit the handlers but not the job).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#define MOUNT_TIMEOUT_MS	10000
#define LIVE_TIMEOUT_MS		10000
#define LIVE_RETRY_MS		250
#define STOP_TIMEOUT_MS		5000

/* mkdtemp under /tmp: short paths, so joins below cannot truncate. */
#define E2E_DIR_MAX 256
static char e2e_dir[E2E_DIR_MAX];
static char e2e_back[E2E_DIR_MAX + 16];
static char e2e_mntdir[E2E_DIR_MAX + 16];
static pid_t e2e_owner;
static pid_t e2e_server;
static pid_t e2e_agent;		/* RNOTIFY_AGENT=1: the replays' agent */
static char e2e_agent_sock[E2E_DIR_MAX + 16];
static bool e2e_is_native;
static bool e2e_dir_mounted;	/* our tmpfs is on e2e_dir */
static volatile sig_atomic_t e2e_torn_down;
static struct e2e_reader *e2e_root_reader;
static unsigned int e2e_sync_seq;

bool e2e_native(void)
{
	return e2e_is_native;
}

pid_t e2e_server_pid(void)
{
	return e2e_server;
}

const char *e2e_backing(void)
{
	return e2e_back;
}

const char *e2e_mnt(void)
{
	return e2e_mntdir;
}

static const char *e2e_join(const char *root, const char *rel)
{
	static char bufs[16][PATH_MAX];
	static unsigned int next;
	char *buf = bufs[next++ % 16];

	if (!rel || !*rel)
		snprintf(buf, PATH_MAX, "%s", root);
	else
		snprintf(buf, PATH_MAX, "%s/%s", root, rel);
	return buf;
}

const char *e2e_bpath(const char *rel)
{
	return e2e_join(e2e_back, rel);
}

const char *e2e_mpath(const char *rel)
{
	return e2e_join(e2e_mntdir, rel);
}

static void e2e_nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* fork + execv with stdout/stderr to /dev/null; waits. Signal-safe. */
static void e2e_run_quiet(char *const argv[])
{
	pid_t pid = fork();
	int fd;

	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* One check line, with write(2) only: this runs from signal handlers. */
static void e2e_say(const char *verdict, const char *what)
{
	extern char *program_invocation_short_name;
	const char *parts[] = { verdict, " ", program_invocation_short_name,
				"/", what, "\n" };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (write(1, parts[i], strlen(parts[i])) < 0)
			return;
}

/*
 * Polls for the server's exit for up to STOP_TIMEOUT_MS, then kills it.
 * A server that does not stop cleanly on SIGTERM (a hang, a crash, a
 * sanitizer report, which makes it exit non-zero) fails a check.
 */
static void e2e_stop_server(void)
{
	int waited, status = 0;

	if (e2e_server <= 0)
		return;
	kill(e2e_server, SIGTERM);
	for (waited = 0; waited < STOP_TIMEOUT_MS; waited += 5) {
		if (waitpid(e2e_server, &status, WNOHANG) == e2e_server)
			break;
		e2e_nap_ms(5);
	}
	if (waited >= STOP_TIMEOUT_MS) {
		kill(e2e_server, SIGKILL);
		waitpid(e2e_server, NULL, 0);
		e2e_say("FAIL", "server_exit: still running 5 s after SIGTERM");
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		e2e_say("FAIL", "server_exit: not a clean exit 0 after SIGTERM");
	} else {
		e2e_say("PASS", "server_exit");
	}
	e2e_server = 0;
}

/* The agent is killed: what it does on the way out is not checked. */
static void e2e_stop_agent(void)
{
	if (e2e_agent <= 0)
		return;
	kill(e2e_agent, SIGKILL);
	while (waitpid(e2e_agent, NULL, 0) < 0 && errno == EINTR)
		;
	e2e_agent = 0;
}

static void e2e_teardown(void)
{
	static char fusermount[] = "/bin/fusermount3";
	static char rm[] = "/bin/rm";
	static char u[] = "-u", z[] = "-z", rf[] = "-rf";
	static char onefs[] = "--one-file-system";

	if (getpid() != e2e_owner || e2e_torn_down)
		return;
	e2e_torn_down = 1;
	e2e_stop_agent();
	e2e_stop_server();
	if (!e2e_is_native) {
		char *argv[] = { fusermount, u, z, e2e_mntdir, NULL };

		e2e_run_quiet(argv);
	}
	if (e2e_dir_mounted)
		umount2(e2e_dir, MNT_DETACH);
	if (e2e_dir[0]) {
		char *argv[] = { rm, rf, onefs, e2e_dir, NULL };

		e2e_run_quiet(argv);
	}
}

static void e2e_on_signal(int sig)
{
	e2e_teardown();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void e2e_install_teardown(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGALRM,
				    SIGSEGV, SIGBUS, SIGABRT, SIGFPE };
	struct sigaction sa;
	size_t i;

	e2e_owner = getpid();
	atexit(e2e_teardown);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = e2e_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void e2e_die(const char *why)
{
	e2e_fail("mount", "%s", why);
	exit(1);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void e2e_unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* True if MNT is a fuse.rnotifyfs mount right now. */
static bool e2e_is_mounted(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mp[PATH_MAX], *sep;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		e2e_unescape(mp);
		sep = strstr(line, " - ");
		found = sep && !strcmp(mp, e2e_mntdir) &&
			!strncmp(sep + 3, "fuse.rnotifyfs ", 15);
	}
	fclose(f);
	return found;
}

static void e2e_make_dirs(void)
{
	char tmpl[] = "/tmp/rnotify-e2e.XXXXXX", real[PATH_MAX];

	if (!mkdtemp(tmpl))
		e2e_die("mkdtemp failed");
	/* /tmp may be a symlink; mountinfo shows the real path. */
	if (!realpath(tmpl, real) || strlen(real) >= sizeof(e2e_dir))
		e2e_die("realpath of the temp dir failed");
	strcpy(e2e_dir, real);
	/*
	 * The fanotify watcher marks the backing store's whole file system:
	 * on /tmp's, anyone's change there (a build beside the test) would
	 * wake the server and carry along an event that waits for a next
	 * one, and no check could see that the last event never comes by
	 * itself.
	 */
	if (mount("rnotify-quiet", e2e_dir, "tmpfs", 0, "mode=700"))
		e2e_die("tmpfs on the temp dir failed");
	e2e_dir_mounted = true;
	snprintf(e2e_back, sizeof(e2e_back), "%s/backing", e2e_dir);
	if (mkdir(e2e_back, 0755))
		e2e_die("mkdir backing failed");
	if (e2e_is_native) {
		snprintf(e2e_mntdir, sizeof(e2e_mntdir), "%s", e2e_back);
		return;
	}
	snprintf(e2e_mntdir, sizeof(e2e_mntdir), "%s/mnt", e2e_dir);
	if (mkdir(e2e_mntdir, 0755))
		e2e_die("mkdir mnt failed");
}

static const char *e2e_server_bin(void)
{
	const char *bin = getenv("RNOTIFYFS");

	return bin && *bin ? bin : "build/rnotifyfs";
}

/*
 * RNOTIFY_AGENT=1: the server replays through an agent, a second
 * process (rnotifyfs --agent) on the mount, as in a virtiofs guest.
 */
static bool e2e_with_agent(void)
{
	const char *a = getenv("RNOTIFY_AGENT");

	return a && !strcmp(a, "1");
}

/* bin started with argv, its stdout on stderr: its pid. */
static pid_t e2e_spawn(const char *bin, char **argv)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		e2e_die("fork failed");
	if (pid == 0) {
		/* Server chatter must not look like a check line. */
		dup2(2, 1);
		execv(bin, argv);
		_exit(127);
	}
	return pid;
}

static void e2e_start_agent(void)
{
	const char *bin = e2e_server_bin();
	char channel[sizeof(e2e_agent_sock) + 16];
	char *argv[] = { (char *)bin, "--agent", channel, e2e_mntdir, NULL };

	snprintf(channel, sizeof(channel), "--channel=%s", e2e_agent_sock);
	e2e_agent = e2e_spawn(bin, argv);
}

static void e2e_start_server(const char *opts)
{
	const char *bin = e2e_server_bin();
	static char with_agent[1024];
	char *argv[8];
	int argc = 0;

	/* RNOTIFYFS_OPTS runs a whole suite with other server options. */
	if (!opts || !*opts)
		opts = getenv("RNOTIFYFS_OPTS");
	if (e2e_with_agent()) {
		snprintf(e2e_agent_sock, sizeof(e2e_agent_sock), "%s/agent.sock",
			 e2e_dir);
		snprintf(with_agent, sizeof(with_agent), "%s%sagent_socket=%s",
			 opts && *opts ? opts : "", opts && *opts ? "," : "",
			 e2e_agent_sock);
		opts = with_agent;
	}
	if (access(bin, X_OK))
		e2e_die("server binary not found (set RNOTIFYFS)");
	argv[argc++] = (char *)bin;
	argv[argc++] = "-f";
	if (opts && *opts) {
		argv[argc++] = "-o";
		argv[argc++] = (char *)opts;
	}
	argv[argc++] = e2e_back;
	argv[argc++] = e2e_mntdir;
	argv[argc] = NULL;
	e2e_server = e2e_spawn(bin, argv);
}

static void e2e_wait_mounted(void)
{
	int waited;

	for (waited = 0; waited < MOUNT_TIMEOUT_MS; waited += 5) {
		if (e2e_is_mounted())
			return;
		if (waitpid(e2e_server, NULL, WNOHANG) == e2e_server) {
			e2e_server = 0;
			e2e_die("server exited before MNT was mounted");
		}
		e2e_nap_ms(5);
	}
	e2e_die("MNT not a fuse.rnotifyfs mount after 10 s");
}

static void e2e_remote_sentinel(const char *dir, char *name, size_t len)
{
	struct e2e_op ops[] = { OP_MKNOD(name), OP_END };

	snprintf(name, len, ".sync-%d-%u", (int)getpid(), e2e_sync_seq++);
	if (e2e_remote(dir, ops))
		e2e_die("remote sentinel create failed");
}

/*
 * The host watcher may start after the mount appears, so a sentinel can be
 * missed: retry with a fresh name until one arrives or the bound passes.
 */
static void e2e_wait_live(void)
{
	char name[64];
	struct e2e_ev ev;
	int waited = 0, got;

	e2e_root_reader = e2e_inotify_new();
	if (!e2e_root_reader ||
	    e2e_inotify_watch(e2e_root_reader, NULL, e2e_mntdir, IN_CREATE))
		e2e_die("inotify on MNT failed");
	while (waited < LIVE_TIMEOUT_MS) {
		e2e_remote_sentinel("", name, sizeof(name));
		while ((got = e2e_next(e2e_root_reader, &ev,
				       LIVE_RETRY_MS)) > 0) {
			if (!strncmp(ev.text, "CREATE .sync-", 13))
				return;
		}
		if (got < 0)
			e2e_die("reading inotify on MNT failed");
		waited += LIVE_RETRY_MS;
	}
	e2e_die("no remote CREATE reached MNT within 10 s");
}

void e2e_mount(const char *opts)
{
	const char *native = getenv("RNOTIFY_NATIVE");

	e2e_is_native = native && !strcmp(native, "1");
	e2e_install_teardown();
	e2e_make_dirs();
	if (!e2e_is_native) {
		e2e_start_server(opts);
		e2e_wait_mounted();
		if (e2e_with_agent())
			e2e_start_agent();
	}
	e2e_wait_live();
}

void e2e_sync(void)
{
	char name[64], text[96];
	struct e2e_evlist seen = { 0 };

	e2e_remote_sentinel("", name, sizeof(name));
	snprintf(text, sizeof(text), "CREATE %s", name);
	if (!e2e_wait_for(e2e_root_reader, text, &seen))
		e2e_die("sync: a remote sentinel never reached MNT");
	e2e_evlist_free(&seen);
}
