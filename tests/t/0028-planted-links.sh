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
start_worker w1 --command-timeout 30 --build-timeout 10

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

# Trees that git's fsck would refuse, written literally, as an
# attacker's git could: a link committed, then the same name twice (the
# link and a directory with a file in it); names that climb out with
# "../"; a link as .gitattributes.
mktree() { # mktree REPO "MODE NAME ID"...: a tree object as given
	python3 - "$@" << 'PY'
import subprocess, sys
body = b""
for e in sys.argv[2:]:
    mode, name, oid = e.split(" ")
    body += mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(oid)
print(subprocess.run(["git", "-C", sys.argv[1], "hash-object", "-w", "-t",
                      "tree", "--literally", "--stdin"], input=body,
                     check=True, capture_output=True).stdout.decode().strip())
PY
}
bad=$SCRATCH/bad
git init -q -b main "$bad"
blob=$(echo payload | git -C "$bad" hash-object -w --stdin)
link=$(printf %s "$victim/dir" | git -C "$bad" hash-object -w --stdin)
sub=$(mktree "$bad" "100644 x $blob")
commit() { git -C "$bad" -c user.name=t -c user.email=t@example.org \
	commit-tree ${2:+-p "$2"} -m m "$1"; }
l1=$(commit "$(mktree "$bad" "120000 l $link" "100644 f $blob")")
l2=$(commit "$(mktree "$bad" "120000 l $link" "40000 l $sub" "100644 f $blob")" "$l1")
mkdir -p "$victim/up"
ln -s /etc/passwd "$victim/up/link"
mkfifo "$victim/up/fifo"
up=$(commit "$(mktree "$bad" "100644 ../../../victim/up/link $blob" \
	"100644 ../../../victim/up/fifo $blob" "100644 f $blob")" "$l1")
ga=$(commit "$(mktree "$bad" "120000 .gitattributes $link" "100644 f $blob")" "$l1")
run_bad() { # run_bad COMMIT: a test job of it in the repository bad
	id=$(submit "$(jq -nc --arg r "$bad" --arg c "$1" \
		'{type: "test", repo: $r, commit: $c, command: "true"}')")
	wait_job "$id" 60
}
run_bad "$l1"
run_bad "$l2"
check "a link and a directory of one name: untestable, nothing written through" \
	'jq_true "$SCRATCH/job" ".result == \"skip\"" && untouched'
run_bad "$up"
check "names that climb out with ../: untestable, nothing removed outside" \
	'jq_true "$SCRATCH/job" ".result == \"skip\"" && [ -L "$victim/up/link" ] &&
	 [ -p "$victim/up/fifo" ]'
run_bad "$ga"
check "a link as .gitattributes: untestable" \
	jq_true "$SCRATCH/job" '.result == "skip"'

# A fifo where a checkout reads: the job does not hang the worker
run_on "$one" 'mkfifo .gitattributes d/.gitignore'
run_on "$two" 'true'
check "fifos a command left where a checkout reads do not block the next" \
	'jq_true "$SCRATCH/job" ".state == \"done\" and .result == \"good\""'

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
# A tree whose make never ends holds its slot only --build-timeout long
slow=$SCRATCH/slow
git init -q -b main "$slow"
printf 'Makefile: ;\n%%:\n\tsleep 300\n' > "$slow/Makefile"
git -C "$slow" add Makefile
git -C "$slow" -c user.name=t -c user.email=t@example.org commit -q -m slow
t0=$(date +%s)
id=$(submit "$(jq -nc --arg r "$slow" --arg c "$(git -C "$slow" rev-parse HEAD)" \
	'{type: "build", repo: $r, commit: $c, recipe: "tiny", patches: []}')")
wait_job "$id" 120
check "a make that never ends is killed after --build-timeout (10 s)" \
	'jq_true "$SCRATCH/job" ".state == \"failed\" and .result != \"infra\"" &&
	 [ $(( $(date +%s) - t0 )) -lt 60 ]'
check "and no sleep of it is left" '! pgrep -f "^sleep 300" > /dev/null'
check "bisectd and the worker are still up" \
	'[ "$(api GET health)" = 200 ] && kill -0 "$WPID"'
done_testing
