#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A worker that does not have a job's repository: the coordinator has it
# as a path, the worker (in a mount namespace where that path is hidden
# under an empty tmpfs) fetches it from the coordinator over git's smart
# HTTP with its worker token, into one mirror that a second job on the
# same repository only adds to.  Who may fetch, and what.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null; then
	skip_rest "a worker that cannot see the repository needs root (a mount namespace)"
	done_testing
fi
repo=$SCRATCH/hidden/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 3 300)"
make_tokens
start_bisectd
BISECTD_WORKER_TOKEN=$WTOKEN setsid unshare -m --propagation private \
	sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh "$SCRATCH/hidden" \
	"$WORKER" --server "$URL" --name far --allow-commands --slot -far \
	> "$SCRATCH/far.log" 2>&1 &
PIDS="$PIDS $!"

id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" "test ! -f regression")")
wait_job "$id" 120
check "a job on a repository the worker does not have: found the culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
check "the worker fetched it from the coordinator" \
	grep -q "$repo is not on this machine: fetching it from the coordinator" "$SCRATCH/far.log"
mirror=$(ls -d "$BISECTD_CACHE"/mirrors/*.git 2> /dev/null)
check "into one mirror with every commit" \
	'[ -n "$mirror" ] && [ "$(echo "$mirror" | wc -l)" = 1 ] && git -C "$mirror" cat-file -e "$BAD^{commit}"'
packs=$(ls "$mirror"/objects/pack/*.pack | wc -l)

# five new commits: the next job's fetch brings those and no more
git -C "$repo" checkout -q main
for i in 1 2 3 4 5; do
	echo "$i" >> "$repo/more.txt"
	git -C "$repo" add more.txt
	git -C "$repo" commit -q -m "more $i"
done
NEW=$(git -C "$repo" rev-parse HEAD)
id=$(submit "$(bisect_job "$repo" "$GOOD" "$NEW" "test ! -f regression # again")")
wait_job "$id" 120
check "a second job on it: found the same culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
newest=$(ls -t "$mirror"/objects/pack/*.idx | head -n 1)
objects=$(git verify-pack -v "$newest" | grep -c -E '^[0-9a-f]{40} (commit|tree|blob|tag) ')
check "its fetch added one pack of $objects objects (the five commits' own)" \
	'[ "$(ls "$mirror"/objects/pack/*.pack | wc -l)" = $((packs + 1)) ] && [ "$objects" -le 20 ] && git -C "$mirror" cat-file -e "$NEW^{commit}"'

refs="jobs/$id/git/info/refs?service=git-upload-pack"
check "without a token: 401" '[ "$(api GET "$refs")" = 401 ]'
check "with a submit token: 401, a worker token needed" \
	'[ "$(api GET "$refs" "" "$STOKEN")" = 401 ] && grep -q "needs a worker token" "$SCRATCH/body"'
check "with a worker token: the refs, as git's smart HTTP gives them" \
	'[ "$(api GET "$refs" "" "$WTOKEN")" = 200 ] && head -c 30 "$SCRATCH/body" | grep -q "# service=git-upload-pack"'
check "pushing is refused (service=git-receive-pack: 403)" \
	'[ "$(api GET "jobs/$id/git/info/refs?service=git-receive-pack" "" "$WTOKEN")" = 403 ]'
check "git itself fetches with the token" \
	'git -c "http.extraHeader=Authorization: Bearer $WTOKEN" ls-remote "$URL/api/v1/jobs/$id/git" | grep -q "^$NEW"'
check "an unknown job: 404" \
	'[ "$(api GET "jobs/999/git/info/refs?service=git-upload-pack" "" "$WTOKEN")" = 404 ]'

# git http-backend may take minutes on a whole tree: it never holds the
# whole pool, and one worker token never holds the share of it.
# bisectd again, with a git whose http-backend takes 5 s; three fetches
# at once from one worker token, then one from another: a submitter's
# call that the pool serves is answered meanwhile, the other token's
# fetch does not wait for the first token's, and all are answered.
W2TOKEN=$("$BISECTD" --state "$STATE" token add worker other-worker)
kill "$DPID"
wait "$DPID" 2> /dev/null
mkdir -p "$SCRATCH/slowgit"
printf '#!/bin/sh\n[ "$1" = http-backend ] && sleep 5\nexec %s "$@"\n' \
	"$(command -v git)" > "$SCRATCH/slowgit/git"
chmod +x "$SCRATCH/slowgit/git"
old_path=$PATH
PATH=$SCRATCH/slowgit:$PATH
PORT=
start_bisectd
PATH=$old_path
refs="$URL/api/v1/jobs/$id/git/info/refs?service=git-upload-pack"
for k in 1 2 3; do
	curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $WTOKEN" \
		"$refs" >> "$SCRATCH/fetches" &
	fetches="${fetches:-} $!"
done
sleep 0.5
curl -s -o /dev/null -w '%{http_code} %{time_total}\n' \
	-H "Authorization: Bearer $W2TOKEN" "$refs" > "$SCRATCH/other" &
other=$!
sleep 0.5
t0=$(date +%s.%N)
code=$(api GET jobs "" "$STOKEN")
took=$(echo "$(date +%s.%N) - $t0" | bc)
check "while slow fetches run, the job list answers ($code in $took s)" \
	'[ "$code" = 200 ] && [ "$(echo "$took < 1" | bc)" = 1 ]'
wait $other
check "the other worker token's fetch did not wait for the first's ($(cat "$SCRATCH/other") s)" \
	'[ "$(cut -d" " -f1 "$SCRATCH/other")" = 200 ] &&
	 [ "$(echo "$(cut -d" " -f2 "$SCRATCH/other") < 8" | bc)" = 1 ]'
wait $fetches
check "and the first token's three were answered, one at a time: $(sort "$SCRATCH/fetches" | uniq -c | tr -s ' \n' ' ')" \
	'[ "$(grep -c "^200$" "$SCRATCH/fetches")" = 3 ]'
# bisectd stops without running the fetches that wait: they are
# answered 503 at once, and only the running one is waited for
: > "$SCRATCH/fetches"
fetches=
for k in 1 2 3; do
	curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $WTOKEN" \
		"$refs" >> "$SCRATCH/fetches" &
	fetches="$fetches $!"
done
sleep 1
t0=$(date +%s.%N)
kill -TERM "$DPID"
wait "$DPID" 2> /dev/null
took=$(echo "$(date +%s.%N) - $t0" | bc)
wait $fetches
check "stopping, bisectd answers the waiting fetches 503 and is gone in $took s: $(sort "$SCRATCH/fetches" | uniq -c | tr -s ' \n' ' ')" \
	'[ "$(grep -c "^503$" "$SCRATCH/fetches")" = 2 ] && [ "$(echo "$took < 8" | bc)" = 1 ]'
done_testing
