// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of a metric bisection's report (lib/mreport.c): the JSON
 * built from the engine over a small history, and the text written from
 * it, line by line as bisectctl run --metric and bisectd print it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "engine.h"
#include "error.h"
#include "mreport.h"

/* A line of 5 commits, newest first (0 is the bad one); 2 brings a 20%
 * slowdown: 0, 1 and 2 run at 12, 3 and 4 at 10, the baseline at 10. */
#define N 5
static struct gu_oid oids[N];
static uint32_t child[N - 1], parent[N - 1];

static void history(struct gu_graph *g, struct engine **e)
{
	static const double noise[] = { 0.99, 1.01, 1.0, 0.98, 1.02 };
	double v[5];
	size_t i, k;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < N; i++)
		memset(&oids[i], (int)(0x10 + i), sizeof(oids[i]));
	for (i = 0; i + 1 < N; i++) {
		child[i] = (uint32_t)i;
		parent[i] = (uint32_t)(i + 1);
	}
	g->oids = oids;
	g->n = N;
	g->edge_child = child;
	g->edge_parent = parent;
	g->nedges = N - 1;
	assert_int_equal(engine_new(e, N), 0);
	for (i = 0; i + 1 < N; i++)
		engine_add_parent(*e, child[i], parent[i]);
	assert_int_equal(engine_set_metric(*e, 0, 0.05), 0);
	assert_int_equal(engine_set_bad(*e, 0), 0);
	engine_set_confidence(*e, 0.95, 300);
	for (k = 0; k < 5; k++)
		v[k] = 10 * noise[k];
	assert_int_equal(engine_observe_baseline(*e, v, 5), 0);
	for (i = 0; i < N; i++) {
		for (k = 0; k < 5; k++)
			v[k] = (i <= 2 ? 12 : 10) * noise[(k + i) % 5];
		assert_int_equal(engine_observe_values(*e, (uint32_t)i, v, 5),
				 0);
	}
}

static void test_mreport__json_and_text(void **state)
{
	const struct mreport_opts o = { .name = "t",
					.unit = "ms",
					.min_change = 0.05,
					.confidence = 0.95,
					.runs = 30,
					.skips = 1 };
	struct gu_graph g;
	struct engine *e;
	uint32_t pick = 0;
	enum engine_state st;
	json_t *r, *c;
	struct buf b;
	char hex[GU_HEXSZ + 1];
	const char *text;

	(void)state;
	history(&g, &e);
	st = engine_next(e, &pick);
	assert_int_equal(st, ENGINE_FOUND);
	assert_int_equal(pick, 2);
	r = mreport_json(e, &g, NULL, &o, st, pick);
	assert_non_null(r);
	gu_oid_hex(hex, &oids[2]);
	assert_string_equal(json_string_value(json_object_get(r, "culprit")),
			    hex);
	assert_string_equal(json_string_value(json_object_get(r, "direction")),
			    "lower-is-better");
	c = json_object_get(json_object_get(r, "summary"), "change");
	assert_true(json_real_value(c) > 0.15 && json_real_value(c) < 0.25);
	/* every tested commit, with its side of the culprit */
	assert_int_equal(json_array_size(json_object_get(r, "commits")), N);
	c = json_array_get(json_object_get(r, "commits"), 2);
	assert_true(json_is_true(json_object_get(c, "after")));
	assert_int_equal(json_array_size(json_object_get(c, "value_list")), 5);
	c = json_array_get(json_object_get(r, "commits"), 3);
	assert_true(json_is_false(json_object_get(c, "after")));
	/* its parent in the verification */
	c = json_array_get(
		json_object_get(json_object_get(r, "verification"), "parents"),
		0);
	gu_oid_hex(hex, &oids[3]);
	assert_string_equal(json_string_value(json_object_get(c, "commit")),
			    hex);

	buf_init(&b, 1 << 16);
	assert_int_equal(mreport_text(&b, r), 0);
	text = buf_str(&b);
	assert_non_null(strstr(text,
			       "first bad commit (metric t):\n  1212121212"
			       "12 12 ms (5 values)  \n"));
	assert_non_null(strstr(text, "\nmedian before 10 ms, after 12 ms: "
				     "+20.0% (95% interval +"));
	/* before: the baseline's 5 values and those of 3 and 4 */
	assert_non_null(strstr(text, "\nruns: 15 values before, 15 after\n"));
	assert_non_null(strstr(text, "\nverification:\n  culprit 121212121212"
				     " 12 ms (5 values)  \n  parent  13131313"
				     "1313 10 ms (5 values)  \n"));
	assert_non_null(strstr(text, "\nmedians per commit (30 runs, 1 "
				     "skipped):\n  good 10 ms (baseline)\n"));
	buf_release(&b);
	/* ambiguous: the likeliest commit, said so */
	json_object_set_new(r, "result", json_string("ambiguous"));
	json_object_set(r, "most_probable", json_object_get(r, "culprit"));
	buf_init(&b, 1 << 16);
	assert_int_equal(mreport_text(&b, r), 0);
	assert_non_null(strstr(buf_str(&b), "ambiguous: no commit reached the "
					    "confidence 0.95\n  most probable "
					    "121212121212 12 ms"));
	buf_release(&b);
	json_decref(r);
	engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mreport__json_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
