// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mail with GMime: patch series read (its mbox parser splits the mails,
 * and a part's data wrapper undoes quoted-printable and base64), and
 * reports written (its message and address objects encode and fold the
 * headers).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "buf.h"
#include "error.h"
#include "gitutil.h"
#include "mbox.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	g_mime_init();
}

/* The text parts of a mail, decoded, one after another. */
static void add_text(GMimeObject *parent, GMimeObject *part, gpointer data)
{
	GByteArray *body = data;
	GMimeContentType *ct = g_mime_object_get_content_type(part);
	GMimeDataWrapper *w;
	GMimeStream *s;

	(void)parent;
	if (!GMIME_IS_PART(part) || !ct ||
	    !g_mime_content_type_is_type(ct, "text", "*"))
		return;
	w = g_mime_part_get_content(GMIME_PART(part));
	if (!w)
		return;
	s = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(w, s) >= 0) {
		GByteArray *a =
			g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(s));

		g_byte_array_append(body, a->data, a->len);
	}
	g_object_unref(s);
}

/*
 * n of "[PATCH n/m]", "[PATCH v2 03/12]", "[RFC PATCH net n/m]": 0 for a
 * cover letter, -1 when the subject has no number.
 */
static int patch_number(const char *subject)
{
	const char *b = subject ? strchr(subject, '[') : NULL;
	const char *e = b ? strchr(b, ']') : NULL;
	const char *slash = b ? memchr(b, '/', (size_t)(e - b)) : NULL;
	int n;

	if (!e || !slash)
		return -1;
	while (slash > b && slash[-1] >= '0' && slash[-1] <= '9')
		slash--;
	return sscanf(slash, "%d/", &n) == 1 ? n : -1;
}

/* In [PATCH n/m] order; mails without a number after, as they came. */
static int by_number(const void *a, const void *b)
{
	const struct mbox_patch *x = a, *y = b;
	long nx = x->number > 0 ? x->number : 1L << 30;
	long ny = y->number > 0 ? y->number : 1L << 30;

	if (nx != ny)
		return nx < ny ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int has_diff(const GByteArray *body)
{
	const char *t = (const char *)body->data;

	return g_strstr_len(t, body->len, "\n+++ ") &&
	       (g_strstr_len(t, body->len, "\n--- ") ||
		(body->len > 4 && !strncmp(t, "--- ", 4)));
}

static int add(struct mbox_patch **v, size_t *n, size_t *cap,
	       const char *subject, int number, const GByteArray *body)
{
	struct mbox_patch *e;

	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct mbox_patch *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return err_set(ERR_NOMEM, "out of memory");
		*v = nv;
		*cap = c;
	}
	e = &(*v)[*n];
	memset(e, 0, sizeof(*e));
	e->subject = strdup(subject ? subject : "");
	e->text = malloc(body->len + 1);
	if (!e->subject || !e->text) {
		free(e->subject);
		free(e->text);
		return err_set(ERR_NOMEM, "out of memory");
	}
	memcpy(e->text, body->data, body->len);
	e->text[body->len] = '\0';
	e->len = body->len;
	e->number = number;
	e->seq = *n;
	(*n)++;
	return 0;
}

