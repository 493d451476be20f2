/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bisectctl --server: send a job to a running bisectd and follow it.
 */
#ifndef BISECTD_REMOTE_H
#define BISECTD_REMOTE_H

#include <stdio.h>

#include "job.h"

/*
 * Submit spec, print a line per step as the job goes on, then the
 * report; save the JSON report in json_path (may be NULL).  Returns the
 * exit status bisectctl gives for the job's end: a bisection as
 * bisectctl bisect (0 found, 1 ambiguous, 2 bad input, 3 infra), a test
 * as bisectctl test (0 good, 1 bad, 125 skip, 3 infra), releases as
 * bisectctl releases (as a bisection; json_path gets its "releases").
 */
int remote_run(const char *server, const char *token,
	       const struct job_spec *spec, const char *json_path,
	       FILE *progress);

/*
 * bisectctl --server releases --manual (spec) or --continue (verdict):
 * submit the manual releases job, or answer the one saved in
 * state_path; follow it until it waits for the next answer (the
 * release to install is printed, the job saved in state_path, the
 * result so far written to json_path; exit 0) or ends (the answer as
 * remote_run prints it).
 */
int remote_manual(const char *server, const char *token,
		  const struct job_spec *spec, const char *verdict,
		  const char *state_path, const char *json_path,
		  FILE *progress);

#endif
