/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compile helpers: distcc's hosts for a kernel build (compile_helpers.c).
 *
 * A recipe's "distcc = host1/4,host2/8" (or a worker's --distcc) names
 * machines running distccd.  A build then runs make with ccache in front
 * of distcc (CCACHE_PREFIX=distcc), a -j of the helpers' slots and the
 * local cores, and every compile job that leaves the machine goes
 * through a relay: a process of the worker's, outside any sandbox, that
 * listens on a Unix socket per helper in the work directory and connects
 * only to that helper.  distcc reaches the sockets in its "ssh" mode,
 * whose command (DISTCC_SSH) is this program under another name.  So a
 * build in the sandbox, which has no network, reaches the helpers and
 * nothing else.  Helpers that do not answer are left out; when none
 * does, the build is local, and the step's notes say so.
 *
 * Or "icecc = scheduler-host[:port]": the machines are icecream's
 * compile servers, which icecc-scheduler knows of.  The worker's own
 * iceccd (its socket, ICECC_SOCKET or $BISECTD_ICECC_SOCKET) asks the
 * scheduler for a server for each compile job, and the icecc client
 * then connects to that server itself.  So the build runs in a network
 * namespace of its own, made by the relay: its loopback carries the
 * addresses of the compile servers the scheduler lists (asked on its
 * text port, the scheduler's port + 1), each with a listening socket
 * the relay accepts on outside the namespace and joins to that server.
 * The build, in or out of the sandbox, reaches those servers and the
 * local iceccd's socket, and nothing else.  ccache hands its misses to
 * icecc (CCACHE_PREFIX=icecc), as icecream's documentation recommends.
 * A network namespace needs a worker that is root.
 */
#ifndef BISECTD_WORKER_COMPILE_HELPERS_H
#define BISECTD_WORKER_COMPILE_HELPERS_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "buf.h"

#define HELPERS_MAX 64

struct helper {
	char name[128]; /* as given, host[:port] */
	char port[8];
	unsigned slots;
	int lzo;
	int local; /* "localhost": distcc compiles here */
	int up;	   /* answered the probe */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	unsigned long jobs; /* compile jobs relayed */
	char node[64];	    /* icecc: the compile server's node name */
};

struct helpers {
	struct helper h[HELPERS_MAX];
	size_t n;
	pid_t relay;  /* the relay process, or 0 */
	char *dir;    /* its sockets, the connector, distcc's state */
	char *env[4]; /* for make: NAME=value, NULL-ended */
	int icecc;    /* h: icecc's compile servers, from sched */
	struct helper sched;
	/* icecc: the relay's network namespace, in which make runs
	 * (nsenter --net=), or NULL */
	char *netns;
};

/*
 * Parse a distcc host list: HOST[:PORT][/LIMIT][,lzo] items (an IPv6
 * address in brackets), separated by spaces or commas; "localhost[/N]"
 * compiles here.  ERR_INPUT with one line naming the bad item.
 */
int helpers_parse(struct helpers *hs, const char *spec);

/*
 * icecc's scheduler: HOST[:PORT] (8765 by default) into hs, which then
 * has no compile servers until helpers_start() asks it.  ERR_INPUT with
 * one line when spec is not one host.
 */
#define ICECC_SOCKET "/var/run/icecc/iceccd.socket"
int helpers_parse_icecc(struct helpers *hs, const char *spec);

/*
 * The compile servers of icecc-scheduler's "listcs" answer (text) into
 * hs->h: " NODE (ADDRESS:PORT) [PLATFORM] speed=S jobs=N/MAX ...", one
 * per line, those with MAX 0 (they take no jobs) left out.  The number
 * of servers listed; ERR_INPUT for a line that cannot be read.
 */
int helpers_parse_listcs(struct helpers *hs, const char *text);

/*
 * Probe each helper (a TCP connection, up to 2 s), start the relay with
 * a socket per helper that answered in dir (made if needed), and set
 * hs->env.  Returns the -j slots the helpers add (0: none is up, the
 * build is local, hs->env empty).  What was left out goes to notes.
 * For icecc: the local iceccd and the scheduler first, then the
 * servers it lists, and the relay's network namespace (hs->netns).
 */
int helpers_start(struct helpers *hs, const char *dir, struct buf *notes);

/* Stop the relay; how many jobs each helper got goes to notes. */
void helpers_stop(struct helpers *hs, struct buf *notes);

void helpers_release(struct helpers *hs);

/*
 * The connector: 1 when this program was started as it (argv[0] ends in
 * HELPERS_CONNECTOR), and then helpers_connect() is its main: distcc
 * runs it as "CONNECTOR [-l user] HOST ..." and talks to its stdin and
 * stdout, which it joins to the relay's socket for HOST.
 */
#define HELPERS_CONNECTOR "bisectd-distcc-ssh"
int helpers_is_connector(const char *argv0);
int helpers_connect(int argc, char **argv);

#endif
