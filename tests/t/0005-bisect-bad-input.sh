#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel mode's bad input is refused before anything is built or written:
# one line, exit status 2, no work or output directory in the cache.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 5 30)"
bisect() { "$BISECTCTL" bisect --repo "$repo" --good "$GOOD" --bad "$BAD" "$@"; }

expect_exit 2 "no recipe" bisect
one_line_error "--recipe NAME is required"
expect_exit 2 "unknown recipe" bisect --recipe nosuch
one_line_error "unknown recipe 'nosuch'"
cp "$TOP/recipes/tiny.recipe" "$SCRATCH/typo.recipe"
echo "boot_timout = 5" >> "$SCRATCH/typo.recipe"
expect_exit 2 "recipe with an unknown key" bisect --recipe "$SCRATCH/typo.recipe"
one_line_error "recipe 'typo' line [0-9]*: unknown key 'boot_timout'"
printf '#!/bin/sh\nexit 0\n' > "$SCRATCH/test.sh"
expect_exit 2 "test script that is not executable" \
	bisect --recipe tiny --test "$SCRATCH/test.sh"
one_line_error "test script '$SCRATCH/test.sh' is not an executable file"
expect_exit 2 "missing test script" bisect --recipe tiny --test "$SCRATCH/none"
one_line_error "is not an executable file"
expect_exit 2 "bad --runs" bisect --recipe tiny --runs 0
one_line_error "--runs needs a number from 1 to 100, not '0'"
expect_exit 2 "unknown revision" \
	"$BISECTCTL" bisect --repo "$repo" --good "$GOOD" --bad nope --recipe tiny
one_line_error "unknown revision 'nope'"
expect_exit 2 "test without --commit" "$BISECTCTL" test --repo "$repo" --recipe tiny
one_line_error "test needs --commit REV"
# the options of every command keep their own meaning beside bisect's
expect_exit 2 "test --commit with an unknown recipe" \
	"$BISECTCTL" test --repo "$repo" --commit "$GOOD" --recipe nosuch
one_line_error "unknown recipe 'nosuch'"
expect_exit 2 "--base-release without --flavour" bisect --recipe tiny \
	--base-release 6.1.0-47
one_line_error "--base-release and --flavour go together"
expect_exit 2 "test --base-release that is not a release" \
	"$BISECTCTL" test --repo "$repo" --commit "$GOOD" --recipe tiny \
	--base-release v6.1 --flavour cloud-amd64
one_line_error "--base-release takes a release such as 6.1.0-47 and --flavour one such as cloud-amd64"
# releases and flavours reach apt-get as arguments: never an option
expect_exit 2 "bisect --flavour that starts with '-'" bisect --recipe tiny \
	--base-release 6.1.0-47 --flavour -amd64
one_line_error "--base-release takes a release such as 6.1.0-47 and --flavour one such as cloud-amd64 (each from a letter or digit)"
expect_exit 2 "config --release that starts with '-'" \
	"$BISECTCTL" config --release --1 --flavour cloud-amd64
one_line_error "--release takes a release such as 6.1.0-47"
expect_exit 2 "releases --good that starts with '-'" "$BISECTCTL" releases \
	--flavour cloud-amd64 --good --1 --bad 6.1.0-57
one_line_error "--good and --bad take releases such as 6.1.0-47 (\[0-9.-\], from a digit)"
expect_exit 2 "releases --flavour that starts with '-'" "$BISECTCTL" releases \
	--flavour -amd64 --good 6.1.0-47 --bad 6.1.0-57
one_line_error "--flavour: '-amd64' is not a flavour such as cloud-amd64"
expect_exit 2 "build --format bogus" "$BISECTCTL" build --repo "$repo" \
	--commit "$GOOD" --recipe tiny --format bogus
one_line_error "unknown package format 'bogus': deb or rpm"
# --help is a question, not an error: the usage on stdout, exit 0
for cmd in bisect run test verify build config; do
	expect_exit 0 "bisectctl $cmd --help" "$BISECTCTL" $cmd --repo "$repo" --help
	check "prints $cmd's usage" grep -q "^usage: bisectctl $cmd " "$SCRATCH/out"
done
expect_exit 0 "bisectctl --help" "$BISECTCTL" --help
expect_exit 0 "bisectd --help" "$TOP/build/bin/bisectd" --help
check "prints bisectd's usage" grep -q "^usage: bisectd " "$SCRATCH/out"
expect_exit 0 "bisect-worker --help" "$TOP/build/bin/bisect-worker" --help
check "prints bisect-worker's usage" grep -q "^usage: bisect-worker " "$SCRATCH/out"
expect_exit 2 "bisectd with an unknown option" "$TOP/build/bin/bisectd" --frobnicate
check "nothing was written to the cache" [ ! -e "$BISECTD_CACHE" ]
done_testing
