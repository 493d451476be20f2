// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel configuration for a step: the recipe's base config (a make target
 * such as tinyconfig, or a distribution's config file, compressed or not),
 * the traps that distribution configs set for a build that is not the
 * distribution's own, the recipe's fragments, and olddefconfig.  Every
 * change made on the way is reported, and so is every fragment option that
 * olddefconfig silently dropped.
 */
#define _GNU_SOURCE /* O_PATH */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archives.h"
#include "beneath.h"
#include "error.h"
#include "util.h"
#include "kconfig.h"
#include "sandbox.h"

/* boot/config-* (Debian, Ubuntu) or [usr/]lib/modules/VERSION/config. */
static int is_config_entry(const char *name)
{
	const char *slash;

	if (!strncmp(name, "./", 2))
		name += 2;
	if (!strncmp(name, "usr/lib/modules/", 16))
		name += 4;
	if (!strncmp(name, "boot/config-", 12))
		return 1;
	if (strncmp(name, "lib/modules/", 12))
		return 0;
	slash = strchr(name + 12, '/');
	return slash && !strcmp(slash, "/config");
}

/* Read the first kernel config among the files of a package. */
static int config_from_package(struct buf *out, const char *path,
			       enum arc_format format)
{
	struct arc *a;
	struct arc_entry e;
	int rc = arc_open(&a, path, format);

	if (rc)
		return rc;
	while ((rc = arc_next(a, &e)) == 1)
		if (e.type == ARC_FILE && is_config_entry(e.name))
			break;
	if (rc == 1)
		rc = arc_read_buf(a, out);
	else if (rc == 0)
		rc = err_set(ERR_INPUT,
			     "package '%s' holds no kernel config "
			     "(boot/config-* or lib/modules/*/config)",
			     path);
	arc_close(a);
	return rc;
}

/* A config file, compressed or not. */
static int config_from_file(struct buf *out, const char *path)
{
	struct arc *a;
	struct arc_entry e;
	int rc = arc_open(&a, path, ARC_RAW);

	if (rc)
		return rc;
	rc = arc_next(a, &e);
	if (rc == 1)
		rc = arc_read_buf(a, out);
	else if (rc == 0)
		rc = err_set(ERR_INPUT, "cannot read config '%s': empty", path);
	arc_close(a);
	return rc;
}

int kconfig_read(struct buf *out, const char *path)
{
	static const unsigned char rpm_magic[4] = { 0xed, 0xab, 0xee, 0xdb };
	unsigned char magic[8] = { 0 };
	FILE *f = fopen(path, "rb");
	int rc;

	if (!f || fread(magic, 1, sizeof(magic), f) == 0) {
		rc = err_sys(ERR_INPUT, "cannot read config '%s'", path);
		if (f)
			fclose(f);
		return rc;
	}
	fclose(f);
	if (!memcmp(magic, "!<arch>\n", 8))
		rc = config_from_package(out, path, ARC_DEB);
	else if (!memcmp(magic, rpm_magic, 4))
		rc = config_from_package(out, path, ARC_RPM);
	else
		rc = config_from_file(out, path);
	if (!rc && !strstr(buf_str(out), "CONFIG_"))
		rc = err_set(ERR_INPUT,
			     "'%s' is not a kernel config (no CONFIG_ lines)",
			     path);
	return rc;
}

/* The value of CONFIG_<name> in text: "y", "\"str\"", "n" if not set. */
static int config_value(char *out, size_t size, const char *text,
			const char *name)
{
	char key[256];
	const char *p;
	size_t klen;

	snprintf(key, sizeof(key), "CONFIG_%s=", name);
	klen = strlen(key);
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen)) {
			size_t n = strcspn(p + klen, "\n");

			snprintf(out, size, "%.*s", (int)n, p + klen);
			return 1;
		}
	}
	snprintf(out, size, "n");
	return 0;
}

/*
 * Set CONFIG_<name> to value ("n" writes "is not set") in text, replacing
 * an existing line or appending one.
 */
