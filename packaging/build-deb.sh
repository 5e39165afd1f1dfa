#!/bin/sh
# Builds tonearm_VERSION_ARCH.deb and tonearm-dbgsym_VERSION_ARCH.deb from a release binary
# with Debian's own tools: `make install` lays the files out, objcopy splits the debug
# symbols off as dh_strip does, dpkg-shlibdeps finds Depends from the libraries the binary
# really loads, dpkg-gencontrol writes the control file and dpkg-deb builds the archives.
#
#   build-deb.sh BINARY OUTDIR [VERSION]
#
# VERSION defaults to packaging/version.sh's; DEB_MAINTAINER overrides the Maintainer field
# (default: the committer of HEAD).
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
binary=$(realpath "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
version=${3:-$("$repo/packaging/version.sh")}
maintainer=${DEB_MAINTAINER:-$(git -C "$repo" log -1 --format='%cn <%ce>' 2>/dev/null || echo 'Tonearm developers <tonearm@localhost.invalid>')}
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# The commit's date, so that two builds of one commit give the same changelog.
date=$(date -R -d "@$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)")
arch=$(dpkg --print-architecture)

work=$out/work
rm -rf "$work"
mkdir -p "$work/debian"
stage=$work/debian/tonearm
dbgsym=$work/debian/tonearm-dbgsym
umask 022

# The configuration a system service starts with: every option still commented out but the
# music folder, which the package makes (postinst) and the service may read.
sed 's|^#music_directory .*|music_directory        "/var/lib/tonearm/music"|' "$repo/conf/tonearm.conf" >"$work/tonearm.conf"
grep -q '^music_directory        "/var/lib/tonearm/music"$' "$work/tonearm.conf"

# Debian 12 keeps units in /lib/systemd/system (lintian: systemd-service-file-outside-lib).
make -C "$repo" --no-print-directory install BINARY="$binary" CONFIG="$work/tonearm.conf" \
    PREFIX=/usr UNITDIR=/lib/systemd/system DESTDIR="$stage" >/dev/null
install -D -m 644 "$repo/packaging/debian/tonearm.sysusers" "$stage/usr/lib/sysusers.d/tonearm.conf"
gzip -9n "$stage/usr/share/man/man1/tonearm.1" "$stage/usr/share/man/man5/tonearm.conf.5"

# Debug symbols under the build ID, where gdb looks for them; the binary keeps only what it runs.
build_id=$(readelf -n "$stage/usr/bin/tonearm" | sed -n 's/^ *Build ID: *//p')
[ -n "$build_id" ] || { echo "build-deb.sh: $binary has no build ID" >&2; exit 1; }
debug_file=$dbgsym/usr/lib/debug/.build-id/$(echo "$build_id" | cut -c1-2)/$(echo "$build_id" | cut -c3-).debug
mkdir -p "$(dirname "$debug_file")"
objcopy --only-keep-debug --compress-debug-sections "$stage/usr/bin/tonearm" "$debug_file"
chmod 644 "$debug_file"
objcopy --strip-debug --strip-unneeded --remove-section=.comment --remove-section=.note \
    --add-gnu-debuglink="$debug_file" "$stage/usr/bin/tonearm"

# Documentation: the copyright (with the MIT text of GRDB, linked in) and the changelog.
doc=$stage/usr/share/doc/tonearm
mkdir -p "$doc" "$dbgsym/usr/share/doc"
{
    cat "$repo/packaging/debian/copyright"
    cat "$repo/.build/checkouts/GRDB.swift/LICENSE" 2>/dev/null || cat "$repo"/.build/checkouts/grdb*/LICENSE
} >"$doc/copyright"
sed -e "s|@VERSION@|$version|" -e "s|@COMMIT@|$commit|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@DATE@|$date|" "$repo/packaging/debian/changelog.in" >"$work/debian/changelog"
gzip -9n <"$work/debian/changelog" >"$doc/changelog.gz"
ln -s tonearm "$dbgsym/usr/share/doc/tonearm-dbgsym"
sed "s|@MAINTAINER@|$maintainer|" "$repo/packaging/debian/control" >"$work/debian/control"

# Maintainer scripts, the conffile list and checksums.
for package in "$stage" "$dbgsym"; do mkdir -p "$package/DEBIAN"; done
install -m 755 "$repo/packaging/debian/postinst" "$repo/packaging/debian/prerm" \
    "$repo/packaging/debian/postrm" "$stage/DEBIAN/"
(cd "$stage" && find etc -type f | sed 's|^|/|' | sort) >"$stage/DEBIAN/conffiles"
for package in "$stage" "$dbgsym"; do
    (cd "$package" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
        >"$package/DEBIAN/md5sums"
done

cd "$work"
dpkg-shlibdeps -Tdebian/tonearm.substvars debian/tonearm/usr/bin/tonearm
dpkg-gencontrol -ptonearm -v"$version" -Tdebian/tonearm.substvars -Pdebian/tonearm -fdebian/files
dpkg-gencontrol -ptonearm-dbgsym -v"$version" -Vtonearm:Build-Ids="$build_id" -Pdebian/tonearm-dbgsym \
    -fdebian/files
dpkg-deb --root-owner-group -Zxz --build debian/tonearm "$out/tonearm_${version}_$arch.deb" >/dev/null
dpkg-deb --root-owner-group -Zxz --build debian/tonearm-dbgsym "$out/tonearm-dbgsym_${version}_$arch.deb" >/dev/null
echo "$out/tonearm_${version}_$arch.deb"
