// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connections one listener holds: deadlines for a request's headers
 * and body, and room made for a new connection when all are taken
 * (conns.h has the rules).
 *
 * Each entry is on one of five lists, oldest first, which are also the
 * order in which they are closed to make room: untrusted connections
 * idle after a request, trusted ones idle after a request (these hold
 * nothing), untrusted ones waiting for their first request's headers
 * (these and the first have the header deadline), untrusted ones with a
 * request under way, and trusted ones with a request under way (never).  An entry
 * that this module has shut down is on none, and no longer counts,
 * until the HTTP server says it has closed.  Each entry also belongs to
 * its network, which counts its entries on the second and third lists,
 * in a hash table of as many buckets as max (rounded up to a power of
 * two).
 *
 * One mutex guards it all: the HTTP server's threads report, the API's
 * timer ticks.  A socket is shut down only under the mutex, and its
 * entry leaves, under the mutex, before the HTTP server closes the
 * socket: so a socket's number is never shut down once it may be
 * another's.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "error.h"

enum phase {
	PHASE_HEADERS, /* waiting for a request's headers */
	PHASE_BODY,    /* its body is coming */
	PHASE_ANSWER   /* all of it has come: it is being answered */
};

enum {
	LIST_IDLE,
	LIST_TRUSTED_IDLE,
	LIST_FRESH,
	LIST_BUSY,
	LIST_TRUSTED,
	NLISTS,
	LIST_NONE = NLISTS
};

/* Whether an entry on list counts against its network. */
#define COUNTS(list) ((list) == LIST_FRESH || (list) == LIST_BUSY)

struct list {
	struct conns_entry *head, *tail;
	unsigned n;
};

/* An IPv4 address or an IPv6 /64: its family's byte, then the bytes. */
struct net {
	unsigned char key[9];
	unsigned refs;	    /* its entries */
	unsigned untrusted; /* of them, fresh or busy */
	struct net *next;   /* in its bucket */
};

struct conns_entry {
	struct conns *cs;
	struct net *net;
	int fd;
	enum phase phase;
	int trusted;
	int list;     /* LIST_*: LIST_NONE once shut down */
	double since; /* the phase began */
	unsigned long long body;
	struct conns_entry *prev, *next;
};

struct conns {
	struct conns_opts o;
	pthread_mutex_t lock;
	struct list lists[NLISTS];
	struct net **buckets;
	size_t nbuckets; /* a power of two */
	unsigned long long closed[CONNS_NWHY];
};

int conns_new(struct conns **out, const struct conns_opts *o)
{
	struct conns *cs = calloc(1, sizeof(*cs));

	*out = NULL;
	if (!cs)
		return err_set(ERR_NOMEM, "out of memory");
	cs->o = *o;
	for (cs->nbuckets = 64; cs->nbuckets < o->max; cs->nbuckets *= 2)
		;
	cs->buckets = calloc(cs->nbuckets, sizeof(*cs->buckets));
	if (!cs->buckets) {
		free(cs);
		return err_set(ERR_NOMEM, "out of memory");
	}
	pthread_mutex_init(&cs->lock, NULL);
	*out = cs;
	return 0;
}

