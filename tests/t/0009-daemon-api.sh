#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectd's API: a tracker submits a bisection with a token, a worker
# runs it, the job carries its steps, artifacts and bisect log, and the
# result is POSTed to the callback (retried until it is taken).  Bad
# requests get a 4xx with a JSON error, and the daemon stays up and
# writes nothing outside its state directory.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 21 200)"
mkdir -p "$SCRATCH/cwd" "$SCRATCH/hooks"
cd "$SCRATCH/cwd" || exit 1
make_tokens
start_sink hooks 2
hook=$HOOK
HOOK_URLS="$HOOK_URLS http://127.0.0.1:9/"
expect_exit 2 "bisectd with a --mail-from that is not an address" \
	"$BISECTD" --state "$STATE" --mail-from "bisectd at example.org"
one_line_error "^bisectd: --mail-from: 'bisectd at example.org' is not one mail address"
expect_exit 2 "bisectd with a webhook-urls prefix that has no normal form" \
	timeout 20 "$BISECTD" --state "$STATE" --port 0 \
	--webhook-urls "http://127.0.0.1:9/%2e%2e/"
one_line_error "^bisectd: webhook-urls: URL 'http://127.0.0.1:9/%2e%2e/' has a '.' or '..' segment"
start_bisectd --mail-from "Kernel CI, Lab <lab@example.org>"
check "bisectd is up" [ "$(api GET health)" = 200 ]
touch "$SCRATCH/marker"

# --- auth ---------------------------------------------------------------
req=$(bisect_job "$repo" "$GOOD" "$BAD" 'test ! -f regression' \
	"{callback: \"$hook\", callback_secret: \"hook-key-1\"}")
check "submitting without a token: 401" [ "$(api POST jobs "$req")" = 401 ]
check "with a worker token: 401" [ "$(api POST jobs "$req" "$WTOKEN")" = 401 ]
check "with an unknown token: 401" [ "$(api POST jobs "$req" nosuchtoken)" = 401 ]
check "the error is JSON" jq_true "$SCRATCH/body" .error
check "registering a worker with a submit token: 401" \
	[ "$(api POST workers '{"name":"x"}' "$STOKEN")" = 401 ]
check "tokens are stored hashed" \
	sh -c "! grep -a -q '$STOKEN' '$STATE/state.db'"

# --- a bisection --------------------------------------------------------
check "submitting with the submit token: 201" \
	[ "$(api POST jobs "$req" "$STOKEN")" = 201 ]
id=$(jq -r .id "$SCRATCH/body")
start_worker w1
check "job $id ends" wait_job "$id" 60
check "found the planted culprit" \
	jq_true "$SCRATCH/job" ".state == \"done\" and .result == \"found\" and .culprit == \"$CULPRIT\""
check "every done step has a verdict and a result" \
	jq_true "$SCRATCH/job" '[.steps[] | select(.state == "done") | .verdict != null and .result.verdict == .verdict] | all'
check "the job lists its rounds" jq_true "$SCRATCH/job" '.rounds >= 7 and .rounds <= 9'
step=$(jq -r '[.steps[] | select(.state == "done")][0].id' "$SCRATCH/job")
want=$(jq -r "[.steps[] | select(.id == $step)][0].artifacts[] | select(.name == \"command.log\") | .sha256" "$SCRATCH/job")
api GET "jobs/$id/steps/$step/artifacts/command.log" > "$SCRATCH/code"
check "the step's log was uploaded and downloads intact" \
	'[ "$(cat "$SCRATCH/code")" = 200 ] &&
	 [ "$(sha256sum < "$SCRATCH/body" | cut -d" " -f1)" = "$want" ]'
api GET "jobs/$id/bisect.log" > /dev/null
cp "$SCRATCH/body" "$SCRATCH/bisect.log"
(cd "$repo" && git bisect replay "$SCRATCH/bisect.log") > "$SCRATCH/replay" 2>&1
check "git bisect replay takes the job's bisect log" \
	grep -q "^$CULPRIT is the first bad commit" "$SCRATCH/replay"
git -C "$repo" bisect reset -q > /dev/null 2>&1
api GET "jobs/$id/report.txt" > /dev/null
cp "$SCRATCH/body" "$SCRATCH/report.txt"
short=$(echo "$CULPRIT" | cut -c1-12)
check "the mail report names the culprit" \
	'mail_headers "$SCRATCH/report.txt" | grep -q "^Subject: \[REGRESSION\] .*(bisected to $short)$"'
