#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Lint of the modules' calls: within each folder (lib, worker, bisectd,
# cli), which object calls which, from the built objects' symbols (nm),
# must form no cycle (tsort finds one).  Files that share a private
# header (engine.c and noisy.c include engine_priv.h) are one module in
# two halves.  Run after make.  Prints each cycle and fails when there is
# one.
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
bad=0
for folder in lib worker bisectd cli; do
	ls "$B/$folder"/*.o > /dev/null 2>&1 || {
		echo "no objects in $B/$folder: run make first"
		exit 1
	}
	edges=$(for o in "$B/$folder"/*.o; do
		m=$(basename "$o" .o)
		priv=$(sed -n 's/^#include "\(.*\)_priv\.h".*/\1/p' \
			"$folder/$m.c" 2> /dev/null | head -n 1)
		m=${priv:-$m}
		nm "$o" | awk -v m="$m" '
			$1 == "U" { print "U", m, $2 }
			NF == 3 && $2 ~ /^[TDBR]$/ { print "D", m, $3 }'
	done | awk '
		$1 == "D" { def[$3] = $2; next }
		{ use[NR] = $2 " " $3 }
		END {
			for (i in use) {
				split(use[i], p, " ")
				if ((p[2] in def) && def[p[2]] != p[1])
					print p[1], def[p[2]]
			}
		}' | sort -u)
	# a module that calls no other of its folder still stands alone
	out=$(printf '%s\n' "$edges" | tsort 2>&1 > /dev/null)
	if [ -n "$out" ]; then
		echo "$folder/: its modules call each other in a circle:"
		printf '%s\n' "$out" | sed 's/^/  /'
		bad=1
	fi
done
exit $bad
