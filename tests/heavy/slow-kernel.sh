#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A planted slowdown on the real kernel with the tiny recipe (make
# check-slowdown; too long for make check, whose suite history and
# kernel cache it shares).  A patch applied on every step (--apply)
# makes a failing write to a /proc/probe-* file wait DELAY_US in the
# kernel before it returns -EIO; the suite's merge is where writes to
# /proc/probe-merge start failing, so from the merge on the guest's loop
# of writes is slower.  The guest test times that loop and prints it as
# 'bisect-metric: probe_loop MS ms'.  Then verify --metric: the bad
# commit with the delay, without and with a patch that mends the merge's
# probe (fixed), and without and with a patch that changes a comment
# (not fixed at --min-change 15%).
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

DELAY_US=${DELAY_US:-50}
WRITES=${WRITES:-4000}
eval "$("$TOP/build/tests/fixtures/kernel-history" --kind suite --seed 1 --commits 256)"
BAD8=$(git -C "$REPO" rev-list --first-parent --reverse "$MERGE..$BAD" | sed -n 8p)
echo "# slowdown: good $OTHER_FIXED, bad $BAD8, planted $MERGE," \
	"${DELAY_US} us a failing write, $WRITES writes"

# the delay, as a patch on every step: every -EIO of the probe file
# waits DELAY_US first, so a failing write is slow and a passing one is
# not.  One hunk, under the includes: its lines are the same on every
# commit of the range (libgit2 applies a hunk only at the line its
# header names, without git apply's search for an offset).
P=kernel/bisectd_probe.c
delay() {
	sed -e "s|^#include <linux/random.h>\$|&\\
#include <linux/delay.h>\\
/* a failing write waits first */\\
#undef EIO\\
#define EIO (udelay($DELAY_US), 5)|"
}
git -C "$REPO" show "$OTHER_FIXED:$P" > "$SCRATCH/g.c"
delay < "$SCRATCH/g.c" > "$SCRATCH/g-slow.c"
diff -u --label "a/$P" --label "b/$P" "$SCRATCH/g.c" "$SCRATCH/g-slow.c" \
	> "$SCRATCH/slow.patch"
git -C "$REPO" show "$BAD8:$P" | delay > "$SCRATCH/b.c"
check "the delay patch is one hunk of four lines" \
	'[ "$(grep -c "^@@" "$SCRATCH/slow.patch")" -eq 1 ] &&
	 [ "$(grep -c "^+[^+]" "$SCRATCH/slow.patch")" -eq 4 ]'

cat > "$SCRATCH/loop.sh" << TEST
#!/bin/sh
read t0 rest < /proc/uptime
i=0
while [ \$i -lt $WRITES ]; do
	echo 1 2> /dev/null > /proc/probe-merge
	i=\$((i + 1))
done
read t1 rest < /proc/uptime
echo "\$t0 \$t1" | awk '{ printf "bisect-metric: probe_loop %d ms\n", (\$2 - \$1) * 1000 }'
TEST
chmod +x "$SCRATCH/loop.sh"

j=$SCRATCH/slow.json
t0=$(date +%s)
"$BISECTCTL" bisect --repo "$REPO" --good "$OTHER_FIXED" --bad "$BAD8" \
	--recipe tiny --test "$SCRATCH/loop.sh" --apply "$SCRATCH/slow.patch" \
	--metric probe_loop --json "$j" --out "$SCRATCH/slow" \
	--max-runs 200 > "$SCRATCH/slow.out" 2> "$SCRATCH/slow.err"
rc=$?
sed 's/^/# /' "$SCRATCH/slow.err"
sed 's/^/# /' "$SCRATCH/slow.out" | head -n 40
echo "# slowdown: bisect $(($(date +%s) - t0)) s"
check "bisect --metric: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "bisect --metric: the merge, where the writes start failing" \
	jq_true "$j" ".first_bad == \"$MERGE\""
check "bisect --metric: found at the confidence asked" \
	jq_true "$j" '.metric.result == "found" and .metric.summary.probability >= 0.95'
