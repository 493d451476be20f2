// SPDX-License-Identifier: GPL-2.0-only
/*
 * MAINTAINERS matching, as scripts/get_maintainer.pl answers for the same
 * entries (tests/e2e/0013-maintainers.sh holds it against the script).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "maintainers.h"

static const char text[] =
	"List of maintainers\n"
	"===================\n"
	"\n"
	"Descriptions of section entries:\n"
	"\tM: *Mail* patches to: FullName <address@domain>\n"
	"\n"
	"REBOOT\n"
	"M:\tAnn Reboot <ann@example.org>\n"
	"L:\treboot@lists.example.org (moderated for non-subscribers)\n"
	"S:\tMaintained\n"
	"F:\tkernel/reboot.c\n"
	"F:\tinclude/linux/reboot*\n"
	"\n"
	"NET DRIVERS\n"
	"M:\tNed Net <ned@example.org>\n"
	"L:\tnetdev@lists.example.org\n"
	"F:\tdrivers/net/\n"
	"X:\tdrivers/net/wireless/\n"
	"\n"
	"WIRELESS\n"
	"M:\tWill Less <will@example.org>\n"
	"L:\twireless@lists.example.org\n"
	"F:\tdrivers/net/wireless\n"
	"\n"
	"KERNEL TOP\n"
	"M:\tTop Dir <top@example.org>\n"
	"F:\tkernel/*\n"
	"\n"
	"EXT4X\n"
	"M:\tExt Four <ext4x@example.org>\n"
	"F:\tfs/ext4x\n"
	"\n"
	"EDAC\n"
	"M:\tEd Ac <edac@example.org>\n"
	"F:\tdrivers/edac/altera_edac.[ch]\n"
	"\n"
	"ALL THE DRIVERS CALLED FOO\n"
	"M:\tFoo Fan <foo@example.org>\n"
	"N:\tfoo[0-9]\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@lists.example.org\n"
	"F:\t*\n"
	"F:\t*/\n";

/* a tree with these directories */
static int is_dir(const char *path, void *ctx)
{
	static const char *const dirs[] = { "drivers/net/wireless", "fs/ext4",
					    "kernel", NULL };

	(void)ctx;
	for (size_t i = 0; dirs[i]; i++)
		if (!strcmp(dirs[i], path))
			return 1;
	return 0;
}

static struct maint_index *index_of(const char *maintainers,
				    const char *mailmap)
{
	struct maint_tree tree = { .is_dir = is_dir };
	struct maint_index *ix;

	assert_int_equal(maint_index_new(&ix, maintainers, mailmap, &tree), 0);
	return ix;
}

/* people, then lists, as bisectctl maintainers prints them */
static void recipients(const char *file, struct buf *m, struct buf *l)
{
	struct maint_index *ix = index_of(text, NULL);
	const char *files[] = { file };

	buf_init(m, 1 << 20);
	buf_init(l, 1 << 20);
	assert_int_equal(maint_file_recipients(ix, files, 1, m, l), 0);
	maint_index_free(ix);
}

static void test_maintainers__file_and_glob(void **state)
{
	struct buf m, l;

	(void)state;
	recipients("kernel/reboot.c", &m, &l);
	/* kernel/STAR is one level deep: kernel/reboot.c matches it too,
	 * and is the less deep pattern of the two */
	assert_string_equal(buf_str(&m), "Ann Reboot <ann@example.org>\n"
					 "Top Dir <top@example.org>\n");
	/* the moderation note is not part of the address; THE REST's
	 * list is there, Linus Torvalds is not */
	assert_string_equal(buf_str(&l), "reboot@lists.example.org\n"
					 "linux-kernel@lists.example.org\n");
	buf_release(&m);
	buf_release(&l);
	recipients("include/linux/reboot-mode.h", &m, &l);
	assert_string_equal(buf_str(&m), "Ann Reboot <ann@example.org>\n");
	buf_release(&m);
	buf_release(&l);
}

