#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A repository given as a URL is fetched by bisectd's fetch queue, not
# while the request or the lock waits: the job is answered at once as
# fetching, and git runs within --fetch-timeout and --fetch-max-mb; a
# server that accepts and never answers fails that one job with the
# reason, and the API answers meanwhile.  Which repositories may be named is the server's
# choice: URLs under --repo-urls (normalised, without credentials), paths
# under --repo-roots; not file:// (any repository on this machine).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/srv/repo.git
mkdir -p "$SCRATCH/srv"
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$SCRATCH/work" 7 60)"
git clone -q --bare "$SCRATCH/work" "$repo"
# a repository whose pack is larger than --fetch-max-mb
git init -q "$SCRATCH/bigwork"
head -c 3000000 /dev/urandom > "$SCRATCH/bigwork/blob"
git -C "$SCRATCH/bigwork" add blob
git -C "$SCRATCH/bigwork" -c user.name=t -c user.email=t@example.org \
	commit -q -m big
git clone -q --bare "$SCRATCH/bigwork" "$SCRATCH/srv/big.git"
# a directory outside the roots, and a link to it inside them
outside=$(mktemp -d /var/tmp/bisectd-outside.XXXXXX)
git clone -q --bare "$SCRATCH/work" "$outside/repo.git"
ln -s "$outside/repo.git" "$SCRATCH/escape.git"
# a server on loopback that takes connections and says nothing (60 s)
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
end = time.time() + 60
while time.time() < end:
    s.settimeout(end - time.time())
    try: conns.append(s.accept()[0])
    except OSError: break
' "$SCRATCH/mute.port" &
PIDS="$PIDS $!"
# a server that redirects every request to another one, which notes
# each request it gets (60 s); or, while $SCRATCH/serve exists, serves
# a repository
git clone -q --bare "$SCRATCH/work" "$SCRATCH/dumb.git"
git -C "$SCRATCH/dumb.git" update-server-info
python3 -c '
import http.server, os, sys, threading, time
class Note(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[2], "a").write(self.path + "\n")
        self.send_error(404)
    def log_message(self, *a): pass
