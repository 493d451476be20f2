// SPDX-License-Identifier: GPL-2.0-only
/*
 * Operating-system helpers.  proc_run() is the one place where children
 * are started: in their own process group, so that a timeout kills the
 * whole tree (make and its compilers, QEMU), with an exec failure reported
 * back through a close-on-exec pipe.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "log.h"
#include "util.h"

int util_mkdir_p(const char *path)
{
	char tmp[4096];
	size_t len = strlen(path), i;

	if (len == 0 || len >= sizeof(tmp))
		return err_set(ERR_INPUT, "bad directory name '%s'", path);
	memcpy(tmp, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (tmp[i] != '/' && tmp[i] != '\0')
			continue;
		tmp[i] = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return err_sys(ERR_INFRA,
				       "cannot create directory '%s'", tmp);
		tmp[i] = path[i];
	}
	return 0;
}

int util_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[4200];
	const char *p = data;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_sys(ERR_INFRA, "cannot write '%s'", path);
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_sys(ERR_INFRA, "cannot write '%s'", path);
			close(fd);
			unlink(tmp);
			return ERR_INFRA;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) || rename(tmp, path)) {
		err_sys(ERR_INFRA, "cannot write '%s'", path);
		unlink(tmp);
		return ERR_INFRA;
	}
	return 0;
}

int util_read_secret(const char *path, char *out, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return err_set(ERR_GENERIC, "cannot open '%s': %s", path,
			       strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(ERR_GENERIC, "'%s' is not a regular file", path);
	}
	if (st.st_mode & 077) {
		close(fd);
		return err_set(ERR_GENERIC,
			       "'%s' may be read by other users (mode %03o; "
			       "chmod 600 it)",
			       path, (unsigned)(st.st_mode & 0777));
	}
	n = read(fd, out, size);
	close(fd);
	if (n > 0 && out[n - 1] == '\n')
		n--;
	if (n <= 0 || (size_t)n >= size || memchr(out, '\n', (size_t)n) ||
	    memchr(out, '\0', (size_t)n)) {
		memset(out, 0, size);
		return err_set(ERR_GENERIC,
			       "'%s' must hold one line of at most %zu bytes",
			       path, size - 1);
	}
	out[n] = '\0';
	return 0;
}

double util_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *util_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

void util_control_field(const char *text, const char *name, char *out,
			size_t size)
{
	size_t len = strlen(name);
	const char *p;

	out[0] = '\0';
	for (p = text; *p && *p != '\n'; p += strcspn(p, "\n"), p += *p == '\n')
		if (!strncasecmp(p, name, len) && p[len] == ':') {
			const char *v = p + len + 1 + strspn(p + len + 1, " ");

			snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
			return;
		}
}

char *util_cache_dir(void)
{
	const char *env = getenv("BISECTD_CACHE"), *home;

	if (env && *env)
		return strdup(env);
	env = getenv("XDG_CACHE_HOME");
	if (env && *env)
		return util_fmt("%s/bisectd", env);
	home = getenv("HOME");
	if (geteuid() == 0 || !home || !*home)
		return strdup("/var/cache/bisectd");
	return util_fmt("%s/.cache/bisectd", home);
}

char *util_ccache_dir(void)
{
	const char *env = getenv("CCACHE_DIR");
	char *cache, *dir;

	if (env && *env)
		return strdup(env);
	if (!(cache = util_cache_dir()))
		return NULL;
	dir = util_fmt("%s/ccache", cache);
	free(cache);
	return dir;
}

int util_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

int util_lock(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return err_sys(ERR_INFRA, "cannot open lock '%s'", path);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	log_info("waiting for '%s', held by another process", path);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			err_sys(ERR_INFRA, "cannot lock '%s'", path);
			close(fd);
			return ERR_INFRA;
		}
	}
	return fd;
}

int util_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name);
		if (util_is_executable(buf))
			return 1;
		path += n;
		if (*path)
			path++;
	}
	return 0;
}

unsigned long long util_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	unsigned long long h = 1469598103934665603ull;

	while (len--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

int util_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (nftw(path, remove_one, 32, FTW_DEPTH | FTW_PHYS))
		return err_sys(ERR_INFRA, "cannot remove '%s'", path);
	return 0;
}

int util_lock_dir(const char *dir)
{
	char *path = util_fmt("%s.lock", dir);
	int fd;

	if (!path)
		return err_set(ERR_NOMEM, "out of memory");
	fd = util_lock(path);
	free(path);
	return fd;
}

char *util_exe_sibling(const char *name)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	return util_fmt("%s/%s", slash ? exe : ".", name);
}

static uid_t chown_uid;
static gid_t chown_gid;
static const char *chown_keep;

static int chown_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	if (chown_keep && ftw->level == 1 &&
	    !strcmp(path + ftw->base, chown_keep))
		return flag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	/* a hard link may be a name of a file outside the tree, whose
	 * owner must not change: it goes */
	if (!S_ISDIR(st->st_mode) && st->st_nlink > 1)
		return unlink(path) ? FTW_STOP : FTW_CONTINUE;
	if (st->st_uid == chown_uid && st->st_gid == chown_gid)
		return FTW_CONTINUE;
	return lchown(path, chown_uid, chown_gid) ? FTW_STOP : FTW_CONTINUE;
}

