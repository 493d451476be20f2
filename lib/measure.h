/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Measurements in a run's output: lines "bisect-metric: NAME VALUE
 * [UNIT]" that a command (generic mode) or a guest test (kernel mode)
 * prints, several per run if it likes.  These are a benchmark's values
 * for metric bisection (lib/metric.c); the coordinator's Prometheus
 * /metrics is another thing (bisectd/metrics.c).
 */
#ifndef BISECTD_MEASURE_H
#define BISECTD_MEASURE_H

#include <stddef.h>

#define MEASURE_MARK "bisect-metric:"
#define MEASURE_NAME_MAX 64
#define MEASURE_UNIT_MAX 16

struct measure {
	char name[MEASURE_NAME_MAX + 1];
	char unit[MEASURE_UNIT_MAX + 1]; /* "" when none */
	double value;
};

/*
 * Parse one line (len bytes, no newline needed).  The mark may follow
 * a prefix that ends in a blank or ']' (a console's timestamp).  Returns
 * 1 and fills *out for a measurement, 0 for a line without the mark,
 * ERR_INPUT with the reason in err_last() for a line with the mark that
 * is not one: a bad name, a value that is not a finite number, a unit
 * of other than printable ASCII (a control character would reach
 * terminals and mail as it is), words after the unit.
 */
int measure_parse_line(struct measure *out, const char *line, size_t len);

/*
 * The values of name in text (len bytes, lines), in order.  *out (the
 * caller frees it) gets them, *nout how many (0: none).  Lines with the
 * mark that are not measurements are counted in *nbad (may be NULL)
 * and the first one's reason is left in err_last(); they never stop the
 * scan.  Returns 0 or ERR_NOMEM.
 */
int measure_collect(double **out, size_t *nout, size_t *nbad, const char *text,
		    size_t len, const char *name);

/* 1 when name can be a measurement's name: [A-Za-z0-9_.:/-]{1,64}. */
int measure_name_ok(const char *name);

#endif
