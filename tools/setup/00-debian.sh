#!/usr/bin/env bash
# The host's Debian packages of tools/setup/debian-packages.txt (one per line, `#` comments say why each
# is needed), with sudo when not root: the programs this machine runs. An entry is `name` (any version)
# or `name=PIN` (PIN is an upstream version, `newest`, or an exact Debian version;
# tools/setup/debian-version.sh resolve_pin says which version each stands for). A pinned package is
# brought to exactly that version, upgrading or downgrading what is installed; a pin no apt source serves
# fails set-up in one line naming the package and the pin. Pins are resolved from the local package
# lists; when anything is to be installed, `apt-get update` runs first and they are resolved again.
# The `image NAME:` lines are the images' contents, never installed here (tools/images/debian.sh
# downloads their exact .debs when the images are built).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=debian-version.sh
source "$here/debian-version.sh"
log() { printf '[tools/setup/debian] %s\n' "$*" >&2; }

mapfile -t packages < <(sed -e '/^image[[:space:]]/d' -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/debian-packages.txt")
installed_version() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | sed -n 's/^install ok installed //p'; }

# what apt-get install needs to bring the host to the list (name or name=version), one per line;
# with $1 = strict, a pin no source serves is an error
to_install() {
  local p name pin want
  for p in "${packages[@]}"; do
    name=${p%%=*}
    if [ "$name" = "$p" ]; then
      [ -n "$(installed_version "$name")" ] || echo "$name"
      continue
    fi
    pin=${p#*=}
    if ! want=$(resolve_pin "$name" "$pin"); then
      if [ "$1" = strict ]; then
        log "error: Debian package $name $pin (tools/setup/debian-packages.txt) is not served by this machine's apt sources"
        return 1
      fi
      echo "$name=$pin"
      continue
    fi
    [ "$(installed_version "$name")" = "$want" ] || echo "$name=$want"
  done
}

mapfile -t missing < <(to_install lenient)
if [ ${#missing[@]} -eq 0 ]; then
  log "all ${#packages[@]} packages installed at their pinned versions"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { log "error: not root and no sudo: install as root: ${missing[*]}"; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -qq
missing_text=$(to_install strict) || exit 1
mapfile -t missing <<<"$missing_text"
[ -n "${missing[0]:-}" ] || { log "all ${#packages[@]} packages installed at their pinned versions"; exit 0; }
log "installing ${missing[*]}${as_root:+ with sudo}: the tests and the demo use them (why each: tools/setup/debian-packages.txt)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --allow-downgrades "${missing[@]}" >/dev/null
log "done"
