// SPDX-License-Identifier: GPL-2.0-only
/*
 * git http-backend as a CGI (gitserve.h).  Its stdin is the request
 * body, from a file; its stdout, a file of its own that is unlinked at
 * once, holds the CGI headers and then the body the API sends from the
 * file (a pack for a whole kernel is hundreds of MB: never in memory).
 * It runs without any lock of the daemon's held, within a time limit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "gitserve.h"
#include "util.h"

/* A temporary file in dir, unlinked; its descriptor, its path in path. */
static int temp_file(const char *dir, char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/bisectd-git.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return err_sys(ERR_INFRA, "cannot create a file in '%s'", dir),
		       -1;
	return fd;
}

/* The CGI header block at the start of fd: Status and Content-Type. */
static int parse_cgi(struct gitserve_reply *out, int fd)
{
	char head[8192], *end, *line, *save = NULL;
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);
	struct stat st;
	size_t skip;

	if (n <= 0 || fstat(fd, &st))
		return err_set(ERR_INFRA, "git http-backend answered nothing");
	head[n] = '\0';
	end = strstr(head, "\r\n\r\n");
	skip = 4;
	if (!end || (strstr(head, "\n\n") && strstr(head, "\n\n") < end)) {
		end = strstr(head, "\n\n");
		skip = 2;
	}
	if (!end)
		return err_set(ERR_INFRA, "git http-backend's answer has no "
					  "end of headers");
	*end = '\0';
	out->status = 200;
	snprintf(out->type, sizeof(out->type), "application/octet-stream");
	for (line = strtok_r(head, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		if (!strncasecmp(line, "Status:", 7))
			out->status = (unsigned)strtoul(line + 7, NULL, 10);
		else if (!strncasecmp(line, "Content-Type:", 13))
			snprintf(out->type, sizeof(out->type), "%s",
				 line + 13 + strspn(line + 13, " \t"));
	}
	if (out->status < 100 || out->status > 599)
		return err_set(ERR_INFRA, "git http-backend's answer has a "
					  "bad status");
	out->offset = (off_t)(end - head) + (off_t)skip;
	out->size = (uint64_t)(st.st_size - out->offset);
	return 0;
}

int gitserve(struct gitserve_reply *out, const struct gitserve_request *rq)
{
	const char *argv[] = { "git", "http-backend", NULL };
	char in_path[4200], out_path[4200], *env[14] = { NULL };
	char *copy = strdup(rq->repo), *slash;
	struct proc_result pr;
	struct proc_opts o = { .stdout_only = 1, .timeout_s = rq->timeout_s };
	int in_fd = -1, rc = 0;
	size_t n = 0, i;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!copy)
		return err_set(ERR_NOMEM, "out of memory");
	/* GIT_PROJECT_ROOT is the directory above, PATH_INFO names it */
	while ((slash = strrchr(copy, '/')) && slash > copy && !slash[1])
		*slash = '\0';
	slash = strrchr(copy, '/');
	if (!slash) {
		free(copy);
		return err_set(ERR_INFRA, "repository '%s' is not a full path",
			       rq->repo);
	}
	*slash = '\0';
	env[n++] = util_fmt("GIT_PROJECT_ROOT=%s", *copy ? copy : "/");
	env[n++] = util_fmt("PATH_INFO=/%s/%s", slash + 1, rq->service);
	env[n++] = util_fmt("REQUEST_METHOD=%s", rq->method);
	env[n++] = util_fmt("QUERY_STRING=%s", rq->query ? rq->query : "");
	env[n++] = util_fmt("CONTENT_TYPE=%s",
			    rq->content_type ? rq->content_type : "");
	env[n++] = util_fmt("CONTENT_LENGTH=%zu", rq->len);
	env[n++] = util_fmt("HTTP_CONTENT_ENCODING=%s",
			    rq->content_encoding ? rq->content_encoding : "");
	env[n++] =
		util_fmt("GIT_PROTOCOL=%s", rq->protocol ? rq->protocol : "");
	env[n++] = strdup("GIT_HTTP_EXPORT_ALL=1");
	/* the repository was let in by the repo-roots policy; its owner
	 * may be another user (git would call that dubious) */
	env[n++] = strdup("GIT_CONFIG_COUNT=1");
	env[n++] = strdup("GIT_CONFIG_KEY_0=safe.directory");
	env[n++] = strdup("GIT_CONFIG_VALUE_0=*");
	free(copy);
	for (i = 0; i < n; i++)
		if (!env[i])
			rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc && rq->len) {
		in_fd = temp_file(rq->tmpdir, in_path, sizeof(in_path));
		if (in_fd < 0 ||
		    write(in_fd, rq->body, rq->len) != (ssize_t)rq->len)
			rc = in_fd < 0 ? ERR_INFRA
				       : err_sys(ERR_INFRA, "cannot write '%s'",
						 in_path);
		o.stdin_path = in_path;
	}
	if (!rc) {
		out->fd = temp_file(rq->tmpdir, out_path, sizeof(out_path));
		rc = out->fd < 0 ? ERR_INFRA : 0;
		o.log_path = out_path;
	}
	o.env = (const char *const *)env;
	if (!rc)
		rc = proc_run(&pr, argv, &o);
	if (in_fd >= 0) {
		unlink(in_path);
		close(in_fd);
	}
	if (out->fd >= 0)
		unlink(out_path);
	if (!rc && pr.timed_out)
		rc = err_set(ERR_INFRA, "git http-backend took over %.0f s",
			     rq->timeout_s);
	/* a refusal (403, 404) is an answer too, whatever its exit status */
	else if (!rc && parse_cgi(out, out->fd))
		rc = err_set(ERR_INFRA, "git http-backend failed (%s %d)",
			     pr.exited ? "exit status" : "signal",
			     pr.exited ? pr.status : pr.signal);
	if (rc && out->fd >= 0) {
		close(out->fd);
		out->fd = -1;
	}
	for (i = 0; i < n; i++)
		free(env[i]);
	return rc;
}
