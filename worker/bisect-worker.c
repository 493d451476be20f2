// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisect-worker: runs steps for a remote bisectd.
 *
 *   bisect-worker --server URL --token-file FILE [--name NAME]
 *   (or $BISECTD_SERVER and $BISECTD_WORKER_TOKEN)
 *                 [--recipes a,b,...] [--allow-commands] [--slot S]
 *                 [--command-user USER] [--allow-network]
 *                 [--command-timeout S] [--command-memory-mb MB]
 *                 [--once] [--libvirt URI]
 *
 * A step's kernel tree and a generic job's command come from whoever
 * submitted the job: both run in the bubblewrap sandbox
 * (worker/sandbox.c) as --command-user (default nobody; never root; a
 * user of its own per slot keeps slots apart), which sees nothing of the
 * worker's cache but the step's own directories; a command runs with
 * no network (unless the job asks for it and --allow-network gives it)
 * and none of the worker's environment (its token stays here), writing
 * only to its checkout, killed after --command-timeout seconds
 * (default 3600) and limited to --command-memory-mb of address space
 * (default 4096).  A kernel tree's make is killed after --build-timeout
 * seconds (default 21600; Debian's full configs build for hours on 2
 * cores) and may have --command-procs processes at once.
 *
 * It registers its capabilities, long-polls for a step, runs it in a
 * child process (its own process group) while the parent renews the
 * lease, uploads the step's logs with their SHA-256, and sends the
 * result.  A lease that the coordinator cancelled (the probe became
 * irrelevant, or the job was cancelled) kills the child.  When the
 * coordinator cannot be reached the worker keeps retrying with backoff;
 * its lease then expires there and the step goes to another worker.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "digest.h"
#include "error.h"
#include "gitutil.h"
#include "http.h"
#include "job.h"
#include "log.h"
#include "recipe.h"
#include "srcimport.h"
#include "step.h"
#include "util.h"
#include "boot.h"
#include "compile_helpers.h"
#include "sandbox.h"
#include "steprun.h"

/* from the Makefile (VERSION, or git describe in a checkout) */
#ifndef BISECTD_VERSION
#define BISECTD_VERSION "unknown"
#endif

#ifndef DATADIR
#define DATADIR "/usr/local/share/bisectd"
#endif

struct wopts {
	const char *server;
	const char *token;
	char name[64];
	const char *recipes; /* comma-separated; NULL: every recipe found */
	int allow_commands, allow_network;
	unsigned command_uid, command_gid;
	double command_timeout_s; /* a command from the network's limits */
	long command_memory_mb;
	unsigned command_procs;
	unsigned long command_output_mb;
	double build_timeout_s; /* a kernel step's configs and builds */
	const char *slot;
	const char *sign_key, *sign_cert; /* sbsign build jobs' kernels */
	const char *distcc; /* compile helpers, or NULL: the recipe's */
	const char *icecc;  /* or icecc's scheduler */
	int once;
	char recipe_path[PATH_MAX * 2];
	char *cache;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int call(const struct wopts *o, const char *method, const char *path,
		const char *body, long *status, struct buf *out, double timeout)
{
	char *url = util_fmt("%s/api/v1/%s", o->server, path);
	struct http_req r = { .method = method,
			      .url = url,
			      .token = o->token,
			      .body = body,
			      .len = body ? strlen(body) : 0,
			      .timeout_s = timeout };
	int rc;

	if (!url)
		return err_set(ERR_NOMEM, "out of memory");
	if (out)
		buf_reset(out);
	rc = http_do(&r, status, out);
	free(url);
	return rc;
}

/* The recipe names this worker offers: --recipes, or every file found. */
static void find_recipes(const struct wopts *o, struct job_caps *c)
{
	char *path = strdup(o->recipe_path), *dir, *save = NULL;

	c->recipes = calloc(256, sizeof(char *));
	if (o->recipes) {
		char *list = strdup(o->recipes), *n, *s2 = NULL;

		for (n = strtok_r(list, ",", &s2); n && c->nrecipes < 255;
		     n = strtok_r(NULL, ",", &s2))
			c->recipes[c->nrecipes++] = strdup(n);
		free(list);
		free(path);
		return;
	}
	for (dir = strtok_r(path, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d)) && c->nrecipes < 255) {
			size_t len = strlen(e->d_name), i;
			int dup = 0;

			if (len < 8 || strcmp(e->d_name + len - 7, ".recipe"))
				continue;
			for (i = 0; i < c->nrecipes; i++)
				dup |= !strncmp(c->recipes[i], e->d_name,
						len - 7) &&
				       strlen(c->recipes[i]) == len - 7;
			if (!dup)
				c->recipes[c->nrecipes++] =
					strndup(e->d_name, len - 7);
		}
		if (d)
			closedir(d);
	}
	free(path);
}

