#!/usr/bin/env bash
# Argo Workflows' CRDs, from its published Go module (the proxy serves its manifests/ folder), copied
# into a version-keyed cache; nothing of Argo's is committed:
#   $SLIPWAY_CACHE/argo-workflows-<version>/crds/full/*.yaml      with full OpenAPI schemas
#   $SLIPWAY_CACHE/argo-workflows-<version>/crds/minimal/*.yaml   schema-less
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=argo-workflows.env
source "$here/argo-workflows.env"
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
out="$cache/argo-workflows-$ARGO_WORKFLOWS_VERSION/crds"
module=github.com/argoproj/argo-workflows/v4
log() { printf '[tools/setup/argo-crds] %s\n' "$*" >&2; }

if [ -d "$out/full" ] && [ -d "$out/minimal" ]; then
  log "cached in $out"
  exit 0
fi
log "downloading $module@$ARGO_WORKFLOWS_VERSION"
dir=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$module@$ARGO_WORKFLOWS_VERSION" |
  sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -d "$dir/manifests/base/crds/full" ] || { log "error: $dir has no manifests/base/crds/full"; exit 1; }
work=$(mktemp -d "$cache/.argo-crds.XXXXXX")
for variant in full minimal; do
  mkdir -p "$work/$variant"
  cp "$dir/manifests/base/crds/$variant"/argoproj.io_*.yaml "$work/$variant/"
done
mkdir -p "$(dirname "$out")"
rm -rf "$out" && mv "$work" "$out"
chmod -R u+w "$out"
log "done: $out"