target = http.server.HTTPServer(("127.0.0.1", 0), Note)
class Away(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        # while the file "serve" exists, the repository (dumb HTTP)
        if os.path.exists(sys.argv[3] + "/serve"):
            path = self.path.split("?")[0]
            f = sys.argv[3] + "/dumb.git/" + path[len("/repo.git/"):]
            if ".." in self.path or not os.path.isfile(f):
                return self.send_error(404)
            data = open(f, "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return self.wfile.write(data)
        self.send_response(302)
        self.send_header("Location", "http://127.0.0.1:%d%s" %
                         (target.server_port, self.path))
        self.end_headers()
    def log_message(self, *a): pass
away = http.server.HTTPServer(("127.0.0.1", 0), Away)
for s in (target, away):
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(sys.argv[1], "w").write(str(away.server_port))
time.sleep(60)
' "$SCRATCH/away.port" "$SCRATCH/target.log" "$SCRATCH" &
PIDS="$PIDS $!"
gport=$(free_port)
# (setsid: the cleanup kills its session, git-daemon, the child of git)
setsid git daemon --reuseaddr --export-all --listen=127.0.0.1 --port="$gport" \
	--base-path="$SCRATCH/srv" "$SCRATCH/srv" > "$SCRATCH/gitd.log" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 50); do
	[ -s "$SCRATCH/mute.port" ] && [ -s "$SCRATCH/away.port" ] && break
	sleep 0.1
done
make_tokens
mute=http://127.0.0.1:$(cat "$SCRATCH/mute.port")/repo.git
away=http://127.0.0.1:$(cat "$SCRATCH/away.port")/repo.git
start_bisectd --fetch-timeout 8 --fetch-max-mb 1 \
	--repo-urls "http://127.0.0.1:$(cat "$SCRATCH/mute.port")/ git://127.0.0.1:$gport ${away%repo.git}"
start_worker w1

req=$(bisect_job "$mute" "$GOOD" "$BAD" 'test ! -f regression')
t0=$(date +%s)
code=$(api POST jobs "$req" "$STOKEN")
mid=$(jq -r .id "$SCRATCH/body")
check "a job on a URL is taken at once, as fetching ($code)" \
	'[ "$code" = 201 ] && jq_true "$SCRATCH/body" ".state == \"fetching\""'
code=$(curl -s -m 2 -o "$SCRATCH/mid.json" -w "%{http_code}" "$URL/api/v1/jobs/$mid")
check "while its fetch hangs, the API answers at once ($code) and shows it fetching" \
	'[ "$code" = 200 ] && jq_true "$SCRATCH/mid.json" ".state == \"fetching\""'
# nothing clones the repository under the lock meanwhile: its bisect
# log and report, which read its commits, answer at once, as /health
for what in bisect.log report.json; do
	code=$(curl -s -m 5 -o /dev/null -w "%{http_code}" "$URL/api/v1/jobs/$mid/$what")
	check "meanwhile its $what is answered at once, without a clone ($code)" \
		'[ "$code" = 200 ] || [ "$code" = 404 ] || [ "$code" = 409 ]'
done
check "and /health too" '[ "$(curl -s -m 2 -o /dev/null -w "%{http_code}" "$URL/api/v1/health")" = 200 ]'
wait_job "$mid" 30
t1=$(date +%s)
check "the hanging fetch is given up: the job failed after $((t1 - t0)) s" \
	jq_true "$SCRATCH/job" '.state == "failed"'
check "and says why ($(jq -r .reason "$SCRATCH/job"))" \
	jq_true "$SCRATCH/job" '.reason | test("no answer within 8 s")'

# a redirect would lead the fetch to a URL that repo-urls never allowed
id=$(submit "$(bisect_job "$away" "$GOOD" "$BAD" true)")
wait_job "$id" 30
check "a repository URL that redirects fails its job ($(jq -r .reason "$SCRATCH/job"))" \
	jq_true "$SCRATCH/job" '.state == "failed" and (.reason | test("cannot fetch"))'
check "and the redirect's target got no request" '[ ! -s "$SCRATCH/target.log" ]'
# one that answered bisectd's fetch and then redirects the worker's:
# the worker follows no redirect either
kill "$WPID"
touch "$SCRATCH/serve"
id=$(submit "$(bisect_job "$away" "$GOOD" "$BAD" 'test ! -f regression')")
for _ in $(seq 100); do
	api GET "jobs/$id" > /dev/null
	[ "$(jq -r .state "$SCRATCH/body")" != fetching ] && break
	sleep 0.2
done
check "a repository that bisectd fetched ($(jq -r .state "$SCRATCH/body"))" \
	'[ "$(jq -r .state "$SCRATCH/body")" = queued ] || [ "$(jq -r .state "$SCRATCH/body")" = running ]'
rm "$SCRATCH/serve"
start_worker w2
wait_job "$id" 60
check "redirects the worker's fetch: the job fails ($(jq -r .reason "$SCRATCH/job"))" \
	jq_true "$SCRATCH/job" '.state == "failed" and (.reason | test("cannot fetch"))'
check "and the redirect's target got no request from the worker" '[ ! -s "$SCRATCH/target.log" ]'
kill "$WPID"
start_worker w1

# a git:// repository is mirrored and bisected
for _ in $(seq 50); do
	git ls-remote "git://127.0.0.1:$gport/repo.git" > /dev/null 2>&1 && break
	sleep 0.1
done
id=$(submit "$(bisect_job "GIT://127.0.0.1:$gport/repo.git#x" "$GOOD" "$BAD" 'test ! -f regression')")
check "a git:// repository is taken ($id)" [ "$id" != null ]
check "and bisected" wait_job "$id" 60
check "to the planted culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
check "its URL as the job keeps it is the normal form" \
	jq_true "$SCRATCH/job" ".spec.repo == \"git://127.0.0.1:$gport/repo.git\""

# refused: one line naming why, 422, and nothing fetched or opened
refused() { # refused WHAT REPO PATTERN
	code=$(api POST jobs "$(bisect_job "$2" "$GOOD" "$BAD" true)" "$STOKEN")
	pattern=$3
	check "$1: 422 ($code), '$(jq -r .error "$SCRATCH/body")'" \
		'[ "$code" = 422 ] && jq -r .error "$SCRATCH/body" | grep -q -- "$pattern"'
}
refused "a file:// URL" "file://$SCRATCH/work" "scheme 'file' is not allowed"
refused "a URL with credentials" \
	"git://user:pw@127.0.0.1:$gport/repo.git" "credentials in a URL"
refused "a host or port not in repo-urls" \
	"git://127.0.0.1:$(free_port)/repo.git" "not allowed here (setting repo-urls)"
refused "https to a host not in repo-urls" "https://127.0.0.1/repo.git" "setting repo-urls"
refused "a URL that climbs with .." \
	"git://127.0.0.1:$gport/x/../repo.git" "'..' segment"
refused "a URL that climbs with %2e%2e" \
	"git://127.0.0.1:$gport/x/%2e%2e/repo.git" "'..' segment"
refused "a path outside the roots" "$outside/repo.git" "not under the allowed roots"
refused "a path that does not exist outside the roots (nothing told)" \
	"/etc/no-such-repository" "not under the allowed roots"
refused "a path written to climb out" "$SCRATCH/../../etc" "not under the allowed roots"
refused "a link inside the roots that leads out" "$SCRATCH/escape.git" "leads out of the allowed roots"
refused "a relative path" "repo.git" "not under the allowed roots"
id=$(submit "$(bisect_job "git://127.0.0.1:$gport/big.git" "$GOOD" "$BAD" true)")
wait_job "$id" 30
check "a repository larger than --fetch-max-mb fails ($(jq -r .reason "$SCRATCH/job"))" \
	jq_true "$SCRATCH/job" '.state == "failed" and (.reason | test("larger than 1 MB"))'
id=$(submit "$(bisect_job "git://127.0.0.1:$gport/repo.git" "$GOOD" no-such-rev true)")
wait_job "$id" 30
check "a revision the fetched repository lacks fails the job ($(jq -r .reason "$SCRATCH/job"))" \
	jq_true "$SCRATCH/job" '.state == "failed" and (.reason | test("no-such-rev"))'
check "a refused fetch leaves no mirror behind (two fetched: git:// and dumb HTTP)" \
	'[ "$(find "$STATE/repos" -maxdepth 1 -name "*.git" | wc -l)" -eq 2 ]'
rm -rf "$outside"
# A Debian source version is imported by a child of the fetch queue
# (bisect-worker --import-source): one apt does not know fails its job
# naming the version, and bisectd stays up.
id=$(submit '{"type":"build","source":"6.1.0-nosuch","recipe":"tiny"}')
wait_job "$id" 120
check "an unknown Debian version fails its job ($(jq -r .reason "$SCRATCH/job"))" \
	jq_true "$SCRATCH/job" '.state == "failed" and (.reason | test("^unknown source version .6[.]1[.]0-nosuch.:"))'
check "bisectd is still up" '[ "$(api GET health)" = 200 ]'
done_testing