static long long register_worker(const struct wopts *o)
{
	struct job_caps c = { 0 };
	struct buf out;
	double backoff = 1;
	long long id = -1;
	char *caps;

	snprintf(c.name, sizeof(c.name), "%s", o->name);
	find_recipes(o, &c);
	c.run = o->allow_commands;
	c.network = o->allow_network;
	c.deb = util_in_path("dpkg-deb");
	c.rpm = util_in_path("rpmbuild");
	c.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	c.kvm = access("/dev/kvm", R_OK | W_OK) == 0; /* the boot probes it */
	caps = job_caps_dump(&c);
	job_caps_release(&c);
	buf_init(&out, 1 << 20);
	while (caps && !stopping) {
		long status = 0;

		if (call(o, "POST", "workers", caps, &status, &out, 30)) {
			log_info("%s; retrying in %.0f s", err_last(), backoff);
		} else if (status == 201) {
			if (sscanf(buf_str(&out), "{\"id\":%lld}", &id) != 1)
				log_info("registration: unexpected answer %s",
					 buf_str(&out));
			break;
		} else if (status == 401 || status == 422) {
			log_info("registration refused (HTTP %ld): %s", status,
				 buf_str(&out));
			break;
		} else {
			log_info("registration: HTTP %ld; retrying in %.0f s",
				 status, backoff);
		}
		nap(backoff);
		backoff = backoff < 30 ? backoff * 2 : 30;
	}
	free(caps);
	buf_release(&out);
	return id;
}

/* Upload the step's files (logs, config, packages) as artifacts. */
static void upload(const struct wopts *o, const char *lease,
		   const char *step_dir, int depth)
{
	DIR *d = opendir(step_dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path, *url, sum[DIGEST_HEXSZ + 1];
		struct stat st;
		long status = 0;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "result.json") ||
		    !strcmp(e->d_name, "test.sh"))
			continue;
		path = util_fmt("%s/%s", step_dir, e->d_name);
		if (depth == 0 && !strcmp(e->d_name, "packages")) {
			/* a build's packages, SHA256SUMS and page */
			if (path)
				upload(o, lease, path, 1);
			free(path);
			continue;
		}
		url = util_fmt("%s/api/v1/leases/%s/artifacts/%s", o->server,
			       lease, e->d_name);
		/* lstat: a link that a build made in its sandbox must not
		 * send a file of this machine out */
		if (path && url && !lstat(path, &st) && S_ISREG(st.st_mode) &&
		    !digest_file_hex(sum, path)) {
			struct http_req r = {
				.method = "PUT",
				.url = url,
				.token = o->token,
				.body_file = path,
				.content_type = "application/octet-stream",
				.sha256 = sum,
				.timeout_s = 300
			};

			if (http_do(&r, &status, NULL))
				log_info("upload %s: %s", e->d_name,
					 err_last());
			else if (status != 201)
				log_info("upload %s: HTTP %ld", e->d_name,
					 status);
		}
		free(path);
		free(url);
	}
	if (d)
		closedir(d);
}

/* The child: run the step, write result.json. */
/* The step process is told to stop (its worker died, or the step was
 * cancelled): take what it runs along. */
static void on_stop(int sig)
{
	(void)sig;
	proc_kill_running();
	_exit(3);
}

static void child(const struct wopts *o, const struct step_assignment *a,
		  const char *step_dir, pid_t worker)
{
	struct steprun_env env = { .cache_dir = o->cache,
				   .recipe_path = o->recipe_path,
				   .slot = o->slot,
				   .step_dir = step_dir,
				   .sign_key = o->sign_key,
				   .sign_cert = o->sign_cert,
				   .sandbox_commands = 1,
				   .command_timeout_s = o->command_timeout_s,
				   .command_memory_mb = o->command_memory_mb,
				   .command_procs = o->command_procs,
				   .command_output_mb = o->command_output_mb,
				   .build_timeout_s = o->build_timeout_s,
				   .command_uid = o->command_uid,
				   .command_gid = o->command_gid,
				   .command_network = o->allow_network,
				   .distcc = o->distcc,
				   .icecc = o->icecc,
				   .server = o->server,
				   .token = o->token };
	struct step_result st;
	struct buf text;
	char *json = NULL, *path = util_fmt("%s/result.json", step_dir);

	/* a worker killed with SIGKILL leaves no build or boot behind */
	signal(SIGTERM, on_stop);
	proc_track();
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != worker)
		_exit(3);
	buf_init(&text, 1 << 20);
	if (gu_init() || steprun_assignment(&st, a, &env) ||
	    step_result_dump(&json, &text, &st) || !path ||
	    util_write_atomic(path, json, strlen(json)))
		_exit(3);
	_exit(0);
}

