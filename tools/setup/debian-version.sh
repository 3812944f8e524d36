# Debian version rules shared by tools/setup/00-debian.sh and tools/images/lib.sh (sourced).
# shellcheck shell=bash

# the upstream part of a Debian version: 1:15.20-0+deb12u1 → 15.20, 2.8.2+ds1-1 → 2.8.2,
# 1.28.2+ds1-3+deb12u1+b3 → 1.28.2 (epoch, Debian revision and repack suffix dropped)
upstream_of() {
  local version=${1#*:}
  version=${version%-*}
  printf '%s' "${version%%+*}"
}

# the versions of package $1 the apt sources serve, one per line (from the local package lists)
served_versions() { apt-cache madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}'; }

# resolve_pin NAME PIN: the exact Debian version a pin of tools/setup/debian-packages.txt stands for,
# among those served; nothing (and status 1) when none is.
#   PIN with a `-` (a Debian revision): exactly that version
#   PIN = newest: the newest served version
#   otherwise an upstream version: the newest served revision of it (Debian's security fixes of the
#   same software; the image tags name the upstream version)
resolve_pin() {
  local name=$1 pin=$2 best="" version
  while read -r version; do
    [ -n "$version" ] || continue
    if [ "$pin" != newest ]; then
      if [[ $pin == *-* ]]; then [ "$version" = "$pin" ] || continue
      else [ "$(upstream_of "$version")" = "$pin" ] || continue; fi
    fi
    if [ -z "$best" ] || dpkg --compare-versions "$version" gt "$best"; then best=$version; fi
  done < <(served_versions "$name")
  [ -n "$best" ] && printf '%s' "$best"
}
