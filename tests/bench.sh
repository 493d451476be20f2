#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: measure, in one run on this machine, with a fresh cache and
# ccache disabled (CCACHE_DISABLE=1), so that nothing is reused:
#
#   - the import of linux-source-6.1 into git;
#   - the cold build of the tiny recipe (a fresh build directory);
#   - incremental steps (checkout + config + build + boot) for one-file
#     changes: consecutive commits of the generated history;
#   - the boot time under QEMU;
#   - a whole bisection: its steps against ceil(log2 N), and its wall time.
#
# BENCH_CACHE chooses the cache directory (default: a new temporary one,
# removed at the end).  The figures go to stdout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
keep=${BENCH_CACHE:+yes}
BISECTD_CACHE=${BENCH_CACHE:-$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench.XXXXXX")}
export BISECTD_CACHE CCACHE_DISABLE=1
[ -n "$keep" ] || trap 'rm -rf "$BISECTD_CACHE"' EXIT
out=$BISECTD_CACHE/bench
mkdir -p "$out"
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }
num() { jq -r "$1" "$2" | awk '{ printf "%.1f", $1 }'; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "kernel: Debian linux-source-6.1 ($(dpkg-query -W -f='${Version}' linux-source-6.1)), recipe tiny, gcc $(gcc -dumpversion)"

t0=$(now)
eval "$("$top/build/tests/fixtures/kernel-history" --import-only)"
t1=$(now)
echo "import of the source tarball into git: $(secs "$t0" "$t1") s"
eval "$("$top/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
t2=$(now)
echo "generating the 1,000-commit history: $(secs "$t1" "$t2") s"

"$ctl" test --repo "$REPO" --commit "$GOOD" --recipe tiny \
	--json "$out/cold.json" --out "$out/cold" > /dev/null 2>&1
echo "cold step: checkout $(num .checkout_seconds "$out/cold.json") s," \
	"config $(num .config_seconds "$out/cold.json") s," \
	"build $(num .build_seconds "$out/cold.json") s," \
	"boot $(num .boot_seconds "$out/cold.json") s"
cold=$(jq .build_seconds "$out/cold.json")

# one-file changes: the first first-parent commits after GOOD
i=0
for c in $(git -C "$REPO" rev-list --reverse --first-parent "$GOOD..$BAD" | head -n 6); do
	i=$((i + 1))
	"$ctl" test --repo "$REPO" --commit "$c" --recipe tiny \
		--json "$out/inc$i.json" --out "$out/inc$i" > /dev/null 2>&1 || true
	files=$(git -C "$REPO" diff --name-only "$c~1" "$c" | wc -l)
	echo "  step $i: $files file(s) changed:" \
		"checkout $(num .checkout_seconds "$out/inc$i.json") s," \
		"config $(num .config_seconds "$out/inc$i.json") s," \
		"build $(num .build_seconds "$out/inc$i.json") s," \
		"boot $(num .boot_seconds "$out/inc$i.json") s"
done
jq -s --argjson cold "$cold" '
	(map(.checkout_seconds + .config_seconds + .build_seconds + .boot_seconds) | add / length) as $step |
	(map(.boot_seconds) | add / length) as $boot |
	"incremental one-file step (checkout + config + build + boot), mean of \(length): \($step * 10 | round / 10) s = \($step / $cold * 100 | round) % of the cold build (\($cold * 10 | round / 10) s)",
	"boot to the success marker under QEMU, mean: \($boot * 100 | round / 100) s"
	' "$out"/inc*.json | tr -d '"'

t3=$(now)
"$ctl" bisect --repo "$REPO" --good "$GOOD" --bad "$BAD" --recipe tiny \
	--json "$out/bisect.json" --out "$out/bisect" > /dev/null 2>&1 || true
t4=$(now)
jq -r --arg wall "$(secs "$t3" "$t4")" '
	"bisection of \(.initial_candidates) candidates: \(.bisect_steps) steps (ceil(log2 N) = \(.estimated_steps)) plus \([.steps[] | select(.role == "endpoint")] | length) endpoint checks, \($wall) s wall, result \(.result), first bad \(.first_bad[0:12])"
	' "$out/bisect.json"
echo "planted: ${CULPRIT%????????????????????????????}"
