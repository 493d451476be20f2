#!/bin/sh
# A kernel bisection through bisectd: bisectctl --server submits it, a
# bisect-worker builds and boots each step with the tiny recipe (in the
# persistent work directory), uploads its logs, and the job's report is
# the mail to the culprit's maintainers.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

eval "$("$TOP/tests/fixtures/kernel-history" --kind oops --seed 1)"
make_tokens
start_bisectd --lease 120
start_worker kernel --recipes tiny --slot ''
"$BISECTCTL" --server "$URL" --token "$STOKEN" bisect --repo "$REPO" \
	--good "$GOOD" --bad "$BAD" --recipe tiny --json "$SCRATCH/r.json" \
	> "$SCRATCH/out" 2> "$SCRATCH/err"
rc=$?
sed 's/^/# /' "$SCRATCH/err"
check "bisectctl --server bisect exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "the first bad commit is the planted one" \
	jq_true "$SCRATCH/r.json" ".first_bad == \"$CULPRIT\""
check "the endpoints were checked first" \
	jq_true "$SCRATCH/r.json" '.steps[0].role == "endpoint" and .steps[1].role == "endpoint"'
id=$(sed -n 's/^bisectctl: job \([0-9]*\) on .*/\1/p' "$SCRATCH/err")
api GET "jobs/$id" > /dev/null
cp "$SCRATCH/body" "$SCRATCH/job"
check "every built step uploaded its console, build log and config" \
	jq_true "$SCRATCH/job" '[.steps[] | select(.state == "done" and .verdict != "skip") | [.artifacts[].name] | (index("console-1.log") != null and index("build.log") != null and index("config") != null)] | all'
step=$(jq -r "[.steps[] | select(.commit == \"$CULPRIT\")][0].id" "$SCRATCH/job")
api GET "jobs/$id/steps/$step/artifacts/console-1.log" > /dev/null
check "the culprit's console log shows the oops" \
	grep -q "BUG: kernel NULL pointer dereference" "$SCRATCH/body"
check "the mail report names the crash" \
	grep -q "^Subject: \[REGRESSION\] BUG: kernel NULL pointer dereference in reboot_defaults_init" "$SCRATCH/out"
check "and links the culprit's console log on bisectd" \
	grep -q "console log: http://127.0.0.1:$PORT/api/v1/jobs/$id/steps/$step/artifacts/console-1.log" "$SCRATCH/out"
done_testing
