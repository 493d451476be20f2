// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recipe parser: a table of keys, each with a type and a place in
 * struct recipe.  Anything not in the table is an error, so a typo in a
 * recipe is caught before any build starts.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "classify.h"
#include "error.h"
#include "recipe.h"
#include "util.h"

enum key_type { K_STR, K_PATH, K_INT, K_BOOL, K_FRAGMENT, K_FAIL };

struct key {
	const char *name;
	enum key_type type;
	size_t offset;
	int required;
};

#define F(field) offsetof(struct recipe, field)
static const struct key keys[] = {
	{ "description", K_STR, F(description), 0 },
	{ "base", K_STR, F(base), 1 },
	{ "fragment", K_FRAGMENT, 0, 0 },
	{ "targets", K_STR, F(targets), 1 },
	{ "image", K_STR, F(image), 1 },
	{ "modules", K_BOOL, F(modules), 0 },
	{ "arch", K_STR, F(arch), 0 },
	{ "qemu", K_STR, F(qemu), 1 },
	{ "qemu_args", K_STR, F(qemu_args), 0 },
	{ "memory_mb", K_INT, F(memory_mb), 0 },
	{ "cpus", K_INT, F(cpus), 0 },
	{ "append", K_STR, F(append), 0 },
	{ "boot_timeout", K_INT, F(boot_timeout), 1 },
	{ "marker", K_STR, F(marker), 1 },
	{ "fail_on", K_FAIL, F(fail_on), 0 },
	{ "init", K_PATH, F(init), 0 },
	{ "distcc", K_STR, F(distcc), 0 },
	{ "icecc", K_STR, F(icecc), 0 },
};
#undef F

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static char *resolve(const char *dir, const char *value)
{
	struct buf b;

	if (value[0] == '/')
		return strdup(value);
	buf_init(&b, 0);
	if (buf_printf(&b, "%s/%s", dir, value)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

static int set_key(struct recipe *r, const struct key *k, const char *value)
{
	char *base = (char *)r + k->offset, *end, *s;
	long n;

	switch (k->type) {
	case K_STR:
	case K_PATH:
		if (*(char **)base)
			return err_set(ERR_INPUT, "key '%s' given twice",
				       k->name);
		s = k->type == K_PATH ? resolve(r->dir, value) : strdup(value);
		if (!s)
			return err_set(ERR_NOMEM, "out of memory");
		*(char **)base = s;
		return 0;
	case K_INT:
		n = strtol(value, &end, 10);
		if (!*value || *end || n <= 0 || n > 1000000)
			return err_set(
				ERR_INPUT,
				"key '%s' needs a positive number, not '%s'",
				k->name, value);
		*(int *)base = (int)n;
		return 0;
	case K_BOOL:
		if (!strcmp(value, "yes") || !strcmp(value, "true"))
			*(int *)base = 1;
		else if (!strcmp(value, "no") || !strcmp(value, "false"))
			*(int *)base = 0;
		else
			return err_set(ERR_INPUT,
				       "key '%s' needs yes or no, not '%s'",
				       k->name, value);
		return 0;
	case K_FAIL:
		if (crash_kinds_parse((unsigned *)base, value))
			return err_set(
				ERR_INPUT,
				"key '%s' has an unknown crash kind in '%s'",
				k->name, value);
		return 0;
	case K_FRAGMENT:
		if (r->nfragments == RECIPE_MAX_FRAGMENTS)
			return err_set(ERR_INPUT, "more than %d fragments",
				       RECIPE_MAX_FRAGMENTS);
		s = resolve(r->dir, value);
		if (!s)
			return err_set(ERR_NOMEM, "out of memory");
		r->fragments[r->nfragments++] = s;
		return 0;
	}
	return 0;
}

static int parse_line(struct recipe *r, char *line)
{
	char *eq, *key, *value;
	size_t i;

	line = trim(line);
	if (!*line || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return err_set(ERR_INPUT, "expected 'key = value'");
	*eq = '\0';
	key = trim(line);
	value = trim(eq + 1);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].name, key))
			return set_key(r, &keys[i], value);
	return err_set(ERR_INPUT, "unknown key '%s'", key);
}

static int set_defaults(struct recipe *r)
{
	if (!r->memory_mb)
		r->memory_mb = 256;
	if (!r->cpus)
		r->cpus = 1;
	if (!r->fail_on)
		r->fail_on = CRASH_DEFAULT;
	if (!r->arch)
		r->arch = strdup("x86_64");
	if (!r->append)
		r->append = strdup("console=ttyS0");
	if (!r->qemu_args)
		r->qemu_args = strdup("");
	if (!r->description)
		r->description = strdup("");
	if (!r->init)
		r->init = resolve(r->dir, "../images/init.sh");
	if (!r->arch || !r->append || !r->qemu_args || !r->description ||
	    !r->init)
		return err_set(ERR_NOMEM, "out of memory");
	return 0;
}