static int config_set(struct buf *text, const char *name, const char *value)
{
	struct buf out;
	char key[256], unset[256];
	const char *p = buf_str(text);
	int done = 0, rc = 0;

	snprintf(key, sizeof(key), "CONFIG_%s=", name);
	snprintf(unset, sizeof(unset), "# CONFIG_%s is not set", name);
	buf_init(&out, text->max);
	while (*p && !rc) {
		size_t n = strcspn(p, "\n");
		int match = !strncmp(p, key, strlen(key)) ||
			    (n == strlen(unset) && !strncmp(p, unset, n));

		if (match && !done) {
			rc = strcmp(value, "n")
				     ? buf_printf(&out, "%s%s\n", key, value)
				     : buf_printf(&out, "%s\n", unset);
			done = 1;
		} else if (!match) {
			rc = buf_printf(&out, "%.*s\n", (int)n, p);
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	if (!done && !rc)
		rc = strcmp(value, "n") ? buf_printf(&out, "%s%s\n", key, value)
					: buf_printf(&out, "%s\n", unset);
	if (rc) {
		buf_release(&out);
		return rc;
	}
	buf_release(text);
	*text = out;
	return 0;
}

/*
 * A key file setting that points at a file this tree does not have.  The
 * setting may come from the tree's own Kconfig: only a file of the tree
 * counts, reached without a link (an absolute path is not looked at, so
 * that the note never says what exists on this machine).
 */
static int missing_file(const char *value, const char *src_dir)
{
	char path[4096];
	size_t n = strlen(value);
	int fd;

	if (n < 2 || value[0] != '"')
		return 0;
	if (n == 2 || !strncmp(value, "\"pkcs11:", 8))
		return 0;
	if (value[1] == '/')
		return 1;
	snprintf(path, sizeof(path), "%s/%.*s", src_dir, (int)(n - 2),
		 value + 1);
	fd = beneath_open(src_dir, path, O_PATH, 0);
	if (fd >= 0)
		close(fd);
	return fd < 0;
}

int kconfig_fix_traps(struct buf *config, const char *src_dir, int have_pahole,
		      struct buf *notes)
{
	static const struct {
		const char *name, *fixed;
	} keys[] = {
		{ "SYSTEM_TRUSTED_KEYS", "\"\"" },
		{ "SYSTEM_REVOCATION_KEYS", "\"\"" },
		{ "MODULE_SIG_KEY", "\"certs/signing_key.pem\"" },
	};
	char v[4096];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		config_value(v, sizeof(v), buf_str(config), keys[i].name);
		if (!missing_file(v, src_dir) || !strcmp(v, keys[i].fixed))
			continue;
		rc = config_set(config, keys[i].name, keys[i].fixed);
		if (rc)
			return rc;
		buf_printf(notes,
			   "trap: CONFIG_%s=%s names a file this tree "
			   "does not have; set to %s\n",
			   keys[i].name, v, keys[i].fixed);
	}
	config_value(v, sizeof(v), buf_str(config), "DEBUG_INFO_BTF");
	if (!have_pahole && !strcmp(v, "y")) {
		rc = config_set(config, "DEBUG_INFO_BTF", "n");
		if (rc)
			return rc;
		buf_puts(notes, "trap: CONFIG_DEBUG_INFO_BTF=y needs pahole, "
				"which is not installed; disabled\n");
	}
	return 0;
}

/* Apply each "CONFIG_X=v" / "# CONFIG_X is not set" line of fragment. */
static int merge_fragment(struct buf *config, const char *fragment,
			  struct buf *wanted)
{
	const char *p = fragment;
	int rc = 0;

	while (*p && !rc) {
		size_t n = strcspn(p, "\n");
		char line[1024], name[256], value[768];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n;
		if (*p)
			p++;
		if (sscanf(line, "CONFIG_%255[A-Za-z0-9_]=%767[^\n]", name,
			   value) == 2 ||
		    sscanf(line, "# CONFIG_%255[A-Za-z0-9_] is not se%1[t]",
			   name, value) == 2) {
			if (line[0] == '#')
				strcpy(value, "n");
			rc = config_set(config, name, value);
			if (!rc)
				rc = buf_printf(wanted, "%s=%s\n", name, value);
		}
	}
	return rc;
}

/* Note every wanted option whose final value differs. */
static void check_dropped(const char *final, const char *wanted,
			  struct buf *notes)
{
	const char *p = wanted;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char line[1024], have[768], *eq;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n;
		if (*p)
			p++;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		config_value(have, sizeof(have), final, line);
		if (strcmp(have, eq + 1))
			buf_printf(notes,
				   "dropped: CONFIG_%s=%s was asked for but "
				   "olddefconfig left %s\n",
				   line, eq + 1, have);
	}
}

