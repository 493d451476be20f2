// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a kernel build log: the first compiler or linker error, which
 * is the evidence a skipped step carries.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

static const char *const needles[] = {
	": error: ",		    /* gcc, clang */
	": fatal error: ",	    /* missing header */
	": undefined reference to", /* ld */
	"Error: ",		    /* as, scripts */
	"make[1]: *** ",	    /* make, when nothing better is there */
	"make: *** ",
};

char *build_first_error(const char *log)
{
	size_t i;

	for (i = 0; i < sizeof(needles) / sizeof(needles[0]); i++) {
		const char *hit = strstr(log, needles[i]), *start, *end;

		if (!hit)
			continue;
		start = hit;
		while (start > log && start[-1] != '\n')
			start--;
		end = strchr(hit, '\n');
		if (!end)
			end = hit + strlen(hit);
		return strndup(start, (size_t)(end - start));
	}
	return NULL;
}
