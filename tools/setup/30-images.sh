#!/usr/bin/env bash
# The real node's local image set (pause, CoreDNS, Slipway from the Dockerfile), built with buildah into
# ~/.cache/slipway/images and cached by a hash of their inputs (a warm run builds nothing). Needs the
# binaries of 10-kube.sh (CoreDNS) and node_modules. `slipway dev up` imports them into its containerd.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
node="$root/node_modules/node/bin/node"
[ -x "$node" ] || node=node
exec "$node" "$root/tools/images/local-set.ts"
