/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a step found.  Verdicts are their own type and never mixed with
 * error codes: a failure to run a step is VERDICT_INFRA, not a bad commit.
 */
#ifndef BISECTD_VERDICT_H
#define BISECTD_VERDICT_H

enum verdict {
	VERDICT_NONE = 0,
	VERDICT_GOOD,
	VERDICT_BAD,
	VERDICT_SKIP,
	VERDICT_INFRA,
};

const char *verdict_name(enum verdict v);
/* VERDICT_NONE for an unknown name. */
enum verdict verdict_parse(const char *name);

#endif
