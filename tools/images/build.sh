#!/usr/bin/env bash
# The real node's local image set (issues 13 and 14), built with buildah (vfs storage; nothing is pulled
# and no RUN step needs a network) into docker archives tagged with the exact references pods use:
#   $SLIPWAY_CACHE/images/<name>-<hash>.tar      (SLIPWAY_CACHE defaults to ~/.cache/slipway)
# <hash> covers every input of the image; an archive already there is not rebuilt, so a warm run builds
# nothing. One script per image, <name>/image.sh, says what the image holds and which contract it keeps.
# Usage: build.sh NAME=REF...   for every name of $names (src/dev/real-node/images.ts passes them)
# Prints "<reference> <archive>" per image, the lines `slipway dev up` imports into the node's containerd.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../kube/versions.env
source "$root/tools/kube/versions.env"
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
images="$cache/images"
mkdir -p "$images"
exec 9>"$images/.build.lock"
flock 9
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
# the project's Node 24 (the `node` devDependency) for vite and npm, not whatever node is on PATH
export PATH="$root/node_modules/node/bin:$PATH"

# shellcheck source=lib.sh
source "$here/lib.sh"
names=(pause coredns slipway postgres object-store registry mlflow workflow-controller argoexec python buildah)
# object-store is minio/, workflow-controller and argoexec are argo/
for script in pause coredns slipway postgres minio registry python mlflow argo buildah; do
  # shellcheck source=/dev/null
  source "$here/$script/image.sh"
done

declare -A ref
for arg in "$@"; do ref[${arg%%=*}]=${arg#*=}; done
for name in "${names[@]}"; do
  [ -n "${ref[$name]:-}" ] || { log "usage: build.sh ${names[*]/%/=REF} (missing $name)"; exit 2; }
done

# drops the intermediate images of earlier inputs (vfs keeps a full copy of each) and dangling layers
prune() {
  local keep=" ${KEEP_IMAGES[*]} " image
  for image in $(bah images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/slipway/' || true); do
    [[ $keep == *" $image "* ]] || bah rmi "$image" >/dev/null 2>&1 || true
  done
  bah rmi --prune >/dev/null 2>&1 || true
}

KEEP_IMAGES=()
pause_image "${ref[pause]}"
coredns_image "${ref[coredns]}"
slipway_image "${ref[slipway]}"
postgres_image "${ref[postgres]}"
minio_image "${ref[object-store]}"
registry_image "${ref[registry]}"
python_image "${ref[python]}"
mlflow_image "${ref[mlflow]}"
workflow_controller_image "${ref[workflow-controller]}"
argoexec_image "${ref[argoexec]}"
buildah_image
[ "$built" = 0 ] || prune
