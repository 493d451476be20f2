// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reports of bisectctl's verify and build commands.  In the text,
 * what came from the tree, the patches or a console (titles, patch
 * names, uname) is shown with its control characters escaped.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cmdreport.h"
#include "digest.h"
#include "engine.h"
#include "error.h"
#include "util.h"

/* "patch: NAME" for each patch applied, as shown. */
static void patch_lines(struct buf *text, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf_puts(text, "patch: ");
		buf_put_shown(text, names[i], 0);
		buf_puts(text, "\n");
	}
}

/* verify --metric's comparison: medians, change and interval */
static json_t *metric_json(const struct verify_report *v)
{
	const struct metric_change *c = v->change;
	json_t *m = json_pack(
		"{s:s, s:s, s:s, s:f}", "name", v->metric, "direction",
		v->higher ? "higher-is-better" : "lower-is-better", "unit",
		v->unit ? v->unit : "", "min_change", v->min_change);

	json_t *d =
		c ? json_pack("{s:f, s:f, s:I, s:I, s:f, s:f, s:f}",
			      "median_without", c->median0, "median_with",
			      c->median1, "values_without", (json_int_t)c->n0,
			      "values_with", (json_int_t)c->n1, "change",
			      c->change, "change_low", c->change_lo,
			      "change_high", c->change_hi)
		  : NULL;

	if (m && d)
		json_object_update(m, d);
	json_decref(d);
	return m;
}

int report_verify(char **json, struct buf *text, const struct verify_report *v)
{
	json_t *o = json_object(), *patches = json_array();
	size_t i;

	for (i = 0; i < v->npatches; i++)
		json_array_append_new(patches, json_string(v->patches[i]));
	json_object_set_new(o, "result", json_string(v->result));
	json_object_set_new(o, "reason", json_string(v->reason));
	json_object_set_new(o, "repo", json_string(v->repo_path));
	json_object_set_new(o, "patches", patches);
	json_object_set_new(o, "patched_commit", json_string(v->patched_hex));
	json_object_set_new(o, "base", step_result_json(v->base));
	json_object_set_new(o, "patched", step_result_json(v->patched));
	if (v->metric)
		json_object_set_new(o, "metric", metric_json(v));
	*json = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!*json)
		return err_set(ERR_NOMEM, "out of memory");
	buf_printf(text, "%s: ", v->result);
	buf_put_shown(text, v->reason, 0);
	buf_puts(text, "\n\nwithout the patches:\n");
	step_result_text(text, v->base);
	buf_puts(text, "\nwith the patches:\n");
	step_result_text(text, v->patched);
	patch_lines(text, v->patches, v->npatches);
	return 0;
}

int report_build(char **json, struct buf *text, const struct build_report *b)
{
	json_t *o = json_object(), *pk = json_array(), *pa = json_array();
	const struct package_result *r = b->packages;
	size_t i;

	for (i = 0; i < b->npatches; i++)
		json_array_append_new(pa, json_string(b->patches[i]));
	for (i = 0; r && i < r->nfiles; i++) {
		char *path = util_fmt("%s/%s", b->packages_dir, r->files[i]);
		char sum[65] = "";
		struct stat st;

		if (path && !stat(path, &st) && !digest_file_hex(sum, path))
			json_array_append_new(
				pk, json_pack("{s:s, s:I, s:s}", "name",
					      r->files[i], "size",
					      (json_int_t)st.st_size, "sha256",
					      sum));
		free(path);
	}
	json_object_set_new(o, "result", json_string(b->result));
	json_object_set_new(o, "id", json_string(b->id));
	json_object_set_new(o, "repo", json_string(b->repo_path));
	json_object_set_new(o, "base", json_string(b->base_hex));
	json_object_set_new(o, "patched_commit", json_string(b->patched_hex));
	json_object_set_new(o, "patches", pa);
	json_object_set_new(o, "recipe", json_string(b->recipe));
	json_object_set_new(o, "release",
			    json_pack("s?", r ? r->release : NULL));
	json_object_set_new(o, "deb_version",
			    json_pack("s?", r ? r->deb_version : NULL));
	json_object_set_new(o, "rpm_version",
			    json_pack("s?", r ? r->rpm_version : NULL));
	json_object_set_new(o, "packages", pk);
	json_object_set_new(o, "package_seconds",
			    json_real(r ? r->seconds : 0));
	json_object_set_new(o, "smoke", step_result_json(b->smoke));
	if (b->install)
		json_object_set_new(
			o, "install",
			json_pack("{s:s, s:s, s:o, s:f, s:f}", "verdict",
				  verdict_name(b->install->verdict), "title",
				  b->install->title, "uname",
				  json_pack("s?", b->install->uname), "seconds",
				  b->install->seconds, "boot_seconds",
				  b->install->boot_s));
	json_object_set_new(o, "out_dir", json_string(b->out_dir));
	*json = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!*json)
		return err_set(ERR_NOMEM, "out of memory");
	buf_printf(text, "%s: kernel %s (id %s)\n", b->result,
		   r && r->release ? r->release : "-", b->id);
	buf_printf(text, "smoke test: %s%s", verdict_name(b->smoke->verdict),
		   *b->smoke->title ? ": " : "");
	buf_put_shown(text, b->smoke->title, 0);
	buf_puts(text, "\n");
	if (b->install && b->install->verdict == VERDICT_GOOD) {
		buf_puts(text, "install test: good: dpkg -i into Debian 12, "
			       "booted from its disk: uname -r ");
		buf_put_shown(text, b->install->uname, 0);
		buf_printf(text, " (%.0f s)\n", b->install->seconds);
	} else if (b->install) {
		buf_printf(text, "install test: %s: ",
			   verdict_name(b->install->verdict));
		buf_put_shown(text, b->install->title, 0);
		buf_puts(text, "\n");
	}
	patch_lines(text, b->patches, b->npatches);
	for (i = 0; r && i < r->nfiles; i++)
		buf_printf(text, "  %s/%s\n", b->packages_dir, r->files[i]);
	if (r && r->nfiles)
		buf_printf(text,
			   "  %s/SHA256SUMS\n  %s/index.html (install "
			   "and Secure Boot notes)\n",
			   b->packages_dir, b->packages_dir);
	buf_printf(text, "output: %s\n", b->out_dir);
	return 0;
}