static void test_maintainers__depth_and_dirs(void **state)
{
	struct buf m, l;

	(void)state;
	/* kernel/STAR does not reach two levels down */
	recipients("kernel/time/timer.c", &m, &l);
	assert_string_equal(buf_str(&m), "");
	assert_string_equal(buf_str(&l), "linux-kernel@lists.example.org\n");
	buf_release(&m);
	buf_release(&l);
	/* drivers/net/ covers everything below; X: takes wireless out,
	 * and "drivers/net/wireless", a directory of the tree, is one */
	recipients("drivers/net/ethernet/e1000/main.c", &m, &l);
	assert_string_equal(buf_str(&m), "Ned Net <ned@example.org>\n");
	buf_release(&m);
	buf_release(&l);
	recipients("drivers/net/wireless/ath/main.c", &m, &l);
	assert_string_equal(buf_str(&m), "Will Less <will@example.org>\n");
	buf_release(&m);
	buf_release(&l);
	/* "fs/ext4x" is no directory: a prefix at the same depth */
	recipients("fs/ext4xattr.c", &m, &l);
	assert_string_equal(buf_str(&m), "Ext Four <ext4x@example.org>\n");
	buf_release(&m);
	buf_release(&l);
	/* [ch] is a class, as in get_maintainer.pl's regex */
	recipients("drivers/edac/altera_edac.h", &m, &l);
	assert_string_equal(buf_str(&m), "Ed Ac <edac@example.org>\n");
	buf_release(&m);
	buf_release(&l);
}

static void test_maintainers__patch(void **state)
{
	static const char patch[] =
		"From 1234 Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH] reboot: a change\n"
		"\n"
		"The foo driver is not touched, and 'frobnicate' here is\n"
		"before the diff: as get_maintainer.pl, any line counts.\n"
		"---\n"
		" kernel/reboot.c | 1 +\n"
		"\n"
		"diff --git a/kernel/reboot.c b/kernel/reboot.c\n"
		"--- a/kernel/reboot.c\n"
		"+++ b/kernel/reboot.c\n"
		"@@ -1,1 +1,2 @@\n"
		" int reboot;\n"
		"+int wakeup;\n"
		" int contextonly;\n";
	static const char kw[] = "FROB\nM:\tFrob Nicator <frob@example.org>\n"
				 "K:\tfrobnicate\n\n"
				 "WAKE\nM:\tWake Up <wake@example.org>\n"
				 "K:\t\\bwakeup\\b\n\n"
				 "CONTEXT\nM:\tCon Text <ctx@example.org>\n"
				 "K:\tcontextonly\n";
	struct maint_index *ix;
	struct buf m, l, t;

	(void)state;
	buf_init(&t, 1 << 20);
	buf_printf(&t, "%s\n%s", text, kw);
	ix = index_of(buf_str(&t), NULL);
	buf_init(&m, 1 << 20);
	buf_init(&l, 1 << 20);
	assert_int_equal(maint_patch_recipients(ix, patch, &m, &l), 0);
	/* the files' sections, then those of the keywords: in the
	 * message, or on a changed line of the diff (not a context line) */
	assert_string_equal(buf_str(&m), "Ann Reboot <ann@example.org>\n"
					 "Top Dir <top@example.org>\n"
					 "Frob Nicator <frob@example.org>\n"
					 "Wake Up <wake@example.org>\n");
	buf_release(&m);
	buf_release(&l);
	maint_index_free(ix);
	buf_release(&t);
}

static void test_maintainers__names(void **state)
{
	static const char mt[] =
		"AMD\nM:\tPan, Xinhui <xinhui@example.org>\n"
		"M:\tChristian K\xc3\xb6nig <ck@example.org>\n"
		"M:\tJason Old <jgg@old.example.org>\n"
		"M:\tXinhui Pan <xinhui@example.org>\n"
		"L:\tamd@lists.example.org\n"
		"L:\tsecret@lists.example.org (subscribers-only)\n"
		"F:\tdrivers/amd/\n";
	static const char mailmap[] =
		"# a comment\n"
		"Jason New <jgg@new.example.org> <jgg@old.example.org>\n";
	const char *files[] = { "drivers/amd/gpu.c" };
	struct maint_index *ix = index_of(mt, mailmap);
	struct buf m, l;

	(void)state;
	buf_init(&m, 1 << 20);
	buf_init(&l, 1 << 20);
	assert_int_equal(maint_file_recipients(ix, files, 1, &m, &l), 0);
	/* quoted where RFC 5322 needs it; the old address as .mailmap
	 * maps it; a second name for an address already in is not */
	assert_string_equal(buf_str(&m),
			    "\"Pan, Xinhui\" <xinhui@example.org>\n"
			    "\"Christian K\xc3\xb6nig\" <ck@example.org>\n"
			    "Jason New <jgg@new.example.org>\n");
	assert_string_equal(buf_str(&l), "amd@lists.example.org\n");
	buf_release(&m);
	buf_release(&l);
	maint_index_free(ix);
}