static void run_step(const struct wopts *o, const struct step_assignment *a)
{
	char *step_dir = util_fmt("%s/worker/%s/steps/%lld-%lld", o->cache,
				  o->name, a->job, a->step);
	char *hb = util_fmt("leases/%s/heartbeat", a->lease);
	char *res = util_fmt("leases/%s/result", a->lease);
	char *result_path = util_fmt("%s/result.json", step_dir);
	double every = a->lease_seconds / 4 < 2 ? a->lease_seconds / 4 : 2;
	double last = util_now();
	struct buf body;
	pid_t pid, self;
	int status = 0, cancelled = 0;

	buf_init(&body, 64u << 20);
	if (!step_dir || !hb || !res || !result_path)
		goto out;
	util_remove_tree(step_dir);
	util_mkdir_p(step_dir);
	log_info("job %lld step %lld: %s %.12s", a->job, a->step, a->role,
		 a->commit);
	self = getpid();
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		child(o, a, step_dir, self);
	}
	if (pid < 0) {
		log_info("fork: %s", strerror(errno));
		goto out;
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		long http = 0;

		if (w == pid)
			break;
		nap(0.2);
		if (util_now() - last < (every < 1 ? 1 : every))
			continue;
		last = util_now();
		if (call(o, "POST", hb, "", &http, NULL, 10))
			log_info("heartbeat: %s", err_last());
		else if (http == 410 || http == 404) {
			log_info("step %lld cancelled by the coordinator",
				 a->step);
			kill(pid, SIGTERM); /* it kills what it runs */
			waitpid(pid, &status, 0);
			kill(-pid, SIGKILL);
			cancelled = 1;
			break;
		}
	}
	if (cancelled)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    buf_read_file(&body, result_path)) {
		buf_reset(&body);
		buf_puts(&body, "{\"verdict\":\"infra\",\"title\":\"the "
				"worker's step process failed\"}");
	}
	upload(o, a->lease, step_dir, 0);
	for (double backoff = 1; !stopping;
	     backoff = backoff < 30 ? backoff * 2 : 30) {
		long http = 0;
		struct buf out;

		buf_init(&out, 1 << 20);
		if (call(o, "POST", res, buf_str(&body), &http, &out, 30)) {
			log_info("result: %s; retrying in %.0f s", err_last(),
				 backoff);
			buf_release(&out);
			nap(backoff);
			continue;
		}
		if (http == 200) {
			char *v = job_json_string(buf_str(&body), "verdict");

			log_info("step %lld: %s, sent", a->step, v ? v : "?");
			free(v);
		} else
			log_info("step %lld: result not taken (HTTP %ld): %s",
				 a->step, http, buf_str(&out));
		buf_release(&out);
		break;
	}
out:
	buf_release(&body);
	free(step_dir);
	free(hb);
	free(res);
	free(result_path);
}

static void default_recipe_path(struct wopts *o)
{
	char *path = recipe_default_path(DATADIR);

	snprintf(o->recipe_path, sizeof(o->recipe_path), "%s",
		 path ? path : DATADIR "/recipes");
	free(path);
}

/*
 * The number of option opt (its long name from opts) in [lo, hi] into
 * *out; else say so and return -1.  Whole numbers only where lo is one.
 */
static int number(const struct option *opts, int opt, const char *arg,
		  double lo, double hi, double *out)
{
	char *end;

	while (opts->name && opts->val != opt)
		opts++;
	*out = strtod(arg, &end);
	if (end == arg || *end || !(*out >= lo && *out <= hi) ||
	    *out != (double)(long long)*out) {
		log_info(
			"--%s needs a whole number from %.0f to %.0f, not '%s'",
			opts->name, lo, hi, arg);
		return -1;
	}
	return 0;
}

