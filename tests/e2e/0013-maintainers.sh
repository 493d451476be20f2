#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl maintainers against the kernel's own scripts/get_maintainer.pl
# --no-git --no-git-fallback --no-rolestats --no-r, from the same
# linux-source-6.1 tree: every 390th of its files (about 200), and a few
# real-looking patches made as commits on the tree (K: keywords, .mailmap,
# a list for subscribers only, a display name with a comma and one with
# non-ASCII letters, a rename, a new file, bindings that name their
# maintainers, a Fixes: line whose commit's signers are added).  The
# script runs in a copy of the tree's directories holding the files it
# reads; its order among equally deep sections is Perl's hash order, so
# the answers are compared as sets, and where two such sections name one
# person with two addresses (which one is kept follows that order, as for
# include/acpi/ in ACPI and ACPICA) ours must be the script's answer under
# one of the hash seeds 1 to 8.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
eval "$("$TOP/build/tests/fixtures/kernel-history" --import-only)"
src=$REPO base=$(git -C "$REPO" rev-parse "$GOOD^{commit}")
tree=$SCRATCH/tree repo=$SCRATCH/repo
mkdir -p "$tree"
git -C "$src" ls-tree -r -d --name-only "$base" |
	(cd "$tree" && xargs mkdir -p)
put() { git -C "$src" show "$base:$1" > "$tree/$1"; }
for f in COPYING CREDITS Kbuild MAINTAINERS Makefile README .mailmap \
	scripts/get_maintainer.pl; do
	put "$f"
done
git -C "$src" ls-tree -r --name-only "$base" | awk 'NR % 390 == 11' \
	> "$SCRATCH/sample"
while read -r f; do put "$f"; done < "$SCRATCH/sample"
gm() { (cd "$tree" && perl scripts/get_maintainer.pl --no-git \
	--no-git-fallback --no-rolestats --no-r "$@"); }

n=0 same=0 ordered=0 seeded=
: > "$SCRATCH/differ"
while read -r f; do
	n=$((n + 1))
	gm -f "$f" > "$SCRATCH/want" 2> /dev/null
	"$BISECTCTL" maintainers --repo "$src" --at "$base" -f "$f" \
		> "$SCRATCH/got" 2>&1
	seed=0
	while [ "$(sort "$SCRATCH/want")" != "$(sort "$SCRATCH/got")" ] &&
		[ "$seed" -lt 8 ]; do
		seed=$((seed + 1))
		PERL_HASH_SEED=$seed gm -f "$f" > "$SCRATCH/want" 2> /dev/null
	done
	if [ "$(sort "$SCRATCH/want")" = "$(sort "$SCRATCH/got")" ]; then
		same=$((same + 1))
		cmp -s "$SCRATCH/want" "$SCRATCH/got" && ordered=$((ordered + 1))
		[ "$seed" = 0 ] || seeded="$seeded $f"
	else
		{ echo "$f:"; diff "$SCRATCH/want" "$SCRATCH/got"; } \
			>> "$SCRATCH/differ"
	fi
done < "$SCRATCH/sample"
check "the same recipients as get_maintainer.pl -f for $same of $n files ($ordered in the same order)" \
	'[ "$n" -ge 150 ] && [ "$same" = "$n" ]'
sed 's/^/# /' "$SCRATCH/differ" | head -40
[ -z "$seeded" ] || echo "# the script's own answer depended on its hash order for:$seeded"
check "a directory, named with and without its slash" \
	'gm -f drivers/net/wireless > "$SCRATCH/want" 2>/dev/null &&
	 "$BISECTCTL" maintainers --repo "$src" --at "$base" -f ./drivers/net/wireless/ > "$SCRATCH/got" &&
	 [ "$(sort "$SCRATCH/want")" = "$(sort "$SCRATCH/got")" ] && [ -s "$SCRATCH/got" ]'
expect_exit 2 "a file that is not in the tree" \
	"$BISECTCTL" maintainers --repo "$src" --at "$base" -f drivers/no-such.c
one_line_error "file 'drivers/no-such.c' not found"

# patches: commits on the tree in a repository that borrows its objects
git init -q "$repo"
echo "$src/objects" > "$repo/.git/objects/info/alternates"
export GIT_INDEX_FILE="$SCRATCH/index"
git -C "$repo" read-tree "$base"
# change PATH [SED-EXPRESSION]: the file as the next commit has it
change() {
	if [ -n "${2:-}" ]; then
		git -C "$src" show "$base:$1" | sed "$2" > "$SCRATCH/blob"
	else
		cat > "$SCRATCH/blob"
	fi
	blob=$(git -C "$repo" hash-object -w "$SCRATCH/blob")
	git -C "$repo" update-index --add --cacheinfo "100644,$blob,$1"
}
parent=$base
# commit MESSAGE-FILE: the index as a commit on the last one
commit() {
	parent=$(git -C "$repo" -c user.name="Ann Author" -c user.email=ann@example.org \
		commit-tree "$(git -C "$repo" write-tree)" -p "$parent" < "$1")
}
cat > "$SCRATCH/msg" <<'EOF'
drm/amdgpu: wait for the fence before the reset

