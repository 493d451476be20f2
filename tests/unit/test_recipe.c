// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the recipe parser: the shipped recipes parse, and every
 * kind of mistake is an error that names the line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "classify.h"
#include "error.h"
#include "recipe.h"

static const char minimal[] = "base = tinyconfig\n"
			      "targets = bzImage\n"
			      "image = arch/x86/boot/bzImage\n"
			      "qemu = qemu-system-x86_64\n"
			      "boot_timeout = 20\n"
			      "marker = OK\n";

static void test_recipe__shipped_recipes_parse(void **state)
{
	static const char *const names[] = { "tiny", "debian-cloud-amd64",
					     "debian-amd64" };
	char path[4096];
	struct recipe r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(recipe_find(path, sizeof(path), names[i],
					     "/nonexistent:recipes"),
				 0);
		assert_int_equal(recipe_load(&r, path), 0);
		assert_string_equal(r.name, names[i]);
		assert_true(r.boot_timeout > 0);
		assert_true(r.nfragments >= 1);
		assert_non_null(strstr(r.fragments[0], "recipes/fragments/"));
		assert_non_null(strstr(r.init, "images/init.sh"));
		recipe_release(&r);
	}
}

static void test_recipe__defaults(void **state)
{
	struct recipe r;

	(void)state;
	assert_int_equal(recipe_parse(&r, "m", "/r", minimal), 0);
	assert_string_equal(r.base, "tinyconfig");
	assert_int_equal(r.memory_mb, 256);
	assert_int_equal(r.cpus, 1);
	assert_int_equal(r.modules, 0);
	assert_int_equal(r.fail_on, CRASH_DEFAULT);
	assert_string_equal(r.arch, "x86_64");
	assert_string_equal(r.init, "/r/../images/init.sh");
	recipe_release(&r);
}

static void test_recipe__values(void **state)
{
	static const char text[] =
		"# comment\n\n"
		"base = "
		"/usr/src/linux-config-6.1/config.amd64_none_cloud-amd64.xz\n"
		"fragment = fragments/a.config\n"
		"fragment = /abs/b.config\n"
		"targets = bzImage modules\n"
		"image = arch/x86/boot/bzImage\n"
		"modules = yes\n"
		"qemu = qemu-system-x86_64\n"
		"qemu_args = -cpu max\n"
		"memory_mb = 1024\n"
		"cpus = 2\n"
		"append = console=ttyS0 quiet\n"
		"boot_timeout = 120\n"
		"marker = DONE\n"
		"fail_on = panic, warning\n"
		"icecc = scheduler.example\n";
	struct recipe r;

	(void)state;
	assert_int_equal(recipe_parse(&r, "x", "/rec", text), 0);
	assert_int_equal(r.nfragments, 2);
	assert_string_equal(r.fragments[0], "/rec/fragments/a.config");
	assert_string_equal(r.fragments[1], "/abs/b.config");
	assert_int_equal(r.modules, 1);
	assert_int_equal(r.memory_mb, 1024);
	assert_int_equal(r.cpus, 2);
	assert_string_equal(r.qemu_args, "-cpu max");
	assert_int_equal(r.fail_on, CRASH_PANIC | CRASH_WARNING);
	assert_string_equal(r.icecc, "scheduler.example");
	assert_null(r.distcc);
	recipe_release(&r);
}

static void expect_error(const char *text, const char *message)
{
	struct recipe r;

	assert_int_equal(recipe_parse(&r, "bad", "/r", text), ERR_INPUT);
	if (!strstr(err_last(), message))
		fail_msg("error '%s' does not say '%s'", err_last(), message);
}

static void test_recipe__errors(void **state)
{
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%sbogus = 1\n", minimal);
	expect_error(text, "recipe 'bad' line 7: unknown key 'bogus'");
	snprintf(text, sizeof(text), "%sboot_timeout = soon\n", minimal);
	expect_error(text,
		     "line 7: key 'boot_timeout' needs a positive number");
	snprintf(text, sizeof(text), "%smodules = maybe\n", minimal);
	expect_error(text, "key 'modules' needs yes or no");
	snprintf(text, sizeof(text), "%sfail_on = panic explode\n", minimal);
	expect_error(text, "unknown crash kind");
	snprintf(text, sizeof(text), "%sbase = defconfig\n", minimal);
	expect_error(text, "key 'base' given twice");
	snprintf(text, sizeof(text), "%sjust words\n", minimal);
	expect_error(text, "line 7: expected 'key = value'");
	expect_error("base = tinyconfig\n", "missing key 'targets'");
	snprintf(text, sizeof(text), "%sdistcc = a/4\nicecc = s\n", minimal);
	expect_error(text, "recipe 'bad': distcc and icecc: one kind of "
			   "compile helper, not both");
}

static void test_recipe__find(void **state)
{
	char path[4096];

	(void)state;
	assert_int_equal(recipe_find(path, sizeof(path), "nosuch", "recipes"),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "unknown recipe 'nosuch'"));
	assert_int_equal(
		recipe_find(path, sizeof(path), "recipes/tiny.recipe", ""), 0);
	assert_string_equal(path, "recipes/tiny.recipe");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recipe__shipped_recipes_parse),
		cmocka_unit_test(test_recipe__defaults),
		cmocka_unit_test(test_recipe__values),
		cmocka_unit_test(test_recipe__errors),
		cmocka_unit_test(test_recipe__find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