check "and, this not being a kernel tree, no regzbot line and no recipients" \
	'! grep -q -e "^#regzbot" -e "^To:" -e "^Cc:" -e regressions@ "$SCRATCH/report.txt"'
check "and links the step logs on this server" \
	grep -q "^  job: http://127.0.0.1:$PORT/jobs/$id$" "$SCRATCH/report.txt"
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -H "Host: evil.example" \
	"$URL/api/v1/jobs/$id/report.txt")
check "a request's Host header does not choose the report's links ($code)" \
	'[ "$code" = 200 ] && grep -q "^  job: http://127.0.0.1:$PORT/jobs/$id$" "$SCRATCH/body" &&
	 ! grep -q evil.example "$SCRATCH/body"'
api GET "jobs/$id/report.json" > /dev/null
check "the JSON report has the culprit and no recipients (not a kernel tree)" \
	jq_true "$SCRATCH/body" ".first_bad == \"$CULPRIT\" and .recipients.cc == [] and .recipients.to == [] and has(\"regzbot\") == false"
# a repository shaped like a Linux tree (its top Kconfig, a MAINTAINERS
# section for the culprit's file): the report goes to that section's
# maintainer and list, and to the regressions list, for regzbot
krepo=$SCRATCH/krepo
git init -q "$krepo"
printf 'mainmenu "Linux/$(ARCH) $(KERNELVERSION) Kernel Configuration"\n' \
	> "$krepo/Kconfig"
# a name with a comma, one with non-ASCII letters, an address that
# .mailmap maps, and a list for subscribers only
printf 'CRASHME DRIVER\nM:\tMaintainer, Ada <ada@old.example.org>\nM:\tZo\303\253 \303\234nal <zoe@example.org>\nL:\tcrashme@example.org\nL:\tsecret@example.org (subscribers-only)\nS:\tMaintained\nF:\tdrivers/crashme.c\n' \
	> "$krepo/MAINTAINERS"
printf 'Maintainer, Ada <ada@example.org> <ada@old.example.org>\n' \
	> "$krepo/.mailmap"
git -C "$krepo" add -A
git -C "$krepo" -c user.name=t -c user.email=t@example.org commit -q -m base
kgood=$(git -C "$krepo" rev-parse HEAD)
mkdir "$krepo/drivers"
echo crash > "$krepo/drivers/crashme.c"
touch "$krepo/regression"
git -C "$krepo" add -A
git -C "$krepo" -c user.name=t -c user.email=t@example.org commit -q -m "crashme: break it"
kbad=$(git -C "$krepo" rev-parse HEAD)
kid=$(submit "$(bisect_job "$krepo" "$kgood" "$kbad" 'test ! -f regression')")
check "a bisection in a kernel-shaped tree ends" wait_job "$kid" 60
api GET "jobs/$kid/report.txt" > /dev/null
mail_headers "$SCRATCH/body" > "$SCRATCH/headers"
check "its report goes to the section's maintainers and list, and regressions@" \
	'grep -q "^To: \"Maintainer, Ada\" <ada@example.org>, =?[^?]*?[bBqQ]?[^ ]*?= <zoe@example.org>$" "$SCRATCH/headers" &&
	 grep -q "^Cc: crashme@example.org, regressions@lists.linux.dev$" "$SCRATCH/headers" &&
	 grep -q "^#regzbot introduced: $(echo "$kbad" | cut -c1-12)$" "$SCRATCH/body"'
check "a mail any mail system takes: From, Date, MIME, and headers in ASCII" \
	'grep -q "^From: \"Kernel CI, Lab\" <lab@example.org>$" "$SCRATCH/headers" &&
	 grep -q "^Date: " "$SCRATCH/headers" &&
	 grep -q "^MIME-Version: 1.0$" "$SCRATCH/headers" &&
	 grep -q "^Content-Type: text/plain" "$SCRATCH/headers" &&
	 ! LC_ALL=C grep -q "[^ -~]" "$SCRATCH/headers"'
