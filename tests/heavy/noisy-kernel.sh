#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A guest test that fails on good commits too, on the real kernel with
# the tiny recipe (make check-noisy; too long for make check, whose
# right-answer cases it shares the history and kernel cache of).  The
# suite's merge breaks merge_probe; the guest test fails (exit status 1)
# on about 5% of boots while the probe works and on about 60% once it
# does not.  The two-rate engine must name the merge, at the confidence
# it prints, with both rates learned.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind suite --seed 1 --commits 256)"
# the bad end: eight first-parent commits after the merge
BAD8=$(git -C "$REPO" rev-list --first-parent --reverse "$MERGE..$BAD" | sed -n 8p)
echo "# noisy: good $OTHER_FIXED, bad $BAD8, planted $MERGE"
# one byte of the guest's urandom: below 13 of 256 (5.1%) before the
# merge, below 154 (60.2%) after it
cat > "$SCRATCH/noisy.sh" << 'TEST'
#!/bin/sh
r=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
if echo 1 > /proc/probe-merge; then limit=13; else limit=154; fi
echo "noisy: draw $r, fails below $limit"
[ "$r" -ge "$limit" ]
TEST
chmod +x "$SCRATCH/noisy.sh"

j=$SCRATCH/noisy.json
t0=$(date +%s)
"$BISECTCTL" bisect --repo "$REPO" --good "$OTHER_FIXED" --bad "$BAD8" \
	--recipe tiny --test "$SCRATCH/noisy.sh" --json "$j" \
	--out "$SCRATCH/noisy" --confidence 0.95 --max-runs 300 \
	> "$SCRATCH/noisy.out" 2> "$SCRATCH/noisy.err"
rc=$?
sed 's/^/# /' "$SCRATCH/noisy.err" | tail -n 20
grep "^confidence\|^first bad\|^intermittent" "$SCRATCH/noisy.out" | sed "s/^/# /"
echo "# noisy: $(($(date +%s) - t0)) s, $(jq .observed_runs "$j") runs," \
	"$(jq '[.steps[].commit] | unique | length' "$j") commits built or cached"

check "noisy: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "noisy: the merge, the planted commit" jq_true "$j" ".first_bad == \"$MERGE\""
check "noisy: the target failure is the guest test's exit status" \
	jq_true "$j" '.target_failure | test("exit status 1")'
check "noisy: verified at $(jq .confidence "$j")" \
	jq_true "$j" '.verified == true and .confidence >= 0.95'
check "noisy: rates learned, $(jq .failure_rate_before "$j") before and $(jq .failure_rate "$j") after" \
	jq_true "$j" '.intermittent == true and .failure_rate_before > 0 and
		.failure_rate_before < 0.25 and .failure_rate > 0.35 and
		.failure_rate < 0.85'
# failed runs on commits without the merge: the noise the engine held to
early=0
for c in $(jq -r '.steps[] | select(.runs_failed > 0) | .commit' "$j"); do
	git -C "$REPO" merge-base --is-ancestor "$MERGE" "$c" || early=$((early + 1))
done
# (not a check: at 5%, a run may see no early failure at all)
echo "# noisy: $early failed step(s) on commits before the merge"
check "noisy: the text report says both rates" \
	grep -q "^intermittent: the failure showed on about [0-9]*% of the runs before the first bad commit, [0-9]*% after$" "$SCRATCH/noisy.out"
done_testing
