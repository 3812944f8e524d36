# The images' Debian packages (sourced by lib.sh and debian-lock.sh; expects root, cache, log, fail).
# Every package an image holds is a line of tools/images/debian.lock, `package version sha256 images`:
# an exact version of the archive of tools/images/debian.sources and the sha256 of its .deb. Its .deb is
# downloaded once into $cache/debs/, checked against that sha256 and unpacked into the image's staging
# root. Nothing comes from the packages the machine has installed, nor from its apt sources: apt runs
# here with a state of its own under $cache/apt/ (package lists, an empty dpkg status).
# shellcheck shell=bash

DEBIAN_LOCK=$root/tools/images/debian.lock
DEBIAN_PINS=$root/tools/setup/debian-packages.txt
debs=$cache/debs
apt_dir=$cache/apt

# debian_apt apt-get|apt-cache ARG...: apt on the images' archive; APT_STATUS names another dpkg status
# file than the empty one (debian-lock.sh: the packages an image leaves out, as if installed)
debian_apt() {
  local tool=$1
  shift
  mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/none"
  [ -f "$apt_dir/status" ] || : >"$apt_dir/status"
  "$tool" -o "Dir::Etc::SourceList=$root/tools/images/debian.sources" -o "Dir::Etc::SourceParts=$apt_dir/none" \
    -o Dir::Etc::Preferences=/dev/null -o "Dir::Etc::PreferencesParts=$apt_dir/none" \
    -o "Dir::State=$apt_dir/state" -o "Dir::State::status=${APT_STATUS:-$apt_dir/status}" \
    -o "Dir::Cache=$apt_dir/cache" -o APT::Architecture=amd64 -o APT::Sandbox::User=root \
    -o Acquire::Languages=none -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false "$@"
}

# the archive's package lists, fetched again
debian_apt_update() { debian_apt apt-get update -qq >&2 || fail "apt-get update of tools/images/debian.sources failed"; }

# the versions of package $1 the images' archive serves, one per line
debian_served_versions() { debian_apt apt-cache madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}'; }

# image_spec NAME: what tools/setup/debian-packages.txt puts into image NAME, its `image NAME:` lines and
# the `image all:` ones, as one line of words (package, package=PIN, -package)
image_spec() {
  sed -e 's/#.*//' "$DEBIAN_PINS" | awk -v image="$1" '$1 == "image" && ($2 == image ":" || $2 == "all:") {
    for (i = 3; i <= NF; i++) words = words (words == "" ? "" : " ") $i } END { print words }'
}

# the names of the images tools/setup/debian-packages.txt has lines for, `all` aside
image_names() {
  sed -e 's/#.*//' "$DEBIAN_PINS" | awk '$1 == "image" && $2 != "all:" { sub(/:$/, "", $2); print $2 }' | sort -u
}

# lock_lines IMAGE...: `package version sha256` of every package of the lock that goes into any of them
lock_lines() {
  awk -v want=" $* " '$1 != "image" && $1 !~ /^#/ && NF == 4 {
    n = split($4, names, ",")
    for (i = 1; i <= n; i++) if (index(want, " " names[i] " ")) { print $1, $2, $3; break }
  }' "$DEBIAN_LOCK"
}

# lock_version PACKAGE: its exact version in the lock (nothing when it has none)
lock_version() { awk -v name="$1" '$1 == name && NF == 4 { print $2 }' "$DEBIAN_LOCK"; }

# lock_current IMAGE: fails unless the lock was made from the image's lines as they are now
lock_current() {
  local locked
  locked=$(awk -v image="$1" '$1 == "image" && $2 == image ":" { $1 = $2 = ""; sub(/^ +/, ""); print }' "$DEBIAN_LOCK")
  [ "$locked" = "$(image_spec "$1")" ] ||
    fail "$1: tools/images/debian.lock was not made from its lines of tools/setup/debian-packages.txt as they are: run tools/images/debian-lock.sh"
}

# where the .deb of a package's version is kept
deb_file() { printf '%s/%s_%s.deb' "$debs" "$1" "${2//:/%3a}"; }

# debs_fetch IMAGE...: the .deb of every package of the named images in $debs, each checked against the
# lock's sha256. A version the archive no longer serves (Debian replaced it with a fix) fails in one line.
debs_fetch() {
  local name version sha missing=() work file
  while read -r name version sha; do
    [ -f "$(deb_file "$name" "$version")" ] || missing+=("$name=$version")
  done < <(lock_lines "$@")
  [ ${#missing[@]} -gt 0 ] || return 0
  mkdir -p "$debs"
  work=$(mktemp -d "$debs/.download.XXXXXX")
  log "downloading ${#missing[@]} Debian packages of tools/images/debian.lock into $debs"
  if ! debs_download "$work" "${missing[@]}"; then
    debian_apt_update
    debs_download "$work" "${missing[@]}" || {
      rm -rf "$work"
      fail "$(debs_unserved "${missing[@]}")"
    }
  fi
  for name in "${missing[@]}"; do
    version=${name#*=} name=${name%%=*}
    file=$(printf '%s\n' "$work/${name}_"*.deb)
    sha=$(awk -v name="$name" '$1 == name && NF == 4 { print $3 }' "$DEBIAN_LOCK")
    [ -f "$file" ] && [ "$(sha256sum <"$file" | cut -d' ' -f1)" = "$sha" ] || {
      rm -rf "$work"
      fail "the .deb of $name $version does not have the sha256 of tools/images/debian.lock ($sha)"
    }
    mv "$file" "$(deb_file "$name" "$version")"
  done
  rm -rf "$work"
}

# debs_download DIR NAME=VERSION...: apt-get download into DIR, with the lists already there (if any)
debs_download() {
  [ -n "$(ls "$apt_dir/state/lists" 2>/dev/null | grep -v '^partial$\|^lock$')" ] || return 1
  (cd "$1" && debian_apt apt-get download -qq "${@:2}" >/dev/null 2>&1)
}

# the line that says which version of the lock the archive no longer serves, and what to do
debs_unserved() {
  local spec
  for spec in "$@"; do
    debian_served_versions "${spec%%=*}" | grep -qxF "${spec#*=}" && continue
    printf 'Debian no longer serves %s %s (tools/images/debian.lock): run tools/images/debian-lock.sh to lock what it serves now; if an image'"'"'s pinned package moved, change its pin in tools/setup/debian-packages.txt and the catalog'"'"'s tag with it (src/platform/catalog.ts)' "${spec%%=*}" "${spec#*=}"
    return
  done
  printf 'apt-get download of %s from tools/images/debian.sources failed' "$*"
}

# debs_extract DIR IMAGE...: the packages of the named images unpacked into DIR in Debian's merged-/usr
# layout (/bin, /sbin, /lib and /lib64 link into /usr, as on a bookworm system), without documentation,
# manual pages and translations. Maintainer scripts are not run: an image's recipe does what it needs.
debs_extract() {
  local dir=$1 name version sha link image
  shift
  for image in "$@"; do lock_current "$image"; done
  debs_fetch "$@"
  mkdir -p "$dir/usr/bin" "$dir/usr/sbin" "$dir/usr/lib" "$dir/usr/lib64"
  for link in bin sbin lib lib64; do ln -sfn "usr/$link" "$dir/$link"; done
  while read -r name version sha; do
    dpkg-deb --fsys-tarfile "$(deb_file "$name" "$version")" |
      tar -C "$dir" -x -p --same-owner --numeric-owner --keep-directory-symlink -f -
  done < <(lock_lines "$@")
  rm -rf "$dir"/usr/share/{doc,doc-base,man,info,locale,lintian,bug,menu}
}
