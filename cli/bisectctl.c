// SPDX-License-Identifier: GPL-2.0-only
/*
 * bisectctl: the command-line client.  Each subcommand is one function,
 * in a file of its own (cmd_*.c, what they share in ctl_common.c and
 * ctl.h), found through the table below.  With no --server it runs the
 * coordinator's session in-process (embedded mode).
 *
 * Exit status, for every subcommand that bisects: 0 culprit found,
 * 1 ambiguous (only skipped commits left), 2 bad input or usage,
 * 3 infrastructure failure.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "classify.h"
#include "error.h"
#include "gitutil.h"
#include "mbox.h"
#include "recipe.h"
#include "regstats.h"
#include "releases.h"
#include "http.h"
#include "remote.h"
#include "cmdreport.h"
#include "report.h"
#include "digest.h"
#include "embed.h"
#include "job.h"
#include "log.h"
#include "maintrepo.h"
#include "session.h"
#include "srcimport.h"
#include "util.h"
#include "worker.h"

#include "ctl.h"

#ifndef BISECTD_VERSION
#define BISECTD_VERSION "unknown"
#endif

/* --- the table ---------------------------------------------------------- */

static int cmd_help(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *examples; /* one or two lines that work as they are */
} commands[] = {
	{ "run", cmd_run,
	  "run [--repo DIR] --good REV [--good REV]... --bad REV\n"
	  "      [--json FILE] [--out DIR] [--replay LOG] [--workers N]\n"
	  "      [--confidence P [--max-runs N] [--endpoint-runs N]]\n"
	  "      [--failure REGEX] [--mail-from ADDR] [--network] [--fix]\n"
	  "      [--metric NAME [--lower-is-better | --higher-is-better]\n"
	  "       [--min-change PCT]] -- CMD [ARG]...\n"
	  "      Bisect any git repository with CMD, as git bisect run does:\n"
	  "      exit 0 good, 125 skip, 1-127 bad, anything else aborts.\n"
	  "      --fix finds the first commit where the failure is gone:\n"
	  "      --bad is then the older commit, --good the newer one.\n"
	  "      With --server, CMD runs in the workers' sandbox; --network\n"
	  "      asks for the network there (workers with --allow-network).\n"
	  "      With --confidence, for a CMD that fails only sometimes:\n"
	  "      commits are run again where that decides most, and the\n"
	  "      culprit is found at probability P, verified.  With\n"
	  "      --failure, a failure whose title (\"exit status N\" here)\n"
	  "      does not match is another bug, taken as a skip.\n"
	  "      A culprit's report is also written as OUT/report.mail,\n"
	  "      from ADDR ('Name <user@host>'; default: the repository's\n"
	  "      user.name and user.email).\n"
	  "      With --metric, a performance regression: CMD prints lines\n"
	  "      'bisect-metric: NAME VALUE [UNIT]' (stdout or stderr), and\n"
	  "      the first commit whose values of NAME are worse (higher by\n"
	  "      default) by at least --min-change (5% or 0.05; default 0)\n"
	  "      is found at --confidence (default 0.95); the good commit\n"
	  "      is run 3 times for a baseline, a run without a value (or\n"
	  "      exit 125, or another failure) is a skip; at most\n"
	  "      --max-runs runs (default 300), then ambiguous.",
	  "bisectctl run --repo . --good v1.0 --bad HEAD -- make check\n"
	  "bisectctl run --repo . --good v1.0 --bad HEAD --confidence 0.9 \\\n"
	  "    --json report.json -- ./flaky-test.sh\n" },
	{ "bisect", cmd_bisect,
	  "bisect [--repo DIR] --good REV [--good REV]... --bad REV\n"
	  "      --recipe NAME [--test SCRIPT] [--runs N] [--json FILE]\n"
	  "      [--out DIR] [--replay LOG] [--workers N]\n"
	  "      [--confidence P [--max-runs N] [--endpoint-runs N]]\n"
	  "      [--failure REGEX] [--apply PATCH]... [--mail-from ADDR]\n"
	  "      [--base-release ABI --flavour FLAVOUR] [--fix]\n"
	  "      [--metric NAME [--lower-is-better | --higher-is-better]\n"
	  "       [--min-change CHANGE]]\n"
	  "      Bisect a kernel: build and boot each step in QEMU, to a\n"
	  "      confidence of 0.95 (the culprit verified) unless given\n"
	  "      another; --confidence 0 is git's bisection.\n"
	  "      --apply applies a patch on every step (the fix of another\n"
	  "      bug that hides the one looked for); a step where it does\n"
	  "      not apply is skipped, and says so.  The report mail is\n"
	  "      from ADDR, as with run.  --base-release builds with the\n"
	  "      config of Debian's linux-image-ABI-FLAVOUR (fetched with\n"
	  "      APT) as the recipe's base; test, verify and build take\n"
	  "      it too.  --metric bisects a slowdown that the guest test\n"
	  "      prints as 'bisect-metric: NAME VALUE [UNIT]', as run does.\n"
	  "      --fix finds the first commit where the failure is gone,\n"
	  "      as run does; the fix is verified by a revert on --good.",
	  "bisectctl bisect --repo ~/linux --good v6.1.170 --bad HEAD "
	  "--recipe tiny\n"
	  "bisectctl bisect --repo ~/linux --good v6.1.170 --bad HEAD \\\n"
	  "    --recipe debian-cloud-amd64 --test boot-test.sh --runs 2\n" },
	{ "test", cmd_test,
	  "test [--repo DIR] --commit REV --recipe NAME [--test SCRIPT]\n"
	  "      [--runs N] [--json FILE] [--out DIR]\n"
	  "      Build and boot one commit; exit 0 good, 1 bad, 125 skip.",
	  "bisectctl test --repo ~/linux --commit v6.1.192 --recipe tiny\n" },
	{ "verify", cmd_verify,
	  "verify [--repo DIR] --bad REV --patch FILE [--patch FILE]...\n"
	  "      --recipe NAME [--test SCRIPT] [--runs N] [--json FILE]\n"
	  "      [--metric NAME [--lower-is-better | --higher-is-better]\n"
	  "       [--min-change CHANGE]]\n"
	  "      Does the patch fix the failure at REV?  Tests REV without\n"
	  "      and with the patches (diffs, git format-patch mails or an\n"
	  "      mbox of a series),\n"
	  "      N runs each; exit 0 fixed, 1 not fixed, 4 inconclusive.\n"
	  "      --metric compares the values the guest test prints\n"
	  "      ('bisect-metric: NAME VALUE [UNIT]') without and with the\n"
	  "      patches: the change with its 95% interval; fixed when the\n"
	  "      whole interval is a gain of CHANGE or more, not fixed when\n"
	  "      none of it is.",
	  "bisectctl verify --repo ~/linux --bad HEAD --patch fix.patch "
	  "--recipe tiny --runs 3\n"
	  "bisectctl verify --bad HEAD --patch speedup.patch --recipe tiny "
	  "\\\n"
	  "    --test bench.sh --runs 5 --metric syscall_ns --min-change "
	  "5%\n" },
	{ "build", cmd_build,
	  "build [--repo DIR] [--commit REV | --source DEBIAN-VERSION]\n"
	  "      [--patch FILE]... --recipe NAME\n"
	  "      [--format deb,rpm] [--dbg] [--test SCRIPT] [--json FILE]\n"
	  "      [--out DIR] [--no-sandbox] [--sign-key KEY --sign-cert CRT]\n"
	  "      [--install-test] [--channel NAME]\n"
	  "      Build distribution packages of REV (default HEAD) with the\n"
	  "      patches applied, with the kernel's bindeb-pkg/binrpm-pkg;\n"
	  "      the release and versions say -bisectd.ID.  The build runs\n"
	  "      in a bubblewrap sandbox: no network, nothing writable but\n"
	  "      its work directory and ccache.  The kernel is\n"
	  "      booted once as a smoke test.  --install-test installs the\n"
	  "      .deb into a Debian 12 root (debootstrap, once) and boots\n"
	  "      that disk through its initramfs-tools initrd, and installs\n"
	  "      the .rpm into a scratch root with rpm --root.  Exit 0 built\n"
	  "      and booted, 1 did not build, 4 built but the smoke or the\n"
	  "      install test failed.  With --server, bisectd publishes the\n"
	  "      .deb packages in its signed APT repository as the suite\n"
	  "      bisectd-ID and, with --channel, as the suite NAME too,\n"
	  "      which later builds of NAME replace.",
	  "bisectctl build --repo ~/linux --commit v6.1.192 --patch fix.mbox "
	  "\\\n"
	  "    --recipe debian-cloud-amd64 --format deb,rpm --out pkgs\n" },
	{ "backport", cmd_backport,
	  "backport [--repo DIR] --fix COMMIT\n"
	  "      (--release ABI --flavour FLAVOUR | --source DEBIAN-VERSION)\n"
	  "      [--recipe NAME] [--test SCRIPT] [--runs N] [--patch FILE]...\n"
	  "      [--format deb,rpm] [--install-test] [--channel NAME]\n"
	  "      [--json FILE] [--out DIR] [--no-sandbox]\n"
	  "      Build Debian's kernel of a release with a fix: COMMIT of\n"
	  "      --repo (a fix bisection's answer) as a patch on the\n"
	  "      release's source, as build --source does.  --release ABI\n"
	  "      (6.1.0-57) takes the source version of Debian's\n"
	  "      linux-image-ABI-FLAVOUR and that release's own config\n"
	  "      (the recipe debian-FLAVOUR unless --recipe); --source\n"
	  "      takes the version and the recipe's config; --patch files\n"
	  "      go before the fix.  --test boots\n"
	  "      the packages with the test that showed the failure: exit\n"
	  "      0 when it passes there, 4 when it still fails, 1 when it\n"
	  "      does not build, 2 when the fix does not apply (its file and\n"
	  "      hunk named).\n"
	  "      With --server, bisectd builds it and publishes it in its\n"
	  "      signed repositories (--channel as build's).",
	  "bisectctl backport --repo ~/linux --fix 0123abcd --release 6.1.0-57 "
	  "\\\n"
	  "    --flavour cloud-amd64 --test crash-test.sh --install-test\n" },
	{ "config", cmd_config,
	  "config FILE | --release ABI --flavour FLAVOUR\n"
	  "      Print the kernel config in FILE: a config (plain or\n"
	  "      compressed), a linux-image .deb or a kernel-core .rpm,\n"
	  "      read without installing anything.  A recipe's base can be\n"
	  "      any of these too.  --release: Debian's package\n"
	  "      linux-image-ABI-FLAVOUR, fetched with APT into the cache\n"
	  "      (a job's base_release).",
	  "bisectctl config /boot/config-$(uname -r)\n"
	  "bisectctl config --release 6.1.0-47 --flavour cloud-amd64\n" },
	{ "classify", cmd_classify,
	  "classify [--fail-on KIND,...|all] [--marker TEXT] LOG\n"
	  "      Read a console log as a step's boot is read: print its\n"
	  "      verdict, the crash kind and the title (\"KASAN: use-after-\n"
	  "      free Read in foo\").  --fail-on takes a recipe's fail_on\n"
	  "      kinds (default: the recipes' default).  Without --marker\n"
	  "      a log without a crash is good.  Exit 0 good, 1 bad.",
	  "bisectctl classify --fail-on all console.log\n" },
	{ "stats", cmd_stats,
	  "stats [--repo DIR] [RANGE] [--json FILE] [--svg FILE] [--top N]\n"
	  "      Which subsystems regress most: each commit of RANGE\n"
	  "      (A..B, or a revision and its history; default HEAD) with\n"
	  "      a Fixes: trailer names a culprit, counted once for each\n"
	  "      MAINTAINERS section (as of the range's end) its files\n"
	  "      belong to most specifically.  Per subsystem: regressions,\n"
	  "      commits that touched it, regressions per 100 commits,\n"
	  "      median days from the culprit's author date to its first\n"
	  "      fix, and the share of fixes marked for stable.  --svg\n"
	  "      draws the top N (default 30) as a bar chart.",
	  "bisectctl stats --repo ~/linux v6.0..v6.1 --top 10\n" },
	{ "maintainers", cmd_maintainers,
	  "maintainers [--repo DIR] [--at REV] PATCH | --commit REV |\n"
	  "      -f FILE...\n"
	  "      Who a patch goes to, as the kernel's get_maintainer.pl\n"
	  "      --no-git --no-git-fallback --no-rolestats --no-r answers:\n"
	  "      the people, then the lists, one per line, from the\n"
	  "      MAINTAINERS and .mailmap at REV (default HEAD; for\n"
	  "      --commit, that commit).  A PATCH is a diff or a mail of\n"
	  "      git format-patch; --commit takes a commit of the\n"
	  "      repository as one; -f names files or directories of the\n"
	  "      tree (K: keywords matched against their contents).",
	  "bisectctl maintainers --repo ~/linux fix.patch\n"
	  "bisectctl maintainers --repo ~/linux -f "
	  "drivers/net/virtio_net.c\n" },
	{ "releases", cmd_releases,
	  "releases --flavour FLAVOUR --good ABI --bad ABI [--test SCRIPT]\n"
	  "      [--runs N] [--confidence P] [--recipe NAME] [--json FILE]\n"
	  "      [--out DIR] [--repo DIR [--commit-recipe NAME]] [--manual]\n"
	  "  bisectctl releases --continue good|bad|skip\n"
	  "      Bisect Debian's released kernels (linux-image-ABI-FLAVOUR,\n"
	  "      e.g. --flavour cloud-amd64 --good 6.1.0-47 --bad 6.1.0-57)\n"
	  "      among those APT knows of: each probed package is fetched\n"
	  "      with apt-get download, kept in the cache, and its kernel\n"
	  "      booted in QEMU with the recipe's boot settings (default\n"
	  "      debian-cloud-amd64) and --test in the guest.  Prints the\n"
	  "      last good and first bad releases, their Debian and\n"
	  "      upstream versions, the changelog entries between them\n"
	  "      and the commit-level bisection to run next; with\n"
	  "      --repo (a linux-stable clone with the upstream tags)\n"
	  "      it runs that bisection too, between the two releases'\n"
	  "      tags, with --commit-recipe or else the last good\n"
	  "      release's config and the same --test.  Exit 0 found,\n"
	  "      1 ambiguous, 2 bad input, 3 infrastructure.\n"
	  "      --manual boots nothing, for hardware QEMU cannot stand\n"
	  "      in for: it says which release to install, and each\n"
	  "      later 'bisectctl releases --continue good|bad|skip'\n"
	  "      gives the verdict on it (the state is kept in the cache\n"
	  "      across reboots) until the first bad one is found.\n"
	  "      With --server, bisectd's releases job: a worker bisects\n"
	  "      with its own APT; --manual and --continue then answer\n"
	  "      bisectd's manual job (kept in the cache's\n"
	  "      releases/manual-remote.json); --repo is then\n"
	  "      a repository bisectd can open (a URL, or a path on its\n"
	  "      machine), and the commit level is a bisect job of its\n"
	  "      own that bisectctl follows too.",
	  "bisectctl releases --flavour cloud-amd64 --good 6.1.0-47 "
	  "--bad 6.1.0-57 --test t.sh\n" },
	{ "help", cmd_help, "help\n      Show this text.", "bisectctl help\n" },
};

