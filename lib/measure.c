// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsing of "bisect-metric: NAME VALUE [UNIT]" lines (see measure.h).
 * Input is untrusted (a guest's console, a command's output): every
 * length is bounded, nothing is copied past its buffer, and a value must
 * be a finite number written in full.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "measure.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
	       c == ':' || c == '/';
}

int measure_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (!name_char(name[i]) || i >= MEASURE_NAME_MAX)
			return 0;
	return i > 0;
}

/* Where the mark starts in line, or -1: at the start or after a blank
 * or ']'. */
static long find_mark(const char *line, size_t len)
{
	size_t k = sizeof(MEASURE_MARK) - 1, i;

	for (i = 0; i + k <= len; i++)
		if ((i == 0 || is_blank(line[i - 1]) || line[i - 1] == ']') &&
		    !memcmp(line + i, MEASURE_MARK, k))
			return (long)i;
	return -1;
}

/* The next word of line[*pos..len): its start and length (0: none). */
static size_t word(const char *line, size_t len, size_t *pos,
		   const char **start)
{
	size_t n = 0;

	while (*pos < len && is_blank(line[*pos]))
		(*pos)++;
	*start = line + *pos;
	while (*pos < len && !is_blank(line[*pos])) {
		(*pos)++;
		n++;
	}
	return n;
}

static int parse_value(double *out, const char *w, size_t n)
{
	char buf[64], *end;

	if (n == 0)
		return err_set(ERR_INPUT, "measurement has no value");
	if (n >= sizeof(buf))
		return err_set(ERR_INPUT, "measurement value too long");
	memcpy(buf, w, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (end == buf || *end)
		return err_set(ERR_INPUT,
			       "measurement value '%s' is not a number", buf);
	if (!isfinite(*out) || errno == ERANGE)
		return err_set(ERR_INPUT,
			       "measurement value '%s' is not a finite number",
			       buf);
	return 0;
}

int measure_parse_line(struct measure *out, const char *line, size_t len)
{
	long at = find_mark(line, len);
	size_t pos, n, i;
	const char *w;
	int rc;

	memset(out, 0, sizeof(*out));
	if (at < 0)
		return 0;
	pos = (size_t)at + sizeof(MEASURE_MARK) - 1;
	n = word(line, len, &pos, &w);
	if (n == 0)
		return err_set(ERR_INPUT, "measurement has no name");
	if (n > MEASURE_NAME_MAX)
		return err_set(ERR_INPUT, "measurement name too long");
	memcpy(out->name, w, n);
	if (!measure_name_ok(out->name))
		return err_set(ERR_INPUT, "bad measurement name '%s'",
			       out->name);
	n = word(line, len, &pos, &w);
	if ((rc = parse_value(&out->value, w, n)))
		return rc;
	n = word(line, len, &pos, &w);
	if (n > MEASURE_UNIT_MAX)
		return err_set(ERR_INPUT, "measurement unit too long");
	for (i = 0; i < n; i++)
		/* shown on terminals, in mail and on the web as it is */
		if (w[i] < 0x21 || w[i] > 0x7e)
			return err_set(
				ERR_INPUT,
				"the unit of '%s' is not printable ASCII",
				out->name);
	memcpy(out->unit, w, n);
	if (word(line, len, &pos, &w))
		return err_set(ERR_INPUT, "words after the measurement of '%s'",
			       out->name);
	return 1;
}

int measure_collect(double **out, size_t *nout, size_t *nbad, const char *text,
		    size_t len, const char *name)
{
	size_t i = 0, cap = 0, bad = 0;
	double *v = NULL, *p;

	*out = NULL;
	*nout = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
		struct measure m;
		int rc = measure_parse_line(&m, text + i, l);

		if (rc < 0 && !bad++)
			err_wrap(ERR_INPUT, "line '%.*s'",
				 (int)(l < 60 ? l : 60), text + i);
		i += l + 1;
		if (rc <= 0 || strcmp(m.name, name))
			continue;
		if (*nout == cap) {
			cap = cap ? cap * 2 : 8;
			p = realloc(v, cap * sizeof(*v));
			if (!p) {
				free(v);
				return err_set(ERR_NOMEM, "out of memory");
			}
			v = p;
		}
		v[(*nout)++] = m.value;
	}
	if (nbad)
		*nbad = bad;
	*out = v;
	return 0;
}
