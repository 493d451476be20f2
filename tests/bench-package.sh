#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: a package build by bisectctl build against plain
# `make bindeb-pkg` on the same tree with the same .config, both cold (an
# empty build directory, ccache disabled), same -j.  bisectctl's time is
# its wall time less the checkout of the tree (the plain build starts
# from that tree): config, build, smoke boot, packaging, checksums, page.
#
# BENCH_RECIPE chooses the recipe (default tiny-install: bzImage and
# modules, so the packages hold modules and headers as a distro's do).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
recipe=${BENCH_RECIPE:-tiny-install}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench-pkg.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export CCACHE_DISABLE=1
num() { jq -r "$1" "$2" | awk '{ printf "%.1f", $1 }'; }
now() { date +%s.%N; }

eval "$("$top/build/tests/fixtures/kernel-history" --import-only)"
# a recipe of its own name, so that its work directory starts empty
mkdir -p "$scratch/recipes" "$scratch/images"
cp -r "$top/recipes/fragments" "$scratch/recipes/"
cp "$top/images/init.sh" "$scratch/images/"
cp "$top/recipes/$recipe.recipe" "$scratch/recipes/benchpkg.recipe"
cache=${BISECTD_CACHE:-$([ "$(id -u)" = 0 ] && echo /var/cache/bisectd || echo "${XDG_CACHE_HOME:-$HOME/.cache}/bisectd")}
work=$(ls -d "$cache"/work/*-benchpkg 2> /dev/null || true)
[ -z "$work" ] || rm -rf "$work"

t0=$(now)
"$ctl" build --repo "$REPO" --commit "$GOOD" --recipe "$scratch/recipes/benchpkg.recipe" \
	--format deb --json "$scratch/b.json" --out "$scratch/b" > /dev/null 2>&1
t1=$(now)
work=$(ls -d "$cache"/work/*-benchpkg)
checkout=$(jq .smoke.checkout_seconds "$scratch/b.json")
ours=$(echo "$t0 $t1 $checkout" | awk '{ printf "%.1f", $2 - $1 - $3 }')
echo "bisectctl build --format deb ($recipe, cold, no ccache): $ours s" \
	"(config $(num .smoke.config_seconds "$scratch/b.json") s," \
	"build $(num .smoke.build_seconds "$scratch/b.json") s," \
	"smoke boot $(num .smoke.boot_seconds "$scratch/b.json") s," \
	"packages $(num .package_seconds "$scratch/b.json") s;" \
	"checkout $(num .smoke.checkout_seconds "$scratch/b.json") s not counted)"

# plain: the same tree and .config, the same release and version
id=$(jq -r .id "$scratch/b.json")
mkdir -p "$scratch/plain"
cp "$scratch/b/config" "$scratch/plain/.config"
t2=$(now)
make -C "$work/src" O="$scratch/plain" ARCH=x86_64 -j"$(nproc)" \
	LOCALVERSION="-bisectd.$id" KDEB_PKGVERSION="6.1.192~bisectd.$id-1" \
	bindeb-pkg > "$scratch/plain.log" 2>&1
t3=$(now)
plain=$(echo "$t2 $t3" | awk '{ printf "%.1f", $2 - $1 }')
echo "plain make bindeb-pkg (same tree and .config, cold, -j$(nproc)): $plain s"
echo "ratio: $(echo "$ours $plain" | awk '{ printf "%.3f", $1 / $2 }') (target <= 1.05)"
ls "$scratch"/*.deb > /dev/null
rm -rf "$work" "$work.lock"
