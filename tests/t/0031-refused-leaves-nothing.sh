#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Input that is refused is refused before anything is written: a
# one-line error that names the problem, exit status 2 (422 from the
# API), and no run directory, source import, state or token left behind.
# The API refuses the endpoints bisectctl refuses, and bisectd stays up.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 3 60)"
pass='test ! -f regression'
short=$(echo "$GOOD" | cut -c1-12)
# nothing_written WHAT: the cache was not made; then it is cleared for
# the next case, which is checked on its own
nothing_written() {
	check "$1 wrote nothing: no cache, no runs/" [ ! -e "$BISECTD_CACHE" ]
	rm -rf "$BISECTD_CACHE"
}

# --- bisectctl run: endpoints ----------------------------------------------
expect_exit 2 "run with good == bad" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$GOOD" -- sh -c "$pass"
one_line_error "^bisectctl: good and bad are the same commit $short$"
check "and no report on stdout" [ ! -s "$SCRATCH/out" ]
nothing_written "good == bad"
expect_exit 2 "run with good == bad by two names (root, its id)" \
	"$BISECTCTL" run --repo "$repo" --good root --bad "$GOOD" -- sh -c "$pass"
one_line_error "good and bad are the same commit $short"
nothing_written "good == bad by two names"
expect_exit 2 "run with good and bad swapped" \
	"$BISECTCTL" run --repo "$repo" --good "$BAD" --bad "$GOOD" -- sh -c "$pass"
one_line_error "^bisectctl: bad commit $short is an ancestor of good commit .*: did you swap good and bad?$"
check "and no report on stdout" [ ! -s "$SCRATCH/out" ]
nothing_written "swapped"
git -C "$repo" checkout -q --orphan lone
git -C "$repo" commit -q --allow-empty -m lone
lone=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" checkout -q main
expect_exit 2 "run with a good commit of another history" \
	"$BISECTCTL" run --repo "$repo" --good "$lone" --bad "$BAD" -- sh -c "$pass"
one_line_error "shares no history with bad commit"
nothing_written "another history"

# --- bisectctl build: an unknown source version -----------------------------
expect_exit 2 "build of a source version APT does not know" \
	"$BISECTCTL" build --recipe tiny --source 9.9.9-1
one_line_error "^bisectctl: unknown source version '9.9.9-1'"
nothing_written "build (no linux.git, no lock, no debs/)"

# --- bisectctl stats: an unknown revision -----------------------------------
expect_exit 2 "stats of nosuch..HEAD" \
	"$BISECTCTL" stats --repo "$repo" nosuch..HEAD
one_line_error "^bisectctl: unknown revision 'nosuch'$"
expect_exit 2 "stats of HEAD..nosuch" \
	"$BISECTCTL" stats --repo "$repo" HEAD..nosuch
one_line_error "^bisectctl: unknown revision 'nosuch'$"

# --- bisectd token add --------------------------------------------------------
expect_exit 2 "token add with an unknown role" \
	"$BISECTD" --state "$STATE" token add admin bob
one_line_error "^bisectd: unknown role 'admin': submit, worker or read$"
check "no state was made" [ ! -e "$STATE" ]
make_tokens
"$BISECTD" --state "$STATE" token list > "$SCRATCH/before"
expect_exit 2 "a second token of a name" \
	"$BISECTD" --state "$STATE" token add read tests
one_line_error "^bisectd: there is a token named 'tests' already"
check "the answer has no token" [ ! -s "$SCRATCH/out" ]
check "and no token was added" \
	sh -c "\"$BISECTD\" --state \"$STATE\" token list | cmp -s - \"$SCRATCH/before\""

# --- bisectd: a start that fails leaves no state --------------------------------
start_bisectd
check "bisectd is up" [ "$(api GET health)" = 200 ]
expect_exit 3 "a second bisectd on the same port" \
	timeout 20 "$BISECTD" --state "$SCRATCH/state2" --listen 127.0.0.1 \
	--port "$PORT"
