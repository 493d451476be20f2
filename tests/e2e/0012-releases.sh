#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl releases over Debian's own released kernels: the newest four
# ABIs of linux-image-*-cloud-amd64 that APT lists when the test runs
# (superseded ones leave the archive), fetched with apt-get download and
# booted under QEMU; a guest test fails from the second newest on.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
flavour=cloud-amd64
abis=$(apt-cache pkgnames linux-image- |
	sed -n "s/^linux-image-\([0-9]*\.[0-9]*\.[0-9]*-[0-9]*\)-$flavour\$/\1/p" |
	sort -V | tail -n 4)
set -- $abis
if [ $# -lt 4 ]; then
	skip_rest "APT lists fewer than four linux-image-*-$flavour packages (apt-get update?)"
	done_testing
fi
good=$1 last_good=$2 first_bad=$3 bad=$4
# ABI numbers: 6.1.0-56 is 56
n() { echo "${1##*-}"; }
cat > "$SCRATCH/test.sh" <<EOF
#!/bin/sh
# the ABI number of the running kernel, 56 for 6.1.0-56-$flavour
abi=\$(uname -r | cut -d- -f2)
echo "release test on ABI \$abi"
modprobe virtio_blk && echo "virtio_blk loaded"
[ "\$abi" -lt $(n "$first_bad") ]
EOF
version() { apt-cache show --no-all-versions "linux-image-$1-$flavour" | sed -n 's/^Version: //p'; }
# answer_until_found JSON CMD...: answer the release that JSON's
# next_release asks for, by the rule of the guest test, with CMD...
# --continue VERDICT --json JSON (its output in answer.out), until none
# is asked for; ASKED: the releases asked for
answer_until_found() {
	json=$1
	shift
	ASKED=""
	for _ in 1 2 3 4 5; do
		r=$(jq -r '.next_release // empty' "$json")
		[ -n "$r" ] || break
		ASKED="$ASKED $r"
		if [ "$(n "$r")" -ge "$(n "$first_bad")" ]; then v=bad; else v=good; fi
		"$@" --continue "$v" --json "$json" > "$SCRATCH/answer.out" 2>&1 || break
	done
}
# two_level_test FILE ABI: a guest test for releases and for trees built
# here alike: a release is good before ABI, a tree when /proc/version is
# Linux's (the generated histories' planted change breaks it)
two_level_test() {
	cat > "$1" <<GUEST
#!/bin/sh
# a release: good before $2; a tree built here: /proc/version as Linux's
case \$(uname -r) in
*-$flavour) [ "\$(uname -r | cut -d- -f2)" -lt $(n "$2") ] ;;
*) cat /proc/version; grep -q '^Linux version ' /proc/version ;;
esac
GUEST
	chmod +x "$1"
}

expect_exit 0 "releases $good..$bad, failing from $first_bad on" \
	"$BISECTCTL" releases --flavour "$flavour" --good "$good" --bad "$bad" \
	--test "$SCRATCH/test.sh" --json "$SCRATCH/r.json" --out "$SCRATCH/run"
j=$SCRATCH/r.json
check "the first bad release is $first_bad, the last good $last_good" \
	jq_true "$j" ".result == \"found\" and .first_bad_release == \"$first_bad\" and .last_good_release == \"$last_good\""
check "with APT's package versions" \
	jq_true "$j" ".first_bad_version == \"$(version "$first_bad")\" and .last_good_version == \"$(version "$last_good")\""
check "and their upstream versions" \
	'jq_true "$j" ".first_bad_upstream == \"$(version "$first_bad" | cut -d- -f1)\""'
check "the changelog entries between them" \
	jq_true "$j" '(.changelog | length) > 0 and (.changelog[0].lines | length) > 0'
check "a next step: the commits between the tags, with the last good release's config" \
	jq_true "$j" "(.next_step | test(\"^bisectctl bisect --repo LINUX-STABLE --good v.* --bad v.* --recipe debian-cloud-amd64 --base-release $last_good --flavour $flavour\")) or .first_bad_upstream == .last_good_upstream"
check "the terminal says the same" \
	grep -q "^first bad release: $first_bad, linux-image-$first_bad-$flavour " "$SCRATCH/out"
check "every probe booted the release it names" \
	'(for c in "$SCRATCH"/run/console-*-1.log; do
		a=${c##*/console-}; a=${a%-1.log}
		grep -q "release test on ABI $(n "$a")" "$c" || exit 1
	 done)'
check "with the modules the boot needs in the initramfs: virtio_blk loads" \
	'(for c in "$SCRATCH"/run/console-*-1.log; do
		grep -q "^bisectd: kernel [0-9.-]*-$flavour, [1-9][0-9]* modules" "$c" &&
		grep -q "^virtio_blk loaded" "$c" || exit 1
	 done)'
check "the bad release failed at least 3 times (to a confidence of 0.95)" \
	jq_true "$j" "[.probes[] | select(.release == \"$bad\" and .verdict == \"bad\")] | length >= 3"
check "the packages are kept in the cache by their file names" \
	'ls "$BISECTD_CACHE"/releases/linux-image-"$first_bad"-"$flavour"_*.deb > /dev/null'
r=$SCRATCH/run/last-good-release.recipe
check "a recipe with the last good release's config for the next step" \
	grep -q "^base = $BISECTD_CACHE/releases/linux-image-$last_good-${flavour}_" "$r"
check "whose init and fragments are files that exist (not beside the recipe)" \
	'grep -q "^init = /" "$r" &&
	 (for f in $(sed -n "s/^\(init\|fragment\) = //p" "$r"); do [ -f "$f" ] || exit 1; done)'
check "and whose base is a package that bisectctl config reads" \
	'"$BISECTCTL" config "$(sed -n "s/^base = //p" "$r")" > "$SCRATCH/lg.config" &&
	 grep -q "^CONFIG_VIRTIO_BLK=" "$SCRATCH/lg.config"'