/*
 * The uid and gid of --command-user (a name, or a number): never root,
 * whose files the command must not own.  0, or 2 having said why.
 */
static int user_ids(const char *name, unsigned *uid, unsigned *gid)
{
	struct passwd *pw = getpwnam(name);
	char *end;
	unsigned long v;

	if (pw) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
	} else {
		errno = 0;
		v = strtoul(name, &end, 10);
		if (!*name || *end || errno || v > 0x7fffffff) {
			log_info("--command-user: no user '%s'", name);
			return 2;
		}
		pw = getpwuid((uid_t)v);
		*uid = (unsigned)v;
		*gid = pw ? pw->pw_gid : (unsigned)v;
	}
	if (*uid == 0 || *gid == 0) {
		log_info("--command-user: commands from the network never run "
			 "as "
			 "root");
		return 2;
	}
	return 0;
}

/*
 * bisect-worker --import-source VERSION: import Debian's linux-source
 * VERSION into the cache's linux.git and print "COMMIT PATH" (bisectd
 * runs this as a child of its fetch queue).  Exit 2 for a version that
 * apt does not know, 1 when the machine failed.
 */
static int import_source(const char *version)
{
	struct gu_repo *repo = NULL;
	char hex[GU_HEXSZ + 1], *cache = util_cache_dir();
	struct gu_oid oid;
	int rc = cache ? gu_init() : err_set(ERR_NOMEM, "out of memory");

	if (!rc)
		rc = srcimport_debian(&repo, &oid, cache, version);
	gu_close(repo);
	if (rc) {
		log_info("%s", err_last());
		free(cache);
		return rc == ERR_INPUT ? 2 : 1;
	}
	gu_oid_hex(hex, &oid);
	printf("%s %s/linux.git\n", hex, cache);
	free(cache);
	return fflush(stdout) ? 1 : 0;
}

/*
 * The usage: in full with examples on stdout and 0 when asked for, else
 * a short one on stderr and 2.
 */
static int usage(int asked)
{
	if (!asked) {
		fprintf(stderr,
			"usage: bisect-worker --server URL --token-file FILE "
			"[OPTION]...\n"
			"       bisect-worker --import-source VERSION\n"
			"see bisect-worker --help and bisect-worker(8)\n");
		return 2;
	}
	printf("usage: bisect-worker --server URL --token-file FILE [--name "
	       "NAME]\n"
	       "                     [--recipes a,b,...] [--command-user "
	       "USER]\n"
	       "                     [--allow-commands [--allow-network] "
	       "[--command-timeout S]\n"
	       "                     [--command-memory-mb MB] "
	       "[--command-procs N] "
	       "[--command-output-mb MB]]\n"
	       "                     [--build-timeout S]\n"
	       "                     [--slot S] [--once] [--distcc "
	       "HOST[/N],... | --icecc SCHEDULER]\n"
	       "                     [--libvirt URI] [--sign-key KEY "
	       "--sign-cert "
	       "CERT]\n"
	       "       bisect-worker --import-source VERSION   (Debian's "
	       "linux-source VERSION\n"
	       "                     into the cache's linux.git; prints "
	       "COMMIT PATH)\n"
	       "       bisect-worker --version\n"
	       "\nexamples:\n"
	       "  bisect-worker --server http://127.0.0.1:8070 "
	       "--token-file /etc/bisectd/worker.token\n"
	       "  bisect-worker --server http://127.0.0.1:8070 "
	       "--token-file worker.token \\\n"
	       "      --allow-commands --once\n");
	return 0;
}

/*
 * The options against each other and this machine; the sandbox told what
 * to hide.  0, or the exit status having said why.
 */
