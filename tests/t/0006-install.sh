#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make install puts bisectctl, the recipes and the guest init under
# DESTDIR/PREFIX, and the installed bisectctl finds its recipes there.
. "$(dirname "$0")/../lib.sh"
root=$SCRATCH/root
make -s -C "$TOP" install DESTDIR="$root" PREFIX=/usr > "$SCRATCH/make.out" 2>&1
check "make install succeeds" [ $? -eq 0 ]
check "bisectctl installed" [ -x "$root/usr/bin/bisectctl" ]
check "recipes installed" [ -f "$root/usr/share/bisectd/recipes/tiny.recipe" ]
check "fragments installed" [ -f "$root/usr/share/bisectd/recipes/fragments/tiny.config" ]
check "guest init installed" [ -x "$root/usr/share/bisectd/images/init.sh" ]
check "bisectd and bisect-worker installed" \
	'[ -x "$root/usr/bin/bisectd" ] && [ -x "$root/usr/bin/bisect-worker" ]'
check "web pages installed" [ -f "$root/usr/share/bisectd/web/job.html" ]
unit=$root/usr/lib/systemd/system/bisectd.service
check "systemd units installed, naming the installed programs" \
	grep -q "^ExecStart=/usr/bin/bisectd " "$unit"
if command -v systemd-analyze > /dev/null; then
	# verify resolves ExecStart in the root: point it at the staged copy
	sed "s|=/usr/bin/|=$root/usr/bin/|" "$unit" > "$SCRATCH/bisectd.service"
	sed "s|=/usr/bin/|=$root/usr/bin/|" \
		"$root/usr/lib/systemd/system/bisect-worker@.service" \
		> "$SCRATCH/bisect-worker@.service"
	check "systemd-analyze verify accepts the units" \
		systemd-analyze verify "$SCRATCH/bisectd.service" "$SCRATCH/bisect-worker@.service"
fi
# the installed daemon runs and serves its installed pages
"$root/usr/bin/bisectd" --state "$SCRATCH/state" --port 0 \
	--port-file "$SCRATCH/port" > "$SCRATCH/bisectd.log" 2>&1 &
dpid=$!
for _ in $(seq 50); do [ -s "$SCRATCH/port" ] && break; sleep 0.1; done
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(cat "$SCRATCH/port")/")
kill "$dpid"
wait "$dpid"
check "the installed bisectd serves its web pages ($code) and stops on SIGTERM" \
	'[ "$code" = 200 ] && grep -q "stopping" "$SCRATCH/bisectd.log"'
# the staged copy looks in a source tree (../../recipes), in its own
# installed tree (../share/bisectd/recipes), then in DATADIR
repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 2 20)"
# (the recipe loads, then the test script is refused: nothing is built)
expect_exit 2 "installed bisectctl reads the installed recipes" \
	"$root/usr/bin/bisectctl" bisect --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --recipe tiny --test "$SCRATCH/none"
one_line_error "test script '$SCRATCH/none' is not an executable file"
expect_exit 2 "and says where it looked for an unknown one" \
	"$root/usr/bin/bisectctl" bisect --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --recipe nosuch
one_line_error "unknown recipe 'nosuch' (searched .*/usr/bin/../../recipes:.*/usr/bin/../share/bisectd/recipes:/usr/share/bisectd/recipes)"
done_testing
