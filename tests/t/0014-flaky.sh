#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A command that fails on only half of the runs of a bad commit:
# bisectctl run --confidence finds the culprit, verifies it and says how
# sure it is; git's bisection (no --confidence) says that it is not sure;
# --max-runs ends ambiguous with the likeliest commits; bisectd takes
# the same fields over its API.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

# fails on every second run of a commit that has the regression; whether
# its first run fails depends on the commit (its hash's first digit)
cat > "$SCRATCH/flaky.sh" <<'SH'
#!/bin/sh
[ -f regression ] || exit 0
f=$COUNTS/$BISECT_COMMIT
n=$(( $(cat "$f" 2>/dev/null || echo 0) + 1 ))
echo $n > "$f"
[ $(( (n + 0x$(echo "$BISECT_COMMIT" | cut -c1)) % 2 )) = 1 ]
SH
chmod +x "$SCRATCH/flaky.sh"
COUNTS=$SCRATCH/counts
export COUNTS
flaky() { rm -rf "$COUNTS" && mkdir "$COUNTS" && "$@" -- "$SCRATCH/flaky.sh"; }

for seed in 5 6; do
	repo=$SCRATCH/repo$seed
	eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" "$seed" 400)"
	j=$SCRATCH/c$seed.json
	expect_exit 0 "seed $seed: --confidence 0.95 finds a culprit" \
		flaky "$BISECTCTL" run --repo "$repo" --good "$GOOD" \
		--bad "$BAD" --confidence 0.95 --json "$j" \
		--out "$SCRATCH/c$seed"
	check "seed $seed: it is the planted one" \
		jq_true "$j" ".first_bad == \"$CULPRIT\""
	check "seed $seed: at $(jq .confidence "$j") confidence, verified" \
		jq_true "$j" '.confidence >= 0.95 and .verified == true and
			.intermittent == true and .target_confidence == 0.95'
	check "seed $seed: the culprit was run again, and failed again" \
		jq_true "$j" "[.steps[] | select(.commit == \"$CULPRIT\" and
			.verdict == \"bad\")] | length >= 2"
	check "seed $seed: the bad endpoint ran until it failed 3 times" \
		jq_true "$j" '[.steps[] | select(.role == "endpoint" and
			.verdict == "bad")] | length == 3'
	check "seed $seed: failure rate learned ($(jq .failure_rate "$j"))" \
		jq_true "$j" '.failure_rate > 0.3 and .failure_rate < 0.8'
	check "seed $seed: in $(jq .observed_runs "$j") runs" \
		jq_true "$j" '.observed_runs < 100'
	check "seed $seed: the text report says how sure" \
		grep -q '^confidence: 9[5-9]% (asked for 95%); the culprit failed again and its parents passed' \
		"$SCRATCH/out"
done

# git's bisection of the same: one run a step, and the report says that
# the answer is not verified and how likely it is
expect_exit 0 "git's bisection (no --confidence) ends" \
	flaky "$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/git.json" --out "$SCRATCH/git"
check "and says that it is unverified, at $(jq .confidence "$SCRATCH/git.json")" \
	jq_true "$SCRATCH/git.json" '.verified == false and .confidence < 0.95'

expect_exit 1 "--max-runs 12: ambiguous" \
	flaky "$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--confidence 0.99 --max-runs 12 --json "$SCRATCH/max.json" \
	--out "$SCRATCH/max"
check "with the likeliest commits and their probabilities" \
	jq_true "$SCRATCH/max.json" '.result == "ambiguous" and
		(.probabilities | length >= 2) and .probabilities[0].probability >= .probabilities[1].probability'
check "the report says the confidence was not reached" \
	grep -q "^ambiguous: the confidence was not reached" "$SCRATCH/out"

expect_exit 2 "a bad commit that never fails" \
	flaky "$BISECTCTL" run --repo "$repo" \
	--good "$(git -C "$repo" rev-list --max-parents=0 HEAD)" \
	--bad "$CULPRIT~1" --confidence 0.95 --out "$SCRATCH/never"
check "says so after its 10 runs" '[ "$(grep -c "^endpoint check: .* good" "$SCRATCH/err")" = 10 ] &&
	tail -n 1 "$SCRATCH/err" | grep -q "^bisectctl: the bad commit .* does not fail in 10 runs: nothing to bisect$"'
expect_exit 2 "--confidence 1.5" "$BISECTCTL" run --repo "$repo" \
	--good "$GOOD" --bad "$BAD" --confidence 1.5 -- true
one_line_error "--confidence needs 0 (git's bisection) or a probability from 0.5 to below 1, not '1.5'"

# bisectd: the request's confidence, and the answer's, over the API
make_tokens
start_bisectd
start_worker w1
code=$(api POST jobs "$(bisect_job "$repo" "$GOOD" "$BAD" true '{confidence: 2}')" "$STOKEN")
check "confidence 2: 422 ($(cat "$SCRATCH/body"))" \
	'[ "$code" = 422 ] && jq_true "$SCRATCH/body" ".error | test(\"confidence\")"'
# a worker runs the command in its sandbox, where only the checkout is
# writable: the same script, counting in the checkout (untracked files
# stay there from step to step)
inline=$(sed -e 1d -e 's|\$COUNTS/|.counts/|' "$SCRATCH/flaky.sh" |
	sed '2i mkdir -p .counts')
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" "$inline" '{confidence: 0.95}')")
wait_job "$id" 120
check "the job finds the culprit at $(jq .confidence "$SCRATCH/job") confidence, verified" \
	jq_true "$SCRATCH/job" ".culprit == \"$CULPRIT\" and .confidence >= 0.95 and
		.verified == true and (.probabilities | length >= 1)"
api GET "jobs/$id/report.txt" > /dev/null
check "the mail report says how sure, and that it is intermittent" \
	'grep -q "^confidence: 9[5-9]% (asked for 95%); the culprit failed again" "$SCRATCH/body" &&
	 grep -q "^intermittent: the failure showed on about [0-9]*% of the runs before the first bad commit, [0-9]*% after" "$SCRATCH/body" &&
	 jq_true "$SCRATCH/job" ".failure_rate_before >= 0 and .failure_rate_before < .failure_rate"'
done_testing
