# SPDX-License-Identifier: GPL-2.0-only
# Compile helpers for tests and benchmarks: distccd in network
# namespaces of the caller's own, each on a veth pair (helper i is
# 10.231.i.2, the host's end 10.231.i.1), allowing only the host's end.
# Sourced; needs root, iproute2 and distcc.  DISTCC_LOGS names the
# directory of the helpers' logs (distccd<i>.log) and pid files.
distcc_ns=bdcc$$

# distcc_clean: stop the helpers and remove their namespaces, and what a
# killed run left behind (it would hold the addresses; under set -e too)
distcc_clean() {
	for p in "$DISTCC_LOGS"/distccd*.pid; do
		[ ! -f "$p" ] || kill "$(cat "$p")" 2> /dev/null || :
		rm -f "$p"
	done
	for n in $(ip netns list | awk '/^bdcc[0-9]+( |$)/ { print $1 }'); do
		ip netns pids "$n" | xargs -r kill 2> /dev/null || :
		ip netns del "$n" || :
	done
	for l in $(ip -o link | sed -n 's/^[0-9]*: \(bdcc[0-9]*h[0-9]*\)@.*/\1/p'); do
		ip link del "$l" 2> /dev/null || : # gone with its namespace
	done
}

# distcc_helper I: start helper I; 0 when its distccd listens
distcc_helper() {
	ip netns add "$distcc_ns$1" &&
		ip link add "${distcc_ns}h$1" type veth peer name "${distcc_ns}n$1" &&
		ip link set "${distcc_ns}n$1" netns "$distcc_ns$1" &&
		ip addr add "10.231.$1.1/24" dev "${distcc_ns}h$1" &&
		ip link set "${distcc_ns}h$1" up &&
		ip -n "$distcc_ns$1" addr add "10.231.$1.2/24" dev "${distcc_ns}n$1" &&
		ip -n "$distcc_ns$1" link set "${distcc_ns}n$1" up &&
		ip -n "$distcc_ns$1" link set lo up || return 1
	ip netns exec "$distcc_ns$1" distccd --daemon --no-detach --user distccd \
		--listen "10.231.$1.2" --allow "10.231.$1.1" --jobs 2 \
		--log-stderr --log-level info 2> "$DISTCC_LOGS/distccd$1.log" &
	echo $! > "$DISTCC_LOGS/distccd$1.pid"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q 'daemon started' "$DISTCC_LOGS/distccd$1.log" && return 0
		sleep 0.5
	done
	return 1
}

# distcc_stop I: helper I's distccd stops (its namespace stays)
distcc_stop() {
	kill "$(cat "$DISTCC_LOGS/distccd$1.pid")" 2> /dev/null
	rm -f "$DISTCC_LOGS/distccd$1.pid"
	sleep 0.5
}

# distcc_recipe NAME SPEC DIR: the tiny recipe as DIR/NAME.recipe, with
# "distcc = SPEC" (none when SPEC is empty), its fragments and init
distcc_recipe() {
	mkdir -p "$3/recipes" "$3/images"
	cp -r "$TOP/recipes/fragments" "$3/recipes/"
	cp "$TOP/images/init.sh" "$3/images/"
	cat "$TOP/recipes/tiny.recipe" > "$3/recipes/$1.recipe"
	[ -z "$2" ] || echo "distcc = $2" >> "$3/recipes/$1.recipe"
}
