#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Lint of the layering: lib/ is the core and includes only itself;
# worker/ and bisectd/ include lib/ and themselves, never each other;
# cli/ may include all three.  An include with a directory in it
# ("../bisectd/x.h") is refused wherever it is.  Prints each offending
# FILE:LINE and fails when there is one.
#
# Each third-party library that is a concern of its own is called from
# one file only: libarchive from lib/archives.c, libgit2 from
# lib/gitutil_priv.h (which only lib/gitutil.c and lib/gitwork.c
# include), libcurl from lib/http.c, libvirt from
# worker/boot_libvirt.c, SQLite from bisectd/store.c, libmicrohttpd from
# the API's files (bisectd/api_priv.h, which only bisectd/api*.c
# include), GMime from lib/mbox.c.
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
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' \
		"$folder"/*.[ch] | while IFS=: read -r f n line; do
		h=$(printf '%s\n' "$line" | sed 's/.*<\([^>]*\)>.*/\1/')
		case $h in
		archive.h | archive_entry.h) home=lib/archives.c ;;
		git2.h | git2/*) home=lib/gitutil_priv.h ;;
		curl/*) home=lib/http.c ;;
		libvirt/*) home=worker/boot_libvirt.c ;;
		sqlite3.h) home=bisectd/store.c ;;
		microhttpd.h) home=bisectd/api_priv.h ;;
		gmime/*) home=lib/mbox.c ;;
		*) continue ;;
		esac
		[ "$f" = "$home" ] ||
			echo "$f:$n: <$h>: only $home calls that library"
	done
done > "${TMPDIR:-/tmp}/lint-includes.$$"
grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"api_priv.h"' \
	lib/*.[ch] worker/*.[ch] bisectd/*.[ch] cli/*.[ch] |
	while IFS=: read -r f n _; do
		case $f in
		bisectd/api.c | bisectd/api_*.c) ;;
		*) echo "$f:$n: \"api_priv.h\": only the API's files include it" ;;
		esac
	done >> "${TMPDIR:-/tmp}/lint-includes.$$"
grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"gitutil_priv.h"' \
	lib/*.[ch] worker/*.[ch] bisectd/*.[ch] cli/*.[ch] |
	while IFS=: read -r f n _; do
		case $f in
		lib/gitutil.c | lib/gitwork.c) ;;
		*) echo "$f:$n: \"gitutil_priv.h\": only gitutil.c and gitwork.c include it" ;;
		esac
	done >> "${TMPDIR:-/tmp}/lint-includes.$$"
if [ -s "${TMPDIR:-/tmp}/lint-includes.$$" ]; then
	cat "${TMPDIR:-/tmp}/lint-includes.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/lint-includes.$$"
exit $bad