static int read_binding(const char *path, struct buf *out, void *ctx)
{
	(void)ctx;
	if (strcmp(path, "Documentation/bindings/t.yaml"))
		return -1;
	return buf_puts(out, "title: x\n\nmaintainers:\n"
			     "  - A. Person Example <ape@example.org>\n"
			     "  - Zo\xc3\xab \xc3\x9crban <zoe@example.org>\n"
			     "  - Dr. Who, <who@example.org>\n\n"
			     "description: mail (list@example.org) or "
			     "{brace@example.org}\n");
}

static void test_maintainers__binding(void **state)
{
	static const char mt[] = "THE REST\nL:\tlkml@example.org\n"
				 "F:\t*\nF:\t*/\n";
	struct maint_tree tree = { .read_file = read_binding };
	const char *files[] = { "Documentation/bindings/t.yaml" };
	struct maint_index *ix;
	struct buf m, l;

	(void)state;
	assert_int_equal(maint_index_new(&ix, mt, NULL, &tree), 0);
	buf_init(&m, 1 << 20);
	buf_init(&l, 1 << 20);
	assert_int_equal(maint_file_recipients(ix, files, 1, &m, &l), 0);
	/* what get_maintainer.pl makes of the addresses a binding names:
	 * a name's last two words, or three after an initial, a stray
	 * comma off, and whatever word stands before an address */
	assert_string_equal(buf_str(&m),
			    "\"A. Person Example\" <ape@example.org>\n"
			    "\"Zo\xc3\xab \xc3\x9crban\" <zoe@example.org>\n"
			    "\"Dr. Who\" <who@example.org>\n"
			    "mail <list@example.org>\n"
			    "or <brace@example.org>\n");
	assert_string_equal(buf_str(&l), "lkml@example.org\n");
	buf_release(&m);
	buf_release(&l);
	maint_index_free(ix);
}

/* The sections file belongs to most specifically, by title, one per line. */
static void sections_of(struct maint_index *ix, const char *file, char *out,
			size_t size)
{
	size_t secs[8], n = maint_file_sections(ix, file, secs, 8), i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		strncat(out, maint_section_name(ix, secs[i]),
			size - strlen(out) - 2);
		strcat(out, "\n");
	}
}

static void test_maintainers__most_specific(void **state)
{
	static const char two[] = "EXT4\nF:\tfs/ext4/\n\n"
				  "EXT4 TOO\nX:\tfs/ext4/acl.c\n"
				  "F:\tfs/ext4/\n\n"
				  "THE REST\nF:\t*\nF:\t*/\n";
	struct maint_index *ix;
	char got[256];

	(void)state;
	ix = index_of(text, NULL);
	assert_int_equal(maint_index_sections(ix), 8);
	/* its own F: line beats kernel/STAR and THE REST */
	sections_of(ix, "kernel/reboot.c", got, sizeof(got));
	assert_string_equal(got, "REBOOT\n");
	sections_of(ix, "kernel/exit.c", got, sizeof(got));
	assert_string_equal(got, "KERNEL TOP\n");
	/* X: takes NET DRIVERS out; the directory beats the regex */
	sections_of(ix, "drivers/net/wireless/foo1.c", got, sizeof(got));
	assert_string_equal(got, "WIRELESS\n");
	sections_of(ix, "drivers/net/foo2.c", got, sizeof(got));
	assert_string_equal(got, "NET DRIVERS\n");
	sections_of(ix, "drivers/misc/foo3.c", got, sizeof(got));
	assert_string_equal(got, "ALL THE DRIVERS CALLED FOO\n");
	/* nothing else: the catch-all */
	sections_of(ix, "Documentation/index.rst", got, sizeof(got));
	assert_string_equal(got, "THE REST\n");
	/* asked again: nothing left over from the last file */
	sections_of(ix, "kernel/exit.c", got, sizeof(got));
	assert_string_equal(got, "KERNEL TOP\n");
	maint_index_free(ix);

	/* equally specific: both, in the file's order; X: still counts */
	ix = index_of(two, NULL);
	sections_of(ix, "fs/ext4/inode.c", got, sizeof(got));
	assert_string_equal(got, "EXT4\nEXT4 TOO\n");
	sections_of(ix, "fs/ext4/acl.c", got, sizeof(got));
	assert_string_equal(got, "EXT4\n");
	maint_index_free(ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maintainers__file_and_glob),
		cmocka_unit_test(test_maintainers__depth_and_dirs),
		cmocka_unit_test(test_maintainers__patch),
		cmocka_unit_test(test_maintainers__names),
		cmocka_unit_test(test_maintainers__binding),
		cmocka_unit_test(test_maintainers__most_specific),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
