#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a submitter's code leaves behind in its work directory is never
# followed by the worker, which is root.  A command or a Makefile that
# plants links (or a git directory of its own) where the next step's
# checkout writes must not make the worker write outside the job's
# directories: the targets below, root's, stay as they were.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v bwrap > /dev/null; then
	skip_rest "needs root and bubblewrap: the worker must be root"
	done_testing
	exit 0
fi
victim=$SCRATCH/victim
mkdir -p "$victim/dir" "$victim/tree"
printf 'untouched\n' > "$victim/file"
chmod 755 "$victim/dir" "$victim/tree"

# HEAD~1 and HEAD of a small repository: HEAD changes d/a and f, and the
# committed link l (to the victim's directory) becomes a directory with
# a file in it.
repo=$SCRATCH/repo
git init -q -b main "$repo"
mkdir "$repo/d"
echo one > "$repo/d/a"
echo one > "$repo/f"
ln -s "$victim/dir" "$repo/l"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.org commit -q -m one
rm "$repo/l"
mkdir "$repo/l"
echo two > "$repo/d/a"
echo two > "$repo/f"
echo two > "$repo/l/a"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.org commit -q -m two
one=$(git -C "$repo" rev-parse HEAD~1) two=$(git -C "$repo" rev-parse HEAD)

make_tokens
start_bisectd
start_worker w1 --command-timeout 30

# run_on COMMIT COMMAND: a test job of COMMIT with COMMAND
run_on() {
	id=$(submit "$(jq -nc --arg r "$repo" --arg c "$1" --arg x "$2" \
		'{type: "test", repo: $r, commit: $c, command: $x}')")
	wait_job "$id" 60
}

untouched() {
	[ "$(cat "$victim/file")" = untouched ] &&
		[ -z "$(ls -A "$victim/dir")" ] && [ -z "$(ls -A "$victim/tree")" ]
}

run_on "$one" "rm -rf d f; ln -s '$victim/dir' d; ln -s '$victim/file' f"
check "a command leaves links where the next commit writes" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_on "$two" '[ "$(cat d/a f l/a)" = "$(printf "two\ntwo\ntwo")" ] &&
	[ ! -L d ] && [ ! -L f ] && [ ! -L l ]'
check "the next step's checkout writes the commit's files, not the links'" \
	jq_true "$SCRATCH/job" '.result == "good"'
check "and nothing outside: the links' targets are as they were" untouched

run_on "$one" '[ -L l ] && [ "$(readlink l)" = "'"$victim/dir"'" ]'
check "a link that the tree commits is checked out as a link" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_on "$two" '[ -d l ] && [ ! -L l ] && [ "$(cat l/a)" = two ]'
check "and the next commit's directory in its place is made anew" \
	'jq_true "$SCRATCH/job" ".result == \"good\"" && untouched'

# A git directory of the command's own, whose work tree is elsewhere
run_on "$one" "mv .git .git.old 2> /dev/null; git init -q . &&
	git config core.worktree '$victim/tree'; true"
run_on "$two" 'true'
check "a git directory that a command made is not the worker's" untouched

# A kernel build job: the tree's Makefile replaces its own checkout
# (root's) with a link to the victim's directory, and the next build job
# of the same submitter and recipe checks out the next commit.
evil=$SCRATCH/evil
git init -q -b main "$evil"
printf 'Makefile: ;\n%%:\n\t@mv $(CURDIR) $(CURDIR).old 2> /dev/null && ln -s %s $(CURDIR) 2> /dev/null || true\n\t@false\n' \
	"$victim/tree" > "$evil/Makefile"
git -C "$evil" add Makefile
git -C "$evil" -c user.name=t -c user.email=t@example.org commit -q -m one
echo payload > "$evil/payload"
git -C "$evil" add payload
git -C "$evil" -c user.name=t -c user.email=t@example.org commit -q -m two
for c in HEAD~1 HEAD; do
	id=$(submit "$(jq -nc --arg r "$evil" \
		--arg c "$(git -C "$evil" rev-parse $c)" \
		'{type: "build", repo: $r, commit: $c, recipe: "tiny",
		  patches: []}')")
	wait_job "$id" 120
done
check "a Makefile that swaps its checkout for a link writes nothing there" \
	'jq_true "$SCRATCH/job" ".state == \"done\" or .state == \"failed\"" &&
	 untouched'
check "and its checkout is still the worker's directory" \
	'src=$(find "$BISECTD_CACHE/work" -maxdepth 2 -name src | head -n 1) &&
	 [ -n "$src" ] && [ ! -L "$src" ] && [ "$(stat -c %u "$src")" = 0 ] &&
	 [ "$(stat -c %u "$(dirname "$src")")" = 0 ]'

# A patch whose path no tree may hold is the submitter's error: the job
# fails saying so, at once, and is not tried again as infra.
id=$(submit "$(jq -nc --arg r "$evil" --arg c "$(git -C "$evil" rev-parse HEAD)" \
	--arg p "$(printf -- '--- /dev/null\n+++ b/../escape\n@@ -0,0 +1 @@\n+x\n')" \
	'{type: "build", repo: $r, commit: $c, recipe: "tiny",
	  patches: [{name: "escape.patch", text: $p}]}')")
wait_job "$id" 120
check "a patch to a path outside the tree fails its job as the patch's fault" \
	'jq_true "$SCRATCH/job" ".state == \"failed\" and .result != \"infra\" and
		(.reason | test(\"escape.patch\")) and (.steps | length) == 1"'
check "bisectd and the worker are still up" \
	'[ "$(api GET health)" = 200 ] && kill -0 "$WPID"'
done_testing
