/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An HTTP client over libcurl, the only file that includes curl.h: the
 * worker's calls to bisectd, bisectctl --server, and webhooks.
 */
#ifndef BISECTD_HTTP_H
#define BISECTD_HTTP_H

#include <stddef.h>

#include "buf.h"

struct http_req {
	const char *method; /* "GET", "POST", "PUT" */
	const char *url;
	const char *token;	    /* Authorization: Bearer, or NULL */
	const char *body;	    /* or NULL */
	size_t len;		    /* of body */
	const char *body_file;	    /* PUT this file instead of body */
	const char *content_type;   /* default application/json */
	const char *sha256;	    /* X-Content-SHA256 header, or NULL */
	double timeout_s;	    /* whole request; 0: 30 s */
	const char *const *headers; /* more "Name: value" lines, or NULL */
};

/*
 * Send the request; *status gets the HTTP status and out (may be NULL)
 * the response body.  ERR_INFRA when no response came (refused,
 * timed out, unreachable), with curl's reason.
 */
int http_do(const struct http_req *r, long *status, struct buf *out);

int http_global_init(void);

/* url as a message or a view may show it: a user and password in it
 * become "***". */
void http_url_shown(char *out, size_t size, const char *url);

#endif
