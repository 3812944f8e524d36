#!/usr/bin/env bash
# Writes tools/images/debian.lock from the `image NAME:` lines of tools/setup/debian-packages.txt. For each
# image, apt resolves the dependency closure of its packages (Depends and Pre-Depends, no Recommends) in
# the archive of tools/images/debian.sources, starting from an empty system on which the packages the image
# leaves out (`-name`) count as installed, so neither they nor what only they need are in it. A pinned
# package is at resolve_pin's version (tools/setup/debian-version.sh), every other one at the newest the
# archive serves. The lock gets each package's exact version, the sha256 of its .deb (from the archive's
# signed index) and the images it goes into, and each image's lines as they were read.
#
# Run it (it needs the network, not root) when:
#   - an `image` line of tools/setup/debian-packages.txt changes (build.sh refuses a lock made from other lines);
#   - set-up says Debian no longer serves a version of the lock (Debian replaces a version when it ships a
#     fix). If a pinned package itself moved (postgresql-15 15.20 → 15.21), this script fails naming it:
#     change the pin and the catalog's tag (src/platform/catalog.ts, src/platform/workflow-images.ts,
#     src/builds/config.ts) together; test/unit/setup/image-pins.test.ts checks they agree.
# Then commit the lock. Images whose lines changed are rebuilt (their cache key is their lock lines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
log() { printf '[tools/images/debian-lock] %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }
# shellcheck source=../setup/debian-version.sh
source "$root/tools/setup/debian-version.sh"
# shellcheck source=debian.sh
source "$here/debian.sh"
# resolve_pin's versions are the images' archive's, not the machine's
served_versions() { debian_served_versions "$1"; }

# a dpkg status in which the named packages are installed, with what they provide: apt then takes the
# dependencies on them as met. Each is a version just above the newest served one, so that apt does not
# take it for that archive version, whose own dependencies it would then find missing and install.
left_out_status() {
  local name status
  [ $# -gt 0 ] || return 0
  status=$(debian_apt apt-cache show --no-all-versions "$@" 2>/dev/null |
    awk '/^Version:/ { print $0 "+left.out"; next } /^(Package|Architecture|Provides|Multi-Arch):/ { print }
      /^$/ { print "Status: install ok installed\n" }') || true
  for name in "$@"; do
    grep -qx "Package: $name" <<<"$status" ||
      fail "-$name (tools/setup/debian-packages.txt): no such package in tools/images/debian.sources"
  done
  printf '%s\n' "$status"
}

# closure IMAGE: `package version` of every package apt installs for the image
closure() {
  local image=$1 word name pin version install=() left_out=() status
  for word in $(image_spec "$image"); do
    case $word in
      -*) left_out+=("${word#-}") ;;
      *=*)
        name=${word%%=*} pin=${word#*=}
        version=$(resolve_pin "$name" "$pin") ||
          fail "$image: Debian package $name $pin (tools/setup/debian-packages.txt) is not served by tools/images/debian.sources; pin a version it serves and change the catalog's tag with it"
        install+=("$name=$version")
        ;;
      *) install+=("$word") ;;
    esac
  done
  status=$(mktemp)
  left_out_status "${left_out[@]}" >"$status"
  APT_STATUS=$status debian_apt apt-get install --simulate --no-install-recommends -qq "${install[@]}" >"$status.out" ||
    fail "$image: apt cannot install ${install[*]} from tools/images/debian.sources"
  # "Inst name (version …)"; a left-out package is never in it, and left out again should apt replace it
  sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\{0,1\}(\([^ ]*\) .*/\1 \3/p' "$status.out" |
    awk -v out=" ${left_out[*]} " '!index(out, " " $1 " ")'
  rm -f "$status" "$status.out"
}

log "updating the package lists of tools/images/debian.sources"
debian_apt_update

declare -A version_of images_of
mapfile -t images < <(image_names)
for image in "${images[@]}"; do
  count=0
  resolved=$(closure "$image") || exit 1
  while read -r name version; do
    if [ -n "${version_of[$name]:-}" ] && [ "${version_of[$name]}" != "$version" ]; then
      fail "$name resolves to ${version_of[$name]} for ${images_of[$name]} and to $version for $image"
    fi
    version_of[$name]=$version
    images_of[$name]=${images_of[$name]:+${images_of[$name]},}$image
    count=$((count + 1))
  done <<<"$resolved"
  log "$image: $count packages"
done

# the sha256 of each package's .deb, as the archive's index gives it
declare -A sha_of
specs=()
for name in "${!version_of[@]}"; do specs+=("$name=${version_of[$name]}"); done
while read -r name version sha; do
  if [ "${version_of[$name]:-}" = "$version" ]; then sha_of[$name]=$sha; fi
done < <(debian_apt apt-cache show "${specs[@]}" | awk '/^Package:/ { p = $2 } /^Version:/ { v = $2 } /^SHA256:/ { print p, v, $2 }')

out=$(mktemp "$DEBIAN_LOCK.XXXXXX")
{
  printf '# Written by tools/images/debian-lock.sh from the `image` lines of tools/setup/debian-packages.txt; do not edit.\n'
  printf '# The lines each image was resolved from:\n'
  for image in "${images[@]}"; do printf 'image %s: %s\n' "$image" "$(image_spec "$image")"; done
  printf '# package version sha256-of-its-.deb images\n'
  for name in "${!version_of[@]}"; do
    [ -n "${sha_of[$name]:-}" ] || fail "no sha256 for $name ${version_of[$name]} in the archive's index"
    printf '%s %s %s %s\n' "$name" "${version_of[$name]}" "${sha_of[$name]}" "${images_of[$name]}"
  done | LC_ALL=C sort
} >"$out"
mv "$out" "$DEBIAN_LOCK"
log "wrote tools/images/debian.lock: ${#version_of[@]} packages for ${images[*]}"