one_line_error "^bisectd: cannot listen on 127.0.0.1:$PORT: Address already in use$"
check "it left no state directory" [ ! -e "$SCRATCH/state2" ]
mkdir "$SCRATCH/state3"
expect_exit 2 "a listen address that is none" \
	timeout 20 "$BISECTD" --state "$SCRATCH/state3" --listen 999.1.1.1 \
	--port 0
one_line_error "^bisectd: listen address '999.1.1.1' is not an IPv4 or IPv6 address$"
check "a state directory that was there stays, empty" \
	'[ -d "$SCRATCH/state3" ] && [ -z "$(ls -A "$SCRATCH/state3")" ]'

# --- the API refuses what bisectctl refuses ------------------------------------
code=$(api POST jobs "$(bisect_job "$repo" "$GOOD" "$GOOD" "$pass")" "$STOKEN")
check "good == bad, the same string: 422 ($code)" [ "$code" = 422 ]
check "the error is one line of JSON naming it" \
	jq_true "$SCRATCH/body" '.error == "good and bad are the same revision '"'$GOOD'"'"'
code=$(api POST jobs "$(bisect_job "$repo" root "$GOOD" "$pass")" "$STOKEN")
check "good == bad by two names: 422 ($code)" [ "$code" = 422 ]
check "the error names the commit" \
	jq_true "$SCRATCH/body" '.error == "good and bad are the same commit '"$short"'"'
code=$(api POST jobs "$(bisect_job "$repo" "$BAD" "$GOOD" "$pass")" "$STOKEN")
check "good and bad swapped: 422 ($code)" [ "$code" = 422 ]
check "the error says so" \
	jq_true "$SCRATCH/body" '.error | test("did you swap good and bad")'
code=$(api POST jobs "$(bisect_job "$repo" "$lone" "$BAD" "$pass")" "$STOKEN")
check "a good commit of another history: 422 ($code)" [ "$code" = 422 ]
expect_exit 2 "bisectctl --server with good == bad (token from BISECTD_TOKEN)" \
	env BISECTD_TOKEN="$STOKEN" "$BISECTCTL" --server "$URL" run --repo "$repo" --good "$GOOD" \
	--bad "$GOOD" -- sh -c "$pass"
one_line_error "refused the job (HTTP 422): good and bad are the same"
empty=$(jq -nc --arg r "$repo" --arg c "$BAD" \
	'{type: "test", repo: $r, commit: $c, recipe: "tiny",
	  apply: [{name: "a.patch", text: ""}]}')
code=$(api POST jobs "$empty" "$STOKEN")
check "an empty patch to apply: 422 ($code), as bisectctl refuses one" \
	'[ "$code" = 422 ] && jq_true "$SCRATCH/body" ".error | test(\"^patch 1 [(].a[.]patch.[)] is empty$\")"'
# a release or a flavour that apt-get would take for an option
for f in 'good: ["--1"], bad: "6.1.0-50", flavour: "cloud-amd64"' \
	'good: ["6.1.0-47"], bad: "6.1.0-50", flavour: "-amd64"'; do
	code=$(api POST jobs "$(jq -nc "{type: \"releases\", $f}")" "$STOKEN")
	check "releases $f: 422 ($(jq -r .error "$SCRATCH/body"))" \
		'[ "$code" = 422 ] && jq_true "$SCRATCH/body" ".error | test(\"from a (letter or )?digit\")"'
done
code=$(api GET jobs)
check "no job was made" \
	'[ "$code" = 200 ] && jq -e ".jobs == []" "$SCRATCH/body" > /dev/null'
check "bisectd is still up" [ "$(api GET health)" = 200 ]

# --- BISECTD_TOKEN is documented ------------------------------------------------
"$BISECTCTL" --help > "$SCRATCH/help"
check "bisectctl --help names BISECTD_TOKEN" grep -q BISECTD_TOKEN "$SCRATCH/help"
check "the README too" grep -q BISECTD_TOKEN "$TOP/README.md"
done_testing