static int check_options(struct wopts *o, const char *command_user,
			 const char *token_file)
{
	if (o->allow_network && !o->allow_commands) {
		log_info("--allow-network is for commands (--allow-commands)");
		return 2;
	}
	if (geteuid() == 0 &&
	    user_ids(command_user, &o->command_uid, &o->command_gid))
		return 2;
	if (geteuid() == 0) /* builds from the network run as that user */
		sandbox_build_user(o->command_uid, o->command_gid);
	if (geteuid() != 0 && o->allow_commands)
		log_info(
			"not root: commands run as nobody in a user namespace, "
			"which is this user outside it and can read its files");
	if (token_file) {
		/* a build's sandbox could read it if it ran as nobody in a
		 * user namespace (the worker, outside it) */
		char *real = realpath(token_file, NULL);

		if (real)
			sandbox_hide_file(real);
		free(real);
	}
	if (!o->sign_key != !o->sign_cert) {
		log_info("signing needs both --sign-key and --sign-cert");
		return 2;
	}
	if (o->sign_key) {
		char *dir = realpath(o->sign_key, NULL), *slash;

		if (!dir) {
			log_info("cannot read the key '%s'", o->sign_key);
			return 2;
		}
		if ((slash = strrchr(dir, '/')) && slash != dir) {
			*slash = '\0';
			sandbox_hide(dir); /* builds must not read it */
		}
		free(dir);
	}
	if (strncmp(o->server, "http://", 7) &&
	    strncmp(o->server, "https://", 8)) {
		log_info("--server must be an http:// or https:// URL");
		return 2;
	}
	default_recipe_path(o);
	if (o->allow_commands && !proc_pids_root())
		log_info("no pids cgroup to write here: commands run without "
			 "the --command-procs limit");
	if (getenv("BISECTD_LIBVIRT_URI")) {
		struct buf notes;

		buf_init(&notes, 4096);
		boot_libvirt_check(getenv("BISECTD_LIBVIRT_URI"), &notes);
		if (notes.len)
			fputs(buf_str(&notes), stderr);
		buf_release(&notes);
	}
	return 0;
}

