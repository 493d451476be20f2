// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectd: the coordinator daemon.
 *
 *   bisectd [--config FILE] [--listen ADDR] [--port N] [--state DIR]
 *           [--recipes PATH] [--lease SECONDS] [--public-read yes|no]
 *           [--port-file FILE] [--public-url URL] [--fetch-timeout S]
 *           [--fetch-stall-timeout S] [--max-fetches N]
 *           [--mail-from 'NAME <ADDRESS>'] [--worker-port N]
 *           (and the limits in usage())
 *   bisectd token add ROLE NAME [--state DIR]
 *
 * Flags override the config file.  State (SQLite, mirrors, artifacts)
 * lives in the state directory; logs go to stderr, which systemd sends
 * to the journal.  Every second the daemon expires lost leases and
 * replans unfinished jobs; a thread of its own delivers due webhooks,
 * and a pool of threads fetches submitted repositories (fetchq.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "buf.h"
#include "digest.h"
#include "error.h"
#include "fetchq.h"
#include "gitutil.h"
#include "http.h"
#include "job.h"
#include "log.h"
#include "mbox.h"
#include "policy.h"
#include "quota.h"
#include "repo.h"
#include "report.h"
#include "util.h"

/* from the Makefile (VERSION, or git describe in a checkout) */
#ifndef BISECTD_VERSION
#define BISECTD_VERSION "unknown"
#endif

#ifndef DATADIR
#define DATADIR "/usr/local/share/bisectd"
#endif

struct config {
	char listen[64];
	int port;
	/* the workers' own listener: an address ("" for listen's) and a
	 * port (0: none) */
	char worker_listen[64];
	int worker_port;
	char state[PATH_MAX];
	char recipes[PATH_MAX * 2];
	double lease_s;
	int public_read;
	char port_file[PATH_MAX];
	size_t max_upload_mb;
	int hook_attempts;
	char public_url[512];	    /* reports link here; "" for listen:port */
	char mail_from[512];	    /* reports' From; "" for bisectd's */
	double fetch_timeout_s;	    /* a submitted repository URL's fetch */
	double fetch_stall_s;	    /* ... receiving nothing; 0: no limit */
	unsigned long fetch_max_mb; /* the largest file a fetch may write */
	int max_fetches;	    /* fetches at once */
	int fetches_per_submitter;  /* of them one submitter's; 0: half */
	/* a submitter's jobs not ended, and submits in a minute; 0: no
	 * limit */
	unsigned max_jobs_per_submitter, max_submits_per_minute;
	/* space-separated allow-lists: repository URL prefixes, repository
	 * directories, webhook URL prefixes */
	char repo_urls[4096], repo_roots[4096], hook_urls[4096];
	unsigned per_ip;	   /* connections from one address at a time */
	int max_conns;		   /* connections at once, on each listener */
	double header_s;	   /* a request's headers may take */
	unsigned long min_body_kb; /* KB a second a body keeps (0: any) */
	size_t max_bodies_mb; /* request bodies held at once, all together */
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* Apply one setting; the same keys as the long options. */
static int set_key(struct config *c, const char *k, const char *v)
{
	char *end;

	if (!strcmp(k, "listen"))
		snprintf(c->listen, sizeof(c->listen), "%s", v);
	else if (!strcmp(k, "worker-listen"))
		snprintf(c->worker_listen, sizeof(c->worker_listen), "%s", v);
	else if (!strcmp(k, "port")) {
		c->port = (int)strtol(v, &end, 10);
		if (*end || c->port < 0 || c->port > 65535)
			return err_set(ERR_INPUT, "port must be 0 to 65535");
	} else if (!strcmp(k, "worker-port")) {
		c->worker_port = (int)strtol(v, &end, 10);
		if (*end || !*v || c->worker_port < 0 || c->worker_port > 65535)
			return err_set(ERR_INPUT, "worker-port must be 1 to "
						  "65535 (0: none)");
	} else if (!strcmp(k, "state"))
		snprintf(c->state, sizeof(c->state), "%s", v);
	else if (!strcmp(k, "recipes"))
		snprintf(c->recipes, sizeof(c->recipes), "%s", v);
	else if (!strcmp(k, "lease")) {
		c->lease_s = strtod(v, &end);
		if (*end || c->lease_s < 1 || c->lease_s > 3600)
			return err_set(ERR_INPUT,
				       "lease must be 1 to 3600 seconds");
	} else if (!strcmp(k, "public-read")) {
		if (parse_bool(v, &c->public_read))
			return err_set(ERR_INPUT, "public-read is yes or no");
	} else if (!strcmp(k, "public-url")) {
		if ((strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) ||
		    strlen(v) >= sizeof(c->public_url) || strpbrk(v, " \"<>"))
			return err_set(ERR_INPUT,
				       "public-url must be an http:// or "
				       "https:// URL");
		snprintf(c->public_url, sizeof(c->public_url), "%s", v);
	} else if (!strcmp(k, "mail-from")) {
		if (strlen(v) >= sizeof(c->mail_from))
			return err_set(ERR_INPUT, "mail-from is too long");
		if (mail_address_check(v))
			return ERR_INPUT;
		snprintf(c->mail_from, sizeof(c->mail_from), "%s", v);
	} else if (!strcmp(k, "fetch-timeout")) {
		c->fetch_timeout_s = strtod(v, &end);
		if (*end ||
		    !(c->fetch_timeout_s >= 1 && c->fetch_timeout_s <= 86400))
			return err_set(ERR_INPUT, "fetch-timeout must be 1 to "
						  "86400 seconds");
	} else if (!strcmp(k, "fetch-stall-timeout")) {
		c->fetch_stall_s = strtod(v, &end);
		if (*end || !*v ||
		    !(c->fetch_stall_s == 0 ||
		      (c->fetch_stall_s >= 1 && c->fetch_stall_s <= 86400)))
			return err_set(ERR_INPUT,
				       "fetch-stall-timeout must be 1 to 86400 "
				       "seconds (0: no limit)");
	} else if (!strcmp(k, "max-fetches") ||
		   !strcmp(k, "max-fetches-per-submitter")) {
		long n = strtol(v, &end, 10);

		if (*end || !*v || n < 1 || n > FETCHQ_MAX)
			return err_set(ERR_INPUT, "%s must be 1 to %d", k,
				       FETCHQ_MAX);
		if (!strcmp(k, "max-fetches"))
			c->max_fetches = (int)n;
		else
			c->fetches_per_submitter = (int)n;
	} else if (!strcmp(k, "max-jobs-per-submitter") ||
		   !strcmp(k, "max-submits-per-minute")) {
		unsigned long n = strtoul(v, &end, 10),
			      most = !strcmp(k, "max-jobs-per-submitter")
					     ? 1000000
					     : QUOTA_PER_MINUTE_MAX;

		if (*end || !*v || *v == '-' || n > most)
			return err_set(ERR_INPUT,
				       "%s must be 0 (no limit) to %lu", k,
				       most);
		if (!strcmp(k, "max-jobs-per-submitter"))
			c->max_jobs_per_submitter = (unsigned)n;
		else
			c->max_submits_per_minute = (unsigned)n;
	} else if (!strcmp(k, "fetch-max-mb")) {
		errno = 0;
		c->fetch_max_mb = strtoul(v, &end, 10);
		if (*end || !*v || errno || c->fetch_max_mb < 1 ||
		    c->fetch_max_mb > (1ul << 24))
			return err_set(ERR_INPUT, "fetch-max-mb must be 1 to "
						  "16777216");
	} else if (!strcmp(k, "repo-urls") || !strcmp(k, "repo-roots") ||
		   !strcmp(k, "webhook-urls")) {
		char *dst = !strcmp(k, "repo-urls")    ? c->repo_urls
			    : !strcmp(k, "repo-roots") ? c->repo_roots
						       : c->hook_urls;

		if (strlen(v) >= sizeof(c->repo_urls))
			return err_set(ERR_INPUT, "%s is too long", k);
		snprintf(dst, sizeof(c->repo_urls), "%s", v);
	} else if (!strcmp(k, "max-conns-per-address")) {
		unsigned long n = strtoul(v, &end, 10);

		if (*end || !*v || n > 100000)
			return err_set(ERR_INPUT, "max-conns-per-address must "
						  "be 0 (no limit) to 100000");
		c->per_ip = (unsigned)n;
	} else if (!strcmp(k, "max-conns")) {
		unsigned long n = strtoul(v, &end, 10);

		if (*end || !*v || n < 1 || n > 100000)
			return err_set(ERR_INPUT,
				       "max-conns must be 1 to 100000");
		c->max_conns = (int)n;
	} else if (!strcmp(k, "header-timeout")) {
		c->header_s = strtod(v, &end);
		if (*end || !(c->header_s >= 1 && c->header_s <= 3600))
			return err_set(ERR_INPUT, "header-timeout must be 1 to "
						  "3600 seconds");
	} else if (!strcmp(k, "min-body-rate-kb")) {
		errno = 0;
		c->min_body_kb = strtoul(v, &end, 10);
		if (*end || !*v || errno || c->min_body_kb > 1048576)
			return err_set(ERR_INPUT,
				       "min-body-rate-kb must be 0 (any rate) "
				       "to 1048576");
	} else if (!strcmp(k, "max-bodies-mb")) {
		unsigned long n = strtoul(v, &end, 10);

		if (*end || !*v || n < 2 || n > 65536)
			return err_set(ERR_INPUT,
				       "max-bodies-mb must be 2 to 65536");
		c->max_bodies_mb = n;
	} else if (!strcmp(k, "port-file"))
		snprintf(c->port_file, sizeof(c->port_file), "%s", v);
	else if (!strcmp(k, "max-upload-mb")) {
		c->max_upload_mb = strtoul(v, &end, 10);
		if (*end || c->max_upload_mb < 1)
			return err_set(ERR_INPUT, "max-upload-mb must be a "
						  "positive number");
	} else
		return err_set(ERR_INPUT, "unknown setting '%s'", k);
	return 0;
}

#define LIST_MAX 32

/* Split a space-separated list in place into out (NULL-ended). */
static int split_list(char *s, const char **out, const char *key)
{
	char *save = NULL, *w;
	size_t n = 0;

	for (w = strtok_r(s, " \t,", &save); w;
	     w = strtok_r(NULL, " \t,", &save)) {
		if (n == LIST_MAX)
			return err_set(ERR_INPUT, "%s: more than %d entries",
				       key, LIST_MAX);
		out[n++] = w;
	}
	out[n] = NULL;
	return 0;
}

/* "key = value" lines; # starts a comment. */
static int read_config(struct config *c, const char *path)
{
	struct buf text;
	char *line, *save = NULL;
	int lineno = 0, rc;

	buf_init(&text, 1 << 20);
	if ((rc = buf_read_file(&text, path))) {
		buf_release(&text);
		return err_wrap(ERR_INPUT, "config '%s'", path);
	}
	for (line = strtok_r(text.ptr ? text.ptr : (char *)"", "\n", &save);
	     line; line = strtok_r(NULL, "\n", &save)) {
		char *eq, *k, *v, *e;

		lineno++;
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			rc = err_set(ERR_INPUT,
				     "config '%s' line %d: expected key = "
				     "value",
				     path, lineno);
			break;
		}
		*eq = '\0';
		k = line;
		v = eq + 1 + strspn(eq + 1, " \t");
		for (e = eq - 1; e >= k && (*e == ' ' || *e == '\t'); e--)
			*e = '\0';
		for (e = v + strlen(v) - 1; e >= v && (*e == ' ' || *e == '\t');
		     e--)
			*e = '\0';
		if ((rc = set_key(c, k, v))) {
			rc = err_wrap(ERR_INPUT, "config '%s' line %d", path,
				      lineno);
			break;
		}
	}
	buf_release(&text);
	return rc;
}

static void default_state(struct config *c)
{
	char *cache = util_cache_dir();

	snprintf(c->state, sizeof(c->state), "%s/coordinator",
		 cache ? cache : ".");
	free(cache);
}

static void default_recipes(struct config *c)
{
	char *path = recipe_default_path(DATADIR);

	snprintf(c->recipes, sizeof(c->recipes), "%s",
		 path ? path : DATADIR "/recipes");
	free(path);
}

/* The web pages: beside the program in the source tree, or installed. */
static void find_web_dir(char *out, size_t size)
{
	char *tree = util_exe_sibling("../../bisectd/web"),
	     *copy = util_exe_sibling("../share/bisectd/web");

	/* the source tree (from build/bin); an installed tree, wherever it
	 * was copied; or where make install put it */
	snprintf(out, size, "%s", tree ? tree : "");
	if (access(out, R_OK))
		snprintf(out, size, "%s", copy ? copy : "");
	if (access(out, R_OK))
		snprintf(out, size, "%s/web", DATADIR);
	free(tree);
	free(copy);
}

static int open_store(struct store **st, const char *state)
{
	char *db;
	int rc = util_mkdir_p(state);

	if (rc)
		return rc;
	/* every job's request and result, the tokens' hashes: the daemon's
	 * own, not for a build or command on the same machine to read */
	if (chmod(state, 0700))
		return err_sys(ERR_INFRA, "cannot chmod 0700 '%s'", state);
	db = util_fmt("%s/state.db", state);
	if (!db)
		return err_set(ERR_NOMEM, "out of memory");
	rc = store_open(st, db);
	free(db);
	return rc;
}

/*
 * A start that failed: the stores closed, and the state removed when
 * this start made it (state kept from before is left as it was).
 */
static void start_failed(struct coord *co, struct store *ckpt,
			 const char *state, int had_state, int had_db)
{
	static const char *const files[] = { "state.db", "state.db-wal",
					     "state.db-shm",
					     "state.db-journal" };
	size_t i;
	char *p;

	sched_close(co->sched);
	co->sched = NULL;
	store_close(co->store);
	store_close(ckpt);
	store_close(co->reader);
	store_close(co->auth);
	co->store = co->reader = co->auth = NULL;
	for (i = 0; !had_db && i < sizeof(files) / sizeof(files[0]); i++) {
		if ((p = util_fmt("%s/%s", state, files[i])))
			unlink(p);
		free(p);
	}
	if (!had_state)
		rmdir(state); /* only when empty */
}

static int print_token(const char *hash, const char *role, const char *name,
		       void *payload)
{
	(void)payload;
	/* the hash's first digits tell two tokens of one name apart; the
	 * token itself was shown once, when it was made */
	printf("%-24s %-7s %.12s\n", name, role, hash);
	return 0;
}

static int token_usage(int asked)
{
	fprintf(asked ? stdout : stderr,
		"usage: bisectd [--state DIR] token add "
		"submit|worker|read NAME\n"
		"       bisectd [--state DIR] token list\n"
		"       bisectd [--state DIR] token revoke NAME\n");
	return asked ? 0 : 2;
}

/*
 * bisectd token add ROLE NAME: print a new token, keep its hash;
 * token list: name, role and hash prefix of each; token revoke NAME:
 * delete every token of that name (a running daemon refuses it at once:
 * tokens are looked up on every request).
 */
static int cmd_token(struct config *c, int argc, char **argv)
{
	char token[65], hash[65];
	struct store *st;
	int rc, n = 0;

	if (argc == 2 && !strcmp(argv[1], "--help"))
		return token_usage(1);
	if (argc == 4 && !strcmp(argv[1], "add") && strcmp(argv[2], "submit") &&
	    strcmp(argv[2], "worker") && strcmp(argv[2], "read")) {
		log_warnx("unknown role '%s': submit, worker or read", argv[2]);
		return 2;
	}
	if (!((argc == 4 && !strcmp(argv[1], "add")) ||
	      (argc == 2 && !strcmp(argv[1], "list")) ||
	      (argc == 3 && !strcmp(argv[1], "revoke"))))
		return token_usage(0);
	if (!strcmp(argv[1], "add") && !*argv[3]) {
		log_warnx("a token's NAME must not be empty");
		return 2;
	}
	/* the name is who owns the jobs submitted with the token */
	if (!strcmp(argv[1], "add") &&
	    (strlen(argv[3]) > 63 ||
	     strcspn(argv[3], "\t\n\r") != strlen(argv[3]))) {
		log_warnx("a token's NAME is at most 63 "
			  "characters on one line");
		return 2;
	}
	if ((rc = open_store(&st, c->state))) {
		log_warnx("%s", err_last());
		return 3;
	}
	if (!strcmp(argv[1], "list")) {
		rc = store_token_list(st, print_token, NULL);
	} else if (!strcmp(argv[1], "revoke")) {
		if (!(rc = store_token_revoke(st, argv[2], &n)) && !n) {
			store_close(st);
			log_warnx("no token named '%s'", argv[2]);
			return 1;
		}
		if (!rc)
			printf("revoked %d token%s named '%s'\n", n,
			       n == 1 ? "" : "s", argv[2]);
	} else if (!(rc = digest_random_hex(token, 32))) {
		api_token_hash(hash, token);
		if (!(rc = store_token_add(st, hash, argv[2], argv[3])))
			printf("%s\n", token);
	}
	store_close(st);
	if (rc) {
		log_warnx("%s", err_last());
		return rc == ERR_INPUT ? 2 : 3;
	}
	return 0;
}

/* The job's webhook key, or NULL. */
static char *hook_secret(const char *spec_json)
{
	struct job_spec spec;
	char *secret = NULL;

	if (job_spec_parse(&spec, spec_json, strlen(spec_json)))
		return NULL;
	secret = spec.callback_secret;
	spec.callback_secret = NULL;
	job_spec_release(&spec);
	return secret;
}

/*
 * POST finished jobs to their callbacks; back off 2^n s up to 5 min.
 * Each carries X-Bisectd-Job and, when the job gave a callback_secret,
 * X-Bisectd-Signature: sha256=HMAC-SHA256(secret, body) in hex.
 */
static void deliver_hooks(struct coord *co, int max_attempts,
			  const char *const *allowed)
{
	long long *ids = NULL;
	size_t n = 0, i;

	pthread_mutex_lock(&co->lock);
	store_hooks_due(co->store, store_time(), &ids, &n);
	pthread_mutex_unlock(&co->lock);
	for (i = 0; i < n && !stopping; i++) {
		struct store_job j;
		struct store_step *steps = NULL;
		size_t ns = 0;
		char *doc = NULL, *url = NULL, *hook = NULL, *secret = NULL,
		     why[512] = "";
		int attempts, hrc;
		long status = 0;

		pthread_mutex_lock(&co->lock);
		if (!store_job_get(co->store, ids[i], &j)) {
			if (!store_steps_of_job(co->store, j.id, &steps, &ns))
				doc = report_job(co->store, &j, steps, ns, 1);
			url = j.callback ? strdup(j.callback) : NULL;
			secret = hook_secret(j.spec);
			attempts = j.hook_attempts;
			store_steps_release(steps, ns);
			store_job_release(&j);
		} else {
			attempts = 0;
		}
		pthread_mutex_unlock(&co->lock);
		/* checked again: the allow-list may have changed since the
		 * submit, and a job of an older bisectd may name a URL that
		 * is refused now; it goes to the URL's normal form */
		hrc = doc && url ? policy_hook(allowed, url, &hook) : 0;
		if (hrc == ERR_INPUT) {
			snprintf(why, sizeof(why),
				 "destination not allowed "
				 "(setting webhook-urls)");
			attempts = max_attempts - 1;
		} else if (hrc) {
			snprintf(why, sizeof(why), "%s", err_last());
		} else if (doc && url) {
			char sig[DIGEST_HEXSZ + 1], sigh[DIGEST_HEXSZ + 40],
				idh[64];
			const char *hdrs[3] = { idh, NULL, NULL };
			struct http_req r = { .method = "POST",
					      .url = hook,
					      .body = doc,
					      .len = strlen(doc),
					      .timeout_s = 10,
					      .headers = hdrs };

			snprintf(idh, sizeof(idh), "X-Bisectd-Job: %lld",
				 ids[i]);
			if (secret) {
				digest_hmac_sha256_hex(sig, secret, doc,
						       strlen(doc));
				snprintf(sigh, sizeof(sigh),
					 "X-Bisectd-Signature: sha256=%s", sig);
				hdrs[1] = sigh;
			}
			if (http_do(&r, &status, NULL))
				snprintf(why, sizeof(why), "%s", err_last());
			else if (status < 200 || status > 299)
				snprintf(why, sizeof(why), "HTTP status %ld",
					 status);
		} else {
			snprintf(why, sizeof(why), "cannot build the result");
		}
		attempts++;
		pthread_mutex_lock(&co->lock);
		if (!why[0]) {
			store_hook_update(co->store, ids[i], "delivered",
					  attempts, 0, NULL);
			log_info("job %lld: webhook delivered", ids[i]);
		} else {
			double delay =
				attempts >= 9 ? 300 : (double)(1 << attempts);

			store_hook_update(co->store, ids[i],
					  attempts >= max_attempts ? "failed"
								   : "pending",
					  attempts, store_time() + delay, why);
			log_info("job %lld: webhook attempt %d failed: %s",
				 ids[i], attempts, why);
		}
		pthread_mutex_unlock(&co->lock);
		free(doc);
		free(url);
		free(hook);
		free(secret);
	}
	free(ids);
}

/*
 * Webhooks go out from a thread of their own: a receiver that is slow
 * (up to its 10 s timeout) delays other webhooks, never the scheduler's
 * tick, lease expiry or the API.
 */
struct hooks {
	struct coord *co;
	int max_attempts;
	const char *const *urls; /* the allowed destinations */
};

static void *hook_thread(void *arg)
{
	struct hooks *h = arg;

	while (!stopping) {
		struct timespec ts = { 1, 0 };

		deliver_hooks(h->co, h->max_attempts, h->urls);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/*
 * What the fetch settings leave one submitter: half the fetches unless
 * set, and fewer than all of them (unless there is only one).
 */
static int fetch_shares(struct config *c)
{
	if (!c->fetches_per_submitter)
		c->fetches_per_submitter =
			c->max_fetches > 1 ? c->max_fetches / 2 : 1;
	if (c->max_fetches > 1 && c->fetches_per_submitter >= c->max_fetches)
		return err_set(ERR_INPUT,
			       "max-fetches-per-submitter must be less than "
			       "max-fetches (%d), so that one submitter never "
			       "holds every fetch",
			       c->max_fetches);
	if (c->max_fetches == 1 && c->fetches_per_submitter > 1)
		return err_set(ERR_INPUT, "max-fetches-per-submitter must be 1 "
					  "when max-fetches is 1");
	return 0;
}

/*
 * The usage: in full with examples on stdout and 0 when asked for, else
 * a short one on stderr and 2.
 */
static int usage(int asked)
{
	if (!asked) {
		fprintf(stderr,
			"usage: bisectd [--config FILE] [--listen ADDR] "
			"[--port N] [--state DIR] [OPTION]...\n"
			"       bisectd [--state DIR] token add|list|revoke "
			"...\n"
			"       bisectd [--state DIR] repo-key [--import "
			"FILE]\n"
			"see bisectd --help and bisectd(8)\n");
		return 2;
	}
	printf("usage: bisectd [--config FILE] [--listen ADDR] [--port N] "
	       "[--state DIR]\n"
	       "               [--recipes PATH] [--lease SECONDS] "
	       "[--public-read yes|no]\n"
	       "               [--port-file FILE] [--public-url URL] "
	       "[--max-upload-mb N]\n"
	       "               [--fetch-timeout S] "
	       "[--fetch-stall-timeout S] [--fetch-max-mb N]\n"
	       "               [--max-fetches N] "
	       "[--max-fetches-per-submitter N]\n"
	       "               [--max-jobs-per-submitter N] "
	       "[--max-submits-per-minute N]\n"
	       "               [--repo-urls 'PREFIX...'] "
	       "[--repo-roots 'DIR...']\n"
	       "               [--webhook-urls 'PREFIX...'] "
	       "[--max-conns-per-address N]\n"
	       "               [--max-conns N] [--header-timeout S] "
	       "[--min-body-rate-kb N]\n"
	       "               [--max-bodies-mb N] "
	       "[--mail-from 'NAME <ADDRESS>']\n"
	       "               [--worker-port N [--worker-listen ADDR]]\n"
	       "       bisectd [--state DIR] token add submit|worker|read "
	       "NAME\n"
	       "       bisectd [--state DIR] token list | token revoke "
	       "NAME\n"
	       "       bisectd [--state DIR] repo-key [--import FILE]\n"
	       "       bisectd --version\n"
	       "\nexamples:\n"
	       "  bisectd --state /var/lib/bisectd --listen 0.0.0.0 "
	       "--port 8070\n"
	       "  bisectd --state /var/lib/bisectd token add submit alice\n");
	return 0;
}

/*
 * The settings: defaults, then the config file (--config, or
 * /etc/bisectd.conf when there is one), then the command line.  -1 to go
 * on, or the exit status (--help, --version, a bad setting: 2).
 */
static int parse_args(struct config *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "listen", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "state", required_argument, NULL, 's' },
		{ "recipes", required_argument, NULL, 'r' },
		{ "lease", required_argument, NULL, 'L' },
		{ "public-read", required_argument, NULL, 'P' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "max-upload-mb", required_argument, NULL, 'm' },
		{ "public-url", required_argument, NULL, 'u' },
		{ "fetch-timeout", required_argument, NULL, 'F' },
		{ "fetch-max-mb", required_argument, NULL, 'M' },
		{ "fetch-stall-timeout", required_argument, NULL, 'S' },
		{ "max-fetches", required_argument, NULL, 'N' },
		{ "max-fetches-per-submitter", required_argument, NULL, 'O' },
		{ "max-jobs-per-submitter", required_argument, NULL, 'J' },
		{ "max-submits-per-minute", required_argument, NULL, 'Q' },
		{ "repo-urls", required_argument, NULL, 'U' },
		{ "repo-roots", required_argument, NULL, 'R' },
		{ "webhook-urls", required_argument, NULL, 'W' },
		{ "max-conns", required_argument, NULL, 'Z' },
		{ "header-timeout", required_argument, NULL, 'H' },
		{ "min-body-rate-kb", required_argument, NULL, 'K' },
		{ "max-conns-per-address", required_argument, NULL, 'A' },
		{ "max-bodies-mb", required_argument, NULL, 'B' },
		{ "mail-from", required_argument, NULL, 'E' },
		{ "worker-port", required_argument, NULL, 'w' },
		{ "worker-listen", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const keys[] = {
		['l'] = "listen",
		['p'] = "port",
		['s'] = "state",
		['r'] = "recipes",
		['L'] = "lease",
		['P'] = "public-read",
		['f'] = "port-file",
		['m'] = "max-upload-mb",
		['u'] = "public-url",
		['F'] = "fetch-timeout", /* the fetch queue's */
		['M'] = "fetch-max-mb",
		['S'] = "fetch-stall-timeout",
		['N'] = "max-fetches",
		['O'] = "max-fetches-per-submitter",
		['J'] = "max-jobs-per-submitter",
		['Q'] = "max-submits-per-minute",
		['U'] = "repo-urls",
		['R'] = "repo-roots",
		['W'] = "webhook-urls",
		['A'] = "max-conns-per-address",
		['B'] = "max-bodies-mb",
		['E'] = "mail-from",
		['w'] = "worker-port",
		['X'] = "worker-listen",
		['Z'] = "max-conns",
		['H'] = "header-timeout",
		['K'] = "min-body-rate-kb",
	};
	const char *config = NULL;
	char *flags[128] = { 0 };
	int opt, i;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (opt == 'C')
			config = optarg;
		else if (opt == 'V')
			return printf("bisectd %s\n", BISECTD_VERSION) < 0;
		else if (opt > 0 && opt < 128 &&
			 (size_t)opt < sizeof(keys) / sizeof(keys[0]) &&
			 keys[opt])
			flags[opt] = optarg;
		else
			return usage(opt == 'h');
	}
	if ((config || access("/etc/bisectd.conf", R_OK) == 0) &&
	    read_config(c, config ? config : "/etc/bisectd.conf")) {
		log_warnx("%s", err_last());
		return 2;
	}
	for (i = 0; i < 128; i++)
		if (flags[i] && set_key(c, keys[i], flags[i])) {
			log_warnx("--%s: %s", keys[i], err_last());
			return 2;
		}
	return -1;
}

/* The API's settings from the daemon's; web_dir holds PATH_MAX + 32. */
static void api_options(struct api_opts *ao, const struct config *c,
			const char **repo_urls, const char **repo_roots,
			const char **hook_urls, char *web_dir)
{
	memset(ao, 0, sizeof(*ao));
	ao->listen = c->listen;
	ao->port = c->port;
	ao->public_read = c->public_read;
	ao->max_body = 1u << 20;
	ao->max_upload = c->max_upload_mb << 20;
	ao->max_poll_s = 30;
	ao->max_bodies = c->max_bodies_mb << 20;
	ao->public_url = c->public_url[0] ? c->public_url : NULL;
	ao->mail_from = c->mail_from[0] ? c->mail_from : NULL;
	ao->worker_port = c->worker_port;
	ao->worker_listen = c->worker_listen[0] ? c->worker_listen : c->listen;
	ao->repo_urls = repo_urls;
	ao->repo_roots = repo_roots;
	ao->hook_urls = hook_urls;
	ao->per_ip = c->per_ip;
	ao->max_jobs_per_submitter = c->max_jobs_per_submitter;
	ao->max_submits_per_minute = c->max_submits_per_minute;
	ao->max_conns = c->max_conns;
	ao->header_s = c->header_s;
	ao->body_rate = (double)c->min_body_kb * 1024;
	find_web_dir(web_dir, PATH_MAX + 32);
	ao->web_dir = web_dir;
}

/*
 * Until SIGTERM or SIGINT: the scheduler's due work once a second, the
 * API's wake-ups, and the checkpoints of the write-ahead log.
 */
static void serve(struct coord *co, struct api *api, struct store *ckpt)
{
	while (!stopping) {
		struct timespec ts = { 1, 0 };

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&co->lock);
		if (sched_tick_due(co->sched))
			log_info("scheduling: %s", err_last());
		pthread_mutex_unlock(&co->lock);
		api_dispatch(api);
		/* the bulk of it outside the lock; then what came since,
		 * while no write is under way, so that the log is wholly
		 * copied and the next write starts it again from the top */
		if (store_checkpoint(ckpt))
			log_info("checkpoint: %s", err_last());
		pthread_mutex_lock(&co->lock);
		if (store_checkpoint(ckpt))
			log_info("checkpoint: %s", err_last());
		pthread_mutex_unlock(&co->lock);
	}
}

/* The settings that neither the config file nor the command line gave. */
static const struct config config_defaults = { .listen = "127.0.0.1",
					       .port = 8070,
					       .lease_s = 60,
					       .public_read = 1,
					       .max_upload_mb = 512,
					       .fetch_timeout_s = 600,
					       .fetch_stall_s = 60,
					       .fetch_max_mb = 16384,
					       .max_fetches = 4,
					       .max_jobs_per_submitter = 200,
					       .max_submits_per_minute = 60,
					       .repo_urls = "https://",
					       .per_ip = 256,
					       .max_conns = 4000,
					       .header_s = 10,
					       .min_body_kb = 4,
					       .max_bodies_mb = 64,
					       .hook_attempts = 10 };

int main(int argc, char **argv)
{
	struct config c = config_defaults;
	const char *repo_urls[LIST_MAX + 1], *repo_roots[LIST_MAX + 1],
		*hook_urls[LIST_MAX + 1];
	struct coord co = { .lock = PTHREAD_MUTEX_INITIALIZER,
			    .fetch = PTHREAD_COND_INITIALIZER,
			    .read_lock = PTHREAD_MUTEX_INITIALIZER,
			    .auth_lock = PTHREAD_MUTEX_INITIALIZER };
	struct sched_opts so = { 0 };
	struct store *ckpt = NULL; /* checkpoints, outside the lock */
	struct api_opts ao;
	struct api *api = NULL;
	struct hooks hk;
	pthread_t hooks;
	struct fetchq_opts fo = { 0 };
	struct fetchq *fq = NULL;
	char web_dir[PATH_MAX + 32];
	struct sigaction sa;
	struct repo_publisher *pub = NULL;
	int rc, had_state, had_db;

	/* a malloc arena per thread (a dozen here) let the RSS grow with
	 * every job that went through, as each freed what another had
	 * taken; with two it stays flat (docs/benchmarks.md) */
	mallopt(M_ARENA_MAX, 2);
	log_init("bisectd", 0);
	default_state(&c);
	default_recipes(&c);
	if ((rc = parse_args(&c, argc, argv)) >= 0)
		return rc;
	if (optind < argc && !strcmp(argv[optind], "token"))
		return cmd_token(&c, argc - optind, argv + optind);
	if (optind < argc && !strcmp(argv[optind], "repo-key"))
		return repo_key_main(c.state, argc - optind, argv + optind);
	if (optind < argc)
		return usage(0);

	if (fetch_shares(&c) ||
	    split_list(c.repo_urls, repo_urls, "repo-urls") ||
	    split_list(c.repo_roots, repo_roots, "repo-roots") ||
	    split_list(c.hook_urls, hook_urls, "webhook-urls")) {
		log_warnx("%s", err_last());
		return 2;
	}
	/* a prefix is compared in its normal form: one that has none
	 * would allow nothing, and is refused here */
	{
		const char *bad = policy_prefixes_check(repo_urls) ? "repo-urls"
				  : policy_prefixes_check(hook_urls)
					  ? "webhook-urls"
					  : NULL;

		if (bad) {
			log_warnx("%s: %s", bad, err_last());
			return 2;
		}
	}
	{
		char *db = util_fmt("%s/state.db", c.state);

		had_state = access(c.state, F_OK) == 0;
		had_db = !db || access(db, F_OK) == 0;
		free(db);
	}
	if (gu_init() || http_global_init() || open_store(&co.store, c.state) ||
	    open_store(&ckpt, c.state) || open_store(&co.reader, c.state) ||
	    open_store(&co.auth, c.state) ||
	    store_autocheckpoint_off(co.store) ||
	    store_autocheckpoint_off(co.reader) ||
	    store_autocheckpoint_off(co.auth) ||
	    /* the others read little: the job list, the log, the tokens */
	    store_cache_kib(ckpt, 64) || store_cache_kib(co.reader, 256) ||
	    store_cache_kib(co.auth, 64)) {
		log_warnx("%s", err_last());
		start_failed(&co, ckpt, c.state, had_state, had_db);
		return 3;
	}
	co.state_dir = c.state;
	so.state_dir = c.state;
	so.recipe_path = c.recipes;
	so.lease_s = c.lease_s;
	so.max_attempts = 3;
	so.live_window = c.lease_s + 60;
	if (sched_open(&co.sched, co.store, &so)) {
		log_warnx("%s", err_last());
		start_failed(&co, ckpt, c.state, had_state, had_db);
		return 3;
	}
	api_options(&ao, &c, repo_urls, repo_roots, hook_urls, web_dir);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* resume what a previous run left: leases, plans */
	pthread_mutex_lock(&co.lock);
	rc = sched_tick_all(co.sched);
	pthread_mutex_unlock(&co.lock);
	if (rc)
		log_info("resuming jobs: %s", err_last());
	if ((rc = api_start(&api, &co, &ao))) {
		log_warnx("%s", err_last());
		start_failed(&co, ckpt, c.state, had_state, had_db);
		return rc == ERR_INPUT ? 2
				       : 3; /* a listen address that is none */
	}
	co.api = api;
	log_info("listening on %s:%d, state in %s", c.listen, api_port(api),
		 c.state);
	if (c.worker_port)
		log_info("and for workers on %s:%d", ao.worker_listen,
			 c.worker_port);
	if (c.port_file[0]) {
		char port[16];

		snprintf(port, sizeof(port), "%d\n", api_port(api));
		util_write_atomic(c.port_file, port, strlen(port));
	}
	hk.co = &co;
	hk.max_attempts = c.hook_attempts;
	hk.urls = hook_urls;
	if ((rc = pthread_create(&hooks, NULL, hook_thread, &hk))) {
		log_warnx("cannot start the webhook thread: %s", strerror(rc));
		api_stop(api);
		return 3;
	}
	fo.state_dir = c.state;
	fo.lim.timeout_s = c.fetch_timeout_s;
	fo.lim.stall_s = c.fetch_stall_s;
	fo.lim.max_mb = c.fetch_max_mb;
	fo.threads = c.max_fetches;
	fo.per_submitter = c.fetches_per_submitter;
	if (fetchq_start(&fq, &co, &fo)) {
		log_warnx("%s", err_last());
		api_stop(api);
		return 3;
	}
	if (repo_start(&pub, &co))
		log_warnx("%s", err_last()); /* builds stay unpublished */
	serve(&co, api, ckpt);
	log_info("stopping");
	repo_stop(pub);
	pthread_join(hooks, NULL);
	/* first: a fetch that ends after this no longer wakes the API */
	rc = fetchq_stop(fq, 3);
	api_stop(api);
	if (rc)
		return 0; /* a fetch still runs: its git dies with us */
	sched_close(co.sched);
	store_close(co.store);
	store_close(ckpt);
	store_close(co.reader);
	store_close(co.auth);
	gu_shutdown();
	return 0;
}