int mbox_patches(struct mbox_patch **out, size_t *n, const char *text,
		 size_t len)
{
	size_t cap = 0;
	GMimeStream *s;
	GMimeParser *p;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (len < 5 || strncmp(text, "From ", 5))
		return 0;
	pthread_once(&once, init);
	s = g_mime_stream_mem_new_with_buffer(text, len);
	p = g_mime_parser_new_with_stream(s);
	g_mime_parser_set_format(p, GMIME_FORMAT_MBOX);
	while (!rc && !g_mime_parser_eos(p)) {
		GMimeMessage *m = g_mime_parser_construct_message(p, NULL);
		const char *subject;
		GByteArray *body;
		int number;

		if (!m)
			break;
		subject = g_mime_message_get_subject(m);
		number = patch_number(subject);
		body = g_byte_array_new();
		g_mime_message_foreach(m, add_text, body);
		/* a cover letter (0/m) and a reply without a diff are not
		 * patches */
		if (number != 0 && has_diff(body))
			rc = add(out, n, &cap, subject, number, body);
		g_byte_array_free(body, TRUE);
		g_object_unref(m);
	}
	g_object_unref(p);
	g_object_unref(s);
	if (!rc && *n == 0)
		rc = err_set(ERR_INPUT, "an mbox without a patch in it");
	if (rc) {
		mbox_patches_release(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	qsort(*out, *n, sizeof(**out), by_number);
	return 0;
}

void mbox_patches_release(struct mbox_patch *p, size_t n)
{
	size_t i;

	for (i = 0; p && i < n; i++) {
		free(p[i].subject);
		free(p[i].text);
	}
	free(p);
}

void mbox_names_release(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* A copy of the names applied, for the report. */
static int copy_names(char ***out, size_t *nout, const char *const *nm,
		      size_t n)
{
	size_t i;

	*out = calloc(n ? n : 1, sizeof(**out));
	*nout = 0;
	if (!*out)
		return err_set(ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (!((*out)[i] = strdup(nm[i]))) {
			mbox_names_release(*out, i);
			*out = NULL;
			return err_set(ERR_NOMEM, "out of memory");
		}
	}
	*nout = n;
	return 0;
}

int mbox_apply_patches(struct gu_oid *out, struct gu_repo *r, const char *dir,
		       const struct gu_oid *base, const char *const *names,
		       const char *const *texts, const size_t *lens, size_t n,
		       char ***applied, size_t *napplied)
{
	struct mbox_patch **series = calloc(n ? n : 1, sizeof(*series));
	size_t *count = calloc(n ? n : 1, sizeof(*count));
	const char **nm = NULL, **tx = NULL;
	size_t *ln = NULL, total = 0, i, j, k = 0;
	int rc = series && count ? 0 : err_set(ERR_NOMEM, "out of memory");

	for (i = 0; !rc && i < n; i++) {
		rc = mbox_patches(&series[i], &count[i], texts[i], lens[i]);
		if (rc)
			rc = err_set(rc, "patch '%s': %s", names[i],
				     err_last());
		total += count[i] ? count[i] : 1;
	}
	if (!rc) {
		nm = calloc(total ? total : 1, sizeof(*nm));
		tx = calloc(total ? total : 1, sizeof(*tx));
		ln = calloc(total ? total : 1, sizeof(*ln));
		if (!nm || !tx || !ln)
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	for (i = 0; !rc && i < n; i++) {
		if (!count[i]) {
			nm[k] = names[i];
			tx[k] = texts[i];
			ln[k++] = lens[i];
		}
		for (j = 0; j < count[i]; j++) {
			nm[k] = series[i][j].subject;
			tx[k] = series[i][j].text;
			ln[k++] = series[i][j].len;
		}
	}
	if (!rc)
		rc = gu_apply_patches(out, r, dir, base, nm, tx, ln, total);
	if (!rc && applied)
		rc = copy_names(applied, napplied, nm, total);
	for (i = 0; series && i < n; i++)
		mbox_patches_release(series[i], count ? count[i] : 0);
	free(series);
	free(count);
	free(nm);
	free(tx);
	free(ln);
	return rc;
}

/* --- writing ------------------------------------------------------------ */

/* The names of the addresses in list, shown (buf_put_shown()). */
static void names_shown(InternetAddressList *list)
{
	int i, n = internet_address_list_length(list);

	for (i = 0; i < n; i++) {
		InternetAddress *a = internet_address_list_get_address(list, i);
		const char *name = internet_address_get_name(a);
		char *shown = name ? buf_shown(name, 0) : NULL;

		if (shown && strcmp(shown, name))
			internet_address_set_name(a, shown);
		free(shown);
	}
}

static void add_addresses(InternetAddressList *list, const char *lines)
{
	while (lines && *lines) {
		size_t l = strcspn(lines, "\n");
		char *one = g_strndup(lines, l);
		InternetAddressList *parsed =
			internet_address_list_parse(NULL, one);

		if (parsed) {
			names_shown(parsed);
			internet_address_list_append(list, parsed);
			g_object_unref(parsed);
		}
		g_free(one);
		lines += l + (lines[l] != 0);
	}
}

int mail_write(struct buf *out, const struct mail_out *m)
{
	GMimeMessage *msg;
	GMimeTextPart *part;
	GDateTime *date;
	char *text, *subject, *body;
	int rc;

	/* a control character (a CR of a commit's subject, a terminal's
	 * escape from a console) never goes into the mail as it is */
	subject = buf_shown(m->subject, 0);
	body = buf_shown(m->body, 1);
	if (!subject || !body) {
		free(subject);
		free(body);
		return err_set(ERR_NOMEM, "out of memory");
	}
	pthread_once(&once, init);
	msg = g_mime_message_new(TRUE);
	add_addresses(g_mime_message_get_from(msg), m->from);
	add_addresses(g_mime_message_get_to(msg), m->to);
	add_addresses(g_mime_message_get_cc(msg), m->cc);
	g_mime_message_set_subject(msg, subject, "utf-8");
	date = g_date_time_new_from_unix_utc(m->date);
	g_mime_message_set_date(msg, date);
	g_date_time_unref(date);
	part = g_mime_text_part_new_with_subtype("plain");
	g_mime_text_part_set_text(part, body);
	g_mime_part_set_content_encoding(
		GMIME_PART(part),
		g_mime_part_get_best_content_encoding(
			GMIME_PART(part), GMIME_ENCODING_CONSTRAINT_8BIT));
	g_mime_message_set_mime_part(msg, GMIME_OBJECT(part));
	g_object_unref(part);
	text = g_mime_object_to_string(GMIME_OBJECT(msg), NULL);
	rc = text ? buf_puts(out, text) : err_set(ERR_NOMEM, "out of memory");
	g_free(text);
	g_object_unref(msg);
	free(subject);
	free(body);
	return rc;
}

int mail_address_check(const char *s)
{
	InternetAddressList *l;
	InternetAddress *a;
	const char *addr = NULL, *at;

	pthread_once(&once, init);
	l = s && *s && !strpbrk(s, "\r\n")
		    ? internet_address_list_parse(NULL, s)
		    : NULL;
	if (l && internet_address_list_length(l) == 1) {
		a = internet_address_list_get_address(l, 0);
		if (INTERNET_ADDRESS_IS_MAILBOX(a))
			addr = internet_address_mailbox_get_addr(
				INTERNET_ADDRESS_MAILBOX(a));
	}
	/* GMime forgives: it reads "a <a@b@c>" as a@b; the address must be
	 * all that stands between the brackets (or all of s) */
	for (at = addr ? strstr(s, addr) : NULL; at && strstr(at + 1, addr);)
		at = strstr(at + 1, addr); /* the last: a name may hold it */
	if (at && at[strlen(addr)] && at[strlen(addr)] != '>')
		addr = NULL;
	at = addr ? strchr(addr, '@') : NULL;
	if (!at || at == addr || !at[1]) {
		if (l)
			g_object_unref(l);
		if (!s)
			s = "";
		return err_set(ERR_INPUT,
			       "'%.*s%s' is not one mail address (Name "
			       "<user@host>)",
			       (int)strcspn(s, "\r\n"), s,
			       s[strcspn(s, "\r\n")] ? "..." : "");
	}
	g_object_unref(l);
	return 0;
}
