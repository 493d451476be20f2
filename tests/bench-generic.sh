#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, generic mode against git bisect run: a 100,000-commit
# history (kernel-history --kind fixes: the imported linux-source-6.1
# tree, 78,000 files, each commit rewriting one of them, a topic branch
# merged about every hundred commits), a culprit chosen in it, and a
# command that only looks at the commit (is the culprit an ancestor of
# HEAD?).  Both start from the same clone with a checked-out tree:
# `bisectctl run` in a cache of its own (so its first checkout into its
# worktree is counted), then `git bisect run` in the clone.  The figures,
# each with its target, go to stdout.
#
# BENCH_COMMITS sets the history's length (default 100000).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
commits=${BENCH_COMMITS:-100000}
BISECTD_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench-generic.XXXXXX")
export BISECTD_CACHE
trap 'rm -rf "$BISECTD_CACHE"' EXIT
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }

"$top/build/tests/fixtures/kernel-history" --import-only > /dev/null
t0=$(now)
eval "$("$top/build/tests/fixtures/kernel-history" --kind fixes --seed 7 \
	--commits "$commits")"
t1=$(now)
clone=$BISECTD_CACHE/clone
# a clone as a user's is: packed, checked out, its index no longer racy
# (git would rehash every file)
git clone -q "$REPO" "$clone" 2> /dev/null
git -C "$clone" repack -a -d -q
git -C "$clone" checkout -q --detach "$BAD"
sleep 1
git -C "$clone" update-index -q --really-refresh
t2=$(now)
candidates=$(git -C "$clone" rev-list --count "$GOOD..$BAD")
# the culprit: 61.8% of the way through the candidates, in git's order
culprit=$(git -C "$clone" rev-list --reverse "$GOOD..$BAD" |
	sed -n "$((candidates * 618 / 1000))p")
echo "history: $candidates candidates ($(git -C "$clone" rev-list --merges --count "$GOOD..$BAD") merges)," \
	"$(git -C "$clone" ls-files | wc -l) files; generated in $(secs "$t0" "$t1") s," \
	"cloned, packed and checked out in $(secs "$t1" "$t2") s"

cat > "$BISECTD_CACHE/is-bad" << EOF
#!/bin/sh
! git merge-base --is-ancestor $culprit HEAD
EOF
chmod +x "$BISECTD_CACHE/is-bad"

# run: bisectctl run in the clone (its worktree is in the cache), the
# wall time, the steps and the culprit named
run() {
	rm -rf "$BISECTD_CACHE/out"
	t0=$(now)
	"$ctl" run --repo "$clone" --good "$GOOD" --bad "$BAD" \
		--json "$BISECTD_CACHE/run.json" --out "$BISECTD_CACHE/out" \
		-- "$BISECTD_CACHE/is-bad" > /dev/null 2>&1
	t1=$(now)
	echo "$(secs "$t0" "$t1") $(jq '.steps | length' "$BISECTD_CACHE/run.json") $(jq -r .culprit.commit "$BISECTD_CACHE/run.json")"
}
set -- $(run)
first_s=$1 first_steps=$2 first=$3
set -- $(run)
again_s=$1 again_steps=$2 again=$3

t2=$(now)
git -C "$clone" bisect start "$BAD" "$GOOD" > /dev/null
git -C "$clone" bisect run "$BISECTD_CACHE/is-bad" > "$BISECTD_CACHE/git.log"
t3=$(now)
theirs=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$BISECTD_CACHE/git.log")
git_steps=$(grep -c '^running ' "$BISECTD_CACHE/git.log")
git_s=$(secs "$t2" "$t3")
git -C "$clone" bisect reset > /dev/null 2>&1

for c in "$first" "$again" "$theirs"; do
	[ "$c" = "$culprit" ] || echo "a bisection named $c, not the culprit $culprit"
done
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
echo "git bisect run: $git_s s, $git_steps steps"
echo "bisectctl run, its worktree new (78,000 files written first): $first_s s," \
	"$first_steps steps: $(ratio "$first_s" "$git_s")x git's time" \
	"(target: at most 1.10x, steps within one)"
echo "bisectctl run again, its worktree kept (as a worker's is): $again_s s," \
	"$again_steps steps: $(ratio "$again_s" "$git_s")x git's time" \
	"(target: at most 1.10x, steps within one)"
