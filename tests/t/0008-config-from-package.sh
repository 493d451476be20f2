#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl config reads the kernel config out of a linux-image .deb and a
# kernel-core .rpm, built here with dpkg-deb and rpmbuild, without
# installing them; files that hold none are refused in one line.
. "$(dirname "$0")/../lib.sh"
cfg=$SCRATCH/config
xzcat /usr/src/linux-config-6.1/config.amd64_none_cloud-amd64.xz > "$cfg"

# a Debian linux-image package with /boot/config-VERSION
pkg=$SCRATCH/deb
mkdir -p "$pkg/DEBIAN" "$pkg/boot" "$pkg/lib/modules/6.1.0-99-amd64"
cp "$cfg" "$pkg/boot/config-6.1.0-99-amd64"
echo "not a module" > "$pkg/lib/modules/6.1.0-99-amd64/modules.order"
cat > "$pkg/DEBIAN/control" <<EOC
Package: linux-image-6.1.0-99-amd64
Version: 6.1.0-99
Architecture: amd64
Maintainer: bisectd tests <tests@bisectd.invalid>
Description: test kernel image
EOC
for z in xz gzip zstd; do
	dpkg-deb -Z"$z" --root-owner-group --build "$pkg" "$SCRATCH/linux-$z.deb" >/dev/null
	expect_exit 0 "config from a .deb (data.tar, $z)" \
		"$BISECTCTL" config "$SCRATCH/linux-$z.deb"
	check "it is the packaged config" cmp -s "$SCRATCH/out" "$cfg"
done

# a Fedora-style kernel-core package with /lib/modules/VERSION/config
top=$SCRATCH/rpm
mkdir -p "$top/SPECS"
cat > "$top/SPECS/kernel-core.spec" <<EOS
Name: kernel-core
Version: 6.1.0
Release: 99
Summary: test kernel
License: GPL-2.0
BuildArch: x86_64
%description
test kernel
%install
mkdir -p %{buildroot}/lib/modules/6.1.0-99.x86_64
cp $cfg %{buildroot}/lib/modules/6.1.0-99.x86_64/config
%files
/lib/modules/6.1.0-99.x86_64/config
EOS
rpmbuild -bb --quiet --define "_topdir $top" --define "_build_id_links none" \
	"$top/SPECS/kernel-core.spec" > "$SCRATCH/rpmbuild.log" 2>&1
rpm=$(ls "$top"/RPMS/x86_64/kernel-core-*.rpm)
check "rpmbuild made $(basename "$rpm")" [ -f "$rpm" ]
expect_exit 0 "config from a .rpm" "$BISECTCTL" config "$rpm"
check "it is the packaged config" cmp -s "$SCRATCH/out" "$cfg"

# no config inside, or not a config at all
rm "$pkg/boot/config-6.1.0-99-amd64"
dpkg-deb --root-owner-group --build "$pkg" "$SCRATCH/empty.deb" >/dev/null
expect_exit 2 "a .deb without a config" "$BISECTCTL" config "$SCRATCH/empty.deb"
one_line_error "package '$SCRATCH/empty.deb' holds no kernel config"
expect_exit 2 "a file that is no config" "$BISECTCTL" config /bin/sh
one_line_error "'/bin/sh' is not a kernel config"
expect_exit 2 "a missing file" "$BISECTCTL" config "$SCRATCH/none.deb"
one_line_error "cannot read config '$SCRATCH/none.deb'"
done_testing
