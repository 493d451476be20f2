// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulation benchmark of the engine (make bench): simulated
 * bisections over random DAGs with merges, for several failure rates,
 * with the engine's confidence against git's bisection with the
 * all-runs-must-pass rule.
 *
 * With --grid, the confidence engine alone where good commits fail too:
 * every failure rate before the culprit (p0) against every rate after
 * it (p1).
 *
 * --rates P0,P1 runs one line of the grid.
 *
 * With --fix, fix bisections: the engine finds the first commit on which
 * a failure is gone, for every failure rate before the fix (1.0, 0.8,
 * 0.5, 0.3) against every rate after it (0, 0.02, 0.05).  --fix-rates
 * BEFORE,AFTER runs one such line.
 *
 * With --metric, performance regressions (metric mode): slowdowns of 5%,
 * 10% and 20% under per-run noise of 3% and 5% (coefficient of
 * variation), and a line where 1% of the runs are outliers at 3x.
 * --shift S,CV[,OUTLIERS] runs one such line.
 *
 *   bisect-sim [--grid | --rates P0,P1 | --metric | --shift S,CV[,O]]
 *              [--jobs N] [--commits N] [--workers W] [--seed S]
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "simbisect.h"

struct tally {
	unsigned jobs, right, found, found_right, noreproduce;
	unsigned long runs;
};

