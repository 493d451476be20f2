// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: everything bisectd parses from a request body.  The
 * first byte picks the parser (job request, worker registration, step
 * result, assignment, or the names and numbers of a query: a number, an
 * id, a recipe name, a repository URL); the rest is the body.  Each parser must either
 * accept the body or refuse it with ERR_INPUT and a message, and never
 * crash, leak or read out of bounds (AddressSanitizer, UBSan).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "job.h"
#include "policy.h"
#include "recipe.h"
#include "step.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	int rc = 0;

	if (size == 0)
		return 0;
	switch (data[0] % 5) {
	case 0: {
		struct job_spec spec;

		rc = job_spec_parse(&spec, body, len);
		if (rc == 0) {
			/* what was accepted serializes and parses again */
			char *again = job_spec_dump(&spec);
			struct job_spec round;

			if (!again ||
			    job_spec_parse(&round, again, strlen(again)) != 0)
				abort();
			job_spec_release(&round);
			free(again);
			job_spec_release(&spec);
		}
		break;
	}
	case 1: {
		struct job_caps caps;

		rc = job_caps_parse(&caps, body, len);
		if (rc == 0)
			job_caps_release(&caps);
		break;
	}
	case 2: {
		char verdict[8];

		rc = step_result_check(body, len, NULL, verdict);
		break;
	}
	case 3: {
		struct step_assignment a;

		rc = step_assignment_parse(&a, body, len);
		if (rc == 0)
			job_spec_release(&a.spec);
		break;
	}
	case 4: {
		/* as MHD hands them over: text up to the first NUL */
		char *s = strndup(body, len), *url = NULL;
		double d;
		long long id;

		if (!s)
			return 0;
		if (!job_query_number("q", s, 0, 30, &d) &&
		    !(d >= 0 && d <= 30))
			abort();
		if (!job_query_id("q", s, &id) && id <= 0)
			abort();
		if (recipe_name_ok(s) && (strchr(s, '/') || s[0] == '.'))
			abort(); /* a recipe name is never a path */
		if (!policy_url_normalise(s, &url)) {
			char *again = NULL;

			/* the normal form is its own normal form */
			if (policy_url_normalise(url, &again) ||
			    strcmp(url, again))
				abort();
			free(again);
			free(url);
		}
		free(s);
		err_clear();
		break;
	}
	}
	if (rc != 0 && (rc != ERR_INPUT || !*err_last()))
		abort(); /* refusals are bad input, with a reason */
	return 0;
}
