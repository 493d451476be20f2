#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fix bisection (--fix, "fix": true): the older commit fails (--bad), the
# newer one passes (--good), and the answer is the first commit on which
# the failure is gone: git bisect's with --term-old=broken
# --term-new=fixed, in about as many steps; with a failure that shows
# on only some runs before the fix, at the confidence asked; through
# bisectd's API too.  Bad input is refused in one line.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

# mkrepo.sh's history: from CULPRIT on the file "regression" exists.
# Here its absence is the bug, and CULPRIT is the fix.
for seed in 3 8; do
	repo=$SCRATCH/repo$seed
	eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" "$seed" 300)"
	j=$SCRATCH/f$seed.json
	expect_exit 0 "seed $seed: run --fix" \
		"$BISECTCTL" run --fix --repo "$repo" --bad "$GOOD" --good "$BAD" \
		--json "$j" --out "$SCRATCH/f$seed" -- sh -c 'test -f regression'
	check "seed $seed: the fix found is the planted one ($CULPRIT)" \
		jq_true "$j" ".fixed_by == \"$CULPRIT\" and .first_bad == \"$CULPRIT\" and
			.fix == true and .mode == \"run\""
	# git, told which commits are fixed: its run takes exit 0 as the
	# old term, so its command is the one above turned around
	git -C "$repo" bisect start --term-old=broken --term-new=fixed \
		"$BAD" "$GOOD" > /dev/null
	(cd "$repo" && git bisect run sh -c '! test -f regression') \
		> "$SCRATCH/git.out" 2>&1
	gits=$(git -C "$repo" bisect log | grep -c '^git bisect \(broken\|fixed\|skip\) ')
	gitfound=$(grep 'is the first fixed commit' "$SCRATCH/git.out" | cut -d' ' -f1)
	git -C "$repo" bisect reset > /dev/null 2>&1
	check "seed $seed: git bisect with broken/fixed agrees ($gitfound)" \
		[ "$gitfound" = "$CULPRIT" ]
	ours=$(jq -r .bisect_steps "$j")
	check "seed $seed: $ours steps, git bisect run took $gits" \
		[ "$ours" -le $((gits + 1)) ]
done
check "the text report says 'fixed by'" \
	grep -q "^fixed by: $CULPRIT" "$SCRATCH/f8/report.txt"
check "the bisect log is git's for a fix, and git replays it" \
	'grep -q "^git bisect start .--term-old=broken. .--term-new=fixed." "$SCRATCH/f8/bisect.log" &&
	 grep -q "^# first fixed commit: \[$CULPRIT\]" "$SCRATCH/f8/bisect.log" &&
	 git -C "$repo" bisect replay "$SCRATCH/f8/bisect.log" > "$SCRATCH/replay.out" 2>&1 &&
	 grep -q "$CULPRIT is the first fixed commit" "$SCRATCH/replay.out"'
git -C "$repo" bisect reset > /dev/null 2>&1
# bisectctl takes the log's terms back: with every new run a skip, the
# replayed verdicts alone (and its endpoints) name the fix
expect_exit 0 "--replay of a fix's log, every new run a skip" \
	"$BISECTCTL" run --fix --repo "$repo" --replay "$SCRATCH/f8/bisect.log" \
	--json "$SCRATCH/replayed.json" --out "$SCRATCH/replayed" -- sh -c 'exit 125'
check "the replayed log names the same fix" \
	jq_true "$SCRATCH/replayed.json" ".fixed_by == \"$CULPRIT\""

# what a maintainer asks of a fix: its Fixes: and Cc: stable trailers,
# and whether it cherry-picks onto the older commit
small=$SCRATCH/small
git init -q -b main "$small"
git -C "$small" config user.name t
git -C "$small" config user.email t@example.org
touch "$small/bug"
echo 0 > "$small/f"
git -C "$small" add bug f
git -C "$small" commit -q -m start
for i in 1 2 3 4 5 6 7 8 9; do
	if [ "$i" = 5 ]; then
		git -C "$small" rm -q bug
		git -C "$small" commit -q -m "remove the bug" \
			-m "Fixes: 0123456789ab (\"start\")
