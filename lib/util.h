/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small operating-system helpers shared by every program: directories,
 * atomic file writes, clocks, the cache directory, and running a child
 * process with a log file and a hard timeout.
 */
#ifndef BISECTD_UTIL_H
#define BISECTD_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p; ERR_INFRA on failure. */
int util_mkdir_p(const char *path);

/* Write data to path through a temporary file and rename(2). */
int util_write_atomic(const char *path, const void *data, size_t len);

/* Seconds on the monotonic clock. */
double util_now(void);

/*
 * Read a credential from path into out (size bytes, the final newline
 * dropped): a regular file that only its owner may read or write
 * (mode 0600 or stricter), not a link, holding one non-empty line.
 */
int util_read_secret(const char *path, char *out, size_t size);

/*
 * The cache directory: $BISECTD_CACHE, else $XDG_CACHE_HOME/bisectd, else
 * /var/cache/bisectd for root and ~/.cache/bisectd for others.  Caller
 * frees.
 */
char *util_cache_dir(void);
/* ccache's directory for kernel builds: $CCACHE_DIR, else the cache's
 * ccache/.  Caller frees; NULL when out of memory. */
char *util_ccache_dir(void);

/* printf into a fresh string; NULL when out of memory.  Caller frees. */
char *util_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A field's value in the first stanza of Debian control text ("Name:
 * value" lines, as dpkg-deb --field and apt-cache show print them; the
 * name's case does not matter) into out; "" when it has none.
 */
void util_control_field(const char *text, const char *name, char *out,
			size_t size);

/* 1 if name is an executable in one of $PATH's directories. */
int util_in_path(const char *name);

/* FNV-1a over len bytes: stable across runs, for cache keys. */
unsigned long long util_hash(const void *data, size_t len);

/* 1 if path names an executable regular file. */
int util_is_executable(const char *path);

/*
 * Take an exclusive lock on path (created if needed), waiting while
 * another process holds it, with one line on stderr saying so.  Returns
 * the descriptor that holds the lock (closing it releases it), or <0.
 */
int util_lock(const char *path);
/* Take dir for this process: util_lock() on "DIR.lock" beside it. */
int util_lock_dir(const char *dir);

/* The path of program name beside this process's own executable (the
 * build's bin/, or where they were installed).  Caller frees; NULL when
 * out of memory. */
char *util_exe_sibling(const char *name);

/* Remove a directory tree (rm -rf); a missing path is not an error. */
int util_remove_tree(const char *path);

/*
 * Give a tree (links themselves, not what they name; not its top-level
 * entry named keep, nor across mounts) to uid and gid: a checkout lent
 * to a command's user, then taken back; a build's output directory
 * given to the build's user.  A hard link (a file with more than one
 * name, which may be a file outside the tree) is removed, not given.
 * Not thread-safe.
 */
int util_chown_tree(const char *path, const char *keep, uid_t uid, gid_t gid);

struct proc_opts {
	const char *cwd;	/* NULL: inherit */
	const char *const *env; /* extra "NAME=value" entries, NULL-ended */
	const char *log_path;	/* stdout and stderr go here; NULL: inherit */
	int append;		/* append to log_path instead of truncating */
	double timeout_s;	/* 0: none; the process group is killed */
	/* with log_path: the group is killed when the log has not grown
	 * for this long (a child that reports progress and has none to
	 * report); 0: never */
	double stall_s;
	/* called about once a second while the child runs */
	void (*tick)(double elapsed, void *payload);
	void *payload;
	/* the largest file the child may write, in MB (RLIMIT_FSIZE); a
	 * write past it fails with EFBIG.  0: no limit */
	unsigned long max_file_mb;
	/* the most processes the child and all it starts may have at once
	 * (a pids cgroup of its own, removed with everything left in it
	 * when the child ends); 0, or no pids cgroup here: no limit */
	unsigned max_procs;
	/* with log_path: what stdin reads (NULL: /dev/null), and 1 to send
	 * stderr to /dev/null instead of the log */
	const char *stdin_path;
	int stdout_only;
};

/*
 * Where proc_run() makes its pids cgroups (cgroup v2 with the pids
 * controller, or v1's pids hierarchy), or NULL when this machine has
 * none that we may write.
 */
const char *proc_pids_root(void);

struct proc_result {
	int status;	 /* exit status when exited */
	int exited;	 /* exited normally */
	int signal;	 /* the signal that ended it, or 0 */
	int timed_out;	 /* killed at the timeout */
	int stalled;	 /* killed after stall_s without output */
	int exec_failed; /* could not be started at all */
	double seconds;
};

/*
 * Run argv[0] (searched in PATH) and wait for it.  The child is killed
 * when the thread that started it dies (PR_SET_PDEATHSIG).  A child that could not
 * be started is reported in out->exec_failed, with the reason in
 * err_last(); the return value is nonzero only when fork() itself fails.
 */
int proc_run(struct proc_result *out, const char *const argv[],
	     const struct proc_opts *o);

/*
 * For a single-threaded process that may be told to stop at any time
 * (a worker's step process): after proc_track(), proc_run() remembers
 * the process group of the child it waits for, and proc_kill_running(),
 * which a signal handler may call, kills that whole group (make and its
 * compilers, QEMU).
 */
void proc_track(void);
void proc_kill_running(void);

#endif