wait_job "$id" 5 # $SCRATCH/job: the first job again, for what follows
check "the webhook was retried and delivered" \
	wait_for "$SCRATCH/hooks/hook-1.json" "\"culprit\":\"$CULPRIT\"" 30
api GET "jobs/$id" > /dev/null
check "the job shows the delivery after 3 attempts" \
	jq_true "$SCRATCH/body" '.webhook.state == "delivered" and .webhook.attempts == 3'
check "the webhook's key is not shown in the job's view" \
	'jq_true "$SCRATCH/body" ".spec | has(\"callback_secret\") | not" &&
	 ! grep -q hook-key-1 "$SCRATCH/body"'
# the receiver's side, as docs/security.md shows it
sig=$(openssl dgst -sha256 -hmac hook-key-1 -r "$SCRATCH/hooks/hook-1.json" | cut -d' ' -f1)
check "the webhook is signed: HMAC-SHA256 of the body under the job's key" \
	grep -qx "X-Bisectd-Signature: sha256=$sig" "$SCRATCH/hooks/hook-1.headers"
check "and names its job" grep -qx "X-Bisectd-Job: $id" "$SCRATCH/hooks/hook-1.headers"
sig=$(openssl dgst -sha256 -hmac other-key -r "$SCRATCH/hooks/hook-1.json" | cut -d' ' -f1)
check "a signature under another key does not match" \
	sh -c "! grep -q 'sha256=$sig' '$SCRATCH/hooks/hook-1.headers'"
for dest in "http://127.0.0.1:$(free_port)/hook" "http://127.0.0.1/hook" \
	"http://localhost:9/hook" "https://127.0.0.1:9/hook"; do
	code=$(api POST jobs "$(bisect_job "$repo" "$GOOD" "$BAD" true \
		"{callback: \"$dest\"}")" "$STOKEN")
	check "a webhook to $dest (not in webhook-urls): 422 ($code)" \
		'[ "$code" = 422 ] && grep -q "setting webhook-urls" "$SCRATCH/body"'
done
# compared as RFC 3986 normalises it: %2e%2e is a ".." segment
code=$(api POST jobs "$(bisect_job "$repo" "$GOOD" "$BAD" true \
	"{callback: \"$hook/%2e%2e/admin\"}")" "$STOKEN")
check "a webhook under webhook-urls that climbs out with %2e%2e: 422 ($code)" \
	'[ "$code" = 422 ] && jq -e ".error | test(\"callback.*segment\")" "$SCRATCH/body" > /dev/null'
code=$(api POST jobs "$(bisect_job "$repo" "$GOOD" "$BAD" true \
	'{callback_secret: "k"}')" "$STOKEN")
check "a callback_secret without a callback: 422 ($code)" [ "$code" = 422 ]
api GET 'jobs?state=done' > /dev/null
check "the job list has it" jq_true "$SCRATCH/body" "[.jobs[].id] | index($id) != null"
cid=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'test ! -f regression' \
	'{callback: "http://hookuser:s3cret@127.0.0.1:9/hook"}')")
# once its job has ended and the webhook was tried (and failed: nothing
# listens there), so that the delivery's error is in the view too
for _ in $(seq 300); do
	api GET "jobs/$cid" > /dev/null
	jq_true "$SCRATCH/body" '.webhook.attempts >= 1' && break
	sleep 0.2
done
check "a callback's password is not shown in the job's view" \
	'jq_true "$SCRATCH/body" ".spec.callback == \"http://***@127.0.0.1:9/hook\"" &&
	 ! grep -q s3cret "$SCRATCH/body"'
api POST "jobs/$cid/cancel" '' "$STOKEN" > /dev/null

# --- bisectctl --server ---------------------------------------------------
expect_exit 0 "bisectctl --server sends a bisection and follows it" \
	"$BISECTCTL" --server "$URL" --token "$STOKEN" run --repo "$repo" \
	--good "$GOOD" --bad "$BAD" --json "$SCRATCH/remote.json" -- \
	sh -c 'test ! -f regression # remote'
check "its JSON report names the culprit" \
	jq_true "$SCRATCH/remote.json" ".first_bad == \"$CULPRIT\""
check "it printed the steps as they ended" grep -q "^round 1 bisect: " "$SCRATCH/err"
check "and the mail report" grep -q "^Subject: \[REGRESSION\] " "$SCRATCH/out"
expect_exit 2 "a revision bisectd does not know: exit 2" \
	"$BISECTCTL" --server "$URL" --token "$STOKEN" run --repo "$repo" \
	--good nosuchrev --bad "$BAD" -- true
one_line_error "refused the job (HTTP 422): unknown revision 'nosuchrev'"
expect_exit 2 "a wrong token: exit 2" \
	"$BISECTCTL" --server "$URL" --token wrong run --repo "$repo" \
	--good "$GOOD" --bad "$BAD" -- true
one_line_error "refused the job (HTTP 401)"

# --- a test job, the result cache, cancel ------------------------------
tested=$(jq -r "[.steps[] | select(.id == $step)][0].commit" "$SCRATCH/job")
verdict=$(jq -r "[.steps[] | select(.id == $step)][0].verdict" "$SCRATCH/job")
tid=$(submit "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$tested\",\"command\":\"test ! -f regression\"}")
wait_job "$tid" 30
check "a test job of a commit already tested is answered from the cache" \
	jq_true "$SCRATCH/job" ".result == \"$verdict\" and .steps[0].cached == true"
kill -STOP "$WPID"
sid=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'sleep 1; test ! -f regression')")
# a job is its submitter's: another submit token may not cancel it
OTHER=$("$BISECTD" --state "$STATE" token add submit stranger)
check "cancelling another's job: 403" \
	[ "$(api POST "jobs/$sid/cancel" '' "$OTHER")" = 403 ]
