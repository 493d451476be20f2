/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Mail: patch series read from an mbox (git format-patch --stdout, a list
 * archive) split into its patches, in their [PATCH n/m] order; and mail
 * written.  The only file that calls GMime.
 */
#ifndef BISECTD_MBOX_H
#define BISECTD_MBOX_H

#include <stddef.h>

struct mbox_patch {
	char *subject; /* the mail's subject, decoded */
	char *text;    /* the body, its transfer encoding undone */
	size_t len;
	int number; /* n of [PATCH n/m]; -1 when the subject has none */
	size_t seq; /* its place in the mbox */
};

/*
 * The patches of the mbox in text: the mails in [PATCH n/m] order (mails
 * without a number keep their place after the numbered ones), a cover
 * letter (0/m) and mails without a diff left out.  Quoted-printable and
 * base64 bodies are decoded; of a multipart mail, its text parts (a
 * patch sent as an attachment too).  *n = 0 when text is not an mbox
 * (does not begin with a "From " line): then it is one plain diff.
 * ERR_INPUT when it is an mbox without a patch.
 */
int mbox_patches(struct mbox_patch **out, size_t *n, const char *text,
		 size_t len);
void mbox_patches_release(struct mbox_patch *p, size_t n);

/*
 * gu_apply_patches() with each mbox among the patches replaced by its
 * series, each patch of it named by its subject; other patches (plain
 * diffs, a single format-patch mail) as they are.  With applied, the
 * names of what was applied, in order, for a report (release with
 * mbox_names_release()).
 */
struct gu_oid;
struct gu_repo;
int mbox_apply_patches(struct gu_oid *out, struct gu_repo *r, const char *dir,
		       const struct gu_oid *base, const char *const *names,
		       const char *const *texts, const size_t *lens, size_t n,
		       char ***applied, size_t *napplied);
void mbox_names_release(char **names, size_t n);

/*
 * A mail to write: from, to and cc hold one address per line
 * ("Name <address>", quoted where RFC 5322 wants it; to and cc may be
 * empty), the rest UTF-8 text.
 */
struct mail_out {
	const char *from, *to, *cc;
	const char *subject;
	const char *body;
	long long date; /* seconds since the epoch */
};

/*
 * The mail as RFC 5322 and MIME want it, appended to out: names and a
 * subject with other than ASCII letters as RFC 2047 encoded words, long
 * headers folded, the body as text/plain in UTF-8 (8bit, readable as it
 * is; quoted-printable only for a line too long for SMTP).  An address
 * that does not parse is left out.  Control characters in the subject,
 * the addresses and the body (but the body's newlines and tabs) are
 * shown escaped (buf_put_shown()).
 */
struct buf;
int mail_write(struct buf *out, const struct mail_out *m);

/*
 * 0 when s is one mail address ("Name <user@host>" or "user@host", a
 * name quoted where RFC 5322 wants it), as a report's From must be;
 * else ERR_INPUT naming s.
 */
int mail_address_check(const char *s);

#endif
