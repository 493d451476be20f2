// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP client.  One easy handle per request: requests are few (a
 * worker's poll, heartbeat and upload; a webhook), and each sets its own
 * timeout.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "error.h"
#include "http.h"

int http_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK
		       ? 0
		       : err_set(ERR_INFRA, "cannot start libcurl");
}

static size_t on_data(char *ptr, size_t size, size_t n, void *payload)
{
	struct buf *b = payload;

	if (b && buf_put(b, ptr, size * n))
		return 0; /* past the cap: curl stops with an error */
	return size * n;
}

void http_url_shown(char *out, size_t size, const char *url)
{
	const char *host = strstr(url, "://"), *at, *slash;

	host = host ? host + 3 : url;
	at = strchr(host, '@');
	slash = strchr(host, '/');
	if (at && (!slash || at < slash))
		snprintf(out, size, "%.*s***%s", (int)(host - url), url, at);
	else
		snprintf(out, size, "%s", url);
}

int http_do(const struct http_req *r, long *status, struct buf *out)
{
	struct curl_slist *h = NULL;
	char auth[512], sum[128], type[128], errbuf[CURL_ERROR_SIZE] = "";
	FILE *f = NULL;
	CURL *c;
	CURLcode cc;

	*status = 0;
	c = curl_easy_init();
	if (!c)
		return err_set(ERR_INFRA, "cannot start libcurl");
	curl_easy_setopt(c, CURLOPT_URL, r->url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r->method);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
			 (long)((r->timeout_s > 0 ? r->timeout_s : 30) * 1000));
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	snprintf(type, sizeof(type), "Content-Type: %s",
		 r->content_type ? r->content_type : "application/json");
	h = curl_slist_append(h, type);
	h = curl_slist_append(h, "Expect:");
	if (r->token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
			 r->token);
		h = curl_slist_append(h, auth);
	}
	if (r->sha256) {
		snprintf(sum, sizeof(sum), "X-Content-SHA256: %s", r->sha256);
		h = curl_slist_append(h, sum);
	}
	for (size_t i = 0; r->headers && r->headers[i]; i++)
		h = curl_slist_append(h, r->headers[i]);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	if (r->body_file) {
		struct stat st;

		f = fopen(r->body_file, "rb");
		if (!f || fstat(fileno(f), &st)) {
			if (f)
				fclose(f);
			curl_slist_free_all(h);
			curl_easy_cleanup(c);
			return err_sys(ERR_INFRA, "cannot read '%s'",
				       r->body_file);
		}
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_READDATA, f);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE,
				 (curl_off_t)st.st_size);
	} else if (r->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, r->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)r->len);
	} else if (strcmp(r->method, "GET")) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
	}
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (f)
		fclose(f);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (cc != CURLE_OK) {
		char shown[2048];

		http_url_shown(shown, sizeof(shown), r->url);
		return err_set(ERR_INFRA, "%s %s: %s", r->method, shown,
			       errbuf[0] ? errbuf : curl_easy_strerror(cc));
	}
	return 0;
}