expect_exit 2 "a release APT does not know" \
	"$BISECTCTL" releases --flavour "$flavour" --good 6.1.0-9999 --bad "$bad" \
	--out "$SCRATCH/o2"
one_line_error "release 6.1.0-9999 of linux-image-\*-$flavour is not known to APT (known: .*$bad)"
expect_exit 2 "good not older than bad" \
	"$BISECTCTL" releases --flavour "$flavour" --good "$bad" --bad "$good" \
	--out "$SCRATCH/o3"
one_line_error "the good release $bad is not older than the bad release $good"
# a damaged package in the cache is fetched again
echo damage >> "$(ls "$BISECTD_CACHE"/releases/linux-image-"$first_bad"-"$flavour"_*.deb)"
expect_exit 2 "a good release that fails" \
	"$BISECTCTL" releases --flavour "$flavour" --good "$first_bad" --bad "$bad" \
	--test "$SCRATCH/test.sh" --out "$SCRATCH/o4"
# (after its progress lines, as a commit-level bisection says it)
check "says the good release does not pass" grep -q \
	"^bisectctl: the good release $first_bad does not pass (verdict bad: guest test failed" \
	"$SCRATCH/err"
check "a package whose SHA256 is not APT's is fetched again" \
	grep -q "^$first_bad (.*): downloading linux-image-$first_bad-${flavour}_" "$SCRATCH/err"
expect_exit 2 "a flavour that is not a word" \
	"$BISECTCTL" releases --flavour "cloud amd64" --good "$good" --bad "$bad"
one_line_error "--flavour: 'cloud amd64' is not a flavour such as cloud-amd64"
# A package that does not boot, built here and served with the real good
# and bad packages from a local APT repository signed with a key of the
# test's own (APT_CONFIG: the machine's APT state is not touched): its
# release is skipped, and said so.
apt=$SCRATCH/apt
mkdir -p "$apt/repo" "$apt/state/lists/partial" "$apt/cache/archives/partial" \
	"$apt/parts" "$apt/gnupg" "$apt/pkg/DEBIAN" "$apt/pkg/boot"
chmod 700 "$apt/gnupg"
touch "$apt/state/status"
printf 'Package: linux-image-%s-%s\nVersion: 6.1.999-1\nArchitecture: amd64\nMaintainer: Tests <tests@example.org>\nDescription: a kernel that does not boot\n' \
	"$last_good" "$flavour" > "$apt/pkg/DEBIAN/control"
echo "not a kernel" > "$apt/pkg/boot/vmlinuz-$last_good-$flavour"
dpkg-deb --root-owner-group --build "$apt/pkg" \
	"$apt/repo/linux-image-$last_good-${flavour}_6.1.999-1_amd64.deb" > /dev/null
cp "$BISECTD_CACHE"/releases/linux-image-"$good"-"$flavour"_*.deb \
	"$BISECTD_CACHE"/releases/linux-image-"$bad"-"$flavour"_*.deb "$apt/repo/"
(cd "$apt/repo" && dpkg-scanpackages -m . /dev/null > Packages 2> /dev/null &&
	printf 'Origin: bisectd-tests\nLabel: bisectd-tests\nSuite: tests\nCodename: tests\nDate: %s\nArchitectures: amd64\nSHA256:\n %s %s Packages\n' \
		"$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')" \
		"$(sha256sum Packages | cut -d' ' -f1)" "$(wc -c < Packages)" > Release)
GNUPGHOME=$apt/gnupg gpg -q --batch --passphrase '' \
	--quick-gen-key "bisectd tests <tests@example.org>" ed25519 sign never 2> /dev/null
GNUPGHOME=$apt/gnupg gpg -q --batch --export > "$apt/key.gpg"
GNUPGHOME=$apt/gnupg gpg -q --batch --clearsign -o "$apt/repo/InRelease" "$apt/repo/Release"
echo "deb [signed-by=$apt/key.gpg] file:$apt/repo ./" > "$apt/sources.list"
# apt_conf DIR LIST: DIR/apt.conf, APT's own state in DIR with the
# sources of DIR/LIST, for APT_CONFIG (the machine's is not touched)
apt_conf() {
	printf '%s\n' "Dir::Etc::SourceList \"$1/$2\";" \
		"Dir::Etc::SourceParts \"$1/parts\";" "Dir::State \"$1/state\";" \
		"Dir::State::status \"$1/state/status\";" "Dir::Cache \"$1/cache\";" \
		'APT::Sandbox::User "root";' > "$1/apt.conf"
}
# releases_with CONF STATUS WHAT NAME: bisectctl releases of good..bad
# with the guest test and APT_CONFIG=CONF, NAME.json and NAME/ its
# result and output, expecting exit STATUS
releases_with() {
	APT_CONFIG=$1
	export APT_CONFIG
	c1=$2 c2=$3 c3=$4
	shift 4
	expect_exit "$c1" "$c2" \
		"$BISECTCTL" releases --flavour "$flavour" --good "$good" --bad "$bad" \
		--test "$SCRATCH/test.sh" --json "$SCRATCH/$c3.json" --out "$SCRATCH/$c3" "$@"
	unset APT_CONFIG
}
apt_conf "$apt" sources.list
check "the local repository's signed index is read" \
	'APT_CONFIG=$apt/apt.conf apt-get -q update > "$apt/update.log" 2>&1 &&
	 [ "$(APT_CONFIG=$apt/apt.conf apt-cache pkgnames linux-image- | wc -l)" -eq 3 ]'
releases_with "$apt/apt.conf" 1 "a bisection whose last candidate does not boot is ambiguous" nb
check "the release that does not boot is skipped and said so" \
	grep -q "^$last_good (6.1.999-1): skip: does not boot: " "$SCRATCH/err"
check "the result says why" \
	jq_true "$SCRATCH/nb.json" '.result == "ambiguous" and (.reason | test("do not boot")) and ([.probes[] | select(.verdict == "skip")] | length) == 1'
