// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl run --metric NAME: a performance regression bisected in
 * generic mode.  Each run checks a commit out in the output directory,
 * runs the command there (sh -c) and reads the values of NAME from its
 * "bisect-metric: NAME VALUE [UNIT]" lines (stdout and stderr); the
 * engine's metric mode (lib/metric.c) decides the next commit and the
 * culprit.  The good endpoint is run 3 times for a baseline.  A run that
 * exits 125, exits with another failure or prints no value of NAME is a
 * skip.  Runs one command at a time, in this process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sys/wait.h>

#include "ctl.h"
#include "engine.h"
#include "measure.h"
#include "mreport.h"

#define BASELINE_RUNS 3
#define OUTPUT_MAX (4 << 20)
#define DEFAULT_MAX_RUNS 300

struct mrun {
	const struct metric_opts *mo;
	struct gu_repo *repo;
	struct gu_graph g;
	struct engine *e;
	char *tree;
	char unit[MEASURE_UNIT_MAX + 1];
	unsigned long runs, skips;
	uint32_t bad;
	unsigned bad_skips;
};

/* The command's output (stdout and stderr) and exit status in tree, with
 * BISECT_COMMIT=hex. */
static int run_command(char **out, size_t *len, int *status, const char *cmd,
		       const char *tree, const char *hex)
{
	int fd[2];
	pid_t pid;
	struct buf b;
	char chunk[4096];
	ssize_t n;

	if (pipe(fd))
		return err_sys(ERR_INFRA, "pipe");
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return err_sys(ERR_INFRA, "fork");
	}
	if (pid == 0) {
		close(fd[0]);
		if (dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0 || chdir(tree) ||
		    setenv("BISECT_COMMIT", hex, 1))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	buf_init(&b, OUTPUT_MAX);
	while ((n = read(fd[0], chunk, sizeof(chunk))) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0)
			buf_put(&b, chunk, (size_t)n);
	close(fd[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return err_sys(ERR_INFRA, "waitpid");
	*len = b.len;
	*out = buf_detach(&b);
	return *out ? 0 : err_set(ERR_NOMEM, "out of memory");
}

static void short_hex(char out[13], const struct gu_oid *oid)
{
	char hex[GU_HEXSZ + 1];

	gu_oid_hex(hex, oid);
	snprintf(out, 13, "%.12s", hex);
}

/*
 * One run of oid: the values of the metric in *v (*n of them, 0 for a
 * skip, which is said on stderr).
 */
static int one_run(struct mrun *m, const struct gu_oid *oid, double **v,
		   size_t *n)
{
	char *text = NULL, sh[13], hex[GU_HEXSZ + 1];
	size_t len = 0, nbad = 0;
	int status = 0, rc, code;

	*v = NULL;
	*n = 0;
	short_hex(sh, oid);
	gu_oid_hex(hex, oid);
	if ((rc = gu_checkout(m->repo, m->tree, oid)) ||
	    (rc = run_command(&text, &len, &status, m->mo->command, m->tree,
			      hex)))
		return rc;
	m->runs++;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (code == 0)
		rc = measure_collect(v, n, &nbad, text, len, m->mo->name);
	if (!rc && *n == 0) {
		m->skips++;
		if (code)
			fprintf(stderr,
				"bisectctl: %s: skipped: exit status %d\n", sh,
				code);
		else
			fprintf(stderr, "bisectctl: %s: skipped: %s\n", sh,
				nbad ? err_last() : "no value of the metric");
	} else if (!rc) {
		struct measure me;
		const char *p = text;

		/* the unit, from the first line of the metric */
		while (!m->unit[0] && p < text + len) {
			const char *nl = memchr(p, '\n', text + len - p);
			size_t l = nl ? (size_t)(nl - p)
				      : (size_t)(text + len - p);

			if (measure_parse_line(&me, p, l) == 1 &&
			    !strcmp(me.name, m->mo->name))
				memcpy(m->unit, me.unit, sizeof(m->unit));
			p += l + 1;
		}
		fprintf(stderr, "bisectctl: %s: %s = %g%s%s\n", sh, m->mo->name,
			(*v)[0], m->unit[0] ? " " : "", m->unit);
	}
	free(text);
	return rc;
}

static int observe(struct mrun *m, uint32_t idx, int baseline,
		   const struct gu_oid *oid)
{
	double *v;
	size_t n, i;
	int rc = one_run(m, oid, &v, &n);

	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		if (!(v[i] > 0)) {
			fprintf(stderr,
				"bisectctl: skipped: value %g of '%s' is not "
				"positive\n",
				v[i], m->mo->name);
			n = 0;
		}
	if (n == 0 && !baseline && idx == m->bad)
		m->bad_skips++;
	if (n == 0)
		rc = baseline ? 0 : engine_mark(m->e, idx, VERDICT_SKIP);
	else if (baseline)
		rc = engine_observe_baseline(m->e, v, n);
	else
		rc = engine_observe_values(m->e, idx, v, n);
	free(v);
	return rc;
}

/* --- the report ----------------------------------------------------- */

/* The report (lib/mreport.c, as bisectd's): text on stdout, JSON to
 * json_path when given. */
static int report(struct mrun *m, enum engine_state st, uint32_t pick,
		  const char *json_path)
{
	const struct mreport_opts o = { .name = m->mo->name,
					.unit = m->unit,
					.higher = m->mo->higher,
					.min_change = m->mo->min_change,
					.confidence = m->mo->confidence,
					.runs = m->runs,
					.skips = m->skips };
	json_t *root = mreport_json(m->e, &m->g, m->repo, &o, st, pick);
	struct buf b;
	int rc = 0;

	if (!root)
		return err_set(ERR_NOMEM, "out of memory");
	json_object_set_new(root, "mode", json_string("run"));
	buf_init(&b, 1 << 24);
	rc = mreport_text(&b, root);
	if (!rc)
		fputs(buf_str(&b), stdout);
	buf_release(&b);
	if (!rc && json_path && json_dump_file(root, json_path, JSON_INDENT(2)))
		rc = err_set(ERR_INFRA, "cannot write '%s'", json_path);
	json_decref(root);
	return rc ? rc : st == ENGINE_FOUND ? EXIT_FOUND : EXIT_AMBIGUOUS;
}

/* --- the loop ------------------------------------------------------- */

static int bisect(struct mrun *m, enum engine_state *st, uint32_t *pick)
{
	const struct metric_opts *mo = m->mo;
	struct gu_oid good;
	int rc = 0, i;

	if ((rc = gu_resolve(m->repo, mo->goods[0], &good)))
		return rc;
	for (i = 0; i < BASELINE_RUNS && !rc; i++)
		rc = observe(m, 0, 1, &good);
	if (!rc && !isfinite(engine_metric_baseline_median(m->e)))
		rc = err_set(ERR_INPUT,
			     "the good commit '%s' gave no value of '%s'",
			     mo->goods[0], mo->name);
	while (!rc) {
		*st = engine_next(m->e, pick);
		if (*st != ENGINE_TEST && *st != ENGINE_VERIFY)
			break;
		rc = observe(m, *pick, 0, &m->g.oids[*pick]);
		if (!rc && m->bad_skips >= BASELINE_RUNS)
			rc = err_set(
				ERR_INPUT,
				"the bad commit '%s' gave no value of '%s'",
				mo->bad, mo->name);
	}
	return rc;
}

int ctl_run_metric(const struct metric_opts *mo)
{
	struct mrun m = { .mo = mo };
	struct gu_oid bad, goods[64];
	enum engine_state st = ENGINE_NOTHING;
	uint32_t pick = 0;
	char *out = NULL;
	size_t i;
	long idx;
	int rc;

	if ((rc = gu_open(&m.repo, mo->repo_path)) ||
	    (rc = gu_resolve(m.repo, mo->bad, &bad)))
		goto fail;
	for (i = 0; i < mo->ngoods; i++)
		if ((rc = gu_resolve(m.repo, mo->goods[i], &goods[i])))
			goto fail;
	if ((rc = gu_graph_load(&m.g, m.repo, &bad, goods, mo->ngoods)))
		goto fail;
	idx = gu_graph_find(&m.g, &bad);
	if (idx < 0) {
		rc = err_set(ERR_INPUT, "the bad commit is reachable from a "
					"good one: nothing to bisect");
		goto fail;
	}
	out = ctl_make_out_dir(mo->out);
	m.tree = out ? util_fmt("%s/tree", out) : NULL;
	if (!m.tree || (rc = engine_new(&m.e, m.g.n))) {
		rc = rc ? rc : ERR_INFRA;
		goto fail;
	}
	for (i = 0; i < m.g.nedges; i++)
		engine_add_parent(m.e, m.g.edge_child[i], m.g.edge_parent[i]);
	m.bad = (uint32_t)idx;
	if ((rc = engine_set_metric(m.e, mo->higher, mo->min_change)) ||
	    (rc = engine_set_bad(m.e, m.bad)))
		goto fail;
	engine_set_confidence(m.e, mo->confidence,
			      mo->max_runs ? mo->max_runs : DEFAULT_MAX_RUNS);
	if ((rc = bisect(&m, &st, &pick)))
		goto fail;
	rc = report(&m, st, pick, mo->json);
	if (rc < 0)
		rc = ctl_fail(rc);
	goto out;
fail:
	rc = ctl_fail(rc);
out:
	engine_free(m.e);
	gu_graph_release(&m.g);
	gu_close(m.repo);
	free(m.tree);
	free(out);
	return rc;
}
