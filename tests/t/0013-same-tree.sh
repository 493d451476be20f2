#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Generic mode keeps git bisect run's semantics where two commits have
# the same tree: a merge made with -s ours has its first parent's tree,
# and a command that looks at the commit (BISECT_COMMIT) tells them
# apart.  No result is carried from one commit to the other, within a
# bisection or between jobs of bisectd.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
git init -q -b main "$repo"
g() { git -C "$repo" -c user.name=T -c user.email=t@example.org "$@"; }
commit() { echo "$1" > "$repo/$2" && g add "$2" && g commit -q -m "$1"; }
commit a0 main.txt
A0=$(g rev-parse HEAD)
g checkout -q -b side
commit s side.txt
g checkout -q main
for i in 1 2 3; do commit "a$i" main.txt; done
A3=$(g rev-parse HEAD)
g merge -q -s ours --no-edit side # the first bad commit
M=$(g rev-parse HEAD)
for i in 1 2 3 4; do commit "b$i" main.txt; done
BAD=$(g rev-parse HEAD)
check "the merge has its first parent's tree" \
	[ "$(g rev-parse "$M^{tree}")" = "$(g rev-parse "$A3^{tree}")" ]

# fails from the merge on: git has to run the merge and its first parent
cmd="! git -C '$repo' merge-base --is-ancestor $M \"\$BISECT_COMMIT\""
expect_exit 0 "bisectctl run" "$BISECTCTL" run --repo "$repo" --good "$A0" \
	--bad "$BAD" --json "$SCRATCH/run.json" --out "$SCRATCH/run" -- \
	sh -c "$cmd"
g bisect start "$BAD" "$A0" > /dev/null
(cd "$repo" && BISECT_COMMIT= git bisect run sh -c \
	"BISECT_COMMIT=\$(git rev-parse HEAD); $cmd") > "$SCRATCH/git.out" 2>&1
gitfound=$(grep 'is the first bad commit' "$SCRATCH/git.out" | cut -d' ' -f1)
g bisect reset > /dev/null 2>&1
check "git bisect run finds the merge" [ "$gitfound" = "$M" ]
check "bisectctl run finds what git finds" \
	[ "$(jq -r .first_bad "$SCRATCH/run.json")" = "$gitfound" ]
check "the merge and its parent were each run" \
	jq_true "$SCRATCH/run.json" "[.steps[] | select(.commit == \"$M\" or .commit == \"$A3\") | .verdict] | sort == [\"bad\", \"good\"]"

# bisectd: a test job on the parent, then one on the merge
make_tokens
start_bisectd
start_worker w1
test_job() {
	jq -nc --arg r "$repo" --arg c "$1" --arg cmd "$cmd" \
		'{type: "test", repo: $r, commit: $c, command: $cmd}'
}
id=$(submit "$(test_job "$A3")")
wait_job "$id" 60
check "the parent passes" jq_true "$SCRATCH/job" '.result == "good"'
id=$(submit "$(test_job "$M")")
wait_job "$id" 60
check "the merge, with the same tree, fails: its own run, not the parent's" \
	jq_true "$SCRATCH/job" '.result == "bad" and (.steps[0].cached | not)'
done_testing
