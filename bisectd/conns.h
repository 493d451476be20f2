/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The connections one listener holds, and which of them to close so
 * that slow clients cannot keep others out (slowloris).
 *
 * No HTTP here: api.c says when a connection opens, when a request's
 * headers are complete and whether they carried a valid token, how much
 * of its body has come, when all of it has, when the request has been
 * answered, and when the connection closes.  This module closes a
 * connection by shutting its socket down; the HTTP server then sees it
 * end and lets it go as any other (conns_closed follows).
 *
 * The rules:
 *
 *  - A request's headers must be complete within header_s of the
 *    connection's start, or of the end of the request before it on the
 *    same connection (an idle keep-alive waits as long).  A connection
 *    that once presented a valid token is trusted: its later requests
 *    have only the HTTP server's idle timeout.
 *  - A body must come at body_rate bytes a second on average, after
 *    header_s of grace: it may take header_s + received / body_rate
 *    seconds from the end of its headers (0: no minimum).
 *  - When a new connection would make one more than max, room is made
 *    for it if its network (an IPv4 address, an IPv6 /64) has no other
 *    untrusted connection that waits for its first request's headers
 *    or has a request under way.  The one closed is the untrusted
 *    connection idle for longest after a request (keep-alive), else the
 *    trusted one idle for longest after a request, of any network (it
 *    holds nothing: a token's holder cannot keep every place with idle
 *    connections), else the untrusted
 *    one that has waited longest for its first request's headers, else
 *    the untrusted one whose request began first.  Else (its network
 *    has one, or every other connection is trusted and has a request
 *    under way) the new connection is closed.  A trusted connection
 *    with a request under way is never closed to make room.  Without
 *    the rule of networks, an attacker's new
 *    connections, each taking the place of the oldest, would turn the
 *    whole list over in a few milliseconds and take a client's place
 *    before its headers were read.
 */
#ifndef BISECTD_CONNS_H
#define BISECTD_CONNS_H

#include <stddef.h>
#include <sys/socket.h>

struct conns_opts {
	unsigned max;	  /* connections held at once */
	double header_s;  /* for a request's headers */
	double body_rate; /* bytes a second a body keeps (0: no minimum) */
};

/* Why this module closed a connection. */
enum conns_why {
	CONNS_HEADERS, /* its headers took too long */
	CONNS_BODY,    /* its body came too slowly */
	CONNS_EVICTED, /* another took its place */
	CONNS_FULL,    /* a new one, with no room made for it */
	CONNS_NWHY
};

struct conns_stats {
	unsigned fresh; /* untrusted, waiting for a first request's headers */
	unsigned idle;	/* untrusted, waiting for another request's */
	unsigned busy;	/* untrusted, with a request under way */
	unsigned trusted;
	unsigned long long closed[CONNS_NWHY];
};

struct conns;
struct conns_entry;

int conns_new(struct conns **out, const struct conns_opts *o);
/* Frees every entry left: only after the HTTP server has stopped. */
void conns_free(struct conns *cs);

/*
 * A connection from peer on socket fd has opened at now: *out is its
 * entry, owned by cs until conns_closed().  When cs already holds max,
 * one is shut down (the rules above), which may be this one.  On
 * failure (no memory) the socket is shut down and *out is NULL; every
 * call below takes a NULL entry and does nothing.
 */
int conns_opened(struct conns *cs, struct conns_entry **out, int fd,
		 const struct sockaddr *peer, double now);
/* The HTTP server has closed it: e is freed (its socket not yet). */
void conns_closed(struct conns_entry *e);
/* A request's headers are complete; trusted: they had a valid token. */
void conns_headers(struct conns_entry *e, int trusted, double now);
/* n more bytes of its body have come. */
void conns_body(struct conns_entry *e, size_t n);
/* All of the request has come: no deadline while it is answered. */
void conns_received(struct conns_entry *e);
/* The request has been answered: the connection waits for the next. */
void conns_answered(struct conns_entry *e, double now);

/* Shut down the connections past their deadlines at now. */
void conns_tick(struct conns *cs, double now);

/* Add cs's counts to *out (zeroed by the caller); cs may be NULL. */
void conns_stats(struct conns *cs, struct conns_stats *out);

#endif
