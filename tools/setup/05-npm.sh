#!/usr/bin/env bash
# The npm packages of package-lock.json (npm ci), again only when package.json or the lock changed.
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
log "npm ci"
npm ci --no-audit --no-fund
touch "$stamp"
log "done"