/* Register, then poll for steps and run them until told to stop. */
static int serve(struct wopts *o)
{
	struct sigaction sa;
	struct buf out;
	char *poll_path = NULL;
	long long id;
	double backoff = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	buf_init(&out, 1 << 20);
again:
	id = register_worker(o);
	if (id < 0) {
		buf_release(&out);
		return stopping ? 0 : 2;
	}
	log_info("registered as worker %lld (%s) with %s", id, o->name,
		 o->server);
	free(poll_path);
	poll_path = util_fmt("workers/%lld/poll?wait=25", id);
	while (!stopping) {
		struct step_assignment a;
		long status = 0;

		if (call(o, "POST", poll_path, "", &status, &out, 40)) {
			log_info("poll: %s; retrying in %.0f s", err_last(),
				 backoff);
			nap(backoff);
			backoff = backoff < 30 ? backoff * 2 : 30;
			continue;
		}
		backoff = 1;
		if (status == 204)
			continue;
		/* the coordinator forgot us, or knows this number as
		 * another token's worker (its state was made anew): we
		 * register again */
		if (status == 404 || status == 403)
			goto again;
		if (status != 200) {
			log_info("poll: HTTP %ld: %s", status, buf_str(&out));
			if (status == 401)
				break;
			nap(1);
			continue;
		}
		if (step_assignment_parse(&a, out.ptr, out.len)) {
			log_info("bad assignment: %s", err_last());
			continue;
		}
		run_step(o, &a);
		job_spec_release(&a.spec);
		if (o->once)
			break;
	}
	free(poll_path);
	buf_release(&out);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "token", required_argument, NULL, 't' },
		{ "token-file", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "recipes", required_argument, NULL, 'r' },
		{ "allow-commands", no_argument, NULL, 'a' },
		{ "allow-network", no_argument, NULL, 'N' },
		{ "command-user", required_argument, NULL, 'u' },
		{ "command-timeout", required_argument, NULL, 'c' },
		{ "command-memory-mb", required_argument, NULL, 'm' },
		{ "command-procs", required_argument, NULL, 'P' },
		{ "command-output-mb", required_argument, NULL, 'O' },
		{ "build-timeout", required_argument, NULL, 'B' },
		{ "slot", required_argument, NULL, 'S' },
		{ "once", no_argument, NULL, '1' },
		{ "libvirt", required_argument, NULL, 'V' },
		{ "sign-key", required_argument, NULL, 'K' },
		{ "sign-cert", required_argument, NULL, 'T' },
		{ "import-source", required_argument, NULL, 'I' },
		{ "distcc", required_argument, NULL, 'D' },
		{ "icecc", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct wopts o = { .slot = "",
			   .command_timeout_s = 3600,
			   .build_timeout_s = 6 * 3600,
			   .command_memory_mb = 4096,
			   .command_procs = 256,
			   .command_output_mb = 1024 };
	double v;
	char host[64] = "worker", token[256], *env;
	const char *command_user = "nobody", *token_file = NULL;
	const char *distcc_from = "--distcc", *icecc_from = "--icecc";
	int opt, status;

	if (helpers_is_connector(argv[0]))
		return helpers_connect(argc, argv);
	gethostname(host, sizeof(host) - 1);
	snprintf(o.name, sizeof(o.name), "%.40s-%d", host, (int)getpid());
	log_init("bisect-worker", 0);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			o.server = optarg;
			break;
		case 't':
			log_info(
				"--token would show the token to every user of "
				"this machine (ps, /proc); use --token-file "
				"FILE "
				"or BISECTD_WORKER_TOKEN");
			return 2;
		case 'f':
			if (util_read_secret(optarg, token, sizeof(token))) {
				log_info("%s", err_last());
				return 2;
			}
			o.token = token;
			token_file = optarg;
			break;
		case 'n':
			snprintf(o.name, sizeof(o.name), "%s", optarg);
			break;
		case 'r':
			o.recipes = optarg;
			break;
		case 'a':
			o.allow_commands = 1;
			break;
		case 'N':
			o.allow_network = 1;
			break;
		case 'u':
			command_user = optarg;
			break;
		case 'c':
			if (number(opts, opt, optarg, 1, 86400, &v))
				return 2;
			o.command_timeout_s = v;
			break;
		case 'm':
			if (number(opts, opt, optarg, 16, 1048576, &v))
				return 2;
			o.command_memory_mb = (long)v;
			break;
		case 'P':
			if (number(opts, opt, optarg, 8, 65536, &v))
				return 2;
			o.command_procs = (unsigned)v;
			break;
		case 'O':
			if (number(opts, opt, optarg, 1, 1048576, &v))
				return 2;
			o.command_output_mb = (unsigned long)v;
			break;
		case 'B':
			if (number(opts, opt, optarg, 1, 7 * 86400, &v))
				return 2;
			o.build_timeout_s = v;
			break;
		case 'S':
			o.slot = optarg;
			break;
		case '1':
			o.once = 1;
			break;
		case 'K':
			o.sign_key = optarg;
			break;
		case 'T':
			o.sign_cert = optarg;
			break;
		case 'I':
			return import_source(optarg);
		case 'v':
			return printf("bisect-worker %s\n", BISECTD_VERSION) <
			       0;
		case 'D':
			o.distcc = optarg;
			break;
		case 'E':
			o.icecc = optarg;
			break;
		case 'V':
			/* boot_run() takes it from the environment */
			setenv("BISECTD_LIBVIRT_URI", optarg, 1);
			break;
		default:
			return usage(opt == 'h');
		}
	}
	if (!o.server)
		o.server = getenv("BISECTD_SERVER");
	if (!o.distcc && (env = getenv("BISECTD_DISTCC")) && *env) {
		o.distcc = env;
		distcc_from = "BISECTD_DISTCC";
	}
	if (!o.icecc && (env = getenv("BISECTD_ICECC")) && *env) {
		o.icecc = env;
		icecc_from = "BISECTD_ICECC";
	}
	if (o.distcc && o.icecc) {
		log_info("%s and %s: one kind of compile helper, not both",
			 distcc_from, icecc_from);
		return 2;
	}
	if (o.distcc || o.icecc) {
		struct helpers hs;

		if (o.distcc ? helpers_parse(&hs, o.distcc)
			     : helpers_parse_icecc(&hs, o.icecc)) {
			log_info("%s: %s", o.distcc ? distcc_from : icecc_from,
				 err_last());
			return 2;
		}
	}
	if ((env = getenv("BISECTD_WORKER_TOKEN"))) {
		if (!o.token) {
			snprintf(token, sizeof(token), "%s", env);
			o.token = token;
		}
		/* gone from /proc/PID/environ too, and from every child's
		 * environment, a build's included */
		memset(env, 0, strlen(env));
		unsetenv("BISECTD_WORKER_TOKEN");
	}
	if (!o.server || !o.token || !*o.token || optind < argc)
		return usage(0);
	status = check_options(&o, command_user, token_file);
	if (status)
		return status;
	o.cache = util_cache_dir();
	if (!o.cache || http_global_init()) {
		log_info("%s", err_last());
		return 3;
	}
	/* every other job's trees, the mirrors, the kernel cache: what a
	 * step needs from it is bound back into its sandbox */
	sandbox_hide(o.cache);
	status = serve(&o);
	free(o.cache);
	return status;
}
