#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The APT repository's key and what bisectd serves of it, without a
# build (tests/e2e/0009 publishes a real one and installs from it with
# apt; tests/unit/test_repo.c checks the suites and signatures):
# bisectd repo-key makes a key once, imports one, refuses one that needs
# a passphrase in one line; /repo/apt/ serves the public key and nothing
# outside it; a build's "channel" is checked at submit, and another
# submitter's refused.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
# gpg's own home for the checks here (--show-keys writes a trustdb)
GNUPGHOME=$SCRATCH/home-gnupg
export GNUPGHOME
mkdir -m 700 "$GNUPGHOME"

expect_exit 0 "bisectd repo-key makes a key" "$BISECTD" --state "$STATE" repo-key
fpr=$(cat "$SCRATCH/out")
check "it prints its fingerprint ($fpr), kept in a private home" \
	'[ ${#fpr} -eq 40 ] && [ "$(stat -c %a "$STATE/repo-key")" = 700 ]'
check "and exports the public key alone" \
	'gpg --show-keys --with-colons "$STATE/repo/apt/bisectd-archive-keyring.gpg" > "$SCRATCH/keys" &&
	 grep -q "^fpr:::::::::$fpr:" "$SCRATCH/keys" && ! grep -q "^sec" "$SCRATCH/keys"'
expect_exit 0 "run again, it keeps the key" "$BISECTD" --state "$STATE" repo-key
check "the same fingerprint" [ "$(cat "$SCRATCH/out")" = "$fpr" ]

# a key made elsewhere, imported in place of the first
G=$SCRATCH/gnupg
mkdir -m 700 "$G"
gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' \
	--quick-gen-key "other <o@example.org>" ed25519 sign never 2> /dev/null
gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' \
	--export-secret-keys > "$SCRATCH/other.key" 2> /dev/null
other=$(gpg --homedir "$G" --with-colons --list-secret-keys 2> /dev/null | sed -n 's/^fpr:::::::::\([0-9A-F]*\):$/\1/p' | head -n 1)
expect_exit 0 "repo-key --import" "$BISECTD" --state "$STATE" repo-key --import "$SCRATCH/other.key"
check "the imported key is the one now ($other)" \
	'[ "$(cat "$SCRATCH/out")" = "$other" ] &&
	 gpg --show-keys --with-colons "$STATE/repo/apt/bisectd-archive-keyring.gpg" | grep -q "^fpr:::::::::$other:"'
# one that needs a passphrase cannot sign unattended: refused, and the
# key there stays
gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase secret \
	--quick-gen-key "locked <l@example.org>" ed25519 sign never 2> /dev/null
locked=$(gpg --homedir "$G" --with-colons --list-secret-keys "locked" 2> /dev/null | sed -n 's/^fpr:::::::::\([0-9A-F]*\):$/\1/p' | head -n 1)
gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase secret \
	--export-secret-keys "$locked" > "$SCRATCH/locked.key" 2> /dev/null
expect_exit 2 "repo-key --import of a key with a passphrase" \
	"$BISECTD" --state "$STATE" repo-key --import "$SCRATCH/locked.key"
one_line_error "the key cannot sign without a passphrase"
# (gpg removes a failed signature's output: the probe's is a file of its
# own, never /dev/null)
check "/dev/null is still the null device" [ -c /dev/null ]
check "the key there is kept" \
	'gpg --show-keys --with-colons "$STATE/repo/apt/bisectd-archive-keyring.gpg" | grep -q "^fpr:::::::::$other:" &&
	 [ ! -e "$STATE/repo-key.new" ]'
expect_exit 2 "repo-key --import of a file that is not there" \
	"$BISECTD" --state "$STATE" repo-key --import "$SCRATCH/nosuch.key"
one_line_error "cannot read '$SCRATCH/nosuch.key'"
expect_exit 2 "repo-key with an unknown option" "$BISECTD" --state "$STATE" repo-key --bogus
expect_exit 0 "repo-key --help" "$BISECTD" repo-key --help
gpgconf --homedir "$G" --kill gpg-agent 2> /dev/null

# what bisectd serves of it
make_tokens
start_bisectd
code() { curl -s -o "$SCRATCH/body" -w '%{http_code}' --path-as-is "$URL$1"; }
check "the public key is served, as it is on disk" \
	'[ "$(code /repo/apt/bisectd-archive-keyring.gpg)" = 200 ] &&
	 cmp -s "$SCRATCH/body" "$STATE/repo/apt/bisectd-archive-keyring.gpg"'
touch "$STATE/repo/apt/.hidden"
ln -s "$STATE/state.db" "$STATE/repo/apt/link"
for p in /repo/apt/../state.db /repo/apt/%2e%2e/state.db /repo/apt/.hidden \
	/repo/apt/link /repo/apt/dists /repo/apt/ /repo/apt//x; do
	check "not served: $p" [ "$(code "$p")" = 404 ]
done
build() { # build EXTRA: a build job's request
	jq -nc --arg r "$SCRATCH" "{type: \"build\", repo: \$r, commit: \"HEAD\",
		recipe: \"tiny\", patches: []} + $1"
}
for c in '"Fix"' '"bisectd-7"' '"-x"' '"a/b"' '""'; do
	check "a build's channel $c: 422" \
		'[ "$(api POST jobs "$(build "{channel: $c}")" "$STOKEN")" = 422 ] &&
		 jq -r .error "$SCRATCH/body" | grep -q "channel"'
done
# a channel is the submitter's whose build first took it (the publisher
# records it as STATE/repo/channels/NAME: job and submitter)
mkdir -p "$STATE/repo/channels"
echo "1 someone-else" > "$STATE/repo/channels/fix-taken"
check "a build naming another submitter's channel: 403" \
	'[ "$(api POST jobs "$(build "{channel: \"fix-taken\"}")" "$STOKEN")" = 403 ] &&
	 jq -r .error "$SCRATCH/body" | grep -q "channel .fix-taken. is another submitter.s"'
echo "1 tests" > "$STATE/repo/channels/fix-mine"
# (the scratch directory is no repository: the job is refused for that)
check "naming its own channel is not refused for it" \
	'code=$(api POST jobs "$(build "{channel: \"fix-mine\"}")" "$STOKEN") &&
	 [ "$code" != 403 ] && ! grep -q channel "$SCRATCH/body"'
check "a channel on a bisect job: 422" \
	'[ "$(api POST jobs "$(bisect_job "$SCRATCH" HEAD HEAD~1 true "{channel: \"x\"}")" "$STOKEN")" = 422 ] &&
	 grep -q "for build jobs" "$SCRATCH/body"'
expect_exit 2 "bisectctl build --channel without --server" \
	"$BISECTCTL" build --repo "$SCRATCH" --recipe tiny --channel fix-1
one_line_error "--channel names a suite of bisectd's APT repository: it goes with --server"
check "bisectd is still up" [ "$(api GET health)" = 200 ]
done_testing
