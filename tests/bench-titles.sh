#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench TITLE_CORPUS=DIR: the console classifier's titles against a
# corpus of real crash reports with reference titles, in the layout of
# syzkaller's pkg/report/testdata/linux/report (not in this project):
# each file has header lines ("TITLE: ...", "TYPE: ...", "CORRUPTED: Y")
# up to its first empty line, then the console log; a file without a
# TITLE is a log with no crash in it.
#
# Prints, beside the targets:
#   detected       reports with a TITLE that bisectctl classify calls a crash
#   same function  of those whose reference title names a function
#                  ("... in FUNC", not CORRUPTED), the share where ours
#                  names the same one (a syscall by its name, whatever
#                  wrapper prefix either keeps; "caller/callee" by the
#                  caller)
#   false alarms   clean logs called a crash
# BENCH_TITLES_LIST=FILE also writes one line per report: file, reference
# title, our title.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
corpus=${1:-${TITLE_CORPUS:-}}
if [ -z "$corpus" ] || [ ! -d "$corpus" ]; then
	echo "bench-titles: no corpus (TITLE_CORPUS=DIR); skipped"
	exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench-titles.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
list=${BENCH_TITLES_LIST:-$scratch/list}
: > "$list"

# what only other architectures print: arm64's "Call trace:" and
# syscall entry, arm's and arm64's pc and lr,
# powerpc's NIP and frames, riscv's epc, s390's PSW
other_arch='Call trace:|el0_svc|PC is at|(^|\] +)pc : |NIP[: ]|epc :|Internal error:|Krnl PSW|sepc|Hardware name: ARM|\) from \[<|\[c0000000[0-9a-f]+\] \['

for f in "$corpus"/*; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	ref=$(sed -n '/^$/q; s/^TITLE: //p' "$f")
	corrupted=$(sed -n '/^$/q; /^CORRUPTED: Y/p' "$f")
	sed '1,/^$/d' "$f" > "$scratch/log"
	"$ctl" classify --fail-on all "$scratch/log" > "$scratch/out" \
		2> /dev/null || true
	ours=$(sed -n 's/^title: //p' "$scratch/out")
	kind=$(sed -n 's/^kind: //p' "$scratch/out")
	# x86 or another architecture's console
	arch=x86
	! grep -Eq "$other_arch" "$scratch/log" || arch=other
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${ref:--}" "$kind" \
		"${ours:--}" "${corrupted:+corrupted}" "$arch" >> "$list"
done

summary() {
	awk -F '\t' -v what="$1" -v arch="$2" '
function fn(t) {
	if (!match(t, / in [^ ]+$/))
		return ""
	t = substr(t, RSTART + 4)
	# a syscall by its name: syzbot strips one prefix of the wrapper
	# (SyS_rmdir is "rmdir", __x64_sys_rmdir "sys_rmdir"), ours are
	# always sys_X or compat_sys_X
	sub(/^(compat_)?sys_/, "", t)
	# "WARNING in aiptek_open/usb_submit_urb": the caller, then where
	# the warning is; the caller is the function
	sub(/\/.*/, "", t)
	return t
}
arch != "" && $6 != arch { next }
$2 == "-" { clean++; if ($3 != "none") alarms++; next }
{
	crashes++
	if ($3 != "none") detected++
	want = fn($2)
	if (want == "" || want == "corrupted" || $5 == "corrupted") next
	named++
	if (fn($4) == want) same++
}
END {
	printf "titles, %s: %d reports, %d clean logs\n", what, crashes, clean
	printf "  detected:      %d of %d (%.0f%%)  target 95%%\n",
		detected, crashes, 100 * detected / crashes
	printf "  same function: %d of %d (%.0f%%)  target 90%%\n",
		same, named, 100 * same / named
	printf "  false alarms:  %d of %d  target 0\n", alarms, clean
}' "$list"
}
summary "x86 consoles" x86
summary "every architecture" ""
