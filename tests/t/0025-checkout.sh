#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Moving a worktree between commits rewrites only the paths that differ,
# and the tree each step sees is still exactly its commit's: files
# changed, added, deleted, made executable, turned into symlinks, a file
# that becomes a directory and back.  A checkout that was interrupted
# (its marker left in the worktree's git directory, beside it) is
# followed by a whole one.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
git init -q -b main "$repo"
git -C "$repo" config user.name "Fixture Author"
git -C "$repo" config user.email fixture@example.org
echo stable > "$repo/stable.txt"
t=1600000000
i=0
while [ $i -lt 60 ]; do
	i=$((i + 1)) t=$((t + 60))
	(
		cd "$repo"
		echo "$i" >> "f$((i % 7)).c"
		case $((i % 5)) in
		0) rm -f "f$(((i + 3) % 7)).c" ;;
		1) chmod +x "f$((i % 7)).c" ;;
		2) rm -f link && ln -s "f$((i % 7)).c" link ;;
		3) if [ -d node ]; then rm -r node && echo "$i" > node; else
			rm -f node && mkdir -p node/deep && echo "$i" > node/deep/x; fi ;;
		4) mkdir -p "dir$((i % 3))" && echo "$i" > "dir$((i % 3))/y" ;;
		esac
		[ $i -ne 41 ] || echo planted > regression
		git add -A
		GIT_AUTHOR_DATE="@$t +0000" GIT_COMMITTER_DATE="@$t +0000" \
			git commit -q -m "change $i"
	)
done
GOOD=$(git -C "$repo" rev-list --max-parents=0 HEAD)
BAD=$(git -C "$repo" rev-parse HEAD)
CULPRIT=$(git -C "$repo" log --format=%H --grep='^change 41$')

# the step's command: is the worktree exactly $BISECT_COMMIT's tree
# (every file and symlink, its mode and its blob)?  Differences go to a
# file of their own per step; the verdict is the planted file's.
cat > "$SCRATCH/exact" << 'EOF'
#!/bin/sh
git ls-tree -r "$BISECT_COMMIT" | awk '{ print $1, $3, $4 }' | sort > "$SCRATCH/want.$BISECT_COMMIT"
find . -path ./.git -prune -o \( -type f -o -type l \) -print | sed 's,^\./,,' |
while read -r f; do
	if [ -L "$f" ]; then
		echo "120000 $(printf %s "$(readlink "$f")" | git hash-object --stdin) $f"
	elif [ -x "$f" ]; then
		echo "100755 $(git hash-object "$f") $f"
	else
		echo "100644 $(git hash-object "$f") $f"
	fi
done | sort > "$SCRATCH/have.$BISECT_COMMIT"
if cmp -s "$SCRATCH/want.$BISECT_COMMIT" "$SCRATCH/have.$BISECT_COMMIT"; then
	rm "$SCRATCH/want.$BISECT_COMMIT" "$SCRATCH/have.$BISECT_COMMIT"
fi
test ! -f regression
EOF
sed -i "s,\$SCRATCH,$SCRATCH,g" "$SCRATCH/exact"
chmod +x "$SCRATCH/exact"

expect_exit 0 "a bisection over adds, deletes, modes, symlinks, files to directories" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/r.json" -- "$SCRATCH/exact"
check "it names the planted commit" [ "$(jq -r .first_bad "$SCRATCH/r.json")" = "$CULPRIT" ]
steps=$(jq '.steps | length' "$SCRATCH/r.json")
check "every one of its $steps steps saw exactly its commit's tree" \
	'[ "$steps" -ge 5 ] && [ -z "$(ls "$SCRATCH" | grep "^have\.")" ]'

work=$(ls -d "$BISECTD_CACHE"/worktrees/*-run)
# a change a command makes to a file that no move touches stays, as
# under git bisect run; after an interrupted checkout it does not
echo scribbled > "$work/stable.txt"
"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	-- "$SCRATCH/exact" > /dev/null 2>&1
check "a move rewrites only what differs (a scribble elsewhere stays)" \
	'[ "$(cat "$work/stable.txt")" = scribbled ] && [ -n "$(ls "$SCRATCH" | grep "^have\.")" ]'
rm -f "$SCRATCH"/have.* "$SCRATCH"/want.*
: > "$work.git/bisectd-checkout"
expect_exit 0 "a bisection after an interrupted checkout" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	-- "$SCRATCH/exact"
check "its first checkout was whole: every step saw its commit's tree" \
	'[ "$(cat "$work/stable.txt")" = stable ] && [ -z "$(ls "$SCRATCH" | grep "^have\.")" ] && [ ! -e "$work.git/bisectd-checkout" ]'
done_testing