void conns_free(struct conns *cs)
{
	size_t i;
	int l;

	if (!cs)
		return;
	for (l = 0; l < NLISTS; l++)
		while (cs->lists[l].head) {
			struct conns_entry *e = cs->lists[l].head;

			cs->lists[l].head = e->next;
			free(e);
		}
	for (i = 0; i < cs->nbuckets; i++)
		while (cs->buckets[i]) {
			struct net *n = cs->buckets[i];

			cs->buckets[i] = n->next;
			free(n);
		}
	free(cs->buckets);
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

/* peer's network; an IPv4 address mapped into IPv6 is one of IPv4's */
static void net_key(unsigned char key[9], const struct sockaddr *peer)
{
	const struct sockaddr_in6 *s6;

	memset(key, 0, 9);
	if (peer && peer->sa_family == AF_INET) {
		key[0] = 4;
		memcpy(key + 1, &((const struct sockaddr_in *)peer)->sin_addr,
		       4);
	} else if (peer && peer->sa_family == AF_INET6) {
		s6 = (const struct sockaddr_in6 *)peer;
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			key[0] = 4;
			memcpy(key + 1, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			key[0] = 6; /* its /64 */
			memcpy(key + 1, s6->sin6_addr.s6_addr, 8);
		}
	}
}

/* The bucket of a network's key. */
static struct net **bucket(struct conns *cs, const unsigned char key[9])
{
	uint32_t h = 2166136261u; /* FNV-1a */
	int i;

	for (i = 0; i < 9; i++)
		h = (h ^ key[i]) * 16777619u;
	return &cs->buckets[h & (uint32_t)(cs->nbuckets - 1)];
}

/* peer's network, counted once more (NULL: no memory) */
static struct net *net_get(struct conns *cs, const struct sockaddr *peer)
{
	unsigned char key[9];
	struct net **b, *n;

	net_key(key, peer);
	b = bucket(cs, key);
	for (n = *b; n && memcmp(n->key, key, sizeof(key)); n = n->next)
		;
	if (!n) {
		if (!(n = calloc(1, sizeof(*n))))
			return NULL;
		memcpy(n->key, key, sizeof(key));
		n->next = *b;
		*b = n;
	}
	n->refs++;
	return n;
}

/* One entry fewer of n's: freed with the last. */
static void net_put(struct conns *cs, struct net *n)
{
	struct net **p;

	if (--n->refs)
		return;
	for (p = bucket(cs, n->key); *p != n; p = &(*p)->next)
		;
	*p = n->next;
	free(n);
}

static void unlink_entry(struct conns_entry *e)
{
	struct list *l;

	if (e->list == LIST_NONE)
		return;
	l = &e->cs->lists[e->list];
	if (e->prev)
		e->prev->next = e->next;
	else
		l->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		l->tail = e->prev;
	if (COUNTS(e->list))
		e->net->untrusted--;
	e->prev = e->next = NULL;
	e->list = LIST_NONE;
	l->n--;
}

/* At the tail of list, which stays in the order of since. */
static void append(struct conns_entry *e, int list, double now)
{
	struct list *l = &e->cs->lists[list];

	unlink_entry(e);
	/* now was read before the lock: another thread's may be later */
	e->since = l->tail && l->tail->since > now ? l->tail->since : now;
	e->list = list;
	e->prev = l->tail;
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
	l->n++;
	if (COUNTS(list))
		e->net->untrusted++;
}

static unsigned held(const struct conns *cs)
{
	unsigned n = 0;
	int l;

	for (l = 0; l < NLISTS; l++)
		n += cs->lists[l].n;
	return n;
}

/* The HTTP server sees its socket end and closes it. */
static void shut(struct conns_entry *e, enum conns_why why)
{
	unlink_entry(e);
	shutdown(e->fd, SHUT_RDWR);
	e->cs->closed[why]++;
}

/* Room for e, a new connection, or e closed (the rules' order). */
static void make_room(struct conns *cs, struct conns_entry *e)
{
	struct conns_entry *v;
	int l;

	while (held(cs) > cs->o.max && e->list != LIST_NONE) {
		v = NULL;
		/* e is fresh: it is one of its network's own */
		if (e->net->untrusted == 1)
			for (l = LIST_IDLE; !v && l < LIST_TRUSTED; l++)
				v = cs->lists[l].head == e ? e->next
							   : cs->lists[l].head;
		if (v)
			shut(v, CONNS_EVICTED);
		else
			shut(e, CONNS_FULL);
	}
}

int conns_opened(struct conns *cs, struct conns_entry **out, int fd,
		 const struct sockaddr *peer, double now)
{
	struct conns_entry *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (e) {
		e->cs = cs;
		e->fd = fd;
		e->phase = PHASE_HEADERS;
		e->list = LIST_NONE;
	}
	pthread_mutex_lock(&cs->lock);
	if (e && !(e->net = net_get(cs, peer))) {
		free(e);
		e = NULL;
	}
	if (e) {
		append(e, LIST_FRESH, now);
		make_room(cs, e);
	}
	pthread_mutex_unlock(&cs->lock);
	if (!e) {
		shutdown(fd, SHUT_RDWR);
		return err_set(ERR_NOMEM, "out of memory");
	}
	*out = e;
	return 0;
}

void conns_closed(struct conns_entry *e)
{
	struct conns *cs;

	if (!e)
		return;
	cs = e->cs;
	pthread_mutex_lock(&cs->lock);
	unlink_entry(e);
	net_put(cs, e->net);
	pthread_mutex_unlock(&cs->lock);
	free(e);
}

void conns_headers(struct conns_entry *e, int trusted, double now)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->cs->lock);
	if (e->list != LIST_NONE) {
		e->trusted |= trusted;
		e->phase = PHASE_BODY;
		e->body = 0;
		append(e, e->trusted ? LIST_TRUSTED : LIST_BUSY, now);
	}
	pthread_mutex_unlock(&e->cs->lock);
}