Cc: stable@vger.kernel.org"
	else
		echo "$i" > "$small/f"
		git -C "$small" commit -q -am "change $i"
	fi
done
sfix=$(git -C "$small" rev-parse HEAD~4)
sold=$(git -C "$small" rev-list --max-parents=0 HEAD)
expect_exit 0 "a fix with trailers" \
	"$BISECTCTL" run --fix --repo "$small" --bad "$sold" --good main \
	--json "$SCRATCH/small.json" --out "$SCRATCH/small.out" -- sh -c 'test ! -f bug'
check "the report gives its Fixes: and its mark for stable" \
	'jq_true "$SCRATCH/small.json" ".fixed_by == \"$sfix\" and
		.fix_facts.fixes == [\"0123456789ab (\\\"start\\\")\"] and .fix_facts.stable == true" &&
	 grep -q "^  Fixes:   0123456789ab (\"start\")" "$SCRATCH/small.out/report.txt" &&
	 grep -q "^  stable:  marked for the stable trees" "$SCRATCH/small.out/report.txt"'
check "and that it cherry-picks cleanly onto the bad commit" \
	'jq_true "$SCRATCH/small.json" ".fix_facts.cherry_pick == {onto: \"$sold\", clean: true, conflict: null}" &&
	 grep -q "^  cherry-picks cleanly onto the bad commit" "$SCRATCH/small.out/report.txt"'
check "a fix that does not (seed 8's changes a file the bad commit has otherwise) says where" \
	'jq_true "$SCRATCH/f8.json" ".fix_facts.stable == false and .fix_facts.fixes == [] and
		.fix_facts.cherry_pick.clean == false and (.fix_facts.cherry_pick.conflict | length > 0)" &&
	 grep -q "^  does not cherry-pick onto the bad commit .*: conflict in " "$SCRATCH/f8/report.txt"'

# before the fix, the command fails on every second run of a commit
# (which run first depends on the commit's hash); with it, never
cat > "$SCRATCH/flaky.sh" << 'SH'
#!/bin/sh
[ -f regression ] && exit 0
f=$COUNTS/$BISECT_COMMIT
n=$(( $(cat "$f" 2>/dev/null || echo 0) + 1 ))
echo $n > "$f"
[ $(( (n + 0x$(echo "$BISECT_COMMIT" | cut -c1)) % 2 )) = 1 ]
SH
chmod +x "$SCRATCH/flaky.sh"
COUNTS=$SCRATCH/counts
export COUNTS
mkdir "$COUNTS"
j=$SCRATCH/flaky.json
expect_exit 0 "a failure on half of the runs before the fix: run --fix --confidence 0.95" \
	"$BISECTCTL" run --fix --confidence 0.95 --repo "$repo" --bad "$GOOD" \
	--good "$BAD" --json "$j" --out "$SCRATCH/flaky" -- "$SCRATCH/flaky.sh"
check "it names the planted fix" jq_true "$j" ".fixed_by == \"$CULPRIT\""
check "at $(jq .confidence "$j") confidence, verified, intermittent" \
	jq_true "$j" '.confidence >= 0.95 and .verified == true and
		.intermittent == true and .target_confidence == 0.95'
check "the rates learned: before the fix $(jq .failure_rate_before "$j"), after $(jq .failure_rate "$j")" \
	jq_true "$j" '.failure_rate_before > 0.3 and .failure_rate_before < 0.7 and
		.failure_rate < 0.1'
check "the fix passed again and a parent failed" \
	jq_true "$j" "([.steps[] | select(.commit == \"$CULPRIT\" and .verdict == \"good\")] | length >= 2)"
check "the text report says it in a fix's words" \
	'grep -q "^fixed by: $CULPRIT" "$SCRATCH/flaky/report.txt" &&
	 grep -q "the fix passed again and its parents failed" "$SCRATCH/flaky/report.txt" &&
	 grep -q "^intermittent: the failure showed on about [0-9]*% of the runs before the fix" "$SCRATCH/flaky/report.txt"'

# refused, in one line, before anything runs
expect_exit 2 "--fix with two --good" \
	"$BISECTCTL" run --fix --repo "$repo" --bad "$GOOD" --good "$BAD" \
	--good "$BAD~3" -- true
one_line_error "--fix takes one --good"
expect_exit 2 "--fix with the endpoints as a regression names them" \
	"$BISECTCTL" run --fix --repo "$repo" --bad "$BAD" --good "$GOOD" -- true
one_line_error "is an ancestor of bad commit .*did you swap good and bad? (to find a fix"
expect_exit 2 "run --fix with --metric" \
	"$BISECTCTL" run --fix --metric t --repo "$repo" --bad "$GOOD" \
	--good "$BAD" -- true
one_line_error "--metric does not go with .*--fix"
expect_exit 2 "bisect --fix with --metric (kernel mode)" \
	"$BISECTCTL" bisect --fix --metric t --repo "$repo" --bad "$GOOD" \
	--good "$BAD" --recipe tiny
one_line_error "--metric does not go with --failure or --fix"

# bisectd: "fix": true
make_tokens
start_bisectd
start_worker w1
code=$(api POST jobs "$(bisect_job "$repo" "$BAD" "$GOOD" 'test -f regression' '{fix: true}')" "$STOKEN")
id=$(jq -r .id "$SCRATCH/body")
check "a fix job is taken ($code)" [ "$code" = 201 ]
wait_job "$id" 120
check "and finds the fix" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\" and .spec.fix == true"
check "its bisect log is a fix's" \
	'[ "$(api GET "jobs/$id/bisect.log")" = 200 ] &&
	 grep -q "^# first fixed commit: \[$CULPRIT\]" "$SCRATCH/body"'
check "its report (a mail) says it found a fix" \
	'[ "$(api GET "jobs/$id/report.txt")" = 200 ] &&
	 grep -q "^Subject: \[FIXED\] .* (fixed by $(echo "$CULPRIT" | cut -c1-12))" "$SCRATCH/body" &&
	 grep -q "bisectd found the fix of a failure in" "$SCRATCH/body"'
# a merge costs what the repository makes it cost, and a report is made
# under bisectd's lock: bisectd does not try the cherry-pick
check "bisectd's report does not merge the submitter's trees" \
	'! grep -q "cherry-pick" "$SCRATCH/body" &&
	 [ "$(api GET "jobs/$id/report.json")" = 200 ] &&
	 jq_true "$SCRATCH/body" ".fix == true and .fix_facts.cherry_pick.clean == null"'
refused() { # refused WHAT EXTRA PATTERN
	code=$(api POST jobs "$(bisect_job "$repo" "$BAD" "$GOOD" true "$2")" "$STOKEN")
	pattern=$3
	check "$1: 422 ($code), '$(jq -r .error "$SCRATCH/body")'" \
		'[ "$code" = 422 ] && jq -r .error "$SCRATCH/body" | grep -q -- "$pattern"'
}
refused "a fix with two good commits" "{fix: true, good: [\"$BAD\", \"$BAD~2\"]}" "'fix' takes one 'good'"
refused "a fix whose endpoints are a regression's" "{fix: true, good: [\"$GOOD\"], bad: \"$BAD\"}" "did you swap good and bad"
refused "a fix with a metric" "{fix: true, metric: {name: \"t\"}}" "'fix' looks for a failure that is gone: not with 'metric'"
code=$(api POST jobs '{"type":"releases","flavour":"cloud-amd64","good":["6.1.0-10"],"bad":"6.1.0-12","fix":true}' "$STOKEN")
check "'fix' on a releases job: 422 ($code)" \
	'[ "$code" = 422 ] && grep -q "for bisect jobs" "$SCRATCH/body"'
code=$(api POST jobs "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"command\":\"true\",\"fix\":true}" "$STOKEN")
check "'fix' on a test job: 422 ($code)" \
	'[ "$code" = 422 ] && grep -q "for bisect jobs" "$SCRATCH/body"'
done_testing
