#!/usr/bin/env bash
# The Debian packages of tools/setup/debian-packages.txt (one per line, `#` comments say why each is
# needed). Only missing ones, or pinned ones at another version, are installed: apt-get update first, then apt-get install, with sudo
# when not root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log() { printf '[tools/setup/debian] %s\n' "$*" >&2; }

# an entry is `name` (any version) or `name=version` (exactly that Debian version: the images that copy
# the package's files are tagged with it, so set-up brings the host to it, downgrading if need be)
mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/debian-packages.txt")
missing=()
for p in "${packages[@]}"; do
  name=${p%%=*}
  if [ "$name" = "$p" ]; then
    dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  else
    [ "$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null)" = "install ok installed ${p#*=}" ] || missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  log "all ${#packages[@]} packages installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { log "error: not root and no sudo: install as root: ${missing[*]}"; exit 1; }
  as_root=(sudo)
fi
log "installing ${missing[*]}${as_root:+ with sudo}: the tests and the demo use them (why each: tools/setup/debian-packages.txt)"
"${as_root[@]}" apt-get update -qq
for p in "${missing[@]}"; do
  [ "${p%%=*}" != "$p" ] || continue
  apt-cache madison "${p%%=*}" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "${p#*=}" ||
    { log "error: Debian package ${p%%=*} version ${p#*=} (tools/setup/debian-packages.txt) is not served by this machine's apt sources"; exit 1; }
done
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --allow-downgrades "${missing[@]}" >/dev/null
log "done"
