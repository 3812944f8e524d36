#!/usr/bin/env bash
# The real node's local image set: pause, CoreDNS, Slipway (the Dockerfile) and every image of the
# newest release (postgres, MinIO, registry, mlflow, Argo's workflow-controller and argoexec, the python
# step image), built with buildah by tools/images/build.sh into ~/.cache/slipway/images and cached by a
# hash of their inputs (a warm run builds nothing, in seconds). Needs the binaries of 10-kube.sh (CoreDNS)
# and 20-builds-servers.sh (MinIO), the host's buildah (00-debian.sh) and node_modules; the first run
# also downloads the images' Debian packages of tools/images/debian.lock into ~/.cache/slipway/debs,
# builds Argo from its Go module (minutes) and installs mlflow's wheels from PyPI.
# `slipway dev up` imports the images into its containerd.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
node="$root/node_modules/node/bin/node"
[ -x "$node" ] || node=node
exec "$node" "$root/tools/images/local-set.ts"
