#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Right answers on hard regressions, on the real kernel with the tiny
# recipe: one history (kernel-history --kind suite) for every case, so
# that the kernel cache builds each tree once and the later cases mostly
# boot.  A guest test picks its bug by the /proc/probe-* files it writes.
#
#   target    a deterministic oops, at confidence 0.95: found, verified
#             by re-runs, by a revert on the bad commit and by the noop
#             check (the culprit's image differs from its parent's)
#   other     another oops in a range before the target: those commits
#             are other failures (skips), named in the report
#   apply     the same from the commit before the other bug, with --apply
#             of the other bug's fix: no step shows the other oops
#   flaky     an oops on about half of the runs: found at its confidence
#   merge     a merge whose own resolution brings in a failure that only
#             the guest test's exit status shows, two boots per step
#   replay    the target's log with the target marked good: the next
#             commit only changes a comment; verification rejects it
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind suite --seed 1 --commits 256)"
echo "# suite: good $GOOD, bad $BAD; other $OTHER..$OTHER_FIXED," \
	"target $TARGET, noop $NOOP, flaky $FLAKY, merge $MERGE"
for p in target flaky merge; do
	printf '#!/bin/sh\necho 1 > /proc/probe-%s\n' "$p" > "$SCRATCH/$p.sh"
done
printf '#!/bin/sh\necho 1 > /proc/probe-other\necho 1 > /proc/probe-target\n' \
	> "$SCRATCH/other.sh"
chmod +x "$SCRATCH"/*.sh

# case_run NAME TEST GOOD BAD [BISECTCTL ARGS...]: exit status in $rc,
# report in $j
case_run() {
	name=$1 test=$2 good=$3 bad=$4
	shift 4
	j=$SCRATCH/$name.json
	t0=$(date +%s)
	"$BISECTCTL" bisect --repo "$REPO" --good "$good" --bad "$bad" \
		--recipe tiny --test "$SCRATCH/$test.sh" --json "$j" \
		--out "$SCRATCH/$name" "$@" \
		> "$SCRATCH/$name.out" 2> "$SCRATCH/$name.err"
	rc=$?
	sed 's/^/# /' "$SCRATCH/$name.err"
	echo "# $name: $(($(date +%s) - t0)) s"
}

culprit_title() {
	jq -r --arg c "$1" '[.steps[] | select(.commit == $c and
		.verdict == "bad")][0].title' "$j"
}

case_run target target "$GOOD" "$BAD" --confidence 0.95
check "target: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "target: the planted commit" jq_true "$j" ".first_bad == \"$TARGET\""
check "target: its failure is target_probe's oops" \
	matches "$(culprit_title "$TARGET")" \
	'BUG: kernel NULL pointer dereference in target_probe'
check "target: the target failure is the bad endpoint's" \
	jq_true "$j" '.target_failure | test("target_probe")'
check "target: verified at $(jq .confidence "$j")" \
	jq_true "$j" '.verified == true and .confidence >= 0.95'
check "target: the bad commit with the culprit reverted passed" \
	jq_true "$j" '.checks.revert == "passed" and ([.steps[] |
		select(.role == "revert" and .verdict == "good")] | length) >= 1'
check "target: its image differs from its parent's" \
	jq_true "$j" '.checks.noop == false'
check "target: the text report says verified by a revert" \
	grep -q "^confidence: .*reverted passed" "$SCRATCH/target.out"
check "target: the report offers to find the fix in a newer kernel" \
	'jq_true "$j" "(.next.command | contains(\"bisect --fix --repo\")) and
		(.next.command | contains(\"--bad $TARGET --good NEWER --recipe tiny --test\"))" &&
	 grep -q "^next: find the fix in a newer kernel" "$SCRATCH/target.out"'
check "target: every built step has its image's SHA-256" \
	jq_true "$j" '[.steps[] | select(.verdict == "good" or
		.verdict == "bad")] | all(.image_sha256 | length == 64)'

case_run other other "$GOOD" "$BAD"
check "other: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "other: still the target" jq_true "$j" ".first_bad == \"$TARGET\""
check "other: other_probe's oops is listed as another failure" \
	jq_true "$j" '[.other_failures[] | select(.title |
		test("in other_probe"))] | length >= 1'
check "other: and taken as a skip, not as bad" \
	jq_true "$j" '[.steps[] | select(.title | test("in other_probe")) |
		select(.role == "bisect")] | length >= 1'
check "other: the text report names it" \
	grep -q "^another failure, 'BUG: kernel NULL pointer dereference in other_probe'" \
	"$SCRATCH/other.out"
check "other: most kernels came from the cache" \
	jq_true "$j" '[.steps[] | select(.build_cached)] | length >= 5'

# patched trees are built anew: from just before the other bug
case_run apply other "$OTHER~1" "$NOOP" --apply "$FIX"
check "apply: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "apply: the target" jq_true "$j" ".first_bad == \"$TARGET\""
check "apply: with the fix, no step shows the other oops" \
	jq_true "$j" '([.steps[] | select(.title | test("other_probe"))] |
		length == 0) and (.other_failures | length == 0)'

# from the fix of the other bug to the merge: about 20 commits
case_run flaky flaky "$OTHER_FIXED" "$MERGE" --confidence 0.99 --max-runs 200
check "flaky: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "flaky: the planted commit" jq_true "$j" ".first_bad == \"$FLAKY\""
check "flaky: intermittent, rate $(jq .failure_rate "$j") learned" \
	jq_true "$j" '.intermittent == true and .failure_rate > 0.2 and
		.failure_rate < 0.85'
check "flaky: verified at $(jq .confidence "$j"), in $(jq .observed_runs "$j") runs" \
	jq_true "$j" '.verified == true and .confidence >= 0.99'

case_run merge merge "$GOOD" "$BAD" --confidence 0.95 --runs 2
check "merge: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "merge: the merge commit itself" jq_true "$j" ".first_bad == \"$MERGE\""
check "merge: seen only by the guest test's exit status" \
	matches "$(culprit_title "$MERGE")" 'guest test failed with exit status 1$'
check "merge: every step booted twice" \
	jq_true "$j" '[.steps[] | select(.verdict != "skip")] | all(.runs == 2)'
check "merge: verified, its revert passed" \
	jq_true "$j" '.verified == true and .checks.revert == "passed"'

# the target's log, with the target's verdict turned into "good"
sed "s/^git bisect bad $TARGET\$/git bisect good $TARGET/" \
	"$SCRATCH/target/bisect.log" > "$SCRATCH/wrong.log"
check "replay: the log had the target's verdict to turn" \
	grep -q "^git bisect good $TARGET\$" "$SCRATCH/wrong.log"
case_run replay target "$GOOD" "$BAD" --confidence 0.95 \
	--replay "$SCRATCH/wrong.log"
check "replay: exit 1, not found (got $rc)" [ "$rc" -eq 1 ]
check "replay: the comment-only commit is not reported" \
	jq_true "$j" '.first_bad == null and .verified == false'
check "replay: the noop check fired" jq_true "$j" '.checks.noop == true'
check "replay: and the revert still failed" \
	jq_true "$j" '.checks.revert == "failed"'
check "replay: the replayed bad verdicts are the target, not other failures" \
	jq_true "$j" '.other_failures | length == 0'
check "replay: the reason names the commit and the unchanged kernel" \
	grep -q "$NOOP did not pass verification: the culprit does not change the built kernel" \
	"$SCRATCH/replay.out"
done_testing