check "and it says whose it is" grep -q "only its submitter" "$SCRATCH/body"
api GET "jobs/$sid" > /dev/null
check "the job goes on" jq_true "$SCRATCH/body" '.state != "cancelled"'
expect_exit 2 "a token name of 64 characters" "$BISECTD" --state "$STATE" \
	token add submit "$(printf '%064d' 0)"
check "cancel: 200" [ "$(api POST "jobs/$sid/cancel" '' "$STOKEN")" = 200 ]
check "cancelled job" jq_true "$SCRATCH/body" '.state == "cancelled" and ([.steps[] | select(.state == "queued" or .state == "running")] | length) == 0'
check "cancelling again: 409" [ "$(api POST "jobs/$sid/cancel" '' "$STOKEN")" = 409 ]
check "cancelling without a token: 401" [ "$(api POST "jobs/$sid/cancel")" = 401 ]
kill -CONT "$WPID"

# --- bad requests -------------------------------------------------------
bad() { # bad STATUS WHAT BODY
	code=$(api POST jobs "$3" "$STOKEN")
	want_code=$1
	check "$2: $code $(jq -r .error "$SCRATCH/body" 2>&1)" \
		'[ "$code" = "$want_code" ] && jq_true "$SCRATCH/body" .error'
}
bad 422 "malformed JSON" '{"type": "bisect",'
bad 422 "not an object" '[1, 2]'
bad 422 "wrong type" "{\"type\":\"bisect\",\"repo\":\"$repo\",\"good\":[\"$GOOD\"],\"bad\":\"$BAD\",\"command\":\"true\",\"runs\":\"two\"}"
bad 422 "unknown field" "{\"type\":\"bisect\",\"repo\":\"$repo\",\"good\":[\"$GOOD\"],\"bad\":\"$BAD\",\"command\":\"true\",\"colour\":1}"
bad 422 "unknown job type" '{"type":"frobnicate"}'
bad 422 "unknown revision" "{\"type\":\"bisect\",\"repo\":\"$repo\",\"good\":[\"v0.0-nosuch\"],\"bad\":\"$BAD\",\"command\":\"true\"}"
bad 422 "not a repository" "{\"type\":\"bisect\",\"repo\":\"$SCRATCH/cwd\",\"good\":[\"a\"],\"bad\":\"b\",\"command\":\"true\"}"
bad 422 "unknown recipe" "{\"type\":\"bisect\",\"repo\":\"$repo\",\"good\":[\"$GOOD\"],\"bad\":\"$BAD\",\"recipe\":\"nosuch\"}"
bad 422 "an empty command" "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"command\":\"\"}"
bad 422 "a recipe name that is a path" "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"recipe\":\"../../../etc/passwd\"}"
check "which says a name, not a path" grep -q "must be a recipe name" "$SCRATCH/body"
bad 422 "a name with a NUL" "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"recipe\":\"tiny\\u0000x\"}"
bad 422 "--apply in generic mode" "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"command\":\"true\",\"apply\":[{\"name\":\"a.patch\",\"text\":\"x\"}]}"
bad 422 "a build's patches in a bisection" "{\"type\":\"bisect\",\"repo\":\"$repo\",\"good\":[\"$GOOD\"],\"bad\":\"$BAD\",\"recipe\":\"tiny\",\"patches\":[]}"
check "which names 'apply'" grep -q "bisect and test jobs take 'apply'" "$SCRATCH/body"
t0=$(date +%s)
code=$(api POST "workers/1/poll?wait=nan" '' "$WTOKEN")
check "a long poll with wait=nan: 400 at once ($code, $(($(date +%s) - t0)) s)" \
	'[ "$code" = 400 ] && [ $(($(date +%s) - t0)) -lt 5 ]'
