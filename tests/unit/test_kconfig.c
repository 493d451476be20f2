// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the config traps: a distribution config that names key
 * files this tree does not have, or wants BTF without pahole, is fixed,
 * and each fix is reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "worker.h"

/* As in a Debian 12 linux-image package's /boot/config-6.1.0-*-amd64. */
static const char debian[] =
	"CONFIG_MODULE_SIG=y\n"
	"CONFIG_MODULE_SIG_KEY=\"debian/certs/signing_key.pem\"\n"
	"CONFIG_SYSTEM_TRUSTED_KEYRING=y\n"
	"CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/debian-uefi-certs.pem\"\n"
	"CONFIG_SYSTEM_REVOCATION_KEYS=\"debian/certs/debian-uefi-certs.pem\"\n"
	"CONFIG_DEBUG_INFO_BTF=y\n"
	"CONFIG_PRINTK=y\n";

static void test_kconfig__debian_traps(void **state)
{
	struct buf config, notes;

	(void)state;
	buf_init(&config, 0);
	buf_init(&notes, 0);
	buf_puts(&config, debian);
	assert_int_equal(kconfig_fix_traps(&config, "/nonexistent", 0, &notes),
			 0);
	assert_non_null(
		strstr(buf_str(&config), "CONFIG_SYSTEM_TRUSTED_KEYS=\"\"\n"));
	assert_non_null(strstr(buf_str(&config),
			       "CONFIG_SYSTEM_REVOCATION_KEYS=\"\"\n"));
	assert_non_null(
		strstr(buf_str(&config),
		       "CONFIG_MODULE_SIG_KEY=\"certs/signing_key.pem\"\n"));
	assert_non_null(strstr(buf_str(&config),
			       "# CONFIG_DEBUG_INFO_BTF is not set\n"));
	assert_null(strstr(buf_str(&config), "CONFIG_DEBUG_INFO_BTF=y"));
	assert_non_null(strstr(buf_str(&config), "CONFIG_PRINTK=y\n"));
	assert_non_null(
		strstr(buf_str(&notes),
		       "trap: CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/"
		       "debian-uefi-certs.pem\" names a file"));
	assert_non_null(strstr(buf_str(&notes), "CONFIG_DEBUG_INFO_BTF=y needs "
						"pahole"));
	buf_release(&config);
	buf_release(&notes);
}

/*
 * A key file outside the tree (which a hostile tree's Kconfig may name)
 * is never looked at: it is a trap whether it exists or not, so the note
 * tells nothing of this machine.
 */
static void test_kconfig__keys_outside_the_tree(void **state)
{
	static const char outside[] =
		"CONFIG_SYSTEM_TRUSTED_KEYS=\"/etc/passwd\"\n";
	struct buf config, notes;

	(void)state;
	buf_init(&config, 0);
	buf_init(&notes, 0);
	buf_puts(&config, outside);
	assert_int_equal(kconfig_fix_traps(&config, "/nonexistent", 1, &notes),
			 0);
	assert_non_null(
		strstr(buf_str(&config), "CONFIG_SYSTEM_TRUSTED_KEYS=\"\"\n"));
	buf_release(&config);
	buf_release(&notes);
}

/* Nothing to do: empty key lists, a key that exists, pahole present. */
static void test_kconfig__no_traps(void **state)
{
	static const char clean[] = "CONFIG_SYSTEM_TRUSTED_KEYS=\"\"\n"
				    "CONFIG_MODULE_SIG_KEY=\"pkcs11:token=x\"\n"
				    "CONFIG_DEBUG_INFO_BTF=y\n";
	struct buf config, notes;

	(void)state;
	buf_init(&config, 0);
	buf_init(&notes, 0);
	buf_puts(&config, clean);
	assert_int_equal(kconfig_fix_traps(&config, "/", 1, &notes), 0);
	assert_string_equal(buf_str(&config), clean);
	assert_string_equal(buf_str(&notes), "");
	buf_release(&config);
	buf_release(&notes);
}

static void test_kconfig__first_error(void **state)
{
	char *e;

	(void)state;
	e = build_first_error("  CC      init/main.o\n"
			      "init/version.c:60:45: error: 'x' undeclared\n"
			      "make[2]: *** [init/version.o] Error 1\n");
	assert_string_equal(e, "init/version.c:60:45: error: 'x' undeclared");
	free(e);
	e = build_first_error("ld: vmlinux.o: undefined reference to `foo'\n");
	assert_non_null(e);
	free(e);
	assert_null(build_first_error("all is well\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kconfig__debian_traps),
		cmocka_unit_test(test_kconfig__keys_outside_the_tree),
		cmocka_unit_test(test_kconfig__no_traps),
		cmocka_unit_test(test_kconfig__first_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
