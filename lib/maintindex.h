/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The index of MAINTAINERS and .mailmap that maintainers.c reads, as the
 * answer (maintanswer.c) uses it: for those two files only.
 */
#ifndef BISECTD_MAINTINDEX_H
#define BISECTD_MAINTINDEX_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>

#include "maintainers.h"

/* The fixed regexes of the answer, as get_maintainer.pl writes them. */
enum {
	RX_EMAIL_NAMED,	  /* Name <address> */
	RX_EMAIL_BRACKET, /* <address> */
	RX_EMAIL_BARE,	  /* address */
	RX_MAILMAP_1,	  /* Name <mail> */
	RX_MAILMAP_2,	  /* <mail> <mail> */
	RX_MAILMAP_3,	  /* Name <mail> <mail> */
	RX_MAILMAP_4,	  /* Name <mail> Name <mail> */
	RX_MODE,
	RX_RENAME,
	RX_DIFF,
	RX_FIXES,
	RX_PLUS,
	RX_MINUS,
	RX_HUNK,
	RX_SIGNATURE,
	RX_SIGNER,
	RX_LIST,
	RX_FILE_EMAIL,
	RX_BRACKETED,
	RX_NAME_SPLIT,
	RX_N
};

struct mpat {
	size_t section;
	size_t order; /* its place in the file */
	char type;    /* F, X or N */
	size_t len;   /* the pattern's length: how specific it is */
	int depth;    /* get_maintainer.pl's: slashes, +1 without a last '/' */
	int slashes;  /* of the regex form */
	int prefix;   /* ends in '/': matches any path below */
	char *pat;
	size_t dirlen; /* its literal directory: pat[0..dirlen) */
	pcre2_code *re;
};

struct keyword {
	size_t section;
	size_t tv; /* its line's number among the file's kept lines */
	pcre2_code *anywhere, *changed;
};

struct mapping {
	char *key, *value;
};

struct msection {
	char *name;
	char **people; /* M: values */
	size_t npeople;
	char **lists; /* L: values */
	size_t nlists;
};

struct maint_index {
	struct msection *sections;
	size_t nsections;
	struct mpat *pats;
	size_t npats;
	struct mpat **globs; /* F: and X:, by literal directory */
	size_t nglobs;
	struct mpat **regexes; /* N: */
	size_t nregexes;
	struct keyword *keywords;
	size_t nkeywords;
	struct mapping *names, *addresses; /* .mailmap */
	size_t nnames, naddresses;
	pcre2_code *fixed[RX_N];
	pcre2_match_data *md;
	struct maint_tree tree;
	/* per section, for the file being asked about */
	long *best;    /* longest F:/N: match, -1 none, -2 excluded */
	long *last;    /* the order of the last F:/N: match + 1 */
	int *depth;    /* that match's depth */
	size_t *touch; /* the sections that the arrays hold values for */
};

struct email {
	char *name, *address;
};

int maint_add_mapping(struct mapping **m, size_t *n, const char *key,
		      const char *value);
int maint_add_value(char ***v, size_t *n, const char *s);
int maint_count_slashes(const char *s);
int maint_dircmp(const struct mpat *a, const char *dir, size_t len);
void maint_email_free(struct email *e);
/* "Name <address>", or the address alone. */
char *maint_format_email(const char *name, const char *address);
/* Does re match s (of length len)?  The groups are in ix->md. */
int maint_found(struct maint_index *ix, const pcre2_code *re, const char *s,
		size_t len);
void maint_free_mappings(struct mapping *m, size_t n);
/* Group g of the last match, as a new string. */
char *maint_group(struct maint_index *ix, const char *s, int g);
/* get_maintainer.pl's maint_mailmap_email: the address as .mailmap maps it. */
char *maint_mailmap_email(struct maint_index *ix, const char *line);
const char *maint_mapped(const struct mapping *m, size_t n, const char *key);
/* get_maintainer.pl's maint_parse_email; 0 or ERR_NOMEM. */
int maint_parse_email(struct maint_index *ix, const char *s, struct email *e);

#endif
