#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl verify: does a patch fix the failure at a commit?  The planted
# oops of the kernel history, its revert as a plain diff and as a
# git format-patch mail (fixed), a patch that changes nothing relevant
# (not fixed), a commit that does not fail (inconclusive), and patches
# that are refused before anything is built.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
verify() {
	"$BISECTCTL" verify --repo "$REPO" --recipe tiny "$@"
}
git -C "$REPO" diff "$CULPRIT" "$CULPRIT~1" -- kernel/reboot.c > "$SCRATCH/revert.patch"
{
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: Fix Author <fix@example.org>\n'
	printf 'Date: Thu, 3 Dec 2026 00:00:00 +0000\n'
	printf 'Subject: [PATCH] kernel/reboot: drop the reboot defaults initcall\n\n'
	printf 'It dereferences a pointer that is never set.\n---\n'
	printf ' kernel/reboot.c | 12 ------------\n\n'
	cat "$SCRATCH/revert.patch"
	printf -- '-- \n2.39.5\n\n'
} > "$SCRATCH/revert.mbox"
cat > "$SCRATCH/unrelated.patch" <<'EOP'
diff --git a/Documentation/bisectd-note.txt b/Documentation/bisectd-note.txt
new file mode 100644
--- /dev/null
+++ b/Documentation/bisectd-note.txt
@@ -0,0 +1 @@
+not a fix
EOP

expect_exit 0 "the revert fixes the oops" \
	verify --bad "$CULPRIT" --patch "$SCRATCH/revert.patch" --runs 2 \
	--json "$SCRATCH/fixed.json"
check "answer: fixed, with both sides' evidence" \
	jq_true "$SCRATCH/fixed.json" '.result == "fixed" and
		.base.verdict == "bad" and .base.runs == 2 and .base.runs_failed == 2 and
		(.base.title | test("NULL pointer dereference in reboot_defaults_init")) and
		.patched.verdict == "good" and .patched.runs == 2 and .patched.runs_failed == 0'
expect_exit 0 "the same revert as a git format-patch mail" \
	verify --bad "$CULPRIT" --patch "$SCRATCH/revert.mbox"
check "says fixed" grep -q "^fixed: " "$SCRATCH/out"
expect_exit 1 "an unrelated patch does not fix it" \
	verify --bad "$CULPRIT" --patch "$SCRATCH/unrelated.patch" --json "$SCRATCH/nf.json"
check "answer: not fixed, with the crash" \
	jq_true "$SCRATCH/nf.json" '.result == "not fixed" and (.patched.title | test("reboot_defaults_init"))'
expect_exit 4 "a commit that does not fail: inconclusive" \
	verify --bad "$CULPRIT~1" --patch "$SCRATCH/unrelated.patch" --json "$SCRATCH/inc.json"
check "answer: inconclusive, the failure does not reproduce" \
	jq_true "$SCRATCH/inc.json" '.result == "inconclusive" and (.reason | test("does not reproduce"))'

sed 's/reboot_defaults/reboot_settings/' "$SCRATCH/revert.patch" > "$SCRATCH/stale.patch"
expect_exit 2 "a patch that does not apply" verify --bad "$CULPRIT" \
	--patch "$SCRATCH/revert.patch" --patch "$SCRATCH/stale.patch"
one_line_error "patch '$SCRATCH/stale.patch' does not apply: file 'kernel/reboot.c', hunk 1 (@@ -1310,15 +1310,3 @@"
: > "$SCRATCH/empty.patch"
expect_exit 2 "an empty patch" verify --bad "$CULPRIT" --patch "$SCRATCH/empty.patch"
one_line_error "patch '$SCRATCH/empty.patch' is empty"
printf 'diff \000 binary' > "$SCRATCH/binary.patch"
expect_exit 2 "a binary patch" verify --bad "$CULPRIT" --patch "$SCRATCH/binary.patch"
one_line_error "patch '$SCRATCH/binary.patch' is binary, not a diff"
printf 'just some words\n' > "$SCRATCH/words.patch"
expect_exit 2 "a text that is no diff" verify --bad "$CULPRIT" --patch "$SCRATCH/words.patch"
one_line_error "patch '$SCRATCH/words.patch' has no diff in it"
expect_exit 2 "no patch" verify --bad "$CULPRIT"
one_line_error "verify needs --bad REV and --patch FILE"
done_testing