int util_chown_tree(const char *path, const char *keep, uid_t uid, gid_t gid)
{
	chown_uid = uid;
	chown_gid = gid;
	chown_keep = keep;
	if (nftw(path, chown_one, 32, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL))
		return err_sys(ERR_INFRA, "cannot give '%s' to uid %u", path,
			       (unsigned)uid);
	return 0;
}

/*
 * Remove the cgroups of pids_cgroup() that processes gone left behind (a
 * worker killed with SIGKILL ends no cgroup): bisectd-PID-N below root
 * whose PID is no process.  One with processes in it stays (rmdir fails).
 */
static void forget_dead_cgroups(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX];
		long pid;
		char *end;

		if (strncmp(de->d_name, "bisectd-", 8))
			continue;
		pid = strtol(de->d_name + 8, &end, 10);
		if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		rmdir(path);
	}
	if (d)
		closedir(d);
}

const char *proc_pids_root(void)
{
	static const char *root;
	static int probed;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct buf b;

	pthread_mutex_lock(&lock);
	if (!probed) {
		probed = 1;
		buf_init(&b, 4096);
		if (!buf_read_file(&b, "/sys/fs/cgroup/cgroup.controllers") &&
		    strstr(buf_str(&b), "pids")) {
			int fd = open("/sys/fs/cgroup/cgroup.subtree_control",
				      O_WRONLY | O_CLOEXEC);

			/* children of the root get the controller */
			if (fd >= 0 && write(fd, "+pids", 5) == 5)
				root = "/sys/fs/cgroup";
			if (fd >= 0)
				close(fd);
		} else if (!access("/sys/fs/cgroup/pids/cgroup.procs", W_OK)) {
			root = "/sys/fs/cgroup/pids";
		}
		if (root)
			forget_dead_cgroups(root);
		buf_release(&b);
	}
	pthread_mutex_unlock(&lock);
	return root;
}

/* Write len bytes to an existing file (a cgroup's control file). */
static int write_control(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

/* A pids cgroup for one child, limited to max processes; NULL if none. */
static char *pids_cgroup(unsigned max)
{
	static unsigned long counter;
	const char *root = max ? proc_pids_root() : NULL;
	char *dir, *file, n[32];
	int ok;

	if (!root)
		return NULL;
	dir = util_fmt("%s/bisectd-%d-%lu", root, (int)getpid(),
		       __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST));
	file = dir ? util_fmt("%s/pids.max", dir) : NULL;
	snprintf(n, sizeof(n), "%u", max);
	ok = file && !mkdir(dir, 0755) && !write_control(file, n, strlen(n));
	if (!ok && dir)
		rmdir(dir);
	free(file);
	if (!ok) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Kill what is left in the cgroup dir, then remove it. */
static void pids_cgroup_end(char *dir)
{
	char *procs = dir ? util_fmt("%s/cgroup.procs", dir) : NULL;
	int i;

	for (i = 0; procs && i < 100 && rmdir(dir) && errno == EBUSY; i++) {
		struct buf b;
		const char *p;
		char *end;

		buf_init(&b, 1 << 20);
		buf_read_file(&b, procs);
		for (p = buf_str(&b); *p; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 0)
				kill((pid_t)pid, SIGKILL);
		}
		buf_release(&b);
		usleep(10000);
	}
	free(procs);
	free(dir);
}

/* Write the calling process's pid to dir/cgroup.procs, fork-safe. */
static int pids_cgroup_join(const char *procs)
{
	char num[24];
	int i = (int)sizeof(num);
	long pid = (long)getpid();

	do {
		num[--i] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid && i > 0);
	return write_control(procs, num + i, sizeof(num) - (size_t)i);
}