check "bisect --metric: $(jq .metric.summary.median_before "$j") ms before, $(jq .metric.summary.median_after "$j") after, the interval above 0" \
	jq_true "$j" '.metric.summary.change_low > 0 and
		.metric.summary.median_after > .metric.summary.median_before'
check "bisect --metric: the culprit's values above each parent's" \
	jq_true "$j" '.metric.verification.culprit as $c |
		(.metric.verification.parents | length) >= 1 and
		all(.metric.verification.parents[]; .median < $c.median)'
check "bisect --metric: each step's progress line gives its value" \
	grep -Eq '^step [0-9]+ of about [0-9]+: [0-9a-f]{12} [0-9.]+ ms ' "$SCRATCH/slow.err"
check "bisect --metric: the text gives the medians and the change" \
	grep -Eq '^median before [0-9.]+ ms, after [0-9.]+ ms: \+[0-9.]+% \(95% interval' "$SCRATCH/slow.out"
echo "# slowdown: $(jq .metric.runs "$j") runs, $(jq '.metric.commits | length' "$j") commits measured"

# the bad commit with the delay in it, for verify
export GIT_INDEX_FILE="$SCRATCH/index"
GIT_AUTHOR_NAME=bisectd GIT_AUTHOR_EMAIL=bisectd@localhost \
	GIT_COMMITTER_NAME=bisectd GIT_COMMITTER_EMAIL=bisectd@localhost \
	GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
	GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
git -C "$REPO" read-tree "$BAD8"
blob=$(git -C "$REPO" hash-object -w "$SCRATCH/b.c")
git -C "$REPO" update-index --cacheinfo "100644,$blob,$P"
SLOW=$(git -C "$REPO" commit-tree "$(git -C "$REPO" write-tree)" -p "$BAD8" \
	-m "probe: a failing write waits ${DELAY_US} us")
unset GIT_INDEX_FILE
git -C "$REPO" update-ref refs/heads/bisectd/check-slowdown "$SLOW"

sed '/^static noinline int merge_probe(void)$/,/^}$/ s/return 1;/return 0;/' \
	"$SCRATCH/b.c" > "$SCRATCH/c.c"
diff -u --label "a/$P" --label "b/$P" "$SCRATCH/b.c" "$SCRATCH/c.c" \
	> "$SCRATCH/fix.patch"
sed 's|^ \* Probes that guest tests call|& (timed)|' "$SCRATCH/b.c" \
	> "$SCRATCH/d.c"
diff -u --label "a/$P" --label "b/$P" "$SCRATCH/b.c" "$SCRATCH/d.c" \
	> "$SCRATCH/noop.patch"

# verify_metric NAME PATCH: the delayed commit without and with PATCH,
# 5 runs each; the JSON in $SCRATCH/verify-NAME.json, the status in rc
verify_metric() {
	"$BISECTCTL" verify --repo "$REPO" --bad "$SLOW" --patch "$2" \
		--recipe tiny --test "$SCRATCH/loop.sh" --runs 5 \
		--metric probe_loop --min-change 15% \
		--json "$SCRATCH/verify-$1.json" --out "$SCRATCH/v$1" \
		> "$SCRATCH/v$1.out" 2> "$SCRATCH/v$1.err"
	rc=$?
	head -n 1 "$SCRATCH/v$1.out" | sed 's/^/# /'
}

verify_metric fix "$SCRATCH/fix.patch"
check "verify --metric, the merge's probe mended: fixed, exit 0 (got $rc)" \
	[ "$rc" -eq 0 ]
check "verify --metric: faster with the patch, the whole interval a gain of 15% or more" \
	jq_true "$SCRATCH/verify-fix.json" '.result == "fixed" and
		.metric.change_high < -0.1304 and
		.metric.values_without == 5 and .metric.values_with == 5'

verify_metric noop "$SCRATCH/noop.patch"
check "verify --metric, a comment changed: not fixed, exit 1 (got $rc)" \
	[ "$rc" -eq 1 ]
check "verify --metric: no gain of 15% in the interval" \
	jq_true "$SCRATCH/verify-noop.json" \
	'.result == "not fixed" and .metric.change_low > -0.1304'
done_testing
