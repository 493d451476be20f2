/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A job's repository, served to workers over git's smart HTTP protocol
 * (gitserve.c): git http-backend runs as a CGI for each request, its
 * answer is kept in an unlinked file, and the API sends that file.
 */
#ifndef BISECTD_GITSERVE_H
#define BISECTD_GITSERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gitserve_request {
	const char *repo;    /* the repository's directory */
	const char *method;  /* GET or POST */
	const char *service; /* "info/refs" or "git-upload-pack" */
	const char *query;   /* "service=git-upload-pack" or "" */
	const char *content_type, *content_encoding, *protocol; /* or NULL */
	const void *body;
	size_t len;
	const char *tmpdir; /* where the answer is kept while it is sent */
	double timeout_s;
};

struct gitserve_reply {
	unsigned status;
	char type[128]; /* Content-Type */
	int fd;		/* the answer, unlinked; the caller closes it */
	off_t offset;	/* where its body starts in fd */
	uint64_t size;	/* the body's length */
};

/*
 * Run git http-backend for the request (upload-pack only: receive-pack
 * is refused with 403).  0 and out filled, or an error: ERR_INFRA when
 * git could not run or answered nothing a CGI may.
 */
int gitserve(struct gitserve_reply *out, const struct gitserve_request *rq);

#endif