check "which says what wait takes" grep -q "'wait' must be a number from 0 to" "$SCRATCH/body"
code=$(api POST "workers/1/poll?wait=1e9" '' "$WTOKEN")
check "wait=1e9: 400 ($code)" [ "$code" = 400 ]
bad 422 "callback not http" "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"command\":\"true\",\"callback\":\"file:///etc/passwd\"}"
head -c 10485760 /dev/zero | tr '\0' 'a' > "$SCRATCH/big"
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -H "Authorization: Bearer $STOKEN" \
	--data-binary @"$SCRATCH/big" "$URL/api/v1/jobs")
check "a 10 MB body: 413 ($code)" [ "$code" = 413 ]
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' --path-as-is \
	"$URL/api/v1/jobs/$id/steps/$step/artifacts/../../../../etc/passwd")
check "path traversal in an artifact name: 4xx ($code)" '[ "$code" -ge 400 ] && [ "$code" -lt 500 ]'
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' \
	"$URL/api/v1/jobs/$id/steps/$step/artifacts/..%2f..%2fstate.db")
check "an encoded traversal: 4xx ($code)" '[ "$code" -ge 400 ] && [ "$code" -lt 500 ]'
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X PUT -H "Authorization: Bearer $WTOKEN" \
	-H "X-Content-SHA256: 00" --data-binary x "$URL/api/v1/leases/nosuch/artifacts/.hidden")
check "uploading a dot file: 400 ($code)" [ "$code" = 400 ]

# --- artifacts' names, and how they are served ------------------------------
# a lease taken by hand, on a job that only a worker with the network
# takes (w1 has none)
hw=$(curl -s -H "Authorization: Bearer $WTOKEN" \
	-d '{"name":"hand","run":true,"network":true}' "$URL/api/v1/workers" | jq .id)
hj=$(submit "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"command\":\"true # by hand\",\"network\":true}")
mkdir -p "$SCRATCH/hand"
curl -s -X POST -H "Authorization: Bearer $WTOKEN" \
	"$URL/api/v1/workers/$hw/poll" > "$SCRATCH/hand/lease.json"
hl=$(jq -r .lease "$SCRATCH/hand/lease.json")
hs=$(jq -r .step "$SCRATCH/hand/lease.json")
# put NAME FILE: FILE uploaded as the artifact NAME (as it goes in the
# path); prints the status
put() {
	curl -s -o "$SCRATCH/body" -w '%{http_code}' -X PUT \
		-H "Authorization: Bearer $WTOKEN" \
		-H "X-Content-SHA256: $(sha256sum < "$2" | cut -d' ' -f1)" \
		--data-binary @"$2" "$URL/api/v1/leases/$hl/artifacts/$1"
}
# fetch NAME: the artifact NAME of that step, headers in $SCRATCH/headers;
# prints the status
fetch() {
	curl -s -o "$SCRATCH/body" -D "$SCRATCH/headers" -w '%{http_code}' \
		"$URL/api/v1/jobs/$hj/steps/$hs/artifacts/$1"
}
# header NAME: the value of that response header
header() { tr -d '\r' < "$SCRATCH/headers" | sed -n "s/^$1: //Ip"; }
printf '<html><script>alert(document.cookie)</script></html>\n' > "$SCRATCH/hand/page.html"
printf '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\n' > "$SCRATCH/hand/image.svg"
printf 'make: *** [Makefile:1] Error 1\n' > "$SCRATCH/hand/build.log"
code=$(put 'x%00y.html' "$SCRATCH/hand/page.html")
check "uploading an artifact whose name has %00: 400 ($code, $(jq -r .error "$SCRATCH/body"))" \
	'[ "$code" = 400 ] && jq_true "$SCRATCH/body" ".error | test(\"control characters\")"'