/* EXAMPLES, one per line, each indented */
static void print_examples(const char *examples)
{
	const char *nl;

	printf("\nexamples:\n");
	for (; *examples; examples = nl + 1) {
		nl = strchr(examples, '\n');
		if (!nl)
			nl = examples + strlen(examples) - 1;
		printf("  %.*s\n", (int)(nl - examples), examples);
	}
}

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: bisectctl [--server URL [--token TOKEN]] <command> "
	       "[options]\n"
	       "       bisectctl --version\n\n"
	       "  With --server (or $BISECTD_SERVER), bisect, run, test, "
	       "build and releases "
	       "send the job to\n  that bisectd and follow it; without, "
	       "they run it here, with --workers N\n  local workers (bisect "
	       "and run).\n  The API token comes from $BISECTD_TOKEN: "
	       "prefer it to --token, which ps shows\n  to every user.\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  bisectctl %s\n\n", commands[i].usage);
	printf("exit status: 0 first bad commit found, 1 ambiguous (only "
	       "skipped commits left),\n2 bad input, 3 infrastructure "
	       "failure.  See bisectctl(1).\n");
	print_examples("bisectctl run --repo . --good v1.0 --bad HEAD -- "
		       "make check\n"
		       "bisectctl bisect --repo ~/linux --good v6.1.170 --bad "
		       "HEAD --recipe tiny\n");
	return 0;
}

