# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the end-to-end tests: bisect a planted regression in a real
# kernel history (tests/fixtures/kernel-history) with the tiny recipe.
# The kernel tree, the build directory and ccache live in the persistent
# cache, so that later runs rebuild incrementally.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

# kernel_case KIND SEED TITLE-PATTERN [BISECTCTL ARGS...]; the history
# has $COMMITS commits (default 1000)
kernel_case() {
	kind=$1 seed=$2 title=$3
	shift 3
	eval "$("$TOP/build/tests/fixtures/kernel-history" --kind "$kind" \
		--seed "$seed" --commits "${COMMITS:-1000}")"
	json=$SCRATCH/$kind.json
	echo "# $kind: good $GOOD, bad $BAD, planted $CULPRIT"
	"$BISECTCTL" bisect --repo "$REPO" --good "$GOOD" --bad "$BAD" \
		--recipe tiny --json "$json" --out "$SCRATCH/$kind" "$@" \
		> "$SCRATCH/$kind.out" 2> "$SCRATCH/$kind.err"
	rc=$?
	sed 's/^/# /' "$SCRATCH/$kind.err"
	check "$kind: bisectctl bisect exits 0 (got $rc)" [ "$rc" -eq 0 ]
	check "$kind: first bad commit is the planted one" \
		[ "$(jq -r .first_bad "$json")" = "$CULPRIT" ]
	culprit_title=$(jq -r --arg c "$CULPRIT" \
		'[.steps[] | select(.commit == $c and .verdict == "bad")][0].title' "$json")
	check "$kind: the culprit's failure is '$culprit_title'" \
		matches "$culprit_title" "$title"
	check "$kind: the bad endpoint was checked first" \
		jq_true "$json" '.steps[0].role == "endpoint" and .steps[0].verdict == "bad"'
	check "$kind: every step has build (or a cached kernel) and boot times and logs" \
		jq_true "$json" '[.steps[] | select(.verdict != "skip")] |
			all((.build_seconds > 0 or .build_cached) and .boot_seconds > 0 and .console_log and .build_log)'
	steps=$(jq .bisect_steps "$json")
	skips=$(jq '[.steps[] | select(.role == "bisect" and .verdict == "skip")] | length' "$json")
	est=$(jq .estimated_steps "$json")
	check "$kind: $steps bisection steps ($skips skipped), log2 estimate $est" \
		[ $((steps - skips)) -le $((est + 3)) ]
	check "$kind: text report names the culprit" \
		grep -q "first bad commit: $CULPRIT" "$SCRATCH/$kind.out"
}
