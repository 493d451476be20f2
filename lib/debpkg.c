/*
 * Reading a .deb's data.tar member as an archive of its own: the member
 * is fed to a second libarchive reader through a read callback.
 */
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "debpkg.h"
#include "error.h"

struct debpkg {
	struct archive *outer;
	char buf[65536];
};

static la_ssize_t member_read(struct archive *a, void *payload,
			      const void **out)
{
	struct debpkg *d = payload;

	(void)a;
	*out = d->buf;
	return archive_read_data(d->outer, d->buf, sizeof(d->buf));
}

int debpkg_open_data(struct debpkg **out, struct archive **tar,
		     struct archive *ar, const char *path)
{
	struct archive_entry *e;

	*out = NULL;
	*tar = NULL;
	while (archive_read_next_header(ar, &e) == ARCHIVE_OK) {
		struct debpkg *d;

		if (strncmp(archive_entry_pathname(e), "data.tar", 8))
			continue;
		d = malloc(sizeof(*d));
		if (!d)
			return err_set(ERR_NOMEM, "out of memory");
		d->outer = ar;
		*tar = archive_read_new();
		archive_read_support_filter_all(*tar);
		archive_read_support_format_tar(*tar);
		if (archive_read_open(*tar, d, NULL, member_read, NULL) !=
		    ARCHIVE_OK) {
			int rc = err_set(ERR_INPUT,
					 "cannot read package '%s': %s", path,
					 archive_error_string(*tar));

			debpkg_close(d, *tar);
			*tar = NULL;
			return rc;
		}
		*out = d;
		return 0;
	}
	return err_set(ERR_INPUT, "'%s' is not a Debian package (no data.tar)",
		       path);
}

void debpkg_close(struct debpkg *d, struct archive *tar)
{
	archive_read_free(tar);
	free(d);
}
