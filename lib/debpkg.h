/*
 * The files inside a Debian package, with libarchive: a .deb is an ar
 * archive whose data.tar.* member holds them.
 */
#ifndef BISECTD_DEBPKG_H
#define BISECTD_DEBPKG_H

struct archive;
struct debpkg;

/*
 * From an open ar archive (a .deb), open its data.tar as a tar archive:
 * *tar reads the package's files.  Close with debpkg_close().
 * ERR_INPUT when there is no data.tar.
 */
int debpkg_open_data(struct debpkg **out, struct archive **tar,
		     struct archive *ar, const char *path);
void debpkg_close(struct debpkg *d, struct archive *tar);

#endif
