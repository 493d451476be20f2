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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maintainers__file_and_glob),
		cmocka_unit_test(test_maintainers__depth_and_dirs),
		cmocka_unit_test(test_maintainers__regex_and_several),
		cmocka_unit_test(test_maintainers__patterns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
