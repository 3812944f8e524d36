# Helpers shared by the image scripts of tools/images/ (sourced by build.sh; expects root, cache, images).
# shellcheck shell=bash

log() { printf '[tools/images] %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }
bah() { buildah --root "$images/storage" --runroot "$images/runroot" --storage-driver vfs "$@"; }
# a short digest of stdin
digest() { sha256sum | cut -c1-16; }
# digest of the named files' contents (paths relative to the repository)
files_digest() { (cd "$root" && sha256sum "$@") | digest; }
# the repository's files under the given paths (tracked or new, not ignored)
tree_files() { git -C "$root" ls-files -co --exclude-standard -- "$@" | sort; }
# the tag of an image reference (after the last colon)
tag_of() { printf '%s' "${1##*:}"; }
# shellcheck source=../setup/debian-version.sh
source "$root/tools/setup/debian-version.sh"
# shellcheck source=debian.sh
source "$root/tools/images/debian.sh"
# debian_tag PACKAGE: the upstream part of its version in tools/images/debian.lock: 15.20-0+deb12u1 → 15.20
debian_tag() {
  local version
  version=$(lock_version "$1")
  [ -n "$version" ] || fail "the Debian package $1 is not in tools/images/debian.lock (tools/setup/debian-packages.txt, tools/images/debian-lock.sh)"
  upstream_of "$version"
}
# require_tag NAME REF VERSION: the reference's tag must say which software the image holds
require_tag() {
  [ "$(tag_of "$2")" = "$3" ] ||
    fail "$1: the reference $2 must be tagged $3 (the version of the software it is built from); change the catalog or the pin"
}

staging() { local dir="$images/staging/$1"; rm -rf "$dir" && mkdir -p "$dir" && echo "$dir"; }

# check_libraries DIR [PATH...]: every ELF program and shared library under DIR/usr (and the other PATHs
# of DIR) finds each library it links in DIR itself: the image's own dynamic loader lists them in a chroot
# of DIR (no ld.so.cache, as in the image). A library found nowhere fails the build, naming it and who links it. The libraries a Python
# wheel bundles (<package>.libs/, auditwheel's) are checked through the modules that load them.
check_libraries() {
  local dir=$1 file magic lib missing=()
  shift
  [ -f "$dir/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] || fail "check_libraries: $dir has no dynamic loader"
  while IFS= read -r -d '' file; do
    LC_ALL=C read -r -n 4 magic <"$dir/$file" 2>/dev/null || true
    [ "$magic" = $'\x7fELF' ] || continue
    # "lib => not found", or the loader's "error while loading shared libraries: lib: cannot open…"
    while read -r lib; do missing+=("/$file: $lib"); done < <(chroot "$dir" /usr/lib64/ld-linux-x86-64.so.2 --list "/$file" 2>&1 |
      sed -n -e 's/^\s*\(\S*\) => not found.*/\1/p' -e 's/.*error while loading shared libraries: \([^:]*\):.*/\1/p')
  done < <(cd "$dir" && find usr "$@" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) ! -path '*.libs/*' -print0)
  [ ${#missing[@]} = 0 ] || fail "libraries not in the image: ${missing[*]}"
}

# ca_bundle DIR: DIR/etc/ssl/certs/ca-certificates.crt from the certificates of the ca-certificates
# package unpacked in DIR, as its postinst makes it by default (every certificate, by name, each ending in
# a newline); the certificate files and the package's update tool are then removed
ca_bundle() {
  local dir=$1 cert
  [ -d "$dir/usr/share/ca-certificates" ] || fail "ca_bundle: ca-certificates is not unpacked in $dir"
  mkdir -p "$dir/etc/ssl/certs"
  (cd "$dir/usr/share/ca-certificates" && find . -type f -name '*.crt' -printf '%P\n' | LC_ALL=C sort) |
    while read -r cert; do sed -e '$a\' "$dir/usr/share/ca-certificates/$cert"; done >"$dir/etc/ssl/certs/ca-certificates.crt"
  rm -rf "$dir/usr/share/ca-certificates" "$dir/usr/sbin/update-ca-certificates" "$dir/etc/ca-certificates"
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
