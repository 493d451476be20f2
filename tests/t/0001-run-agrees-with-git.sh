#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Generic mode on repositories with merges: bisectctl run finds the planted
# commit, in at most one step more than git bisect run on the same
# repository, and its JSON has the documented fields.
. "$(dirname "$0")/../lib.sh"

oracle='! test -f regression'
for seed in 1 2 3 4 5 6; do
	repo=$SCRATCH/repo$seed
	eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" "$seed" 300)"
	expect_exit 0 "seed $seed: bisectctl run" \
		"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
		--json "$SCRATCH/r$seed.json" -- sh -c "$oracle"
	found=$(jq -r .first_bad "$SCRATCH/r$seed.json")
	check "seed $seed: found the planted commit $CULPRIT" \
		[ "$found" = "$CULPRIT" ]
	ours=$(jq -r .bisect_steps "$SCRATCH/r$seed.json")
	git -C "$repo" bisect start "$BAD" "$GOOD" >/dev/null
	(cd "$repo" && git bisect run sh -c "$oracle") > "$SCRATCH/git.out" 2>&1
	gits=$(git -C "$repo" bisect log | grep -c '^git bisect \(good\|bad\|skip\) ')
	gitfound=$(grep 'is the first bad commit' "$SCRATCH/git.out" | cut -d' ' -f1)
	git -C "$repo" bisect reset >/dev/null 2>&1
	check "seed $seed: git agrees ($gitfound)" [ "$gitfound" = "$found" ]
	check "seed $seed: $ours steps, git bisect run took $gits" \
		[ "$ours" -le $((gits + 1)) ]
done

j=$SCRATCH/r1.json
check "json: result is found" [ "$(jq -r .result "$j")" = found ]
check "json: candidates hold the culprit" \
	[ "$(jq -r '.candidates[0]' "$j")" = "$(jq -r .first_bad "$j")" ]
check "json: steps have commit, verdict, seconds and exit_code" \
	jq_true "$j" '.steps | length > 0 and all(.commit and .verdict and
		(.seconds | type == "number") and (.exit_code | type == "number"))'
check "json: culprit has subject, author, date and files" \
	jq_true "$j" '.culprit.subject and .culprit.author and .culprit.date and
		(.culprit.files | length > 0)'

# the command sees the candidate's checkout and BISECT_COMMIT
repo=$SCRATCH/repo1
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 1 300)"
cat > "$SCRATCH/probe.sh" <<'EOS'
#!/bin/sh
[ "$(git rev-parse HEAD)" = "$BISECT_COMMIT" ] || exit 200
test ! -f regression
EOS
chmod +x "$SCRATCH/probe.sh"
expect_exit 0 "command runs in a checkout of BISECT_COMMIT" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/p.json" -- "$SCRATCH/probe.sh"
check "... and finds the culprit" [ "$(jq -r .first_bad "$SCRATCH/p.json")" = "$CULPRIT" ]

# the report mail is from whoever bisects: the repository's user.name and
# user.email (mkrepo.sh's), or --mail-from, a name quoted as it must be
"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--out "$SCRATCH/m1" -- sh -c "$oracle" > /dev/null 2>&1
check "report.mail is from the repository's user" \
	grep -qx "From: Fixture Author <fixture@example.org>" "$SCRATCH/m1/report.mail"
"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--mail-from "Kernel CI, Lab <lab@example.org>" \
	--out "$SCRATCH/m2" -- sh -c "$oracle" > /dev/null 2>&1
check "or from --mail-from" \
	grep -qx 'From: "Kernel CI, Lab" <lab@example.org>' "$SCRATCH/m2/report.mail"
done_testing
