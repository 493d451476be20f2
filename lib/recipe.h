/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Recipes: how to configure, build and boot a kernel for one distribution
 * config.  A recipe is a plain text file of "key = value" lines; see
 * recipes/README for the keys.
 */
#ifndef BISECTD_RECIPE_H
#define BISECTD_RECIPE_H

#include <stddef.h>

#define RECIPE_MAX_FRAGMENTS 16

struct recipe {
	char *name; /* from the file name, without directory */
	char *path; /* the file it came from */
	char *dir;  /* directory of the file; relative paths start here */
	char *description;
	char *base; /* a make target (tinyconfig) or a config file path */
	char *fragments[RECIPE_MAX_FRAGMENTS]; /* absolute paths */
	size_t nfragments;
	char *targets;	 /* make targets, space separated */
	char *image;	 /* kernel image, relative to the build directory */
	int modules;	 /* put the built modules in the initramfs */
	char *arch;	 /* ARCH= for make */
	char *qemu;	 /* emulator binary */
	char *qemu_args; /* extra emulator arguments, space separated */
	int memory_mb;
	int cpus;
	char *append;	  /* kernel command line */
	int boot_timeout; /* seconds */
	char *marker;	  /* success marker printed by the guest init */
	unsigned fail_on; /* CRASH_* kinds that mean bad */
	char *init;	  /* guest init script, absolute path */
	char *distcc;	  /* compile helpers, distcc's host list, or NULL */
	char *icecc;	  /* or icecc's scheduler, HOST[:PORT] */
	char *text;	  /* the whole file, for reports */
};

/*
 * Parse the recipe file at path.  ERR_INPUT with "recipe 'p' line N: ..."
 * for an unknown key, a bad value or a missing required key.  The caller
 * releases *out with recipe_release().
 */
int recipe_load(struct recipe *out, const char *path);

/* Parse recipe text; dir resolves relative paths.  For tests and loads. */
int recipe_parse(struct recipe *out, const char *name, const char *dir,
		 const char *text);

void recipe_release(struct recipe *r);

/*
 * Find a recipe by name ("tiny") in the directories of the colon-separated
 * search path, or take name as a path when it contains a '/'.  Writes the
 * file's path to out (size bytes).
 */
/*
 * 1 when name is a plain recipe name (letters, digits, '.', '_', '-',
 * not starting with '.'; at most 64), as a request from the network must
 * give it: never a path.
 */
int recipe_name_ok(const char *name);

/*
 * Where recipes are looked for by default: $BISECTD_RECIPES (when set),
 * the source tree's recipes/ (the program run from build/bin), an
 * installed tree wherever it was copied (BIN/../share/bisectd/recipes),
 * and datadir/recipes (the program's DATADIR).  Caller frees; NULL when
 * out of memory.
 */
char *recipe_default_path(const char *datadir);

/* The kernel command line of a boot: the recipe's, and ours.  Caller
 * frees; NULL when out of memory. */
char *recipe_cmdline(const struct recipe *r);

int recipe_find(char *out, size_t size, const char *name,
		const char *search_path);

#endif
