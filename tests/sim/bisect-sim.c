/*
 * The simulation benchmark of the engine (make bench): simulated
 * bisections over random DAGs with merges, for several failure rates,
 * with the engine's confidence against git's bisection with the
 * all-runs-must-pass rule.
 *
 *   bisect-sim [--jobs N] [--commits N] [--workers W] [--seed S]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "simbisect.h"

struct tally {
	unsigned jobs, right, found, found_right, noreproduce;
	unsigned long runs;
};

static void one(struct tally *t, const struct sim_dag *d, double q, size_t w,
		double conf, unsigned runs, uint64_t *rng)
{
	uint32_t culprit = (uint32_t)(sim_rand(rng) % d->n);
	struct sim_result r;

	if (sim_bisect(&r, d, culprit, q, w, conf, runs, rng)) {
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
	fprintf(f, "usage: bisect-sim [--jobs N] [--commits N] "
		   "[--workers W] [--seed S]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "commits", required_argument, NULL, 'n' },
		{ "workers", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const double rates[] = { 1.0, 0.7, 0.5, 0.3 };
	static const unsigned rules[] = { 1, 3, 5, 10 };
	double acc[4][5], mruns[4][5];
	unsigned jobs = 1000, commits = 1000, w = 1, i, r, k;
	uint64_t seed = 1;
	int c;

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
					one(&t, &d, rates[i], w, 0.95, 1, &rng);
				else
					one(&t, &d, rates[i], w, 0,
					    rules[r - 1], &rng);
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
