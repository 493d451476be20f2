#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl run --metric: a slowdown of 20% planted at a known commit of a
# history with merges, measured with 3% noise by a command that prints
# "bisect-metric: t VALUE ms"; the culprit, the report's lines, the JSON
# fields, a throughput that drops (--higher-is-better), runs without a
# value, and bad options refused with one line and exit 2.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 11 120)"
# noise from a counter, so that every run of the test draws the same
cat > "$SCRATCH/bench" <<EOS
#!/bin/sh
n=\$(cat "$SCRATCH/count" 2>/dev/null || echo 0)
echo \$((n + 1)) > "$SCRATCH/count"
echo "\$BISECT_COMMIT" >> "$SCRATCH/commits"
[ -n "\${SKIP_SLOW:-}" ] && [ -f regression ] && exit 125
base=\${BASE:-10}
[ -f regression ] && base=\${SLOW:-12}
awk -v b="\$base" -v s="\$n" 'BEGIN { srand(s + 7); u = rand(); v = rand();
	if (u < 1e-9) u = 1e-9
	z = sqrt(-2 * log(u)) * cos(6.2831853 * v)
	printf "bisect-metric: t %.4f ms\n", b * (1 + 0.03 * z) }'
echo "bisect-metric: other 1"
EOS
chmod +x "$SCRATCH/bench"

expect_exit 0 "a 20% slowdown is found" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--metric t --min-change 5% --json "$SCRATCH/m.json" \
	--out "$SCRATCH/o1" -- "$SCRATCH/bench"
check "json: the culprit is the planted one" \
	[ "$(jq -r .culprit "$SCRATCH/m.json")" = "$CULPRIT" ]
check "json: result, metric, direction, unit" jq_true "$SCRATCH/m.json" \
	'.result == "found" and .metric == "t" and
	 .direction == "lower-is-better" and .unit == "ms" and
	 .min_change == 0.05'
check "json: medians before about 10 and after about 12" \
	jq_true "$SCRATCH/m.json" \
	'.summary.median_before > 9.5 and .summary.median_before < 10.5 and
	 .summary.median_after > 11.4 and .summary.median_after < 12.6'
check "json: the change's interval holds +20%" jq_true "$SCRATCH/m.json" \
	'.summary.change_low < 0.2 and .summary.change_high > 0.2 and
	 .summary.change_low > 0.1'
check "json: values each side, the culprit verified against its parents" \
	jq_true "$SCRATCH/m.json" \
	'.verification.culprit as $c | .summary.runs_before >= 3 and .summary.runs_after >= 3 and
	 .verification.culprit.values >= 3 and
	 (.verification.parents | length) >= 1 and
	 all(.verification.parents[]; .values >= 3 and
	     .median < $c.median)'
check "json: a median for every tested commit" jq_true "$SCRATCH/m.json" \
	'(.commits | length) >= 3 and all(.commits[]; .values >= 1 and
	 .median > 0)'
check "the command had BISECT_COMMIT, the culprit's among them" \
	grep -qx "$CULPRIT" "$SCRATCH/commits"
short=$(printf %.12s "$CULPRIT")
check "text: the culprit after the heading" \
	'grep -A1 "^first bad commit (metric t):" "$SCRATCH/out" | grep -q "$short"'
check "text: medians before and after, the change and its interval" \
	grep -Eq '^median before [0-9.]+ ms, after [0-9.]+ ms: \+[0-9.]+% \(95% interval \+[0-9.]+% to \+[0-9.]+%\)$' "$SCRATCH/out"
check "text: values each side" \
	grep -Eq '^runs: [0-9]+ values before, [0-9]+ after$' "$SCRATCH/out"
check "text: the verification lists the culprit and a parent" \
	'grep -A2 "^verification:" "$SCRATCH/out" | grep -q "^  parent "'
check "text: medians per commit, the baseline first" \
	'grep -A1 "^medians per commit" "$SCRATCH/out" | grep -q "^  good [0-9.]* ms (baseline)"'

# a throughput that drops by 20% (higher is better)
rm -f "$SCRATCH/count"
expect_exit 0 "a drop of throughput is found with --higher-is-better" \
	env BASE=100 SLOW=80 "$BISECTCTL" run --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --metric t --higher-is-better --json "$SCRATCH/h.json" \
	--out "$SCRATCH/o2" -- "$SCRATCH/bench"
check "json: the same culprit" \
	[ "$(jq -r .culprit "$SCRATCH/h.json")" = "$CULPRIT" ]
check "json: a negative change, higher is better" jq_true "$SCRATCH/h.json" \
	'.summary.change < -0.1 and .summary.change_high < 0 and
	 .direction == "higher-is-better"'

# no change at all: not a culprit
expect_exit 1 "no change is ambiguous" \
	env SLOW=10 "$BISECTCTL" run --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --metric t --max-runs 60 --json "$SCRATCH/n.json" \
	--out "$SCRATCH/o3" -- "$SCRATCH/bench"
check "json: ambiguous, no culprit" jq_true "$SCRATCH/n.json" \
	'.result == "ambiguous" and .culprit == null'

# a command that prints no value of the metric: every run is a skip
expect_exit 2 "a bad commit without a value cannot be bisected" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--metric missing --out "$SCRATCH/o4" -- "$SCRATCH/bench"
check "the runs said they were skipped" \
	grep -q "skipped: no value of the metric" "$SCRATCH/err"
check "the error names the bad commit" \
	grep -q "gave no value of 'missing'" "$SCRATCH/err"

# exit 125 is a skip too
expect_exit 2 "a bad commit that exits 125 cannot be bisected" \
	env SKIP_SLOW=1 "$BISECTCTL" run --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --metric t --out "$SCRATCH/o5" -- "$SCRATCH/bench"
check "the runs said exit status 125" \
	grep -q "skipped: exit status 125" "$SCRATCH/err"

# bad options: one line, exit 2, nothing written
for args in "--metric t --min-change 5x" "--metric t --min-change 120%" \
	"--metric t --lower-is-better --higher-is-better" \
	"--metric t --confidence 0" "--min-change 5%" "--higher-is-better" \
	"--metric t;x" "--metric t --failure boom"; do
	# shellcheck disable=SC2086 # the options split on purpose
	expect_exit 2 "refused: $args" "$BISECTCTL" run --repo "$repo" \
		--good "$GOOD" --bad "$BAD" $args --json "$SCRATCH/bad.json" \
		-- "$SCRATCH/bench"
	one_line_error "bisectctl: "
	check "nothing written for $args" [ ! -e "$SCRATCH/bad.json" ]
done

# verify --metric (kernel mode): its options refused before any build
printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n' \
	> "$SCRATCH/v.patch"
for args in "--min-change 5%" "--lower-is-better" \
	"--metric t --min-change 5x" "--metric t;x" \
	"--metric t --lower-is-better --higher-is-better"; do
	# shellcheck disable=SC2086 # the options split on purpose
	expect_exit 2 "verify refused: $args" "$BISECTCTL" verify --repo "$repo" \
		--bad "$BAD" --patch "$SCRATCH/v.patch" --recipe tiny $args \
		--json "$SCRATCH/bad.json" --out "$SCRATCH/vout"
	one_line_error "bisectctl: "
	check "verify: nothing written for $args" \
		'[ ! -e "$SCRATCH/bad.json" ] && [ ! -e "$SCRATCH/vout" ]'
done
done_testing
