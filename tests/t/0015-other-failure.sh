#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A second bug in the range: commits from X to before Y fail too, with
# another exit status, before the planted culprit.  git's bisection takes
# them as bad and names X; with --failure (the target's title) they are
# another failure, skipped, the culprit is found and the report lists
# where the other failure was seen.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 5 400)"
X=$(git -C "$repo" rev-list --reverse --topo-order "$CULPRIT" | sed -n 60p)
Y=$(git -C "$repo" rev-list --reverse --topo-order "$CULPRIT" | sed -n 130p)
cmd="test -f regression && exit 1
git -C '$repo' merge-base --is-ancestor $X \"\$BISECT_COMMIT\" &&
	! git -C '$repo' merge-base --is-ancestor $Y \"\$BISECT_COMMIT\" && exit 3
exit 0"
expect_exit 0 "git's bisection" "$BISECTCTL" run --repo "$repo" \
	--good "$GOOD" --bad "$BAD" --json "$SCRATCH/git.json" \
	--out "$SCRATCH/git" -- sh -c "$cmd"
check "names the other bug's first commit, as git bisect run would" \
	jq_true "$SCRATCH/git.json" ".first_bad == \"$X\""

expect_exit 0 "--failure 'exit status 1\$'" "$BISECTCTL" run --repo "$repo" \
	--good "$GOOD" --bad "$BAD" --failure 'exit status 1$' \
	--json "$SCRATCH/t.json" --out "$SCRATCH/t" -- sh -c "$cmd"
check "finds the planted culprit" jq_true "$SCRATCH/t.json" ".first_bad == \"$CULPRIT\""
# every commit listed has the other bug: X, not yet Y
in_range() {
	for c in $(jq -r '.other_failures[].commit' "$SCRATCH/t.json"); do
		git -C "$repo" merge-base --is-ancestor "$X" "$c" &&
			! git -C "$repo" merge-base --is-ancestor "$Y" "$c" ||
			return 1
	done
}
check "lists the other failure and where it was seen" \
	'jq_true "$SCRATCH/t.json" "(.other_failures | length > 0) and
		all(.other_failures[]; .title == \"exit status 3\")" && in_range'
check "the steps keep their own titles" \
	jq_true "$SCRATCH/t.json" '[.steps[] | select(.title == "exit status 3")] | length > 0'
grep "^another failure" "$SCRATCH/out" | sed "s/^/# /"
check "the text report says so, once for the title" \
	'[ "$(grep -c "^another failure, .exit status 3., at .* commits)$" "$SCRATCH/out")" = 1 ]'

expect_exit 2 "a bad commit that fails otherwise" "$BISECTCTL" run \
	--repo "$repo" --good "$GOOD" --bad "$BAD" --failure 'no such title' \
	--out "$SCRATCH/o" -- sh -c "$cmd"
check "says the bad commit does not show that failure" \
	'tail -n 1 "$SCRATCH/err" | grep -q "^bisectctl: the bad commit .* fails, but not with the failure .no such title.: exit status 1$"'
expect_exit 2 "a bad --failure expression" "$BISECTCTL" run --repo "$repo" \
	--good "$GOOD" --bad "$BAD" --failure '(' -- true
one_line_error "--failure needs an extended regular expression, not '('"
done_testing