/* bisectctl without a command: a few lines on stderr, exit 2 */
static int short_usage(void)
{
	fprintf(stderr,
		"usage: bisectctl [--server URL] <command> [options]\n"
		"  bisectctl bisect --repo DIR --good REV --bad REV "
		"--recipe NAME\n"
		"  bisectctl run --repo DIR --good REV --bad REV -- CMD "
		"[ARG]...\n"
		"  bisectctl test --repo DIR --commit REV --recipe NAME\n"
		"commands: run bisect test verify build config classify "
		"stats maintainers\n"
		"          releases help; see bisectctl --help\n");
	return EXIT_INPUT;
}

int main(int argc, char **argv)
{
	size_t i;
	int status;

	if (helpers_is_connector(argv[0]))
		return helpers_connect(argc, argv);
	log_init("bisectctl", 0);
	ctl_server = getenv("BISECTD_SERVER");
	ctl_token = getenv("BISECTD_TOKEN");
	while (argc >= 3 &&
	       (!strcmp(argv[1], "--server") || !strcmp(argv[1], "--token"))) {
		if (!strcmp(argv[1], "--server"))
			ctl_server = argv[2];
		else
			ctl_token = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		return short_usage();
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("bisectctl %s\n", BISECTD_VERSION);
		return 0;
	}
	if (ctl_server && strncmp(ctl_server, "http://", 7) &&
	    strncmp(ctl_server, "https://", 8)) {
		fprintf(stderr, "bisectctl: --server needs an http:// or "
				"https:// URL\n");
		return EXIT_INPUT;
	}
	if (ctl_server && http_global_init())
		return ctl_fail(ERR_INFRA);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int a;

		if (strcmp(argv[1], commands[i].name))
			continue;
		/* "bisectctl CMD ... --help" (not in run's command) */
		for (a = 2; a < argc && strcmp(argv[a], "--"); a++)
			if (!strcmp(argv[a], "--help") ||
			    !strcmp(argv[a], "-h")) {
				printf("usage: bisectctl %s\n",
				       commands[i].usage);
				print_examples(commands[i].examples);
				return 0;
			}
		if (gu_init())
			return ctl_fail(ERR_INFRA);
		status = commands[i].fn(argc - 1, argv + 1);
		gu_shutdown();
		return status;
	}
	fprintf(stderr,
		"bisectctl: unknown command '%s' (see bisectctl help)\n",
		argv[1]);
	return EXIT_INPUT;
}