rm -f "$BISECTD_CACHE"/releases/*_6.1.999-1*

# Two Debian revisions of one upstream version: the good and bad
# releases' kernels repackaged as 6.1.998-1 and 6.1.998-2 (each with a
# changelog of its own), served from a second local repository that is
# signed as above and also has the source packages' debian.tar.xz
# (deb-src).  The difference is Debian's patches: the result lists those
# added to the series, removed from it and changed.
apt2=$SCRATCH/apt2
mkdir -p "$apt2/repo" "$apt2/state/lists/partial" "$apt2/cache/archives/partial" "$apt2/parts"
touch "$apt2/state/status"
repack() { # repack ABI VERSION: the release's package as VERSION
	d=$apt2/pkg-$1
	rm -rf "$d"
	dpkg-deb -R "$(ls "$BISECTD_CACHE"/releases/linux-image-"$1"-"$flavour"_*.deb | grep -v '_6\.1\.99[89]-' | head -n 1)" "$d"
	sed -i "s/^Version: .*/Version: $2/" "$d/DEBIAN/control"
	rm -f "$d/DEBIAN/md5sums"
	c=$d/usr/share/doc/linux-image-$1-$flavour/changelog.gz
	{
		printf 'linux (%s) bookworm; urgency=medium\n\n  * Debian revision %s of the tests\n\n -- Tests <tests@example.org>  Thu, 01 Jan 2026 00:00:00 +0000\n\n' "$2" "$2"
		[ "$2" = 6.1.998-1 ] || printf 'linux (6.1.998-1) bookworm; urgency=medium\n\n  * the first\n\n -- Tests <tests@example.org>  Thu, 01 Jan 2026 00:00:00 +0000\n'
	} | gzip -9n > "$c"
	dpkg-deb -Zgzip -z1 --root-owner-group --build "$d" \
		"$apt2/repo/linux-image-$1-${flavour}_$2_amd64.deb" > /dev/null && rm -rf "$d"
}
# srcpkg VERSION PATCH...: linux VERSION's debian.tar.xz and .dsc; a
# PATCH is NAME:SUBJECT (one that adds the file debian-tests/NAME) or
# NAME=FILE
srcpkg() {
	s=$apt2/src-$1
	rm -rf "$s"
	mkdir -p "$s/debian/patches"
	v=$1
	shift
	for p in "$@"; do
		case $p in
		*=*)
			name=${p%%=*}
			cp "${p#*=}" "$s/debian/patches/$name"
			;;
		*)
			name=${p%%:*} text=${p#*:}
			printf 'From: Tests <tests@example.org>\nSubject: %s\n\n--- /dev/null\n+++ b/debian-tests/%s\n@@ -0,0 +1 @@\n+%s\n' \
				"$text" "$name" "$text" > "$s/debian/patches/$name"
			;;
		esac
		echo "$name" >> "$s/debian/patches/series"
	done
	tar -C "$s" -cJf "$apt2/repo/linux_$v.debian.tar.xz" debian
	printf 'Format: 3.0 (quilt)\nSource: linux\nVersion: %s\n' "$v" > "$apt2/repo/linux_$v.dsc"
	rm -rf "$s"
}
sources_entry() { # sources_entry VERSION: its stanza of the Sources index
	printf 'Package: linux\nBinary: linux-source-6.1\nVersion: %s\nFormat: 3.0 (quilt)\nDirectory: .\nFiles:\n' "$1"
	for f in "linux_$1.dsc" "linux_$1.debian.tar.xz"; do
		echo " $(md5sum < "$apt2/repo/$f" | cut -d' ' -f1) $(wc -c < "$apt2/repo/$f") $f"
	done
	echo "Checksums-Sha256:"
	for f in "linux_$1.dsc" "linux_$1.debian.tar.xz"; do
		echo " $(sha256sum < "$apt2/repo/$f" | cut -d' ' -f1) $(wc -c < "$apt2/repo/$f") $f"
	done
	echo
}
repack "$good" 6.1.998-1
repack "$bad" 6.1.998-2
# new.patch is the planted change of a generated history (the guest test
# fails with it), which applies on that history's good commit
eval "$("$TOP/build/tests/fixtures/kernel-history" --kind test --seed 12 --commits 100)"
{
	printf 'From: Tests <tests@example.org>\nSubject: mm: a patch that came in\n\n'
	git -C "$REPO" diff "$CULPRIT^" "$CULPRIT"
} > "$SCRATCH/new.patch"
srcpkg 6.1.998-1 "keep.patch:kept as it is" "fix.patch:the fix, first version" \
	"gone.patch:a patch that is dropped"
srcpkg 6.1.998-2 "keep.patch:kept as it is" "fix.patch:the fix, second version" \
	"new.patch=$SCRATCH/new.patch" "late.patch:a later patch"
(cd "$apt2/repo" && dpkg-scanpackages -m . /dev/null > Packages 2> /dev/null &&
	{ sources_entry 6.1.998-1; sources_entry 6.1.998-2; } > Sources &&
	printf 'Origin: bisectd-tests\nLabel: bisectd-tests\nSuite: tests\nCodename: tests\nDate: %s\nArchitectures: amd64 source\nSHA256:\n %s %s Packages\n %s %s Sources\n' \
		"$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')" \
		"$(sha256sum Packages | cut -d' ' -f1)" "$(wc -c < Packages)" \
		"$(sha256sum Sources | cut -d' ' -f1)" "$(wc -c < Sources)" > Release)
GNUPGHOME=$apt/gnupg gpg -q --batch --clearsign -o "$apt2/repo/InRelease" "$apt2/repo/Release"
printf 'deb [signed-by=%s] file:%s/repo ./\ndeb-src [signed-by=%s] file:%s/repo ./\n' \
	"$apt/key.gpg" "$apt2" "$apt/key.gpg" "$apt2" > "$apt2/sources.list"