void conns_body(struct conns_entry *e, size_t n)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->cs->lock);
	e->body += n;
	pthread_mutex_unlock(&e->cs->lock);
}

void conns_received(struct conns_entry *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->cs->lock);
	e->phase = PHASE_ANSWER;
	pthread_mutex_unlock(&e->cs->lock);
}

void conns_answered(struct conns_entry *e, double now)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->cs->lock);
	if (e->list != LIST_NONE) {
		e->phase = PHASE_HEADERS;
		append(e, e->trusted ? LIST_TRUSTED_IDLE : LIST_IDLE, now);
	}
	pthread_mutex_unlock(&e->cs->lock);
}

/* A body's deadline: header_s, and a second for each body_rate bytes. */
static int body_late(const struct conns *cs, const struct conns_entry *e,
		     double now)
{
	return e->phase == PHASE_BODY && cs->o.body_rate > 0 &&
	       now > e->since + cs->o.header_s +
			       (double)e->body / cs->o.body_rate;
}

void conns_tick(struct conns *cs, double now)
{
	struct conns_entry *e, *next;
	int l;

	if (!cs)
		return;
	pthread_mutex_lock(&cs->lock);
	/* oldest first: the first that is not due ends the walk */
	for (l = 0; l < 2; l++) {
		/* the lists with a header deadline */
		static const int timed[] = { LIST_IDLE, LIST_FRESH };
		struct list *h = &cs->lists[timed[l]];

		while ((e = h->head) && now >= e->since + cs->o.header_s)
			shut(e, CONNS_HEADERS);
	}
	for (l = LIST_BUSY; l <= LIST_TRUSTED; l++)
		for (e = cs->lists[l].head; e; e = next) {
			next = e->next;
			if (body_late(cs, e, now))
				shut(e, CONNS_BODY);
		}
	pthread_mutex_unlock(&cs->lock);
}

void conns_stats(struct conns *cs, struct conns_stats *out)
{
	int i;

	if (!cs)
		return;
	pthread_mutex_lock(&cs->lock);
	out->fresh += cs->lists[LIST_FRESH].n;
	out->idle += cs->lists[LIST_IDLE].n;
	out->busy += cs->lists[LIST_BUSY].n;
	out->trusted +=
		cs->lists[LIST_TRUSTED].n + cs->lists[LIST_TRUSTED_IDLE].n;
	for (i = 0; i < CONNS_NWHY; i++)
		out->closed[i] += cs->closed[i];
	pthread_mutex_unlock(&cs->lock);
}
