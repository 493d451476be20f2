#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A fragment option that olddefconfig drops is reported (here ext4, which
# needs the block layer that tinyconfig leaves out), and bisectctl test
# builds and boots one commit with the exit status of a bisect run command.
. "$(dirname "$0")/kernel-case.sh"
eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
mkdir -p "$SCRATCH/r/fragments"
cp "$TOP/recipes/fragments/tiny.config" "$SCRATCH/r/fragments/"
{
	cat "$TOP/recipes/tiny.recipe"
	echo "fragment = fragments/ext4.config"
	echo "init = $TOP/images/init.sh"
} > "$SCRATCH/r/tiny.recipe"
echo "CONFIG_EXT4_FS=y" > "$SCRATCH/r/fragments/ext4.config"
expect_exit 0 "bisectctl test of a good commit" \
	"$BISECTCTL" test --repo "$REPO" --commit "$GOOD" \
	--recipe "$SCRATCH/r/tiny.recipe" --json "$SCRATCH/t.json"
check "the dropped option is reported" \
	jq_true "$SCRATCH/t.json" '.config_notes | test("dropped: CONFIG_EXT4_FS=y was asked for but olddefconfig left n")'
check "and shown on the terminal" grep -q "dropped: CONFIG_EXT4_FS=y" "$SCRATCH/err"
expect_exit 1 "bisectctl test of the culprit" \
	"$BISECTCTL" test --repo "$REPO" --commit "$CULPRIT" --recipe tiny \
	--json "$SCRATCH/c.json"
check "says bad, with the crash title" \
	grep -q "$CULPRIT bad: BUG: kernel NULL pointer dereference in reboot_defaults_init" "$SCRATCH/out"

# a QEMU that does not start is an infrastructure failure: never good or
# bad, retried once, then exit status 3 (the recipe is named tiny, so that
# it shares the tiny work directory and its build)
mkdir -p "$SCRATCH/q/fragments"
cp "$SCRATCH/r/fragments/tiny.config" "$SCRATCH/q/fragments/"
sed 's|^qemu = .*|qemu = /nonexistent/qemu-system-x86_64|' "$SCRATCH/r/tiny.recipe" |
	grep -v ext4 > "$SCRATCH/q/tiny.recipe"
expect_exit 3 "bisectctl test when QEMU cannot start" \
	"$BISECTCTL" test --repo "$REPO" --commit "$GOOD" \
	--recipe "$SCRATCH/q/tiny.recipe" --json "$SCRATCH/q.json"
check "the step's verdict is infra" jq_true "$SCRATCH/q.json" '.verdict == "infra"'
check "says QEMU could not be run" \
	grep -q "cannot run '/nonexistent/qemu-system-x86_64'" "$SCRATCH/err"
expect_exit 3 "bisectctl bisect stops when QEMU cannot start" \
	"$BISECTCTL" bisect --repo "$REPO" --good "$GOOD" --bad "$BAD" \
	--recipe "$SCRATCH/q/tiny.recipe" --json "$SCRATCH/qb.json"
check "after two infra verdicts for the same commit" \
	jq_true "$SCRATCH/qb.json" '.result == "error" and ([.steps[] | select(.verdict == "infra")] | length) == 2'
done_testing