apt_conf "$apt2" sources.list
check "the second repository's packages and sources are read" \
	'APT_CONFIG=$apt2/apt.conf apt-get -q update > "$apt2/update.log" 2>&1 &&
	 APT_CONFIG=$apt2/apt.conf apt-get source --print-uris linux=6.1.998-2 | grep -q "linux_6.1.998-2.debian.tar.xz"'
releases_with "$apt2/apt.conf" 0 "releases $good (6.1.998-1) .. $bad (6.1.998-2)" dp
sed -n "/^Debian's patches/,\$p" "$SCRATCH/out" | sed 's/^/# /'
check "one upstream version: the patches added, removed and changed" \
	jq_true "$SCRATCH/dp.json" '.first_bad_upstream == .last_good_upstream and .debian_patches.good_source == "linux 6.1.998-1" and .debian_patches.bad_source == "linux 6.1.998-2" and .debian_patches.added == [{name: "new.patch", subject: "mm: a patch that came in"}, {name: "late.patch", subject: "a later patch"}] and .debian_patches.removed == [{name: "gone.patch", subject: "a patch that is dropped"}] and .debian_patches.changed == [{name: "fix.patch", subject: "the fix, second version"}]'
check "on the terminal too" \
	'grep -q "^Debian.s patches from linux 6.1.998-1 to 6.1.998-2: 2 added, 1 removed, 1 changed (of 4)$" "$SCRATCH/out" &&
	 grep -q "^  + new.patch: mm: a patch that came in$" "$SCRATCH/out"'
check "the next step: the same with a repository, to bisect them" \
	jq_true "$SCRATCH/dp.json" '.next_step | test("^bisectctl releases --flavour .* --repo LINUX-STABLE")'
# --repo with tag v6.1.998 at the generated history's good commit: the
# patches are bisected, each step's series applied on the tag, built
# with the tiny recipe; the planted change is the first bad patch
two_level_test "$SCRATCH/dp-test.sh" "$bad"
patches_repo=$BISECTD_CACHE/releases-test-patches.git
rm -rf "$patches_repo"
git init -q --bare "$patches_repo"
echo "$REPO/objects" > "$patches_repo/objects/info/alternates"
git -C "$patches_repo" update-ref refs/tags/v6.1.998 "$(git -C "$REPO" rev-parse "$GOOD^{commit}")"
# (the later --test wins)
releases_with "$apt2/apt.conf" 0 "releases 6.1.998-1..6.1.998-2 with --repo: Debian's patches bisected" dpr \
	--repo "$patches_repo" --commit-recipe tiny --test "$SCRATCH/dp-test.sh"
sed -n "/^bisecting Debian's/,\$p" "$SCRATCH/out" | grep -v '^round\|^  ' | sed 's/^/# /'
check "the first bad patch is the planted one, added in 6.1.998-2" \
	jq_true "$SCRATCH/dpr.json" '.debian_patches.first_bad_patch == {name: "new.patch", subject: "mm: a patch that came in", change: "added"}'
check "found by a bisection over the four changes (gone, fix, new, late)" \
	jq_true "$SCRATCH/dpr.json" '.debian_patches.bisection.result == "found" and (.debian_patches.bisection.first_bad | length) == 40'
fb_patch=$(jq -r .debian_patches.bisection.first_bad "$SCRATCH/dpr.json")
check "whose first bad commit is the good series with gone.patch dropped, fix.patch's new text and new.patch" \
	'git -C "$patches_repo" log -1 --format=%s "$fb_patch" | grep -q "^linux 6.1.998-2: added new.patch$" &&
	 git -C "$patches_repo" show "$fb_patch:debian-tests/fix.patch" | grep -q "^the fix, second version$" &&
	 ! git -C "$patches_repo" cat-file -e "$fb_patch:debian-tests/gone.patch" 2>/dev/null &&
	 ! git -C "$patches_repo" cat-file -e "$fb_patch:debian-tests/late.patch" 2>/dev/null'
check "and the last commit's tree is the bad series applied on the tag" \
	'jq_true "$SCRATCH/dpr.json" ".debian_patches.bisection.bad | length == 40" &&
	 b=$(jq -r .debian_patches.bisection.bad "$SCRATCH/dpr.json") &&
	 git -C "$patches_repo" cat-file -e "$b:debian-tests/late.patch" &&
	 git -C "$patches_repo" show "$b:debian-tests/keep.patch" | grep -q "^kept as it is$" &&
	 ! git -C "$patches_repo" cat-file -e "$b:debian-tests/gone.patch" 2>/dev/null'
check "the terminal names the first bad patch" \
	grep -q "^first bad patch: new.patch (added): mm: a patch that came in$" "$SCRATCH/out"
git -C "$patches_repo" tag -d v6.1.998 > /dev/null
releases_with "$apt2/apt.conf" 0 "the same when the repository has no tag v6.1.998" dpn \
	--repo "$patches_repo" --commit-recipe tiny
check "says it cannot bisect them, and why" \
	'jq_true "$SCRATCH/dpn.json" ".debian_patches.bisection_error | test(\"has no tag v6.1.998\")" &&
	 grep -q "^Debian.s patches cannot be bisected: .*has no tag v6.1.998" "$SCRATCH/out"'
check "the changelog entries are this revision's" \
	jq_true "$SCRATCH/dp.json" '[.changelog[].version] == ["6.1.998-2"]'
# the same archive without its deb-src line
grep -v '^deb-src ' "$apt2/sources.list" > "$apt2/binary.list"
apt_conf "$apt2" binary.list
APT_CONFIG=$apt2/apt.conf apt-get -q update > "$apt2/update2.log" 2>&1
releases_with "$apt2/apt.conf" 0 "the same without deb-src" dp2
check "says why Debian's patches cannot be had: $(jq -r .debian_patches.unavailable "$SCRATCH/dp2.json")" \
	'jq_true "$SCRATCH/dp2.json" ".debian_patches.unavailable | test(\"deb-src\")" &&
	 grep -q "^Debian.s patches from linux 6.1.998-1 to 6.1.998-2 cannot be had: .*deb-src" "$SCRATCH/out"'
