#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, untestable stretches: generic mode against git bisect run
# where a run of commits cannot be tested (exit 125), as when a build was
# broken for a while.  Each history is tests/fixtures/mkrepo.sh's (300
# commits, topic branches merged back, a regression planted at a random
# commit); the stretch is the commits whose change number lies within L/2
# of the middle, for L = 10, 40 and 80, five seeds each.  The figure is
# the runs each tool made (endpoints left out), with its target: within
# git's count plus 2.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench-skips.XXXXXX")
BISECTD_CACHE=$scratch/cache
export BISECTD_CACHE
trap 'rm -rf "$scratch"' EXIT
commits=300

echo "untestable stretches: runs of bisectctl run and git bisect run," \
	"$commits-commit histories with merges"
printf '%-8s %-6s %8s %8s  %s\n' stretch seed ours git "target: ours <= git + 2"
met=0 lines=0 sum_ours=0 sum_git=0
for len in 10 40 80; do
	for seed in 1 2 3 4 5; do
		repo=$scratch/repo-$len-$seed
		eval "$("$top/tests/fixtures/mkrepo.sh" "$repo" "$seed" "$commits")"
		lo=$((commits / 2 - len / 2)) hi=$((commits / 2 + len / 2 - 1))
		cat > "$scratch/test" << EOF
#!/bin/sh
n=\$(git log -1 --format=%s | sed -n 's/^change \([0-9]*\) .*/\1/p')
[ -n "\$n" ] && [ "\$n" -ge $lo ] && [ "\$n" -le $hi ] && exit 125
test ! -f regression
EOF
		chmod +x "$scratch/test"
		"$ctl" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
			--json "$scratch/run.json" -- "$scratch/test" \
			> /dev/null 2>&1 || true
		ours=$(jq '[.steps[] | select(.role != "endpoint")] | length' \
			"$scratch/run.json")
		git -C "$repo" bisect start "$BAD" "$GOOD" > /dev/null
		(cd "$repo" && git bisect run "$scratch/test") > /dev/null 2>&1 || true
		# (less the two endpoints that git bisect start logs)
		theirs=$(($(git -C "$repo" bisect log |
			grep -c '^git bisect \(good\|bad\|skip\) ') - 2))
		git -C "$repo" bisect reset > /dev/null 2>&1 || true
		ok=no
		[ "$ours" -le $((theirs + 2)) ] && ok=yes && met=$((met + 1))
		lines=$((lines + 1))
		sum_ours=$((sum_ours + ours)) sum_git=$((sum_git + theirs))
		printf '%-8s %-6s %8s %8s  %s\n' "$len" "$seed" "$ours" \
			"$theirs" "$ok"
	done
done
echo "runs in all: ours $sum_ours, git's $sum_git"
echo "target: within git's runs plus 2 on every history: $met of $lines"
