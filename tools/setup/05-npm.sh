#!/usr/bin/env bash
# The npm packages of package-lock.json (npm ci), again only when package.json or the lock changed.
# A fresh clone (CI's) copies them from $SLIPWAY_CACHE/node_modules/<hash>, the tree an earlier `npm ci`
# of the same package.json, lock, npm and platform installed (5 s against 23 s for `npm ci`).
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { printf '[tools/setup/npm] %s\n' "$*" >&2; }
stamp=node_modules/.installed
# npm ci empties node_modules first, also through a link: never in another checkout's packages
if [ -L node_modules ]; then
  log "node_modules links to $(readlink node_modules): left as it is"
  exit 0
fi
if [ -e "$stamp" ] && [ "$stamp" -nt package.json ] && [ "$stamp" -nt package-lock.json ]; then
  log "node_modules up to date"
  exit 0
fi
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}/node_modules
key=$( (cat package.json package-lock.json; npm --version; uname -sm) | sha256sum | cut -c1-16)
cached="$cache/$key"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -e "$cached/.installed" ]; then
  rm -rf node_modules
  cp -a "$cached" node_modules
  touch "$stamp"
  log "node_modules copied from $cached"
  exit 0
fi
log "npm ci"
npm ci --no-audit --no-fund
touch "$stamp"
# kept before anything writes into node_modules (vite's and vitest's caches); complete or not at all
rm -rf "$cached.partial"
cp -a node_modules "$cached.partial"
rm -rf "$cached"
mv "$cached.partial" "$cached"
# one tree per lock: the older ones go
find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
log "done (kept in $cached)"
