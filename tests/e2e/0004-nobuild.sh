#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An oops, with a run of commits that do not build shortly before it: they
# are skipped, with the compiler error as evidence, and the culprit is
# still found.
. "$(dirname "$0")/kernel-case.sh"
COMMITS=300
kernel_case nobuild 4 'BUG: kernel NULL pointer dereference in reboot_defaults_init$'
check "nobuild: some steps were skipped as unbuildable" \
	jq_true "$json" '[.steps[] | select(.verdict == "skip")] | length > 0'
# (the culprit's checks are steps too: a revert that does not apply is
# a skip of its own, not a commit that does not build)
check "nobuild: a skipped step carries the compiler error" \
	jq_true "$json" '[.steps[] | select(.verdict == "skip" and .role != "revert")] |
		all(.title | test("^build failed: .*build_id_string"))'
check "nobuild: every skipped commit is one that does not build" \
	sh -c "for c in \$(jq -r '.steps[] | select(.verdict == \"skip\" and .role != \"revert\") | .commit' '$json'); do
		echo ' $BROKEN ' | grep -q \" \$c \" || exit 1; done"
done_testing
