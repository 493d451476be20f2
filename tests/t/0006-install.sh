#!/bin/sh
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
# the staged copy looks next to itself (../recipes) and then in DATADIR;
# BISECTD_RECIPES points it at the staged recipes
repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 2 20)"
# (the recipe loads, then the test script is refused: nothing is built)
BISECTD_RECIPES=$root/usr/share/bisectd/recipes expect_exit 2 \
	"installed bisectctl reads the installed recipes" \
	"$root/usr/bin/bisectctl" bisect --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --recipe tiny --test "$SCRATCH/none"
one_line_error "test script '$SCRATCH/none' is not an executable file"
expect_exit 2 "and says where it looked for an unknown one" \
	"$root/usr/bin/bisectctl" bisect --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --recipe nosuch
one_line_error "unknown recipe 'nosuch' (searched .*/usr/bin/../recipes:/usr/share/bisectd/recipes)"
done_testing