static void child(const char *const argv[], const struct proc_opts *o,
		  const char *procs, int errfd)
{
	int fd, err;
	size_t i;

	setpgid(0, 0);
	if (procs && pids_cgroup_join(procs))
		goto fail;
	/* a worker killed with SIGKILL takes its make and QEMU with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_DFL);
	if (o->max_file_mb) {
		struct rlimit rl;

		rl.rlim_cur = rl.rlim_max = (rlim_t)o->max_file_mb << 20;
		if (setrlimit(RLIMIT_FSIZE, &rl))
			goto fail;
		/* a write past it fails with EFBIG ("File too large"), which
		 * the program reports, instead of a silent SIGXFSZ */
		signal(SIGXFSZ, SIG_IGN);
	}
	if (o->cwd && chdir(o->cwd))
		goto fail;
	if (o->log_path) {
		fd = open(o->log_path,
			  O_WRONLY | O_CREAT | (o->append ? O_APPEND : O_TRUNC),
			  0644);
		if (fd < 0)
			goto fail;
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		fd = open(o->stdin_path ? o->stdin_path : "/dev/null",
			  O_RDONLY);
		if (fd < 0 && o->stdin_path)
			goto fail;
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		fd = o->stdout_only ? open("/dev/null", O_WRONLY) : -1;
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
	}
	for (i = 0; o->env && o->env[i]; i++)
		putenv((char *)o->env[i]);
	execvp(argv[0], (char *const *)argv);
fail:
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* The process group proc_run() waits for, when tracked; else 0. */
static volatile sig_atomic_t tracking, running_pgid;

void proc_track(void)
{
	tracking = 1;
}

void proc_kill_running(void)
{
	pid_t g = running_pgid;

	if (g > 0)
		kill(-g, SIGKILL);
}

/*
 * Whether the child's log has stopped growing: *size is its size when
 * last seen (-1 at first), *progress when it last grew.
 */
static int stalled(const struct proc_opts *o, off_t *size, double *progress,
		   double now)
{
	struct stat st;

	if (stat(o->log_path, &st) == 0 && st.st_size != *size) {
		*size = st.st_size;
		*progress = now;
	}
	return now - *progress >= o->stall_s;
}

int proc_run(struct proc_result *out, const char *const argv[],
	     const struct proc_opts *o)
{
	static const struct proc_opts none;
	double start = util_now(), next_tick, progress = start;
	off_t log_size = -1;
	int pipefd[2], status, err = 0;
	pid_t pid, w;
	char *cg, *procs;

	memset(out, 0, sizeof(*out));
	if (!o)
		o = &none;
	if (pipe2(pipefd, O_CLOEXEC))
		return err_sys(ERR_INFRA, "cannot create pipe");
	cg = pids_cgroup(o->max_procs);
	procs = cg ? util_fmt("%s/cgroup.procs", cg) : NULL;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		free(procs);
		pids_cgroup_end(cg);
		return err_sys(ERR_INFRA, "cannot fork");
	}
	if (pid == 0)
		child(argv, o, procs, pipefd[1]);
	free(procs);
	setpgid(pid, pid);
	if (tracking)
		running_pgid = pid;
	close(pipefd[1]);
	if (read(pipefd[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
		out->exec_failed = 1;
		err_set(ERR_INFRA, "cannot run '%s': %s", argv[0],
			strerror(err));
	}
	close(pipefd[0]);
	next_tick = start + 1;
	for (;;) {
		double now;

		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		now = util_now();
		if (o->timeout_s > 0 && now - start >= o->timeout_s &&
		    !out->timed_out && !out->stalled) {
			out->timed_out = 1;
			kill(-pid, SIGKILL);
		}
		if (o->stall_s > 0 && o->log_path && !out->timed_out &&
		    !out->stalled && stalled(o, &log_size, &progress, now)) {
			out->stalled = 1;
			kill(-pid, SIGKILL);
		}
		if (o->tick && now >= next_tick) {
			o->tick(now - start, o->payload);
			next_tick = now + 1;
		}
		usleep(20000);
	}
	if (!out->timed_out && !out->stalled)
		kill(-pid, SIGKILL); /* leftovers of the group, if any */
	pids_cgroup_end(cg);	     /* and of the cgroup: a new session escapes
				the group, not the cgroup */
	running_pgid = 0;
	out->seconds = util_now() - start;
	if (WIFEXITED(status)) {
		out->exited = 1;
		out->status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		out->signal = WTERMSIG(status);
	}
	return 0;
}
