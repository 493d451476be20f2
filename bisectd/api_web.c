// SPDX-License-Identifier: GPL-2.0-only
/*
 * The web pages: the files of the web directory, a build's download
 * page, and the Prometheus metrics.
 */
#include "api_priv.h"
#include "beneath.h"
#include "repo.h"

/* A file of the web directory: only these names, nothing else. */
static enum MHD_Result web_file(struct api *a, struct MHD_Connection *mc,
				const char *name)
{
	static const struct {
		const char *name, *type;
	} files[] = {
		{ "jobs.html", "text/html; charset=utf-8" },
		{ "job.html", "text/html; charset=utf-8" },
		{ "stats.html", "text/html; charset=utf-8" },
		{ "common.js", "text/javascript; charset=utf-8" },
		{ "style.css", "text/css; charset=utf-8" },
	};
	struct MHD_Response *r;
	enum MHD_Result ret;
	struct stat sb;
	size_t i;
	char *path;
	int fd;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(files[i].name, name))
			break;
	if (i == sizeof(files) / sizeof(files[0]))
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND, "no such page");
	path = util_fmt("%s/%s", a->o.web_dir, name);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0 || fstat(fd, &sb)) {
		if (fd >= 0)
			close(fd);
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND,
				       "web pages are not installed");
	}
	r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
	MHD_add_response_header(r, "Content-Type", files[i].type);
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(mc, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

struct pkg_list {
	struct package_result *r;
};

static int list_packages(const char *name, long long size, const char *sha,
			 void *payload)
{
	struct package_result *r = payload;
	size_t l = strlen(name);
	char **f;

	(void)size;
	(void)sha;
	if (l < 5 ||
	    (strcmp(name + l - 4, ".deb") && strcmp(name + l - 4, ".rpm")))
		return 0;
	f = realloc(r->files, (r->nfiles + 1) * sizeof(*f));
	if (!f)
		return 1;
	r->files = f;
	if ((f[r->nfiles] = strdup(name)))
		r->nfiles++;
	return 0;
}

/*
 * A build job's download page: its packages (the artifacts its worker
 * uploaded), install and uninstall commands, Secure Boot.
 */
static enum MHD_Result download_page(struct api *a, struct MHD_Connection *mc,
				     long long id)
{
	struct package_result r = { 0 };
	struct store_step *steps = NULL, *st = NULL;
	struct store_job j;
	struct job_spec spec = { 0 };
	struct buf page, rel;
	size_t n = 0, i;
	char what[512], prefix[128],
		*path = NULL, *title = NULL, *apt_url = NULL, *key_url = NULL,
		*top = NULL, *rpm_url = NULL, *rpm_key = NULL, suite[64] = "",
		fpr[64] = "";
	const char *mark;
	int rc, kinds = 0;

	buf_init(&page, 1 << 20);
	buf_init(&rel, 4096);
	pthread_mutex_lock(&a->c->lock);
	rc = store_job_get(a->c->store, id, &j);
	if (!rc) {
		rc = strcmp(j.type, "build") ? ERR_NOTFOUND : 0;
		if (!rc)
			rc = job_spec_parse(&spec, j.spec, strlen(j.spec));
		if (!rc)
			rc = store_steps_of_job(a->c->store, id, &steps, &n);
		for (i = 0; !rc && i < n; i++)
			if (steps[i].state == STEP_DONE &&
			    !strcmp(steps[i].role, "build"))
				st = &steps[i];
		if (st)
			store_artifacts(a->c->store, st->id, list_packages, &r);
		store_job_release(&j);
	}
	pthread_mutex_unlock(&a->c->lock);
	if (!rc && (!st || !r.nfiles))
		rc = err_set(ERR_NOTFOUND, "job %lld has no packages", id);
	if (!rc) {
		path = util_fmt("%s/artifacts/%lld/kernel.release",
				a->c->state_dir, st->id);
		if (path && !buf_read_file(&rel, path))
			r.release = strndup(buf_str(&rel),
					    strcspn(buf_str(&rel), "\n"));
		mark = r.release ? strstr(r.release, "-bisectd.") : NULL;
		if (mark) {
			r.rpm_version =
				util_fmt("%.*s~%s", (int)(mark - r.release),
					 r.release, mark + 1);
			r.deb_version = util_fmt("%s-1", r.rpm_version);
		}
		title = st->result ? job_json_string(st->result, "title")
				   : NULL;
		if (spec.source)
			snprintf(what, sizeof(what),
				 "Built from Debian's linux-source-6.1 %s "
				 "with %zu patch(es) applied, configured by "
				 "the %s recipe.",
				 spec.source, spec.npatches, spec.recipe);
		else
			snprintf(what, sizeof(what),
				 "Built from %.12s of %s with %zu patch(es) "
				 "applied, configured by the %s recipe.",
				 spec.commit, spec.repo, spec.npatches,
				 spec.recipe);
		snprintf(prefix, sizeof(prefix),
			 "/api/v1/jobs/%lld/steps/%lld/artifacts/", id, st->id);
		kinds = repo_published(a->c->state_dir, id);
		if (kinds && !repo_fingerprint(a->c->state_dir, fpr)) {
			const char *host = MHD_lookup_connection_value(
				mc, MHD_HEADER_KIND, "Host");

			/* the address the page was asked at, unless the
			 * farm says its own */
			if (!host ||
			    strspn(host, "abcdefghijklmnopqrstuvwxyz"
					 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789.-:[]") != strlen(host))
				host = "localhost";
			top = a->o.public_url
				      ? util_fmt("%s/repo", a->o.public_url)
				      : util_fmt("http://%s/repo", host);
			apt_url = top ? util_fmt("%s/apt", top) : NULL;
			key_url = top ? util_fmt("%s/apt/" REPO_KEYRING, top)
				      : NULL;
			rpm_url = top ? util_fmt("%s/rpm", top) : NULL;
			rpm_key = top ? util_fmt("%s/rpm/" REPO_RPM_KEY, top)
				      : NULL;
			snprintf(suite, sizeof(suite), "bisectd-%lld", id);
		}
		{
			struct download_info d = {
				.apt_url = kinds & REPO_APT && key_url ? apt_url
								       : NULL,
				.rpm_url = kinds & REPO_RPM && rpm_key ? rpm_url
								       : NULL,
				.rpm_key_url = rpm_key,
				.apt_suite = suite,
				.apt_channel = spec.channel,
				.apt_key_url = key_url,
				.apt_fpr = fpr,
				.packages = &r,
				.what = what,
				.recipe = spec.recipe,
				.smoke =
					!strcmp(st->verdict, "good")
						? "good"
						: (title ? title : st->verdict),
				.link_prefix = prefix,
				/* the step's title tells how it went */
				.install = spec.install_test ? title : NULL,
			};

			artifacts_page(&page, &d);
		}
	}
	free(path);
	free(title);
	free(apt_url);
	free(key_url);
	free(top);
	free(rpm_url);
	free(rpm_key);
	buf_release(&rel);
	store_steps_release(steps, n);
	job_spec_release(&spec);
	package_result_release(&r);
	if (rc) {
		buf_release(&page);
		return api_error_reply(mc, api_status_for(rc), err_last());
	}
	return api_reply(mc, MHD_HTTP_OK, buf_detach(&page),
			 "text/html; charset=utf-8");
}

/* The connections both listeners hold, and those closed (conns.h). */
static void conns_metrics(struct api *a, struct buf *b)
{
	static const char *const why[CONNS_NWHY] = {
		[CONNS_HEADERS] = "headers",
		[CONNS_BODY] = "body",
		[CONNS_EVICTED] = "evicted",
		[CONNS_FULL] = "full",
	};
	struct conns_stats st = { 0 };
	int i;

	conns_stats(a->cs, &st);
	conns_stats(a->csw, &st);
	buf_printf(b,
		   "# HELP bisectd_connections Connections held: without "
		   "a valid token, new (waiting for a first request), idle "
		   "(waiting for another) or busy (with a request under "
		   "way); or with one.\n"
		   "# TYPE bisectd_connections gauge\n"
		   "bisectd_connections{state=\"new\"} %u\n"
		   "bisectd_connections{state=\"idle\"} %u\n"
		   "bisectd_connections{state=\"busy\"} %u\n"
		   "bisectd_connections{state=\"trusted\"} %u\n"
		   "# HELP bisectd_connections_closed_total Connections "
		   "closed by bisectd: headers or body too slow, evicted "
		   "for a new one, or new with no room.\n"
		   "# TYPE bisectd_connections_closed_total counter\n",
		   st.fresh, st.idle, st.busy, st.trusted);
	for (i = 0; i < CONNS_NWHY; i++)
		buf_printf(b,
			   "bisectd_connections_closed_total{reason=\"%s\"} "
			   "%llu\n",
			   why[i], st.closed[i]);
}

/* The daemon's counters and histograms, in Prometheus' text format. */
static enum MHD_Result get_metrics(struct api *a, struct MHD_Connection *mc)
{
	struct store_counts c;
	struct buf b;
	size_t waiting, queued = 0;
	struct conn *cn;
	int rc;

	pthread_mutex_lock(&a->c->lock);
	rc = store_counts(a->c->store, &c);
	waiting = a->nwaiting;
	pthread_mutex_unlock(&a->c->lock);
	if (rc)
		return api_error_reply(mc, api_status_for(rc), err_last());
	pthread_mutex_lock(&a->q_lock);
	for (int q = 0; q < 2; q++)
		for (cn = a->q_head[q]; cn; cn = cn->next)
			queued++;
	pthread_mutex_unlock(&a->q_lock);
	buf_init(&b, 1u << 20);
	rc = metrics_write(a->m, &c, &b);
	buf_printf(&b,
		   "# HELP bisectd_polls_waiting Long polls waiting for a "
		   "step.\n"
		   "# TYPE bisectd_polls_waiting gauge\n"
		   "bisectd_polls_waiting %zu\n"
		   "# HELP bisectd_pool_queue Slow calls waiting for a pool "
		   "thread.\n"
		   "# TYPE bisectd_pool_queue gauge\n"
		   "bisectd_pool_queue %zu\n",
		   waiting, queued);
	conns_metrics(a, &b);
	if (rc) {
		buf_release(&b);
		return api_error_reply(mc, api_status_for(rc), err_last());
	}
	return api_reply(mc, MHD_HTTP_OK, buf_detach(&b),
			 "text/plain; version=0.0.4; charset=utf-8");
}

/*
 * A file of the package repositories (repo.c), apt/... or rpm/...: names
 * of [A-Za-z0-9._+~-], no part that starts with a dot (suites in the
 * making), regular files only, opened without following links.
 */
static enum MHD_Result repo_file(struct api *a, struct MHD_Connection *mc,
				 const char *path)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-/";
	struct MHD_Response *r;
	enum MHD_Result ret;
	struct stat sb;
	const char *p, *type = "application/octet-stream";
	char *base, *full = NULL;
	int fd = -1;

	if ((strncmp(path, "apt/", 4) && strncmp(path, "rpm/", 4)) ||
	    strlen(path) > 512 || strspn(path, ok) != strlen(path) ||
	    strstr(path, "//") || path[strlen(path) - 1] == '/')
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND, "no such file");
	for (p = path; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
		if (*p == '.')
			return api_error_reply(mc, MHD_HTTP_NOT_FOUND,
					       "no such file");
	base = util_fmt("%s/repo", a->c->state_dir);
	full = base ? util_fmt("%s/%s", base, path) : NULL;
	if (full)
		fd = beneath_open(base, full, O_RDONLY | O_CLOEXEC, 0);
	free(base);
	free(full);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (fd >= 0)
			close(fd);
		return api_error_reply(mc, MHD_HTTP_NOT_FOUND, "no such file");
	}
	p = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!strcmp(p, "Release") || !strcmp(p, "InRelease") ||
	    !strcmp(p, "Packages"))
		type = "text/plain; charset=utf-8";
	r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(mc, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

enum MHD_Result api_web(struct api *a, struct MHD_Connection *mc,
			const char *url)
{
	long long id;
	char tail[16];

	if (!strcmp(url, "/") || !strcmp(url, "/jobs") ||
	    !strcmp(url, "/jobs/"))
		return web_file(a, mc, "jobs.html");
	if (!strncmp(url, "/jobs/", 6) && !api_parse_id(url + 6, &id))
		return web_file(a, mc, "job.html");
	if (!strncmp(url, "/jobs/", 6) &&
	    sscanf(url + 6, "%lld/%15s", &id, tail) == 2 && id > 0 &&
	    !strcmp(tail, "download"))
		return download_page(a, mc, id);
	if (!strcmp(url, "/stats"))
		return web_file(a, mc, "stats.html");
	if (!strcmp(url, "/metrics"))
		return get_metrics(a, mc);
	if (!strncmp(url, "/static/", 8))
		return web_file(a, mc, url + 8);
	if (!strncmp(url, "/repo/", 6))
		return repo_file(a, mc, url + 6);
	return api_error_reply(mc, MHD_HTTP_NOT_FOUND, "no such page");
}