check "and nothing was stored under the name cut at the NUL" '[ "$(fetch x)" = 404 ]'
uploads=""
for f in page.html image.svg build.log; do
	uploads="$uploads $(put "$f" "$SCRATCH/hand/$f")"
done
echo "# uploads of page.html, image.svg, build.log:$uploads"
code=$(fetch 'build.log%00.html')
check "fetching build.log%00.html: 400, not build.log ($code)" \
	'[ "$code" = 400 ] && jq_true "$SCRATCH/body" ".error | test(\"control characters\")"'
for f in page.html image.svg; do
	code=$(fetch "$f")
	check "$f is served as bytes to save: $code, $(header Content-Type), $(header Content-Disposition)" \
		'[ "$code" = 200 ] && [ "$(header Content-Type)" = application/octet-stream ] &&
		 [ "$(header Content-Disposition)" = "attachment; filename=\"$f\"" ] &&
		 [ "$(header X-Content-Type-Options)" = nosniff ]'
done
code=$(fetch build.log)
check "a log is shown as text: $code, $(header Content-Type), $(header X-Content-Type-Options)" \
	'[ "$code" = 200 ] && [ "$(header Content-Type)" = "text/plain; charset=utf-8" ] &&
	 [ -z "$(header Content-Disposition)" ] && [ "$(header X-Content-Type-Options)" = nosniff ]'
check "a query's %00 is refused too, not cut: 400" \
	[ "$(api GET 'jobs?state=done%00x')" = 400 ]
curl -s -o /dev/null -H "Authorization: Bearer $WTOKEN" \
	-d "{\"verdict\":\"good\",\"title\":\"\",\"commit\":$(jq .commit "$SCRATCH/hand/lease.json")}" \
	"$URL/api/v1/leases/$hl/result"
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $WTOKEN" \
	-d '{"verdict":"good"}' "$URL/api/v1/leases/nosuch/result")
check "a result for an unknown lease: 409 ($code)" [ "$code" = 409 ]
check "a job that does not exist: 404" [ "$(api GET jobs/999999)" = 404 ]
# bodies without a token are dropped as they come, not kept: 50 slow
# uploads of 1 MB each cost the daemon next to nothing (kept, 40 MB)
head -c 1000000 /dev/zero | tr '\0' 'a' > "$SCRATCH/big"
rss0=$(ps -o rss= -p "$DPID")
cpids=""
for _ in $(seq 50); do
	timeout 20 curl -s -o /dev/null --limit-rate 300k \
		--data-binary @"$SCRATCH/big" "$URL/api/v1/jobs" &
	cpids="$cpids $!"
done
sleep 2.5
rss1=$(ps -o rss= -p "$DPID")
wait $cpids
check "50 uploads without a token: RSS $rss0 kB -> $rss1 kB" \
	[ $((rss1 - rss0)) -lt 16000 ]
check "bisectd is still up" [ "$(api GET health)" = 200 ]
check "the daemon process lives" kill -0 "$DPID"
new=$(find "$SCRATCH" -newer "$SCRATCH/marker" -type f | grep -v -e "^$STATE/" \
	-e "^$SCRATCH/body$" -e "^$SCRATCH/code$" -e "^$SCRATCH/job$" \
	-e "^$SCRATCH/big$" -e "^$SCRATCH/hooks/" -e "^$SCRATCH/hooks.port$" \
	-e "^$SCRATCH/bisect.log$" -e "^$SCRATCH/replay$" -e '\.log$' \
	-e "^$SCRATCH/report.txt$" -e "^$SCRATCH/remote.json$" -e "^$SCRATCH/krepo/" \
	-e "^$SCRATCH/out$" -e "^$SCRATCH/err$" -e "^$SCRATCH/headers$" \
	-e "^$SCRATCH/hand/" \
	-e "^$BISECTD_CACHE/" -e "^$repo/")
check "nothing written outside the state directory${new:+: $new}" [ -z "$new" ]
done_testing
