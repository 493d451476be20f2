# SPDX-License-Identifier: GPL-2.0-only
# icecream for tests: icecc-scheduler and iceccd compile servers, each
# in a network namespace of the caller's own.  The scheduler's namespace
# holds a bridge (10.232.0.1/24); compile server i is 10.232.0.1i, the
# local iceccd (it takes no jobs: -m 0) 10.232.0.19, and the host's own
# end of the bridge 10.232.0.254.  Nothing else is on that network, so
# the daemons' broadcasts stay in it.  The daemons' sockets, caches and
# the native compiler environment are under ICECC_RUN (in /run, which a
# build's sandbox can read), their logs in ICECC_LOGS/<name>.log.
# Sourced; needs root, iproute2 and icecc.
icecc_ns=bdic$$
ICECC_RUN=/run/bdicecc$$

# icecc_clean: stop the daemons, remove the namespaces and the bridge's
# host end, and what a killed run left behind (under set -e too: what is
# gone already is no error)
icecc_clean() {
	for n in $(ip netns list | awk '/^bdic[0-9]+/ { print $1 }'); do
		ip netns pids "$n" | xargs -r kill 2> /dev/null || :
	done
	sleep 0.5
	for n in $(ip netns list | awk '/^bdic[0-9]+/ { print $1 }'); do
		ip netns pids "$n" | xargs -r kill -9 2> /dev/null || :
		ip netns del "$n" || :
	done
	for l in $(ip -o link | sed -n 's/^[0-9]*: \(bdic[0-9]*[a-z0-9]*\)@.*/\1/p'); do
		ip link del "$l" 2> /dev/null || :
	done
	rm -rf /run/bdicecc[0-9]*
}

# icecc_net: the scheduler's namespace, its bridge and the host's end
icecc_net() {
	ip netns add "${icecc_ns}L" &&
		ip -n "${icecc_ns}L" link add br0 type bridge &&
		ip -n "${icecc_ns}L" addr add 10.232.0.1/24 dev br0 &&
		ip -n "${icecc_ns}L" link set br0 up &&
		ip -n "${icecc_ns}L" link set lo up &&
		ip link add "${icecc_ns}ha" type veth peer name "${icecc_ns}hb" &&
		ip link set "${icecc_ns}ha" netns "${icecc_ns}L" &&
		ip -n "${icecc_ns}L" link set "${icecc_ns}ha" master br0 up &&
		ip addr add 10.232.0.254/24 dev "${icecc_ns}hb" &&
		ip link set "${icecc_ns}hb" up || return 1
	mkdir -p "$ICECC_RUN" && chmod 755 "$ICECC_RUN" || return 1
	ip netns exec "${icecc_ns}L" icecc-scheduler -vv \
		> "$ICECC_LOGS/scheduler.log" 2>&1 &
}

# icecc_daemon NAME I MAX: iceccd NAME at 10.232.0.1I, in a namespace of
# its own on the bridge, taking up to MAX jobs
icecc_daemon() {
	ip netns add "$icecc_ns$1" &&
		ip link add "${icecc_ns}${1}a" type veth peer name "${icecc_ns}${1}b" &&
		ip link set "${icecc_ns}${1}a" netns "${icecc_ns}L" &&
		ip -n "${icecc_ns}L" link set "${icecc_ns}${1}a" master br0 up &&
		ip link set "${icecc_ns}${1}b" netns "$icecc_ns$1" &&
		ip -n "$icecc_ns$1" addr add "10.232.0.1$2/24" dev "${icecc_ns}${1}b" &&
		ip -n "$icecc_ns$1" link set "${icecc_ns}${1}b" up &&
		ip -n "$icecc_ns$1" link set lo up || return 1
	# (iceccd works as the user icecc in its own directory)
	mkdir -p "$ICECC_RUN/$1" && chown icecc "$ICECC_RUN/$1" || return 1
	ICECC_TEST_SOCKET=$ICECC_RUN/$1/sock ip netns exec "$icecc_ns$1" \
		iceccd -s 10.232.0.1 -m "$3" -N "$1" -b "$ICECC_RUN/$1/envs" -vvv \
		> "$ICECC_LOGS/$1.log" 2>&1 &
}

# icecc_listcs: the scheduler's list of compile servers
icecc_listcs() {
	ip netns exec "${icecc_ns}L" timeout 5 bash -c \
		'exec 3<> /dev/tcp/10.232.0.1/8766 && echo listcs >&3 &&
		 while read -r -t 3 l <&3; do
			echo "$l"; case $l in "200 done"*) exit 0 ;; esac
		 done'
}

# icecc_wait N: 0 once the scheduler lists N daemons (up to 30 s)
icecc_wait() {
	for _ in $(seq 30); do
		[ "$(icecc_listcs | grep -c ' jobs=')" -ge "$1" ] && return 0
		sleep 1
	done
	return 1
}

# icecc_compiled NAME: the compile jobs that daemon NAME finished
icecc_compiled() {
	grep -c 'Remote compilation completed with exit code 0' "$ICECC_LOGS/$1.log"
}
