#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A metric bisection through bisectd: a 20% slowdown planted at a known
# commit of a generated history, measured with 3% noise by a command
# that prints "bisect-metric: t VALUE ms", bisected by a worker on
# loopback; the job's culprit, its outcome and reports (text and JSON,
# as bisectctl run --metric prints them), bisectctl run --metric
# --server, and the requests refused with 422 and one line.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 11 120)"
# the noise from a counter in the checkout (a worker's command may
# write there only; untracked files stay from step to step)
bench='n=$(cat .count 2>/dev/null || echo 0); echo $((n + 1)) > .count
base=10; [ -f regression ] && base=12
awk -v b="$base" -v s="$n" '"'"'BEGIN { srand(s + 7); u = rand(); v = rand();
	if (u < 1e-9) u = 1e-9
	z = sqrt(-2 * log(u)) * cos(6.2831853 * v)
	printf "bisect-metric: t %.4f ms\n", b * (1 + 0.03 * z) }'"'"'
echo "bisect-metric: other 1"'
printf '%s\n' "$bench" > "$SCRATCH/bench.sh"
chmod +x "$SCRATCH/bench.sh"

make_tokens
mkdir -p "$SCRATCH/hooks"
start_sink hooks 0
start_bisectd
start_worker w1

metric_job() {
	bisect_job "$repo" "$GOOD" "$BAD" "$bench" "$1"
}

# --- refused: 422 and one line naming the field -------------------------
refused() {
	code=$(api POST jobs "$(metric_job "$1")" "$STOKEN")
	want=$3
	check "$2: 422 ($(jq -r .error "$SCRATCH/body"))" \
		'[ "$code" = 422 ] && [ "$(jq -r .error "$SCRATCH/body" | wc -l)" = 1 ] &&
		 jq_true "$SCRATCH/body" ".error | contains(\"$want\")"'
}
refused '{metric: {name: "a b"}}' "a bad name" "field 'metric.name' must be"
refused '{metric: {name: "t", direction: "up"}}' "a bad direction" \
	"field 'metric.direction' must be"
refused '{metric: {name: "t", min_change: 1.5}}' "a min_change of 1.5" \
	"field 'metric.min_change' must be a fraction"
refused '{metric: {name: "t", unit: "ms"}}' "an unknown key" \
	"unknown field 'metric.unit'"
refused '{metric: {name: "t"}, confidence: 0}' "a confidence of 0" \
	"values need a probability"
refused '{metric: {name: "t"}, failure: "boom"}' "with failure" \
	"'failure' does not go with 'metric'"
refused '{metric: "t"}' "not an object" "field 'metric' must be an object"

