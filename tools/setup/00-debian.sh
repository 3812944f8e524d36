#!/usr/bin/env bash
# The Debian packages of tools/setup/debian-packages.txt (one per line, `#` comments say why each is
# needed). Only missing ones are installed: apt-get update first, then apt-get install, with sudo
# when not root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log() { printf '[tools/setup/debian] %s\n' "$*" >&2; }

mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/debian-packages.txt")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
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
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "done"