static void one(struct tally *t, const struct sim_dag *d, double q, double p0,
		size_t w, double conf, unsigned runs, int fix, uint64_t *rng)
{
	uint32_t culprit = (uint32_t)(sim_rand(rng) % d->n);
	struct sim_result r;

	if (fix ? sim_bisect_fix(&r, d, culprit, p0, q, w, conf, rng)
		: sim_bisect(&r, d, culprit, q, p0, w, conf, runs, rng)) {
		fprintf(stderr, "bisect-sim: out of memory\n");
		exit(3);
	}
	t->jobs++;
	t->runs += r.runs;
	t->noreproduce += r.not_reproduced;
	if (r.found) {
		t->found++;
		t->right += r.culprit == culprit;
		t->found_right += r.culprit == culprit;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bisect-sim [--grid | --rates P0,P1 | --fix | "
		   "--fix-rates B,A | --metric | --shift S,CV[,O]] [--jobs N] "
		   "[--commits N] [--workers W] [--seed S]\n");
}

/* One metric line: jobs bisections at confidence 0.95; 1 when it met the
 * targets (calibrated at >= 93%, accurate at >= 95% where the shift is
 * at least twice the noise) */
static int metric_line(double shift, double cv, double outliers, unsigned jobs,
		       unsigned commits, size_t w, uint64_t seed)
{
	struct sim_metric p = { .shift = shift,
				.cv = cv,
				.outliers = outliers,
				.confidence = 0.95,
				.w = w,
				.max_runs = 500 };
	uint64_t rng = seed * 2654435761u + (uint64_t)(shift * 1000) * 7919 +
		       (uint64_t)(cv * 1000) * 31 + (uint64_t)(outliers * 1000);
	struct tally t = { 0 };
	double acc, cal;
	unsigned k;
	int ok;

	for (k = 0; k < jobs; k++) {
		uint32_t culprit;
		struct sim_result r;
		struct sim_dag d;

		if (sim_dag_new(&d, commits, &rng))
			exit(3);
		culprit = (uint32_t)(sim_rand(&rng) % d.n);
		if (sim_metric_bisect(&r, &d, culprit, &p, &rng))
			exit(3);
		t.jobs++;
		t.runs += r.runs;
		if (r.found) {
			t.found++;
			t.right += r.culprit == culprit;
			t.found_right += r.culprit == culprit;
		}
		sim_dag_free(&d);
	}
	acc = 100.0 * t.right / t.jobs;
	cal = t.found ? 100.0 * t.found_right / t.found : 100;
	ok = cal >= 93 && (shift < 2 * cv || acc >= 95);
	printf("%4.0f%% %4.0f%% %7.0f%% %8.1f%% %9.1f %10.1f%% (%u of %u "
	       "found)%s\n",
	       shift * 100, cv * 100, outliers * 100, acc,
	       (double)t.runs / t.jobs, cal, t.found_right, t.found,
	       ok ? "" : "  (target missed)");
	fflush(stdout);
	return ok;
}

static int metric_lines(unsigned jobs, unsigned commits, size_t w,
			uint64_t seed)
{
	static const double shifts[] = { 0.05, 0.10, 0.20 };
	static const double cvs[] = { 0.03, 0.05 };
	unsigned i, j, met = 0, lines = 0;

	printf("# metric: %u simulated bisections per line, %u-commit DAGs "
	       "with merges, %u worker(s), confidence 0.95\n",
	       jobs, commits, (unsigned)w);
	printf("%5s %5s %8s %9s %9s %11s %s\n", "shift", "noise", "outliers",
	       "accuracy", "mean runs", "calibrated", "(right of those found)");
	for (i = 0; i < sizeof(shifts) / sizeof(*shifts); i++)
		for (j = 0; j < sizeof(cvs) / sizeof(*cvs); j++) {
			met += metric_line(shifts[i], cvs[j], 0, jobs, commits,
					   w, seed);
			lines++;
		}
	met += metric_line(0.10, 0.03, 0.01, jobs, commits, w, seed);
	lines++;
	printf("target: calibrated >= 93%% on every line, accuracy >= 95%% "
	       "where the shift is >= 2x the noise: %u of %u lines meet "
	       "it\n",
	       met, lines);
	return met == lines ? 0 : 1;
}

/* One line: jobs bisections at confidence 0.95; 1 when it met the
 * targets (calibrated at >= 93%, accurate at >= 95% where the rates
 * differ by 0.5 or more).  fix: p0 is the failure rate before the fix,
 * p1 after it. */
static int grid_line(double p0, double p1, unsigned jobs, unsigned commits,
		     size_t w, int fix, uint64_t seed)
{
	uint64_t rng = seed * 2654435761u + (uint64_t)(p0 * 1000) * 7919 +
		       (uint64_t)(p1 * 1000) + (uint64_t)fix * 104729;
	struct tally t = { 0 };
	double acc, cal;
	unsigned k;
	int ok;

	for (k = 0; k < jobs; k++) {
		struct sim_dag d;

		if (sim_dag_new(&d, commits, &rng))
			exit(3);
		one(&t, &d, p1, p0, w, 0.95, 1, fix, &rng);
		sim_dag_free(&d);
	}
	acc = 100.0 * t.right / t.jobs;
	cal = t.found ? 100.0 * t.found_right / t.found : 100;
	ok = cal >= 93 && (fabs(p1 - p0) < 0.5 || acc >= 95);
	printf("%-5.2f %-5.2f %8.1f%% %9.1f %10.1f%% (%u of %u found)%s\n", p0,
	       p1, acc, (double)t.runs / t.jobs, cal, t.found_right, t.found,
	       ok ? "" : "  (target missed)");
	fflush(stdout);
	return ok;
}

static int grid(unsigned jobs, unsigned commits, size_t w, uint64_t seed)
{
	static const double before[] = { 0, 0.02, 0.05, 0.1 };
	static const double after[] = { 1.0, 0.8, 0.5, 0.3 };
	unsigned i, j, met = 0, lines = 0;

	printf("# %u simulated bisections per line, %u-commit DAGs with "
	       "merges, %u worker(s), confidence 0.95\n",
	       jobs, commits, (unsigned)w);
	printf("%-5s %-5s %9s %9s %11s %s\n", "p0", "p1", "accuracy",
	       "mean runs", "calibrated", "(right of those found)");
	for (i = 0; i < sizeof(before) / sizeof(*before); i++)
		for (j = 0; j < sizeof(after) / sizeof(*after); j++) {
			met += grid_line(before[i], after[j], jobs, commits, w,
					 0, seed);
			lines++;
		}
	printf("target: calibrated >= 93%% on every line, accuracy >= 95%% "
	       "where p1 - p0 >= 0.5: %u of %u lines meet it\n",
	       met, lines);
	return 0;
}

/* Fix bisections: every failure rate before the fix against every rate
 * after it. */
static int fix_grid(unsigned jobs, unsigned commits, size_t w, uint64_t seed)
{
	static const double before[] = { 1.0, 0.8, 0.5, 0.3 };
	static const double after[] = { 0, 0.02, 0.05 };
	unsigned i, j, met = 0, lines = 0;

	printf("# fix: %u simulated bisections per line, %u-commit DAGs with "
	       "merges, %u worker(s), confidence 0.95\n",
	       jobs, commits, (unsigned)w);
	printf("%-6s %-5s %9s %9s %11s %s\n", "before", "after", "accuracy",
	       "mean runs", "calibrated", "(right of those found)");
	for (i = 0; i < sizeof(before) / sizeof(*before); i++)
		for (j = 0; j < sizeof(after) / sizeof(*after); j++) {
			met += grid_line(before[i], after[j], jobs, commits, w,
					 1, seed);
			lines++;
		}
	printf("target: calibrated >= 93%% on every line, accuracy >= 95%% "
	       "where the rates differ by 0.5 or more: %u of %u lines meet "
	       "it\n",
	       met, lines);
	return met == lines ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "commits", required_argument, NULL, 'n' },
		{ "workers", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "grid", no_argument, NULL, 'g' },
		{ "rates", required_argument, NULL, 'r' },
		{ "fix", no_argument, NULL, 'f' },
		{ "fix-rates", required_argument, NULL, 'F' },
		{ "metric", no_argument, NULL, 'm' },
		{ "shift", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const double rates[] = { 1.0, 0.7, 0.5, 0.3 };
	static const unsigned rules[] = { 1, 3, 5, 10 };
	double acc[4][5], mruns[4][5];
	unsigned jobs = 1000, commits = 1000, w = 1, i, r, k;
	uint64_t seed = 1;
	int c, want_grid = 0;
	double p0 = 0, p1 = 1, shift = 0, cv = 0, outl = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			jobs = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			commits = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			w = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'g':
			want_grid = 1;
			break;
		case 'r':
			if (sscanf(optarg, "%lf,%lf", &p0, &p1) != 2 ||
			    p0 < 0 || p1 > 1 || p0 >= p1) {
				fprintf(stderr, "bisect-sim: --rates takes "
						"P0,P1 with 0 <= P0 < P1 <= "
						"1\n");
				return 2;
			}
			want_grid = 2;
			break;
		case 'f':
			want_grid = 5;
			break;
		case 'F':
			if (sscanf(optarg, "%lf,%lf", &p0, &p1) != 2 ||
			    p1 < 0 || p0 > 1 || p1 >= p0) {
				fprintf(stderr, "bisect-sim: --fix-rates takes "
						"BEFORE,AFTER with 0 <= AFTER "
						"< BEFORE <= 1\n");
				return 2;
			}
			want_grid = 6;
			break;
		case 'm':
			want_grid = 3;
			break;
		case 'S':
			if (sscanf(optarg, "%lf,%lf,%lf", &shift, &cv, &outl) <
				    2 ||
			    !(shift > 0 && shift < 5) || !(cv > 0 && cv < 1) ||
			    !(outl >= 0 && outl < 0.5)) {
				fprintf(stderr, "bisect-sim: --shift takes "
						"S,CV[,OUTLIERS] as fractions "
						"(0.1,0.03,0.01)\n");
				return 2;
			}
			want_grid = 4;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!jobs || commits < 20 || !w || w > 16 || !seed) {
		fprintf(stderr, "bisect-sim: bad --jobs, --commits (>= 20), "
				"--workers (1-16) or --seed\n");
		return 2;
	}
	if (want_grid == 1)
		return grid(jobs, commits, w, seed);
	if (want_grid == 2)
		return !grid_line(p0, p1, jobs, commits, w, 0, seed);
	if (want_grid == 5)
		return fix_grid(jobs, commits, w, seed);
	if (want_grid == 6)
		return !grid_line(p0, p1, jobs, commits, w, 1, seed);
	if (want_grid == 3)
		return metric_lines(jobs, commits, w, seed);
	if (want_grid == 4)
		return !metric_line(shift, cv, outl, jobs, commits, w, seed);
	printf("# %u simulated bisections per line, %u-commit DAGs with "
	       "merges, %u worker(s)\n",
	       jobs, commits, w);
	printf("%-6s %-22s %9s %9s %11s %s\n", "rate", "method", "accuracy",
	       "mean runs", "calibrated", "(right of those found at >= 0.95)");
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		for (r = 0; r <= sizeof(rules) / sizeof(rules[0]); r++) {
			uint64_t rng = seed * 2654435761u + i;
			struct tally t = { 0 };
			char name[32];

			for (k = 0; k < jobs; k++) {
				struct sim_dag d;

				if (sim_dag_new(&d, commits, &rng))
					return 3;
				if (r == 0)
					one(&t, &d, rates[i], 0, w, 0.95, 1, 0,
					    &rng);
				else
					one(&t, &d, rates[i], 0, w, 0,
					    rules[r - 1], 0, &rng);
				sim_dag_free(&d);
			}
			if (r == 0)
				snprintf(name, sizeof(name), "confidence 0.95");
			else
				snprintf(name, sizeof(name),
					 "all %u run%s pass", rules[r - 1],
					 rules[r - 1] > 1 ? "s" : "");
			acc[i][r] = 100.0 * t.right / t.jobs;
			mruns[i][r] = (double)t.runs / t.jobs;
			printf("%-6.1f %-22s %8.1f%% %9.1f", rates[i], name,
			       100.0 * t.right / t.jobs,
			       (double)t.runs / t.jobs);
			if (r == 0)
				printf(" %10.1f%% (%u of %u found; target >= "
				       "93%%)",
				       t.found ? 100.0 * t.found_right / t.found
					       : 0,
				       t.found_right, t.found);
			printf("\n");
		}
	}
	printf("target: accuracy >= 95%% at rates 1.0 to 0.5:");
	for (i = 0; i < 3; i++)
		printf(" %.1f%%", acc[i][0]);
	printf("\ntarget: mean runs below the all-10-runs rule's:");
	for (i = 0; i < 4; i++)
		printf(" %.1f < %.1f", mruns[i][0], mruns[i][4]);
	printf("\ntarget: at rate 1.0, runs within one of git's one-run "
	       "bisection: %.1f vs %.1f (of them 3 endpoint runs and the "
	       "verification)\n",
	       mruns[0][0], mruns[0][1]);
	return 0;
}
