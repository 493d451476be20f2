#!/bin/sh
# A repository given as a URL is fetched before bisectd takes its lock,
# by git, within --fetch-timeout: a server that accepts and never
# answers costs that one request its time, and the API answers meanwhile.
# Only network protocols: not file:// (any repository on this machine).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/srv/repo.git
mkdir -p "$SCRATCH/srv"
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$SCRATCH/work" 7 60)"
git clone -q --bare "$SCRATCH/work" "$repo"
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
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
gport=$(free_port)
git daemon --reuseaddr --export-all --listen=127.0.0.1 --port="$gport" \
	--base-path="$SCRATCH/srv" "$SCRATCH/srv" > "$SCRATCH/gitd.log" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 50); do [ -s "$SCRATCH/mute.port" ] && break; sleep 0.1; done
make_tokens
start_bisectd --fetch-timeout 3
start_worker w1

mute=http://127.0.0.1:$(cat "$SCRATCH/mute.port")/repo.git
req=$(bisect_job "$mute" "$GOOD" "$BAD" 'test ! -f regression')
t0=$(date +%s)
curl -s -o "$SCRATCH/mute.json" -w '%{http_code}' -H "Authorization: Bearer $STOKEN" \
	--data-binary "$req" "$URL/api/v1/jobs" > "$SCRATCH/mute.code" &
cpid=$!
sleep 1
code=$(curl -s -m 2 -o /dev/null -w "%{http_code}" "$URL/api/v1/jobs")
check "while a fetch hangs, the API answers at once ($code)" [ "$code" = 200 ]
wait $cpid
t1=$(date +%s)
check "the hanging fetch is given up: 422 after $((t1 - t0)) s" \
	'[ "$(cat "$SCRATCH/mute.code")" = 422 ] && [ $((t1 - t0)) -lt 30 ]'
check "and says why" grep -q "no answer within 3 s" "$SCRATCH/mute.json"

# a git:// repository is mirrored and bisected
for _ in $(seq 50); do
	git ls-remote "git://127.0.0.1:$gport/repo.git" > /dev/null 2>&1 && break
	sleep 0.1
done
id=$(submit "$(bisect_job "git://127.0.0.1:$gport/repo.git" "$GOOD" "$BAD" 'test ! -f regression')")
check "a git:// repository is taken ($id)" [ "$id" != null ]
check "and bisected" wait_job "$id" 60
check "to the planted culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
code=$(api POST jobs "$(bisect_job "file://$SCRATCH/work" "$GOOD" "$BAD" true)" "$STOKEN")
check "a file:// URL is refused ($code)" \
	'[ "$code" = 422 ] && grep -q "cannot fetch" "$SCRATCH/body"'
done_testing