static int run_make(const struct recipe *r, const char *src_dir,
		    const char *build_dir, const char *target,
		    const char *log_path, const char *sandbox, double timeout,
		    unsigned max_procs)
{
	struct proc_result pr;
	char *o = util_fmt("O=%s", build_dir),
	     *arch = util_fmt("ARCH=%s", r->arch);
	const char *argv[SANDBOX_WORDS + 8];
	struct proc_opts opts = { .log_path = log_path,
				  .append = 1,
				  .timeout_s = timeout > 0 ? timeout : 0,
				  .max_procs = sandbox ? max_procs : 0 };
	size_t n = 0;
	int rc = sandbox ? sandbox_argv(argv, &n, sandbox, NULL) : 0;

	argv[n++] = "make";
	argv[n++] = "-s";
	argv[n++] = "-C";
	argv[n++] = src_dir;
	argv[n++] = o;
	argv[n++] = arch;
	argv[n++] = target;
	argv[n] = NULL;
	if (!rc && (!o || !arch))
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = proc_run(&pr, argv, &opts);
	if (!rc && pr.exec_failed)
		rc = ERR_INFRA; /* proc_run said why */
	else if (!rc && (!pr.exited || pr.status))
		rc = err_set(ERR_GENERIC, "make %s failed (see %s)", target,
			     log_path);
	free(o);
	free(arch);
	return rc;
}

int kconfig_prepare(const struct recipe *r, const char *src_dir,
		    const char *build_dir, const char *log_path,
		    struct buf *notes, const char *work_dir,
		    double sandbox_timeout, unsigned max_procs)
{
	const char *sandbox = sandbox_timeout >= 0 ? work_dir : NULL;
	struct buf config, frag, wanted, final;
	char *dotconfig = util_fmt("%s/.config", build_dir);
	int is_target = !strchr(r->base, '/');
	size_t i;
	int rc;

	buf_init(&config, 0);
	buf_init(&frag, 0);
	buf_init(&wanted, 0);
	buf_init(&final, 0);
	if (!dotconfig)
		return err_set(ERR_NOMEM, "out of memory");
	if ((rc = util_mkdir_p(build_dir)))
		goto out;
	if (is_target) {
		rc = run_make(r, src_dir, build_dir, r->base, log_path, sandbox,
			      sandbox_timeout, max_procs);
		if (!rc)
			rc = beneath_read(&config, work_dir, dotconfig);
	} else {
		rc = kconfig_read(&config, r->base);
	}
	if (rc)
		goto out;
	rc = kconfig_fix_traps(&config, src_dir, util_in_path("pahole"), notes);
	for (i = 0; i < r->nfragments && !rc; i++) {
		buf_reset(&frag);
		rc = buf_read_file(&frag, r->fragments[i]);
		if (rc) {
			rc = err_wrap(ERR_INPUT, "recipe '%s'", r->name);
			break;
		}
		rc = merge_fragment(&config, buf_str(&frag), &wanted);
	}
	if (!rc)
		rc = beneath_write(work_dir, dotconfig, config.ptr, config.len);
	if (!rc)
		rc = run_make(r, src_dir, build_dir, "olddefconfig", log_path,
			      sandbox, sandbox_timeout, max_procs);
	if (!rc)
		rc = beneath_read(&final, work_dir, dotconfig);
	if (!rc)
		check_dropped(buf_str(&final), buf_str(&wanted), notes);
out:
	free(dotconfig);
	buf_release(&config);
	buf_release(&frag);
	buf_release(&wanted);
	buf_release(&final);
	return rc;
}
