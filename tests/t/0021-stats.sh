#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl stats: which subsystems regress most, counted from Fixes:
# trailers over a generated history whose answer is known, per
# MAINTAINERS section (the most specific one of each file).
. "$(dirname "$0")/../lib.sh"
repo=$SCRATCH/repo
git init -q -b main "$repo"
git -C "$repo" config user.name "Fixture Author"
git -C "$repo" config user.email fixture@example.org

# commit DAY MESSAGE FILE...: append a line to each FILE, commit on DAY
commit() {
	c_day=$1 c_msg=$2
	shift 2
	for c_f in "$@"; do
		mkdir -p "$repo/$(dirname "$c_f")"
		echo "day $c_day" >> "$repo/$c_f"
	done
	c_t=$((1700000000 + c_day * 86400))
	git -C "$repo" add -A
	GIT_AUTHOR_DATE="@$c_t +0000" GIT_COMMITTER_DATE="@$c_t +0000" \
		git -C "$repo" commit -q -m "$c_msg"
	git -C "$repo" rev-parse HEAD
}

cat > "$repo/MAINTAINERS" <<'EOF'
List of maintainers
===================

NETWORKING
M:	Net Person <net@example.org>
F:	net/
F:	include/net/

NETWORKING CORE
M:	Core Person <core@example.org>
F:	net/core/

EXT4
M:	Ext Person <ext4@example.org>
F:	fs/ext4/

FILESYSTEMS
M:	Fs Person <fs@example.org>
F:	fs/

DRIVERS CALLED FOO
M:	Foo Person <foo@example.org>
N:	foo

THE REST
M:	Everyone <all@example.org>
F:	*
F:	*/
EOF
commit 0 "initial" README net/core/dev.c net/ipv4/tcp.c fs/ext4/inode.c \
	fs/open.c drivers/foo/main.c include/net/sock.h > /dev/null
A=$(commit 1 "net: core: change A" net/core/dev.c)
# one commit in two subsystems
B=$(commit 2 "ext4, tcp: change B" fs/ext4/inode.c net/ipv4/tcp.c)
C=$(commit 3 "fs: change C" fs/open.c)
D=$(commit 4 "net: core: change D" net/core/dev.c)
short() { echo "$1" | cut -c1-"$2"; }
# a short id, marked for stable
commit 10 "net: core: fix A

