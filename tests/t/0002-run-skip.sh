#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Skipped commits (exit 125): the culprit is still found around them, and
# when only skipped commits are left the answer is ambiguous (exit 1) and
# lists the same candidates as git bisect run.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 7 200)"
# skip five first-parent ancestors below the culprit's parent
skips=$(git -C "$repo" rev-list --first-parent --max-count=5 "$CULPRIT~2" | tr '\n' ' ')
cat > "$SCRATCH/skipper" <<EOS
#!/bin/sh
for s in $skips; do [ "\$BISECT_COMMIT" = "\$s" ] && exit 125; done
test ! -f regression
EOS
chmod +x "$SCRATCH/skipper"
expect_exit 0 "culprit found around skipped commits" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/s.json" -- "$SCRATCH/skipper"
check "it is the planted one" [ "$(jq -r .first_bad "$SCRATCH/s.json")" = "$CULPRIT" ]

# now skip the culprit and its parent: ambiguous
skips="$CULPRIT $(git -C "$repo" rev-parse "$CULPRIT~1")"
cat > "$SCRATCH/skipper" <<EOS
#!/bin/sh
h=\$(git rev-parse HEAD)
for s in $skips; do [ "\$h" = "\$s" ] && exit 125; done
test ! -f regression
EOS
expect_exit 1 "only skipped commits left" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/a.json" -- "$SCRATCH/skipper"
check "json: result is ambiguous, first_bad null" \
	jq_true "$SCRATCH/a.json" '.result == "ambiguous" and .first_bad == null'
ours=$(jq -r '.candidates[]' "$SCRATCH/a.json" | sort | tr '\n' ' ')
git -C "$repo" bisect start "$BAD" "$GOOD" >/dev/null
(cd "$repo" && git bisect run "$SCRATCH/skipper") > "$SCRATCH/git.out" 2>&1
git -C "$repo" bisect reset >/dev/null 2>&1
theirs=$(grep -E '^[0-9a-f]{40}$' "$SCRATCH/git.out" | sort | tr '\n' ' ')
check "candidates match git's: $ours" '[ -n "$ours" ] && [ "$ours" = "$theirs" ]'
check "text report says ambiguous" grep -q '^ambiguous' "$SCRATCH/out"
done_testing
