#!/bin/sh
# Prints Tonearm's version, read from git as `git describe` does, in a form that is also a
# valid Debian version that grows with every commit:
#
#   v0.2.0 tagged on this commit        -> 0.2.0
#   12 commits after the tag v0.2.0     -> 0.2.0+git12.gabc1234
#   no v* tag in the history            -> 0.1.0+git312.gabc1234  (312: every commit)
#   uncommitted changes                 -> ... .dirty appended
#   no git at all (a source tarball)    -> 0.1.0
#
#   version.sh                 prints the version
#   version.sh --swift FILE    writes it as Swift source to FILE, only when it changed, so an
#                              unchanged version does not make the build recompile anything
set -eu

# The release the untagged history leads up to.
untagged_release=0.1.0

cd "$(dirname "$0")/.."
version=$untagged_release
if hash=$(git rev-parse --short=7 HEAD 2>/dev/null); then
    if tag=$(git describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null); then
        release=${tag#v}
        count=$(git rev-list --count "$tag..HEAD")
    else
        release=$untagged_release
        count=$(git rev-list --count HEAD)
    fi
    version=$release
    [ "$count" -eq 0 ] || version="$version+git$count.g$hash"
    # describe --dirty refreshes the index first, so a file touched but not changed is clean.
    if git describe --always --dirty=-dirty 2>/dev/null | grep -q -- '-dirty$'; then
        case $version in *+*) version="$version.dirty" ;; *) version="$version+dirty" ;; esac
    fi
fi

if [ "${1:-}" = --swift ]; then
    file=$2
    mkdir -p "$(dirname "$file")"
    {
        echo "// Written by packaging/version.sh at build time; not in git."
        echo ""
        echo "/// The version this binary was built from, read from git when it was built."
        echo "let buildVersion = \"$version\""
    } > "$file.new"
    if cmp -s "$file.new" "$file"; then rm -f "$file.new"; else mv "$file.new" "$file"; fi
else
    echo "$version"
fi
