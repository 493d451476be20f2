#!/bin/sh
# Lint of the layering: lib/ is the core and includes only itself;
# worker/ and bisectd/ include lib/ and themselves, never each other;
# cli/ may include all three.  An include with a directory in it
# ("../bisectd/x.h") is refused wherever it is.  Prints each offending
# FILE:LINE and fails when there is one.
cd "$(dirname "$0")/.." || exit 1
headers() { for h in "$1"/*.h; do [ -e "$h" ] && basename "$h"; done; }
# may FOLDER include HEADER?  0 yes
allowed() {
	headers lib | grep -qx "$2" && return 0
	case $1 in
	lib) return 1 ;;
	cli) headers worker | grep -qx "$2" || headers bisectd | grep -qx "$2" ||
		headers cli | grep -qx "$2" ;;
	*) headers "$1" | grep -qx "$2" ;;
	esac
}
bad=0
for folder in lib worker bisectd cli; do
	for f in "$folder"/*.[ch]; do
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		while IFS= read -r line; do
			n=${line%%:*}
			h=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
			case $h in
			*/*) echo "$f:$n: \"$h\": include by name, not by path" ;;
			*) allowed "$folder" "$h" ||
				echo "$f:$n: \"$h\": $folder/ may not include it" ;;
			esac
		done
	done
done > "${TMPDIR:-/tmp}/lint-includes.$$"
if [ -s "${TMPDIR:-/tmp}/lint-includes.$$" ]; then
	cat "${TMPDIR:-/tmp}/lint-includes.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/lint-includes.$$"
exit $bad