Signed-off-by: Ann Author <ann@example.org>
Reviewed-by: Pan, Xinhui <Xinhui.Pan@amd.com>
Acked-by: Jason Gunthorpe <jgg@nvidia.com>
Acked-by: Linus Torvalds <torvalds@linux-foundation.org>
EOF
change drivers/gpu/drm/amd/amdgpu/amdgpu_reset.c \
	'0,/^{/s//{\n\tstruct dma_fence *fence = NULL;/'
commit "$SCRATCH/msg"
fixed=$parent
cat > "$SCRATCH/msg" <<'EOF'
acrn, RDMA: a rename, a new binding and the pidfd of a clone3 child

Fixes: PLACEHOLDER ("drm/amdgpu: wait for the fence before the reset")
Signed-off-by: Ann Author <ann@example.org>
EOF
sed -i "s/PLACEHOLDER/$(echo "$fixed" | cut -c1-12)/" "$SCRATCH/msg"
change drivers/virt/acrn/hsm.c 's/^#include/\/\* pidfd \*\/\n#include/'
old=drivers/infiniband/core/iwpm_util.h
git -C "$repo" update-index --force-remove "$old"
git -C "$src" show "$base:$old" | change drivers/infiniband/core/iwpm_util2.h
cat <<'EOF' | change Documentation/devicetree/bindings/misc/bisectd-example.yaml
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
%YAML 1.2
---
$id: http://devicetree.org/schemas/misc/bisectd-example.yaml#
$schema: http://devicetree.org/meta-schemas/core.yaml#

title: An example binding

maintainers:
  - Zoë Ürban <zoe@example.org>
  - R. J. Example-Person <rj.person@example.org>
EOF
commit "$SCRATCH/msg"
second=$parent
cat > "$SCRATCH/msg" <<'EOF'
selftests/bpf: one more test

Signed-off-by: Ann Author <ann@example.org>
EOF
change tools/testing/selftests/bpf/test_verifier.c '1s/^/\/\/ one more\n/'
commit "$SCRATCH/msg"
third=$parent
unset GIT_INDEX_FILE
# get_maintainer.pl reads the tree beside it: the files as they are after
# the patches, and the repository for the commit a Fixes: line names
echo "gitdir: $repo/.git" > "$tree/.git"
for f in drivers/infiniband/core/iwpm_util2.h \
	Documentation/devicetree/bindings/misc/bisectd-example.yaml; do
	git -C "$repo" show "$second:$f" > "$tree/$f"
done
for c in "$fixed" "$second" "$third"; do
	git -C "$repo" format-patch -1 --stdout "$c" > "$SCRATCH/patch"
	gm "$SCRATCH/patch" > "$SCRATCH/want" 2> /dev/null
	"$BISECTCTL" maintainers --repo "$repo" --at "$c" "$SCRATCH/patch" \
		> "$SCRATCH/got" 2>&1
	"$BISECTCTL" maintainers --repo "$repo" --commit "$c" \
		> "$SCRATCH/got-commit" 2>&1
	subject=$(git -C "$repo" log -1 --format=%s "$c")
	check "'$subject': the same recipients as get_maintainer.pl" \
		'[ "$(sort "$SCRATCH/want")" = "$(sort "$SCRATCH/got")" ] &&
		 [ "$(wc -l < "$SCRATCH/want")" -ge 3 ]'
	check "and the same for the commit as libgit2 writes it" \
		'[ "$(sort "$SCRATCH/want")" = "$(sort "$SCRATCH/got-commit")" ]'
	diff "$SCRATCH/want" "$SCRATCH/got" | sed 's/^/# /'
	cp "$SCRATCH/got" "$SCRATCH/got-$c"
done
got=$SCRATCH/got-$fixed
check "the K: keyword dma_fence added a section" \
	grep -qx "linaro-mm-sig@lists.linaro.org" "$got"
check "a name with a comma is quoted, a non-ASCII one is kept" \
	'grep -qx "\"Pan, Xinhui\" <Xinhui.Pan@amd.com>" "$got" &&
	 grep -qx "\"Christian König\" <christian.koenig@amd.com>" "$got"'
got=$SCRATCH/got-$second
check "a subscribers-only list is left out" \
	'grep -qx "Fei Li <fei1.li@intel.com>" "$got" && ! grep -q acrn-dev "$got"'
check ".mailmap gives Jason Gunthorpe's address, the Fixes: line its signers" \
	'grep -qx "Jason Gunthorpe <jgg@ziepe.ca>" "$got" && ! grep -q jgg@nvidia.com "$got" &&
	 grep -qx "Ann Author <ann@example.org>" "$got" && ! grep -q torvalds "$got"'
check "the binding's own maintainers are added" \
	'grep -qx "\"Zoë Ürban\" <zoe@example.org>" "$got" &&
	 grep -q "rj.person@example.org" "$got"'
done_testing
