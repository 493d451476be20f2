#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fix bisection on the real kernel with the tiny recipe (bisect --fix):
# in the right-answer suite's history (0011's, so that the kernel cache
# has most trees), other_probe's oops comes in at OTHER and is fixed at
# OTHER_FIXED.  From OTHER (fails) to TARGET (passes, as the guest test
# here only writes /proc/probe-other):
#
#   fix       a deterministic oops: the fix found at 0.95, verified by
#             re-runs, by its parents failing and by TARGET with the fix
#             reverted failing again
#   flaky     the guest test calls the probe on about half of the boots:
#             the same fix, at its confidence, the failure rate learned
#   wrong     the first case's log with the fix marked broken: the next
#             commit is rejected by verification
#   backport  the fix built into Debian's release (bisectctl backport
#             --source), where the bug is planted: the release fails the
#             test without it and passes with it; a commit that does not
#             apply there is named with its file and hunk
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind suite --seed 1 --commits 256)"
echo "# suite: other $OTHER, fixed at $OTHER_FIXED, target $TARGET"
printf '#!/bin/sh\necho 1 > /proc/probe-other\n' > "$SCRATCH/other.sh"
# one byte of /dev/urandom decides whether this boot calls the probe
cat > "$SCRATCH/half.sh" <<'EOF'
#!/bin/sh
b=$(od -An -N1 -tu1 /dev/urandom)
[ $((b % 2)) -eq 0 ] || exit 0
echo 1 > /proc/probe-other
EOF
chmod +x "$SCRATCH"/*.sh

# fix_run NAME TEST [BISECTCTL ARGS...]: exit status in $rc, report in $j
fix_run() {
	name=$1 test=$2
	shift 2
	j=$SCRATCH/$name.json
	t0=$(date +%s)
	"$BISECTCTL" bisect --fix --repo "$REPO" --bad "$OTHER" \
		--good "$TARGET" --recipe tiny --test "$SCRATCH/$test.sh" \
		--json "$j" --out "$SCRATCH/$name" "$@" \
		> "$SCRATCH/$name.out" 2> "$SCRATCH/$name.err"
	rc=$?
	sed 's/^/# /' "$SCRATCH/$name.err"
	echo "# $name: $(($(date +%s) - t0)) s"
}

fix_run fix other --confidence 0.95
check "fix: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "fix: the planted fix" \
	jq_true "$j" ".fix == true and .fixed_by == \"$OTHER_FIXED\""
check "fix: the target failure is the older commit's oops" \
	jq_true "$j" '.target_failure | test("other_probe")'
check "fix: verified at $(jq .confidence "$j")" \
	jq_true "$j" '.verified == true and .confidence >= 0.95'
check "fix: TARGET with the fix reverted failed again, with other_probe's oops" \
	jq_true "$j" '.checks.revert == "failed" and ([.steps[] |
		select(.role == "revert" and .verdict == "bad" and
		(.title | test("in other_probe")))] | length) >= 1'
check "fix: the fix's image differs from its parent's" \
	jq_true "$j" '.checks.noop == false'
parent=$(git -C "$REPO" rev-parse "$OTHER_FIXED~1")
check "fix: its parent was run and failed" \
	jq_true "$j" "[.steps[] | select(.commit == \"$parent\" and
		.verdict == \"bad\")] | length >= 1"
check "fix: the text report says fixed by, verified by the revert" \
	'grep -q "^fixed by: $OTHER_FIXED" "$SCRATCH/fix.out" &&
	 grep -q "^confidence: .*the fix passed again and its parents failed; the good commit with it reverted failed again" "$SCRATCH/fix.out"'
mail_headers "$SCRATCH/fix/report.mail" > "$SCRATCH/headers"
check "fix: the mail says [FIXED]" \
	grep -q "^Subject: \[FIXED\] BUG: kernel NULL pointer dereference in other_probe (fixed by $(echo "$OTHER_FIXED" | cut -c1-12))" \
	"$SCRATCH/headers"
# (git's replay of such a log is t/0038's: this repository has no work tree)
check "fix: the mail tells regzbot it is the fix, and offers the backport" \
	'grep -q "^#regzbot fix: $(echo "$OTHER_FIXED" | cut -c1-12)\$" "$SCRATCH/fix/report.mail" &&
	 jq_true "$j" ".regzbot == \"#regzbot fix: $(echo "$OTHER_FIXED" | cut -c1-12)\" and
		(.next.command | startswith(\"bisectctl backport --repo \")) and
		(.next.command | contains(\"--fix $OTHER_FIXED --release ABI\"))" &&
	 grep -q "^next: build a Debian release with the fix:" "$SCRATCH/fix.out"'
check "fix: it cherry-picks cleanly onto the older commit" \
	jq_true "$j" ".fix_facts.cherry_pick == {onto: \"$OTHER\", clean: true, conflict: null}"
check "fix: the bisect log is in git's terms for a fix" \
	'grep -q "^git bisect start .--term-old=broken. .--term-new=fixed." "$SCRATCH/fix/bisect.log" &&
	 grep -q "^git bisect fixed $OTHER_FIXED\$" "$SCRATCH/fix/bisect.log" &&
	 grep -q "^# first fixed commit: \[$OTHER_FIXED\]" "$SCRATCH/fix/bisect.log"'

fix_run flaky half --confidence 0.95 --max-runs 200
check "flaky: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "flaky: the planted fix" jq_true "$j" ".fixed_by == \"$OTHER_FIXED\""
check "flaky: the failure rate before the fix, $(jq .failure_rate_before "$j"), learned" \
	jq_true "$j" '.failure_rate_before > 0.2 and .failure_rate_before < 0.8'
check "flaky: verified at $(jq .confidence "$j"), in $(jq .observed_runs "$j") runs" \
	jq_true "$j" '.verified == true and .confidence >= 0.95'
# (the commits from OTHER to the fix's parent; a step of one that passed)
before=$( (echo "$OTHER"; git -C "$REPO" rev-list "$OTHER..$OTHER_FIXED~1") |
	jq -R . | jq -sc .)
check "flaky: commits before the fix passed some runs" \
	jq_true "$j" "[.steps[] | select(.verdict == \"good\" and
		(.commit as \$c | $before | index(\$c)))] | length >= 1"

# the first case's log, with the fix's verdict turned to "broken"
sed "s/^git bisect fixed $OTHER_FIXED\$/git bisect broken $OTHER_FIXED/" \
	"$SCRATCH/fix/bisect.log" > "$SCRATCH/wrong.log"
check "wrong: the log had the fix's verdict to turn" \
	grep -q "^git bisect broken $OTHER_FIXED\$" "$SCRATCH/wrong.log"
fix_run wrong other --confidence 0.95 --replay "$SCRATCH/wrong.log"
check "wrong: exit 1, not found (got $rc)" [ "$rc" -eq 1 ]
check "wrong: no fix reported, the next commit rejected" \
	jq_true "$j" ".fixed_by == null and .verified == false and
		.rejected == \"$(git -C "$REPO" rev-list --reverse --ancestry-path "$OTHER_FIXED..$TARGET" | head -1)\""
check "wrong: TARGET with it reverted still passed" \
	jq_true "$j" '.checks.revert == "passed"'
check "wrong: the reason names the commit that passes" \
	grep -q "did not pass verification: .*its parent $(echo "$OTHER_FIXED" | cut -c1-12) passes too: the failure was gone earlier\|the good commit with the fix reverted still passes" \
	"$SCRATCH/wrong.out"

# --- backport: the fix into Debian's release ----------------------------
official=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# the release's bug: the probe file as it was before the fix, and its
# line in kernel/Makefile, on Debian's tree (the suite's base)
git -C "$REPO" diff "$GOOD~1" "$OTHER_FIXED~1" -- kernel/Makefile \
	kernel/bisectd_probe.c > "$SCRATCH/plant.patch"
check "the planted bug is a new probe file and a Makefile line" \
	'grep -q "^+++ b/kernel/bisectd_probe.c" "$SCRATCH/plant.patch" &&
	 grep -q "^+obj-y += bisectd_probe.o" "$SCRATCH/plant.patch"'
expect_exit 4 "the release with the bug fails the test" \
	"$BISECTCTL" build --source "$official" --patch "$SCRATCH/plant.patch" \
	--recipe tiny --test "$SCRATCH/other.sh" --format deb \
	--out "$SCRATCH/release" --json "$SCRATCH/release.json"
check "with other_probe's oops" \
	jq_true "$SCRATCH/release.json" '.smoke.title | test("in other_probe")'
expect_exit 0 "backport of the fix onto Debian's $official: the test passes" \
	"$BISECTCTL" backport --repo "$REPO" --fix "$OTHER_FIXED" \
	--source "$official" --patch "$SCRATCH/plant.patch" --recipe tiny \
	--test "$SCRATCH/other.sh" --format deb --out "$SCRATCH/backport" \
	--json "$SCRATCH/backport.json"
short=$(echo "$OTHER_FIXED" | cut -c1-12)
check "its patches: the release's, then the fix as a mail of format-patch" \
	'jq_true "$SCRATCH/backport.json" ".result == \"built\" and
		.patches == [\"$SCRATCH/plant.patch\", \"[PATCH] Revert \\\"probe: read other'"'"'s state\\\"\"]" &&
	 grep -q "^Subject: \[PATCH\] Revert" "$SCRATCH/backport/patches/02-fix-$short.patch"'
check "and its packages are the release's kernel" \
	'ls "$SCRATCH/backport/packages"/linux-image-6.1.192-bisectd.*_amd64.deb > /dev/null'
expect_exit 2 "a commit that does not apply to the release" \
	"$BISECTCTL" backport --repo "$REPO" --fix "$OTHER" --source "$official" \
	--patch "$SCRATCH/plant.patch" --recipe tiny --out "$SCRATCH/noapply"
check "names the patch, the file and the hunk" \
	grep -q "patch '\[PATCH\] probe: read other's state' does not apply: file 'kernel/bisectd_probe.c', hunk 1 " \
	"$SCRATCH/err"
expect_exit 2 "--release 6.1.0-57 is Debian's $official, with that release's config" \
	"$BISECTCTL" backport --repo "$REPO" --fix "$OTHER" --release 6.1.0-57 \
	--flavour cloud-amd64 --recipe tiny --patch "$SCRATCH/plant.patch" \
	--out "$SCRATCH/rel57"
check "it says which source it took" \
	grep -q "onto Debian's $official, release 6.1.0-57" "$SCRATCH/err"
done_testing
