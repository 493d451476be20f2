#!/bin/sh
# A regression that boots fine and only a test script in the guest sees
# (/proc/version loses "Linux"), with two boots per step.
. "$(dirname "$0")/kernel-case.sh"
kernel_case test 3 'guest test failed with exit status 1$' \
	--test "$TOP/tests/e2e/proc-version.sh" --runs 2
check "test: every tested step booted twice" \
	jq_true "$json" '[.steps[] | select(.verdict != "skip")] | all(.runs == 2)'
done_testing
