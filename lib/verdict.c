// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names of verdicts, as they appear in JSON, logs and reports.
 */
#include <string.h>

#include "verdict.h"

static const char *const names[] = {
	[VERDICT_NONE] = "none",   [VERDICT_GOOD] = "good",
	[VERDICT_BAD] = "bad",	   [VERDICT_SKIP] = "skip",
	[VERDICT_INFRA] = "infra",
};

const char *verdict_name(enum verdict v)
{
	if ((unsigned)v >= sizeof(names) / sizeof(names[0]))
		return "none";
	return names[v];
}

enum verdict verdict_parse(const char *name)
{
	size_t i;

	for (i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum verdict)i;
	return VERDICT_NONE;
}