Fixes: $(short "$A" 12) (\"net: core: change A\")
Cc: stable@vger.kernel.org
Signed-off-by: Fixture Author <fixture@example.org>" net/core/dev.c > /dev/null
F4=$(git -C "$repo" rev-parse HEAD)
# a full id
commit 12 "ext4: fix B

Fixes: $B (\"ext4, tcp: change B\")
Signed-off-by: Fixture Author <fixture@example.org>" fs/ext4/inode.c > /dev/null
# a second fix of A: still one regression
commit 13 "net: core: fix A again

Fixes: $(short "$A" 8)
Signed-off-by: Fixture Author <fixture@example.org>" net/core/dev.c > /dev/null
# a commit that is not in this repository
commit 14 "doc: fix something from elsewhere

Fixes: deadbeefdead (\"not here\")
Signed-off-by: Fixture Author <fixture@example.org>" README > /dev/null
# two culprits in one fix
commit 20 "fs, net: fix C and D

Fixes: $(short "$C" 12) (\"fs: change C\")
Fixes: $(short "$D" 12) (\"net: core: change D\")
Cc: <stable@vger.kernel.org> # 6.1
Signed-off-by: Fixture Author <fixture@example.org>" fs/open.c > /dev/null
# a side branch and its merge (the merge is not a commit that counts)
git -C "$repo" checkout -q -b side
commit 21 "foo: side change" drivers/foo/main.c > /dev/null
git -C "$repo" checkout -q main
commit 22 "net: sock change" include/net/sock.h > /dev/null
GIT_AUTHOR_DATE="@$((1700000000 + 23 * 86400)) +0000" \
	GIT_COMMITTER_DATE="@$((1700000000 + 23 * 86400)) +0000" \
	git -C "$repo" merge -q --no-ff -m "Merge branch 'side'" side

expect_exit 0 "stats over the whole history" \
	"$BISECTCTL" stats --repo "$repo" --json "$SCRATCH/all.json" \
	--svg "$SCRATCH/all.svg"
j=$SCRATCH/all.json
check "12 commits (the merge not counted), 4 fixes found, 1 not" \
	jq_true "$j" '.commits == 12 and .fix_commits == 4 and .fixes_unknown == 1'
check "4 regressions: two fixes of A are one" jq_true "$j" '.regressions == 4'
# sub NAME: the subsystem's object, compact
sub() { jq -c --arg n "$1" '.subsystems[] | select(.name == $n) | [.regressions, .commits, .fixes, .stable_fixes, .median_days_to_fix, .regressions_per_100_commits]' "$j"; }
check "NETWORKING CORE: A and D, 5 commits, 3 fixes (2 for stable), median 12.5 days" \
	'[ "$(sub "NETWORKING CORE")" = "[2,5,3,2,12.5,40]" ]'
check "NETWORKING: B through its tcp file; net/core/ files are not its own" \
	'[ "$(sub "NETWORKING")" = "[1,3,1,0,10,33.333333333333336]" ]'
check "EXT4: B too (a commit in two subsystems)" \
	'[ "$(sub "EXT4")" = "[1,3,1,0,10,33.333333333333336]" ]'
check "FILESYSTEMS: C only, ext4's files are EXT4's" \
	'[ "$(sub "FILESYSTEMS")" = "[1,3,1,1,17,33.333333333333336]" ]'
check "an N: section counts its commits" \
	'[ "$(sub "DRIVERS CALLED FOO")" = "[0,2,0,0,null,0]" ]'
check "THE REST only for what nothing else takes" \
	'[ "$(sub "THE REST")" = "[0,2,0,0,null,0]" ]'
check "most regressions first, then most commits, then by name" \
	'[ "$(jq -c "[.subsystems[].name]" "$j")" = "[\"NETWORKING CORE\",\"EXT4\",\"FILESYSTEMS\",\"NETWORKING\",\"DRIVERS CALLED FOO\",\"THE REST\"]" ]'
check "the table has the same numbers" \
	grep -Eq '^NETWORKING CORE +2 +5 +40.0 +12.5 +67%$' "$SCRATCH/out"
check "the chart: one bar for each subsystem with regressions" \
	'[ "$(grep -c "fill=\"#c0392b\"" "$SCRATCH/all.svg")" -eq 4 ] && grep -q "<title>NETWORKING CORE: 2 regressions in 5 commits</title>" "$SCRATCH/all.svg"'

expect_exit 0 "stats over a range" \
	"$BISECTCTL" stats --repo "$repo" --json "$SCRATCH/range.json" "$F4..main"
j=$SCRATCH/range.json
check "only the range's commits and fixes" \
	jq_true "$j" '.commits == 6 and .fix_commits == 3 and .regressions == 4'
check "A counted from its fix in the range: first fix after 12 days" \
	'[ "$(sub "NETWORKING CORE")" = "[2,1,2,1,14,200]" ]'

expect_exit 0 "stats --help" "$BISECTCTL" stats --help
check "prints stats' usage" grep -q "^usage: bisectctl stats " "$SCRATCH/out"
expect_exit 2 "a range that does not exist" \
	"$BISECTCTL" stats --repo "$repo" nope..main
one_line_error "unknown revision 'nope'"
expect_exit 2 "a symmetric range" "$BISECTCTL" stats --repo "$repo" "$F4...main"
one_line_error "only A..B ranges are supported"
expect_exit 2 "--top 0" "$BISECTCTL" stats --repo "$repo" --top 0
one_line_error "--top: '0' is not a number from 1 to 10000"
git -C "$repo" rm -q MAINTAINERS
git -C "$repo" commit -q -m "no maintainers"
expect_exit 2 "no MAINTAINERS at the range's end" \
	"$BISECTCTL" stats --repo "$repo" --json "$SCRATCH/none.json"
one_line_error "there is no MAINTAINERS file at HEAD"
check "and no JSON written" '[ ! -e "$SCRATCH/none.json" ]'
done_testing
