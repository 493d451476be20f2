#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectd's regressions per subsystem: each verified bisection's culprit
# counted for its MAINTAINERS sections, the commits of the bisected
# ranges for theirs; GET /api/v1/stats, the chart and the page in
# headless Chromium, updated as bisections finish.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

# a tree shaped like Linux: its Kconfig, MAINTAINERS with two sections
krepo=$SCRATCH/krepo
git init -q "$krepo"
git -C "$krepo" config user.name "Fixture Author"
git -C "$krepo" config user.email fixture@example.org
printf 'mainmenu "Linux/$(ARCH) $(KERNELVERSION) Kernel Configuration"\n' \
	> "$krepo/Kconfig"
cat > "$krepo/MAINTAINERS" <<'EOF'
CRASHME DRIVER
M:	Ada Maintainer <ada@example.org>
F:	drivers/crashme/

WIDGET CORE
M:	Bo Reviewer <bo@example.org>
F:	lib/widget*

THE REST
M:	Everyone <all@example.org>
F:	*
F:	*/
EOF
mkdir -p "$krepo/drivers/crashme" "$krepo/lib"
echo 0 > "$krepo/drivers/crashme/a.c"
echo 0 > "$krepo/lib/widget.c"
echo 0 > "$krepo/README"
# kcommit FILE [CREATE]: change FILE (and create CREATE), authored at
# day N since 2023-11-14 for the Nth commit; its id in $last
n=0
kcommit() {
	n=$((n + 1))
	echo "$n" >> "$krepo/$1"
	[ -z "${2:-}" ] || touch "$krepo/$2"
	t=$((1700000000 + n * 86400))
	git -C "$krepo" add -A
	GIT_AUTHOR_DATE="@$t +0000" GIT_COMMITTER_DATE="@$t +0000" \
		git -C "$krepo" commit -q -m "change $n: $1"
	last=$(git -C "$krepo" rev-parse HEAD)
}
kcommit README
kgood=$last
kcommit lib/widget.c
kcommit drivers/crashme/a.c drivers/crashme/broken
crash=$last
kcommit README
kcommit lib/widget.c lib/widget-broken
kcommit drivers/crashme/a.c
kcommit lib/widget.c
kbad=$last

make_tokens
start_bisectd
start_worker w1

api GET stats > /dev/null
check "before any bisection: an empty table" \
	jq_true "$SCRATCH/body" '.bisections == 0 and .regressions == 0 and .subsystems == []'

# verified: a confidence asked for (a command's default is git's bisection)
v='{confidence: 0.95}'
a=$(submit "$(bisect_job "$krepo" "$kgood" "$kbad" 'test ! -f drivers/crashme/broken' "$v")")
check "a bisection ends" wait_job "$a" 60
check "its culprit is verified" \
	jq_true "$SCRATCH/job" ".culprit == \"$crash\" and .verified == true"
api GET stats > /dev/null
cp "$SCRATCH/body" "$SCRATCH/stats1"
check "the table has it at once: one regression, in CRASHME DRIVER" \
	jq_true "$SCRATCH/stats1" '.bisections == 1 and .regressions == 1 and
		([.subsystems[] | select(.regressions > 0) | .name] == ["CRASHME DRIVER"])'

b=$(submit "$(bisect_job "$krepo" "$kgood" "$kbad" 'test ! -f lib/widget-broken' "$v")")
c=$(submit "$(bisect_job "$krepo" "$kgood" "$kbad" 'test ! -f drivers/crashme/broken' "$v")")
# git's bisection: its culprit is not verified, so not counted
d=$(submit "$(bisect_job "$krepo" "$kgood" "$kbad" 'test ! -f lib/widget-broken')")
# a tree without MAINTAINERS: a bisection, in no subsystem
repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 5 60)"
e=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'test ! -f regression' "$v")")
for j in "$b" "$c" "$d" "$e"; do
	check "bisection $j ends" wait_job "$j" 60
done
api GET "jobs/$d" > /dev/null
check "the unverified one says so" jq_true "$SCRATCH/body" '.verified == false'

api GET stats > /dev/null
s=$SCRATCH/stats2
cp "$SCRATCH/body" "$s"
check "4 bisections counted (not the unverified one), 2 regressions" \
	jq_true "$s" '.bisections == 4 and .regressions == 2 and .commits == 6'
# sub NAME: [regressions, commits, per 100 commits]
sub() { jq -c --arg n "$1" '.subsystems[] | select(.name == $n) | [.regressions, .commits, .regressions_per_100_commits]' "$s"; }
check "WIDGET CORE: its culprit, 3 commits of the range" \
	'[ "$(sub "WIDGET CORE")" = "[1,3,33.333333333333336]" ]'
check "CRASHME DRIVER: one culprit found twice is one regression" \
	'[ "$(sub "CRASHME DRIVER")" = "[1,2,50]" ]'
check "THE REST: the README commit" '[ "$(sub "THE REST")" = "[0,1,0]" ]'
check "most regressions first, then most commits" \
	'[ "$(jq -c "[.subsystems[].name]" "$s")" = "[\"WIDGET CORE\",\"CRASHME DRIVER\",\"THE REST\"]" ]'
# the culprit was authored at day 3 (2023-11-17); the bisection ended now
days=$(jq '.subsystems[] | select(.name == "CRASHME DRIVER") | .median_days_to_bisection' "$s")
want=$(( ($(date +%s) - 1700000000 - 3 * 86400) / 86400 ))
check "days from the culprit's author date to the bisection's end ($days, about $want)" \
	'awk -v d="$days" -v w="$want" "BEGIN { exit !(d >= w - 1 && d <= w + 1) }"'

code=$(curl -s -o "$SCRATCH/chart.svg" -w '%{http_code} %{content_type}' "$URL/api/v1/stats.svg")
check "the chart is an SVG ($code)" '[ "$code" = "200 image/svg+xml" ]'
check "with a bar for each subsystem with regressions" \
	'[ "$(grep -c "fill=\"#c0392b\"" "$SCRATCH/chart.svg")" -eq 2 ] &&
	 grep -q "<title>WIDGET CORE: 1 regressions in 3 commits</title>" "$SCRATCH/chart.svg"'

browse /stats stats
check "the stats page has a row per subsystem" \
	'[ "$(grep -o "<tr class=\"has-regressions\">" "$SCRATCH/stats.html" | wc -l)" -eq 2 ] &&
	 grep -q "<td>WIDGET CORE</td><td>1</td><td>3</td><td>33.3</td>" "$SCRATCH/stats.html"'
check "and the chart" grep -q '<img id="chart" [^>]*src="/api/v1/stats.svg' "$SCRATCH/stats.html"
check "a screenshot of the stats page" \
	'[ "$(head -c 8 "$out/stats.png" | od -An -c | tr -d " ")" = "211PNG\\r\\n032\\n" ]'

api GET stats > /dev/null
check "asking again counts nothing twice" cmp -s "$s" "$SCRATCH/body"
done_testing