# --- the API: a job found ------------------------------------------------
api GET stats > /dev/null
check "stats before: no bisection" jq_true "$SCRATCH/body" '.bisections == 0'
id=$(submit "$(metric_job "{metric: {name: \"t\", min_change: 0.05}, callback: \"$HOOK\"}")")
check "the metric job was taken ($id)" '[ -n "$id" ] && [ "$id" != null ]'
wait_job "$id" 180
check "the job finds the planted culprit" \
	jq_true "$SCRATCH/job" ".state == \"done\" and .result == \"found\" and
		.culprit == \"$CULPRIT\""
check "job: confidence reached and verified" \
	jq_true "$SCRATCH/job" '.confidence >= 0.95 and .verified == true and
		.target_confidence == 0.95'
check "the webhook was delivered with the culprit" \
	wait_for "$SCRATCH/hooks/hook-1.json" "\"culprit\":\"$CULPRIT\"" 30
api GET stats > /dev/null
# (a history without MAINTAINERS: counted, in no subsystem, as any)
check "the stats count the verified bisection like others" \
	jq_true "$SCRATCH/body" '.bisections == 1'
api GET "jobs/$id/report.json" > /dev/null
cp "$SCRATCH/body" "$SCRATCH/r.json"
check "json: metric, direction, min_change" jq_true "$SCRATCH/r.json" \
	'.metric.metric == "t" and .metric.direction == "lower-is-better" and
	 .metric.unit == "ms" and
	 .metric.min_change == 0.05 and .metric.result == "found"'
check "json: medians before about 10 and after about 12" \
	jq_true "$SCRATCH/r.json" \
	'.metric.summary.median_before > 9.5 and .metric.summary.median_before < 10.5 and
	 .metric.summary.median_after > 11.4 and .metric.summary.median_after < 12.6'
check "json: the change's interval holds +20%" jq_true "$SCRATCH/r.json" \
	'.metric.summary.change_low < 0.2 and .metric.summary.change_high > 0.2'
check "json: the culprit's values against its parents'" \
	jq_true "$SCRATCH/r.json" \
	'.metric.verification.culprit as $c | $c.values >= 5 and
	 (.metric.verification.parents | length) >= 1 and
	 all(.metric.verification.parents[]; .values >= 5 and .median < $c.median)'
check "json: each tested commit's values, before and after told apart" \
	jq_true "$SCRATCH/r.json" \
	'(.metric.commits | length) >= 3 and
	 all(.metric.commits[]; (.value_list | length) == .values and .median > 0) and
	 any(.metric.commits[]; .after == true) and any(.metric.commits[]; .after == false)'
check "json: the baseline ran 3 times" jq_true "$SCRATCH/r.json" \
	'[.steps[] | select(.role == "endpoint")] | length == 3'
api GET "jobs/$id/report.txt" > /dev/null
cp "$SCRATCH/body" "$SCRATCH/r.txt"
short=$(printf %.12s "$CULPRIT")
check "text: the culprit after the heading" \
	'grep -A1 "^first bad commit (metric t):" "$SCRATCH/r.txt" | grep -q "$short"'
check "text: medians and the change with its interval" \
	grep -Eq '^median before [0-9.]+ ms, after [0-9.]+ ms: \+[0-9.]+% \(95% interval \+[0-9.]+% to \+[0-9.]+%\)$' "$SCRATCH/r.txt"
check "text: values each side, verification, medians per commit" \
	'grep -Eq "^runs: [0-9]+ values before, [0-9]+ after$" "$SCRATCH/r.txt" &&
	 grep -A2 "^verification:" "$SCRATCH/r.txt" | grep -q "^  parent " &&
	 grep -A1 "^medians per commit" "$SCRATCH/r.txt" | grep -q "^  good [0-9.]* ms (baseline)"'

# --- the web page: each tested commit's values, before and after apart ----
browse "/jobs/$id" metric
nvalues=$(jq '[.metric.commits[].values] | add + 3' "$SCRATCH/r.json")
dots=$(grep -o '<circle[^>]*class="strip [a-z]*"' "$SCRATCH/metric.html" | wc -l)
check "the strip has a dot per value, the baseline's too ($dots of $nvalues)" \
	[ "$dots" -eq "$nvalues" ]
check "values with the culprit told apart from those without" \
	'grep -q "class=\"strip after\"" "$SCRATCH/metric.html" &&
	 grep -q "class=\"strip before\"" "$SCRATCH/metric.html" &&
	 grep -q "class=\"median after\"" "$SCRATCH/metric.html"'

# --- bisectctl run --metric --server -------------------------------------
expect_exit 0 "bisectctl run --metric --server finds it" \
	env BISECTD_TOKEN="$STOKEN" "$BISECTCTL" --server "$URL" run \
	--repo "$repo" --good "$GOOD" --bad "$BAD" --metric t \
	--min-change 5% --json "$SCRATCH/s.json" -- sh -c "$bench"
check "its JSON report names the culprit, from the metric sent" \
	jq_true "$SCRATCH/s.json" ".first_bad == \"$CULPRIT\" and
		.metric.metric == \"t\" and .metric.min_change == 0.05"
check "it printed the report's medians per commit" \
	grep -q "^medians per commit" "$SCRATCH/out"
expect_exit 2 "--server, --metric and --confidence 0: exit 2" \
	env BISECTD_TOKEN="$STOKEN" "$BISECTCTL" --server "$URL" run \
	--repo "$repo" --good "$GOOD" --bad "$BAD" --metric t \
	--confidence 0 -- sh -c "$bench"
check "and says why on stderr" grep -q "values need a probability" "$SCRATCH/err"

# --- kernel mode: bisectctl bisect --metric (no kernel is built here) ----
expect_exit 2 "bisect --metric with a bad name: exit 2" \
	"$BISECTCTL" bisect --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--recipe tiny --metric "a b"
one_line_error "--metric needs a name of letters, digits and _.:/-, not 'a b'"
expect_exit 2 "bisect --metric --confidence 0: exit 2" \
	"$BISECTCTL" bisect --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--recipe tiny --metric t --confidence 0
check "and says why" grep -q "values need a probability" "$SCRATCH/err"
expect_exit 2 "bisect --min-change without --metric: exit 2" \
	"$BISECTCTL" bisect --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--recipe tiny --min-change 5%
check "and says why" grep -q "need --metric NAME" "$SCRATCH/err"
# with --server, the request carries the metric (no worker has the
# recipe: the job waits, and is cancelled)
env BISECTD_TOKEN="$STOKEN" "$BISECTCTL" --server "$URL" bisect \
	--repo "$repo" --good "$GOOD" --bad "$BAD" --recipe tiny \
	--metric boot_ms --higher-is-better --min-change 10% \
	> "$SCRATCH/k.out" 2>&1 &
kpid=$!
PIDS="$PIDS $kpid"
kid=""
for _ in $(seq 50); do
	api GET "jobs?limit=5" > /dev/null
	kid=$(jq -r '[.jobs[]? // .[]? | select(.spec.recipe? == "tiny" or .recipe? == "tiny") | .id][0] // empty' "$SCRATCH/body" 2>/dev/null)
	[ -n "$kid" ] && break
	sleep 0.2
done
api GET "jobs/$kid" > /dev/null
check "bisect --metric --server sends the metric object ($kid)" \
	jq_true "$SCRATCH/body" '.spec.metric.name == "boot_ms" and
		.spec.metric.direction == "higher" and .spec.metric.min_change == 0.1 and
		.spec.confidence == 0.95'
api POST "jobs/$kid/cancel" '' "$STOKEN" > /dev/null
kill "$kpid" 2>/dev/null

# --- a metric with no value: the job fails, saying so ---------------------
id=$(submit "$(metric_job '{metric: {name: "missing"}}')")
wait_job "$id" 120
check "no value of the metric on the good commit: failed, saying why" \
	jq_true "$SCRATCH/job" '.state == "failed" and
		(.reason | contains("gave no value of \u0027missing\u0027"))'
done_testing
