# Helpers shared by the image scripts of tools/images/ (sourced by build.sh; expects root, cache, images).
# shellcheck shell=bash

log() { printf '[tools/images] %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }
bah() { buildah --root "$images/storage" --runroot "$images/runroot" --storage-driver vfs "$@"; }
# a short digest of stdin
digest() { sha256sum | cut -c1-16; }
# digest of the named files' contents (paths relative to the repository)
files_digest() { (cd "$root" && sha256sum "$@") | digest; }
# digest of the named host files' contents and paths (absolute paths)
host_digest() { sha256sum "$@" | digest; }
# the repository's files under the given paths (tracked or new, not ignored)
tree_files() { git -C "$root" ls-files -co --exclude-standard -- "$@" | sort; }
# the tag of an image reference (after the last colon)
tag_of() { printf '%s' "${1##*:}"; }
# shellcheck source=../setup/debian-version.sh
source "$root/tools/setup/debian-version.sh"
# the upstream part of an installed Debian package's version (upstream_of): 15.20-0+deb12u1 → 15.20
debian_upstream() {
  local version
  version=$(dpkg-query -W -f '${Version}' "$1" 2>/dev/null) || fail "the Debian package $1 is not installed (tools/setup/debian-packages.txt)"
  upstream_of "$version"
}
# require_tag NAME REF VERSION: the reference's tag must say which software the image holds
require_tag() {
  [ "$(tag_of "$2")" = "$3" ] ||
    fail "$1: the reference $2 must be tagged $3 (the version this machine builds it from); change the catalog or the software"
}

staging() { local dir="$images/staging/$1"; rm -rf "$dir" && mkdir -p "$dir" && echo "$dir"; }

# the shared libraries (and the dynamic loader) the named ELF files link, absolute paths, one per line;
# a library ldd cannot find fails the build
linked_libraries() {
  local out
  out=$(ldd "$@" 2>/dev/null | grep -v 'not a dynamic executable' || true)
  if grep -q 'not found' <<<"$out"; then fail "unresolved libraries: $(grep 'not found' <<<"$out" | sort -u | tr -s ' \t\n' ' ')"; fi
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $1 !~ /:$/ {print $1}' <<<"$out" | sort -u
}

# copy_host DIR PATH...: host files (or directories) into DIR at the same paths, symlinks followed
copy_host() {
  local dir=$1 path
  shift
  for path in "$@"; do
    mkdir -p "$dir$(dirname "$path")"
    cp -rLT --preserve=mode,timestamps "$path" "$dir$path"
  done
}

# copy_elf DIR FILE...: ELF files into DIR at the same paths, with every library they link
copy_elf() {
  local dir=$1
  shift
  # shellcheck disable=SC2046
  copy_host "$dir" "$@" $(linked_libraries "$@")
}

# base_files DIR "USER:UID:GID:HOME"...: /etc/passwd, /etc/group, a world-writable /tmp, each user's home
base_files() {
  local dir=$1 user name uid gid home
  shift
  mkdir -p "$dir/etc" "$dir/tmp" "$dir/root"
  chmod 1777 "$dir/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$dir/etc/passwd"
  printf 'root:x:0:\n' >"$dir/etc/group"
  for user in "$@"; do
    IFS=: read -r name uid gid home <<<"$user"
    printf '%s:x:%s:%s:%s:%s:/bin/sh\n' "$name" "$uid" "$gid" "$name" "$home" >>"$dir/etc/passwd"
    printf '%s:x:%s:\n' "$name" "$gid" >>"$dir/etc/group"
    mkdir -p "$dir$home" && chown "$uid:$gid" "$dir$home"
  done
}

# shell_tools DIR TOOL...: bash as /bin/sh and /bin/bash plus the named programs from the host's PATH,
# each at /usr/bin/<name> (Debian's usrmerge layout: /bin → usr/bin)
shell_tools() {
  local dir=$1 tool path
  shift
  mkdir -p "$dir/usr/bin" "$dir/usr/lib" "$dir/usr/lib64"
  ln -sfn usr/bin "$dir/bin"
  ln -sfn usr/lib "$dir/lib"
  ln -sfn usr/lib64 "$dir/lib64"
  for tool in bash "$@"; do
    path=$(command -v "$tool") || fail "$tool is not installed on this machine"
    cp -L "$path" "$dir/usr/bin/$tool"
    # shellcheck disable=SC2046
    copy_host "$dir" $(linked_libraries "$path")
  done
  ln -sfn bash "$dir/usr/bin/sh"
}

built=0
# commit_scratch REF ARCHIVE STAGING_DIR [buildah config option...]: an image of exactly STAGING_DIR's
# files with the given configuration (--entrypoint, --cmd, --env, --user, ...), saved to ARCHIVE
commit_scratch() {
  built=1
  local image=$1 archive=$2 staging=$3 ctr
  shift 3
  ctr=$(bah from scratch)
  # through a mount rather than `buildah copy`, which would make every file root's
  tar -C "$staging" -cf - . | tar -C "$(bah mount "$ctr")" -xpf -
  bah umount "$ctr" >/dev/null
  [ $# = 0 ] || bah config "$@" "$ctr"
  bah commit --quiet "$ctr" "$image" >/dev/null
  bah rm "$ctr" >/dev/null
  rm -rf "$staging"
  [ -z "$archive" ] || save "$image" "$archive"
}

# save REF ARCHIVE: the image as a docker archive; older archives of the same image are removed
save() {
  rm -f "$2.tmp"
  bah push --quiet "$1" "docker-archive:$2.tmp:$1"
  rm -f "${2%-*}"-*.tar
  mv "$2.tmp" "$2"
}

# cached NAME HASH: sets ARCHIVE and succeeds when that image's archive already exists
cached() {
  ARCHIVE="$images/$1-$2.tar"
  [ -f "$ARCHIVE" ]
}