int recipe_parse(struct recipe *out, const char *name, const char *dir,
		 const char *text)
{
	char *copy, *line, *save = NULL;
	unsigned lineno = 0;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->name = strdup(name);
	out->dir = strdup(dir);
	out->text = strdup(text);
	copy = strdup(text);
	if (!out->name || !out->dir || !out->text || !copy) {
		free(copy);
		recipe_release(out);
		return err_set(ERR_NOMEM, "out of memory");
	}
	/* strtok_r would merge empty lines and break the line count */
	for (line = copy; line && !rc; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		rc = parse_line(out, line);
	}
	free(copy);
	if (rc) {
		rc = err_wrap(rc, "recipe '%s' line %u", name, lineno);
		recipe_release(out);
		return rc;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct key *k = &keys[i];

		if (k->required && k->type == K_STR &&
		    !*(char **)((char *)out + k->offset))
			rc = err_set(ERR_INPUT, "recipe '%s': missing key '%s'",
				     name, k->name);
		else if (k->required && k->type == K_INT &&
			 !*(int *)((char *)out + k->offset))
			rc = err_set(ERR_INPUT, "recipe '%s': missing key '%s'",
				     name, k->name);
		if (rc) {
			recipe_release(out);
			return rc;
		}
	}
	if (out->distcc && out->icecc) {
		recipe_release(out);
		return err_set(ERR_INPUT,
			       "recipe '%s': distcc and icecc: one kind of "
			       "compile helper, not both",
			       name);
	}
	rc = set_defaults(out);
	if (rc)
		recipe_release(out);
	return rc;
}

int recipe_load(struct recipe *out, const char *path)
{
	const char *slash = strrchr(path, '/'), *base;
	char *dir, *name, *dot;
	struct buf text;
	int rc;

	buf_init(&text, 1 << 20);
	rc = buf_read_file(&text, path);
	if (rc) {
		buf_release(&text);
		return err_wrap(rc == ERR_NOTFOUND ? ERR_INPUT : rc,
				"cannot read recipe");
	}
	base = slash ? slash + 1 : path;
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	name = strdup(base);
	if (!dir || !name) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".recipe"))
		*dot = '\0';
	rc = recipe_parse(out, name, dir, buf_str(&text));
	if (!rc && !(out->path = strdup(path))) {
		recipe_release(out);
		rc = err_set(ERR_NOMEM, "out of memory");
	}
out:
	free(dir);
	free(name);
	buf_release(&text);
	return rc;
}

void recipe_release(struct recipe *r)
{
	size_t i;

	free(r->name);
	free(r->path);
	free(r->dir);
	free(r->description);
	free(r->base);
	for (i = 0; i < r->nfragments; i++)
		free(r->fragments[i]);
	free(r->targets);
	free(r->image);
	free(r->arch);
	free(r->qemu);
	free(r->qemu_args);
	free(r->append);
	free(r->marker);
	free(r->init);
	free(r->distcc);
	free(r->icecc);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

int recipe_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return n > 0 && n <= 64 && !name[n] && name[0] != '.';
}

int recipe_find(char *out, size_t size, const char *name,
		const char *search_path)
{
	const char *p = search_path;

	if (!*name)
		return err_set(ERR_INPUT, "empty recipe name");
	if (strchr(name, '/')) {
		if (access(name, R_OK))
			return err_sys(ERR_INPUT, "cannot read recipe '%s'",
				       name);
		if ((size_t)snprintf(out, size, "%s", name) >= size)
			return err_set(ERR_INPUT, "recipe path too long");
		return 0;
	}
	while (p && *p) {
		size_t n = strcspn(p, ":");

		if ((size_t)snprintf(out, size, "%.*s/%s.recipe", (int)n, p,
				     name) < size &&
		    !access(out, R_OK))
			return 0;
		p += n;
		if (*p == ':')
			p++;
	}
	return err_set(ERR_INPUT, "unknown recipe '%s' (searched %s)", name,
		       search_path);
}

char *recipe_default_path(const char *datadir)
{
	const char *env = getenv("BISECTD_RECIPES");
	char *tree = util_exe_sibling("../../recipes"),
	     *copy = util_exe_sibling("../share/bisectd/recipes"), *path;

	path = tree && copy ? util_fmt("%s%s%s:%s:%s/recipes", env ? env : "",
				       env ? ":" : "", tree, copy, datadir)
			    : NULL;
	free(tree);
	free(copy);
	return path;
}

char *recipe_cmdline(const struct recipe *r)
{
	/* a panic reboots at once, which ends the boot; the guest init
	 * reads its marker from the command line.  no_timer_check: under
	 * TCG on a busy host the kernel's check of the timer interrupt can
	 * fail and panic ("IO-APIC + timer doesn't work!"), a failure of
	 * the machine that would be taken for the kernel's */
	return util_fmt("%s panic=-1 no_timer_check bisectd.marker=%s",
			r->append, r->marker);
}
