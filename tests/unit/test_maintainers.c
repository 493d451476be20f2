/*
 * MAINTAINERS matching, against what scripts/get_maintainer.pl answers
 * for the same patterns (checked by hand on the 6.1 tree's file).
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
	"ALL THE DRIVERS CALLED FOO\n"
	"M:\tFoo Fan <foo@example.org>\n"
	"N:\tfoo[0-9]\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@example.org>\n"
	"L:\tlinux-kernel@lists.example.org\n"
	"F:\t*\n"
	"F:\t*/\n";

static void recipients(const char *file, struct buf *m, struct buf *l)
{
	const char *files[] = { file };

	buf_init(m, 1 << 20);
	buf_init(l, 1 << 20);
	assert_int_equal(maint_recipients(text, files, 1, m, l), 0);
}

static void test_maintainers__file_and_glob(void **state)
{
	struct buf m, l;

	(void)state;
	recipients("kernel/reboot.c", &m, &l);
	/* kernel/STAR is one level deep: kernel/reboot.c matches it too */
	assert_string_equal(buf_str(&m), "Ann Reboot <ann@example.org>\n"
					 "Top Dir <top@example.org>\n");
	/* the moderation note is not part of the address; THE REST's list
	 * is there, its maintainer is not, and regressions always is */
	assert_string_equal(buf_str(&l), "reboot@lists.example.org\n"
					 "linux-kernel@lists.example.org\n"
					 "regressions@lists.linux.dev\n");
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
	assert_string_equal(buf_str(&l), "linux-kernel@lists.example.org\n"
					 "regressions@lists.linux.dev\n");
	buf_release(&m);
	buf_release(&l);
	/* drivers/net/ covers everything below; X: takes wireless out,
	 * and "drivers/net/wireless" without a slash is a directory */
	recipients("drivers/net/ethernet/e1000/main.c", &m, &l);
	assert_string_equal(buf_str(&m), "Ned Net <ned@example.org>\n");
	buf_release(&m);
	buf_release(&l);
	recipients("drivers/net/wireless/ath/main.c", &m, &l);
	assert_string_equal(buf_str(&m), "Will Less <will@example.org>\n");
	buf_release(&m);
	buf_release(&l);
}

static void test_maintainers__regex_and_several(void **state)
{
	const char *files[] = { "drivers/misc/foo3.c", "kernel/reboot.c",
				"kernel/exit.c" };
	struct buf m, l;

	(void)state;
	buf_init(&m, 1 << 20);
	buf_init(&l, 1 << 20);
	maint_recipients(text, files, 3, &m, &l);
	/* each address once, in the file's order */
	assert_string_equal(buf_str(&m), "Ann Reboot <ann@example.org>\n"
					 "Top Dir <top@example.org>\n"
					 "Foo Fan <foo@example.org>\n");
	buf_release(&m);
	buf_release(&l);
}

static void test_maintainers__patterns(void **state)
{
	(void)state;
	assert_true(maint_pattern_match("drivers/net/", "drivers/net/a/b.c"));
	assert_false(maint_pattern_match("drivers/net/", "drivers/netx/a.c"));
	assert_true(maint_pattern_match("fs/*.c", "fs/read_write.c"));
	assert_false(maint_pattern_match("fs/*.c", "fs/ext4/inode.c"));
	assert_true(maint_pattern_match("fs/ext4", "fs/ext4/inode.c"));
	assert_false(maint_pattern_match("fs/ext4", "fs/ext4x.c"));
	assert_true(maint_pattern_match("include/linux/rebo?t.h",
					"include/linux/reboot.h"));
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
	assert_int_equal(maint_index_new(&ix, text), 0);
	assert_int_equal(maint_index_sections(ix), 6);
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
	assert_int_equal(maint_index_new(&ix, two), 0);
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
		cmocka_unit_test(test_maintainers__regex_and_several),
		cmocka_unit_test(test_maintainers__patterns),
		cmocka_unit_test(test_maintainers__most_specific),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