rm -f "$BISECTD_CACHE"/releases/*_6.1.998-* "$BISECTD_CACHE"/releases/linux_6.1.998-*

# --manual: nothing booted; a script answers for the user, by the same
# rule as the guest test
rm -f "$BISECTD_CACHE/releases/manual-state.json"
expect_exit 0 "a manual bisection asks for a release" \
	"$BISECTCTL" releases --flavour "$flavour" --good "$good" --bad "$bad" \
	--manual --json "$SCRATCH/m.json" --out "$SCRATCH/m"
check "saying how to install it" \
	'grep -q "^  apt-get install linux-image-$(jq -r .next_release "$SCRATCH/m.json")-$flavour=" "$SCRATCH/out"'
answer_until_found "$SCRATCH/m.json" "$BISECTCTL" releases --out "$SCRATCH/m"
check "the answers find $first_bad (asked:$ASKED)" \
	jq_true "$SCRATCH/m.json" ".result == \"found\" and .first_bad_release == \"$first_bad\" and .last_good_release == \"$last_good\""
check "nothing was booted" '! ls "$SCRATCH"/m/console-* 2>/dev/null'
check "the state is gone once found" '[ ! -e "$BISECTD_CACHE/releases/manual-state.json" ]'
expect_exit 2 "--continue with nothing in progress" \
	"$BISECTCTL" releases --continue good --out "$SCRATCH/m2"
one_line_error "no manual release bisection is in progress (start one with --manual)"
expect_exit 2 "--continue with a verdict that is not one" \
	"$BISECTCTL" releases --continue maybe
one_line_error "--continue takes good, bad or skip, not 'maybe'"

# --repo: the newest pair of consecutive releases among the four whose
# upstream versions differ, a guest test failing from the second of them
# on, and a generated history between tags of those two versions whose
# planted change fails the same test; the commit level runs with the
# tiny recipe
upstream() { version "$1" | sed 's/-[^-]*$//'; }
lg="" fb="" prev=""
for a in $abis; do
	if [ -n "$prev" ] && [ "$(upstream "$prev")" != "$(upstream "$a")" ]; then
		lg=$prev fb=$a
	fi
	prev=$a
done
if [ -z "$fb" ]; then
	skip_rest "the newest four releases are one upstream version"
else
	two_level_test "$SCRATCH/both.sh" "$fb"
	# (at one path in the cache, so that its work directory is reused)
	stable=$BISECTD_CACHE/releases-test-stable.git
	rm -rf "$stable"
	git init -q --bare "$stable"
	echo "$REPO/objects" > "$stable/objects/info/alternates"
	git -C "$stable" update-ref "refs/tags/v$(upstream "$lg")" \
		"$(git -C "$REPO" rev-parse "$GOOD^{commit}")"
	git -C "$stable" update-ref "refs/tags/v$(upstream "$fb")" "$BAD"
	expect_exit 0 "releases with --repo: $lg..$fb, then the commits between v$(upstream "$lg") and v$(upstream "$fb")" \
		"$BISECTCTL" releases --flavour "$flavour" --good "$good" --bad "$bad" \
		--test "$SCRATCH/both.sh" --repo "$stable" --commit-recipe tiny \
		--json "$SCRATCH/two.json" --out "$SCRATCH/two"
	check "the release level: $fb after $lg" \
		jq_true "$SCRATCH/two.json" ".first_bad_release == \"$fb\" and .last_good_release == \"$lg\""
	check "the commit level: the planted commit, in the same result" \
		jq_true "$SCRATCH/two.json" ".commit_level.result == \"found\" and .commit_level.first_bad == \"$CULPRIT\""
	check "the terminal shows both levels" \
		'grep -q "^first bad release: $fb, " "$SCRATCH/out" &&
		 grep -q "first bad commit: $CULPRIT" "$SCRATCH/out"'
	expect_exit 2 "--repo that is not a repository" \
		"$BISECTCTL" releases --flavour "$flavour" --good "$good" --bad "$bad" \
		--repo "$SCRATCH/nothing"
	one_line_error "cannot open repository '$SCRATCH/nothing'"
fi

# The same over the API: a releases job that bisectd hands to a worker,
# which bisects as bisectctl releases does (its packages are in the
# cache by now); the job's document carries the result, and its page
# the release timeline
. "$TOP/tests/daemon-lib.sh"
make_tokens
start_bisectd
start_worker rel --recipes debian-cloud-amd64,tiny
REL_PID=$WPID
rjob() { # rjob GOOD BAD: a releases job's request, the guest test above
	jq -nc --arg f "$flavour" --arg g "$1" --arg b "$2" \
		--rawfile t "$SCRATCH/test.sh" \
		'{type: "releases", flavour: $f, good: [$g], bad: $b, test: $t}'
}
id=$(submit "$(rjob "$good" "$bad")")
check "bisectd takes a releases job (#$id)" matches "$id" '[0-9][0-9]*$'
wait_job "$id" 900
jq -r '.releases.probes[]? | "# \(.release) \(.version): \(.verdict)"' "$SCRATCH/job"
check "a worker ran it: found" \
	jq_true "$SCRATCH/job" '.state == "done" and .result == "found" and .steps[0].role == "releases"'
check "its result: $first_bad after $last_good, with APT's versions" \
	jq_true "$SCRATCH/job" ".releases.first_bad_release == \"$first_bad\" and .releases.last_good_release == \"$last_good\" and .releases.first_bad_version == \"$(version "$first_bad")\" and .releases.last_good_version == \"$(version "$last_good")\""
check "the probes, each with its verdict" \
	jq_true "$SCRATCH/job" '(.releases.probes | length) >= 4 and ([.releases.probes[] | select(.verdict == "bad")] | length) >= 3'
check "and the changelog entries between them" \
	jq_true "$SCRATCH/job" '(.releases.changelog | length) > 0'
browse "/jobs/$id" releases-job
check "the job page shows the release timeline, the first bad marked" \
	'grep -q "Release timeline" "$SCRATCH/releases-job.html" &&
	 grep -q "<code>$first_bad</code></td><td>$(version "$first_bad")</td>" "$SCRATCH/releases-job.html" &&
	 grep -q "<td>first bad</td>" "$SCRATCH/releases-job.html" &&
	 grep -q "<td>last good</td>" "$SCRATCH/releases-job.html"'
"$BISECTCTL" --server "$URL" --token "$STOKEN" releases --flavour "$flavour" \
	--good "$good" --bad "$bad" --test "$SCRATCH/test.sh" \
	--json "$SCRATCH/remote.json" > "$SCRATCH/rout" 2> "$SCRATCH/rerr"
rc=$?
check "bisectctl --server releases: exit $rc, the same answer" \
	'[ "$rc" -eq 0 ] && jq_true "$SCRATCH/remote.json" ".first_bad_release == \"$first_bad\" and .last_good_release == \"$last_good\""'
check "printed as bisectctl releases prints it" \
	grep -q "^first bad release: $first_bad, linux-image-$first_bad-$flavour $(version "$first_bad") " "$SCRATCH/rout"
browse "/" releases-list
check "the job list names its packages" \
	grep -q "Debian's linux-image-\*-$flavour" "$SCRATCH/releases-list.html"
id=$(submit "$(rjob 6.1.0-9999 "$bad")")
wait_job "$id" 300
check "a release APT does not know fails the job, saying which are known" \
	jq_true "$SCRATCH/job" ".state == \"failed\" and (.reason | test(\"release 6.1.0-9999 of linux-image-.*-$flavour is not known to APT .known: .*$bad\"))"
check "at once: one step" jq_true "$SCRATCH/job" '(.steps | length) == 1'
code=$(api POST jobs "$(jq -nc '{type: "releases", flavour: "cloud-amd64", bad: "6.1.0-57"}')" "$STOKEN")
check "a releases job without 'good' is refused: $code, $(jq -r .error "$SCRATCH/body")" \
	'[ "$code" = 422 ] && jq_true "$SCRATCH/body" ".error | test(\"needs .flavour., .bad. and one .good.\")"'

# By hand through bisectd: nothing is booted; bisectctl --server
# releases --manual submits the job, each --continue answers (by the
# same rule as the guest test), and the job is kept in the cache
rm -f "$BISECTD_CACHE/releases/manual-remote.json"
expect_exit 0 "bisectctl --server releases --manual asks for a release" \
	"$BISECTCTL" --server "$URL" --token "$STOKEN" releases --flavour "$flavour" \
	--good "$good" --bad "$bad" --manual --json "$SCRATCH/rm.json"
mid=$(jq -r .job "$BISECTD_CACHE/releases/manual-remote.json")
asked=$(jq -r .next_release "$SCRATCH/rm.json")
check "saying how to install release $asked, and how to answer" \
	'grep -q "^  apt-get install linux-image-$asked-$flavour=" "$SCRATCH/out" &&
	 grep -q "releases --continue good|bad|skip" "$SCRATCH/out"'
api GET "jobs/$mid" > /dev/null
check "job #$mid waits for the answer on it" \
	jq_true "$SCRATCH/body" ".state == \"running\" and .waiting_for.release == \"$asked\" and .spec.manual"
browse "/jobs/$mid" manual-job
check "its page says what to install and how to answer" \
	grep -q "<dt>waiting for</dt><dd><code>apt-get install linux-image-$asked-$flavour=" "$SCRATCH/manual-job.html"
code=$(api POST "jobs/$mid/answer" '{"release": "6.1.0-1", "verdict": "good"}' "$STOKEN")
check "an answer on another release: $code, $(jq -r .error "$SCRATCH/body")" \
	'[ "$code" = 409 ] && jq_true "$SCRATCH/body" ".error == \"job $mid is waiting for an answer on release $asked, not 6.1.0-1\""'
code=$(api POST "jobs/$mid/answer" '{"release": "6.1.0-1", "verdict": "maybe"}' "$STOKEN")
check "an answer that is not one: $code, $(jq -r .error "$SCRATCH/body")" '[ "$code" = 422 ]'
other=$("$BISECTD" --state "$STATE" token add submit someone-else)
code=$(api POST "jobs/$mid/answer" "{\"release\": \"$asked\", \"verdict\": \"good\"}" "$other")
check "another submitter's answer: $code" '[ "$code" = 403 ]'
answer_until_found "$SCRATCH/rm.json" "$BISECTCTL" --server "$URL" --token "$STOKEN" releases
check "the answers find $first_bad through bisectd (asked:$ASKED)" \
	jq_true "$SCRATCH/rm.json" ".result == \"found\" and .first_bad_release == \"$first_bad\" and .last_good_release == \"$last_good\""
check "printed as bisectctl releases prints it" \
	grep -q "^first bad release: $first_bad, linux-image-$first_bad-$flavour " "$SCRATCH/answer.out"
api GET "jobs/$mid" > /dev/null
check "the job is done, with each answer as a step of its own" \
	jq_true "$SCRATCH/body" '.state == "done" and .result == "found" and .waiting_for == null and ([.steps[] | select(.role == "answer")] | length) == (.releases.answers | length) and (.releases.answers | length) >= 1'
check "and the saved job is gone" '[ ! -e "$BISECTD_CACHE/releases/manual-remote.json" ]'
expect_exit 2 "--server --continue with nothing in progress" \
	"$BISECTCTL" --server "$URL" --token "$STOKEN" releases --continue good
one_line_error "no manual release bisection is in progress on $URL (start one with --manual)"

# The commit level through bisectd: the releases job names the
# repository with the two tags, and bisectd goes on with a bisect job of
# its own that the same worker runs with the tiny recipe
if [ -n "$fb" ]; then
	"$BISECTCTL" --server "$URL" --token "$STOKEN" releases --flavour "$flavour" \
		--good "$good" --bad "$bad" --test "$SCRATCH/both.sh" \
		--repo "$stable" --commit-recipe tiny \
		--json "$SCRATCH/remote-two.json" > "$SCRATCH/r2out" 2> "$SCRATCH/r2err"
	rc=$?
	sed 's/^/# /' "$SCRATCH/r2err" | grep 'job [0-9]'
	rid=$(sed -n 's/^bisectctl: job \([0-9]*\) on .*/\1/p' "$SCRATCH/r2err" | sed -n 1p)
	cid=$(sed -n 's/^bisectctl: job \([0-9]*\) on .*/\1/p' "$SCRATCH/r2err" | sed -n 2p)
	check "bisectctl --server releases --repo: exit $rc, $fb after $lg, then job #$cid" \
		'[ "$rc" -eq 0 ] && [ -n "$cid" ] &&
		 jq_true "$SCRATCH/remote-two.json" ".first_bad_release == \"$fb\" and .last_good_release == \"$lg\""'
	check "the commit level in the same result: the planted commit" \
		jq_true "$SCRATCH/remote-two.json" ".commit_level.result == \"found\" and .commit_level.first_bad == \"$CULPRIT\""
	check "the terminal shows both levels: the release, then the commit level's report" \
		'grep -q "^first bad release: $fb, " "$SCRATCH/r2out" &&
		 grep -q "^commit $CULPRIT\$" "$SCRATCH/r2out"'
	api GET "jobs/$rid" > /dev/null
	check "the releases job's document names its commit level, done" \
		jq_true "$SCRATCH/body" ".releases.commit_level.job == $cid and .releases.commit_level.state == \"done\" and .releases.commit_level.first_bad == \"$CULPRIT\""
	api GET "jobs/$cid" > /dev/null
	check "which bisected from tag v$(upstream "$lg") to v$(upstream "$fb") with the tiny recipe" \
		jq_true "$SCRATCH/body" ".spec.releases_job == $rid and .spec.recipe == \"tiny\" and .spec.bad == \"$BAD\" and .spec.good == [\"$(git -C "$REPO" rev-parse "$GOOD^{commit}")\"] and .culprit == \"$CULPRIT\""
	browse "/jobs/$rid" releases-two
	check "the releases job's page links the commit level" \
		'grep -q "<dt>commit level</dt><dd><a href=\"/jobs/$cid\">job #$cid: done (found), first bad commit $(echo "$CULPRIT" | cut -c1-12)</a>" "$SCRATCH/releases-two.html"'
	browse "/jobs/$cid" commit-level
	check "and the bisect job's page links the releases job" \
		grep -q "<dt>release bisection</dt><dd><a href=\"/jobs/$rid\">job #$rid</a>" "$SCRATCH/commit-level.html"
	# a repository without those tags: no commit level, and why
	notags=$SCRATCH/notags.git
	git init -q --bare "$notags"
	id=$(submit "$(jq -nc --arg f "$flavour" --arg g "$lg" --arg b "$fb" \
		--rawfile t "$SCRATCH/both.sh" --arg r "$notags" \
		'{type: "releases", flavour: $f, good: [$g], bad: $b, test: $t, repo: $r, commit_recipe: "tiny"}')")
	wait_job "$id" 600
	check "a repository without the tags: found, no commit level, and why" \
		jq_true "$SCRATCH/job" ".result == \"found\" and (.releases.commit_level.error | test(\"has no tag v$(upstream "$lg")\"))"

	# base_release on a worker: a test job built with the config of a
	# release from a third local repository, a package made here whose
	# config is the tiny kernel's (a step's artifact) with a
	# LOCALVERSION of its own, which the guest test looks for
	api GET "jobs/$cid" > /dev/null
	sid=$(jq -r '[.steps[] | select((.artifacts // []) | map(.name) | index("config"))][0].id' "$SCRATCH/body")
	api GET "jobs/$cid/steps/$sid/artifacts/config" > /dev/null
	apt3=$SCRATCH/apt3
	mkdir -p "$apt3/repo" "$apt3/state/lists/partial" "$apt3/cache/archives/partial" \
		"$apt3/parts" "$apt3/pkg/DEBIAN" "$apt3/pkg/boot"
	touch "$apt3/state/status"
	sed 's/^CONFIG_LOCALVERSION=.*/CONFIG_LOCALVERSION="-fromrelease"/' "$SCRATCH/body" \
		> "$apt3/pkg/boot/config-6.1.0-900-$flavour"
	echo "not a kernel" > "$apt3/pkg/boot/vmlinuz-6.1.0-900-$flavour"
	printf 'Package: linux-image-6.1.0-900-%s\nVersion: 6.1.900-1\nArchitecture: amd64\nMaintainer: Tests <tests@example.org>\nDescription: a config for the tests\n' \
		"$flavour" > "$apt3/pkg/DEBIAN/control"
	dpkg-deb -Zgzip --root-owner-group --build "$apt3/pkg" \
		"$apt3/repo/linux-image-6.1.0-900-${flavour}_6.1.900-1_amd64.deb" > /dev/null
	(cd "$apt3/repo" && dpkg-scanpackages -m . /dev/null > Packages 2> /dev/null &&
		printf 'Origin: bisectd-tests\nLabel: bisectd-tests\nSuite: tests\nCodename: tests\nDate: %s\nArchitectures: amd64\nSHA256:\n %s %s Packages\n' \
			"$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')" \
			"$(sha256sum Packages | cut -d' ' -f1)" "$(wc -c < Packages)" > Release)
	GNUPGHOME=$apt/gnupg gpg -q --batch --clearsign -o "$apt3/repo/InRelease" "$apt3/repo/Release"
	echo "deb [signed-by=$apt/key.gpg] file:$apt3/repo ./" > "$apt3/sources.list"
	apt_conf "$apt3" sources.list
	check "the config's package is served, with the config of the tiny build" \
		'APT_CONFIG=$apt3/apt.conf apt-get -q update > "$apt3/update.log" 2>&1 &&
		 grep -q "^CONFIG_LOCALVERSION=\"-fromrelease\"" "$apt3/pkg/boot/config-6.1.0-900-$flavour"'
	kill "$WPID" # the worker without that archive
	APT_CONFIG=$apt3/apt.conf
	export APT_CONFIG
	start_worker cfg --recipes tiny
	unset APT_CONFIG
	id=$(submit "$(jq -nc --arg r "$REPO" --arg c "$GOOD" --arg f "$flavour" \
		'{type: "test", repo: $r, commit: $c, recipe: "tiny", base_release: "6.1.0-900",
		  flavour: $f, test: "#!/bin/sh\nuname -r\nuname -r | grep -q -- -fromrelease\n"}')")
	wait_job "$id" 900
	check "a test job with base_release 6.1.0-900 built with its config: $(jq -r .result "$SCRATCH/job")" \
		jq_true "$SCRATCH/job" '.state == "done" and .result == "good"'
	sid=$(jq -r '.steps[0].id' "$SCRATCH/job")
	api GET "jobs/$id/steps/$sid/artifacts/config" > /dev/null
	check "the step's config has the release's LOCALVERSION" \
		grep -q '^CONFIG_LOCALVERSION="-fromrelease"' "$SCRATCH/body"
	check "and the worker kept the package in its cache" \
		'ls "$BISECTD_CACHE"/releases/linux-image-6.1.0-900-${flavour}_6.1.900-1_amd64.deb > /dev/null'
	rm -f "$BISECTD_CACHE"/releases/*6.1.0-900* "$BISECTD_CACHE"/releases/*6.1.900*
fi
# Debian's patches through bisectd: a releases job with the repository
# of tag v6.1.998, run by a worker whose APT has the second repository
# (with deb-src): the worker bisects the patches itself, with the tiny
# recipe, as bisectctl releases --repo does
kill "$REL_PID" 2> /dev/null # its APT knows nothing of 6.1.998
apt_conf "$apt2" sources.list
APT_CONFIG=$apt2/apt.conf apt-get -q update > "$apt2/update3.log" 2>&1
git -C "$patches_repo" update-ref refs/tags/v6.1.998 "$(git -C "$REPO" rev-parse "$GOOD^{commit}")"
APT_CONFIG=$apt2/apt.conf
export APT_CONFIG
start_worker deb --recipes debian-cloud-amd64
unset APT_CONFIG
id=$(submit "$(jq -nc --arg f "$flavour" --arg g "$good" --arg b "$bad" \
	--rawfile t "$SCRATCH/dp-test.sh" --arg r "$patches_repo" \
	'{type: "releases", flavour: $f, good: [$g], bad: $b, test: $t, repo: $r, commit_recipe: "tiny"}')")
wait_job "$id" 900
jq -c '.releases.debian_patches.bisection.steps // [] | .[] | [.commit[0:12], .verdict, .title]' \
	"$SCRATCH/job" | sed 's/^/# patch level: /'
check "releases one upstream apart through bisectd: the first bad patch, the planted one" \
	jq_true "$SCRATCH/job" '.result == "found" and .releases.debian_patches.first_bad_patch == {name: "new.patch", subject: "mm: a patch that came in", change: "added"} and .releases.debian_patches.bisection.result == "found"'
check "bisected by the worker itself: no bisect job of its own" \
	jq_true "$SCRATCH/job" '.releases.commit_level == null and (.steps | length) == 1'
browse "/jobs/$id" patches-job
check "the page names the first bad patch" \
	grep -q "<dt>first bad patch</dt><dd>new.patch (added): mm: a patch that came in</dd>" "$SCRATCH/patches-job.html"
# a worker's steps, one after another, each with its submitter's
# compiler cache (tenant/KEY-SLOT under the worker's, never one inside
# the last step's): none of them skipped
check "every step of the patch level built and booted: $(jq -c '[.releases.debian_patches.bisection.steps[]?.verdict]' "$SCRATCH/job")" \
	jq_true "$SCRATCH/job" '(.releases.debian_patches.bisection.steps | length) >= 3 and
		all(.releases.debian_patches.bisection.steps[]; .verdict == "good" or .verdict == "bad")'
rm -rf "$BISECTD_CACHE"/releases/*_6.1.998-* "$BISECTD_CACHE"/releases/linux_6.1.998-*

code=$(api POST jobs "$(jq -nc --arg f "$flavour" --arg g "$good" --arg b "$bad" \
	'{type: "releases", flavour: $f, good: [$g], bad: $b, repo: "/nonexistent"}')" "$STOKEN")
check "a releases job whose repository cannot be opened is refused: $code" \
	'[ "$code" = 422 ] && jq_true "$SCRATCH/body" ".error | test(\"/nonexistent\")"'

# base_release: a release's config, fetched with APT as a worker fetches it
"$BISECTCTL" config --release "$last_good" --flavour "$flavour" > "$SCRATCH/rel.config" 2> "$SCRATCH/rel.err"
check "bisectctl config --release $last_good prints its package's config" \
	'grep -q "^CONFIG_VIRTIO_BLK=" "$SCRATCH/rel.config" &&
	 cmp -s "$SCRATCH/rel.config" "$SCRATCH/lg.config"'
expect_exit 2 "bisectctl config --release of a release APT does not know" \
	"$BISECTCTL" config --release 6.1.0-9999 --flavour "$flavour"
one_line_error "release 6.1.0-9999 of linux-image-\*-$flavour is not known to APT (known: .*$bad)"

expect_exit 0 "bisectctl releases --help" "$BISECTCTL" releases --help
check "prints its usage" grep -q "^usage: bisectctl releases " "$SCRATCH/out"
done_testing
