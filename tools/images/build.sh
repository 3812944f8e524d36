#!/usr/bin/env bash
# The real node's local image set (issue 13), built with buildah (vfs storage; nothing is pulled and no
# RUN step needs a network) into docker archives tagged with the exact references pods use:
#   $SLIPWAY_CACHE/images/<name>-<hash>.tar      (SLIPWAY_CACHE defaults to ~/.cache/slipway)
# <hash> covers every input of the image; an archive already there is not rebuilt, so a warm run builds
# nothing. Usage: build.sh pause=REF coredns=REF slipway=REF   (src/dev/local-images.ts passes them)
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

log() { printf '[tools/images] %s\n' "$*" >&2; }
bah() { buildah --root "$images/storage" --runroot "$images/runroot" --storage-driver vfs "$@"; }
# a short digest of stdin
digest() { sha256sum | cut -c1-16; }
# digest of the named files' contents (paths relative to the repository)
files_digest() { (cd "$root" && sha256sum "$@") | digest; }
# the repository's files under the given paths (tracked or new, not ignored)
tree_files() { git -C "$root" ls-files -co --exclude-standard -- "$@" | sort; }

declare -A ref
for arg in "$@"; do ref[${arg%%=*}]=${arg#*=}; done
for name in pause coredns slipway; do
  [ -n "${ref[$name]:-}" ] || { log "usage: build.sh pause=REF coredns=REF slipway=REF (missing $name)"; exit 2; }
done

# commit_scratch REF ARCHIVE ENTRYPOINT_JSON STAGING_DIR: an image of exactly STAGING_DIR's files.
built=0
commit_scratch() {
  built=1
  local image=$1 archive=$2 entrypoint=$3 staging=$4 ctr
  ctr=$(bah from scratch)
  bah copy --quiet "$ctr" "$staging" / >/dev/null
  [ -z "$entrypoint" ] || bah config --entrypoint "$entrypoint" "$ctr"
  bah commit --quiet "$ctr" "$image" >/dev/null
  bah rm "$ctr" >/dev/null
  rm -rf "$staging"
  [ -z "$archive" ] || save "$image" "$archive"
}

# save REF ARCHIVE: the image as a docker archive; older archives of the same image are removed
save() {
  rm -f "$2.tmp"
  bah push --quiet "$1" "docker-archive:$2.tmp:$1"
  rm -f "${2%-*}"-*.tar
  mv "$2.tmp" "$2"
}

staging() { local dir="$images/staging/$1"; rm -rf "$dir" && mkdir -p "$dir" && echo "$dir"; }

pause_image() {
  local hash archive dir
  hash=$( (files_digest tools/images/pause/main.go tools/images/pause/go.mod; go version) | digest)
  archive="$images/pause-$hash.tar"
  if [ ! -f "$archive" ]; then
    log "pause: building ${ref[pause]}"
    dir=$(staging pause)
    (cd "$here/pause" && go build -trimpath -ldflags "-s -w" -o "$dir/pause" .)
    commit_scratch "${ref[pause]}" "$archive" '["/pause"]' "$dir"
  fi
  echo "${ref[pause]} $archive"
}

coredns_image() {
  local binary="$cache/bin/coredns-$COREDNS_VERSION/coredns" hash archive dir
  [ -x "$binary" ] || "$root/tools/kube/build.sh" coredns >&2
  hash=$(digest <"$binary")
  archive="$images/coredns-$hash.tar"
  if [ ! -f "$archive" ]; then
    log "coredns: building ${ref[coredns]}"
    dir=$(staging coredns)
    cp "$binary" "$dir/coredns"
    commit_scratch "${ref[coredns]}" "$archive" '["/coredns"]' "$dir"
  fi
  echo "${ref[coredns]} $archive"
}

# The Slipway image's base: Node from the `node` npm package already in node_modules plus the shared
# libraries it links (found by ldd), at /nodejs/bin/node as in distroless. Chosen over a debootstrapped
# Debian because it needs no download, takes seconds, and its hash is the binary's and the libraries'.
node_base() {
  local node libs hash dir lib
  node=$(readlink -f "$root/node_modules/node/bin/node")
  libs=$(ldd "$node" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)
  # shellcheck disable=SC2086
  hash=$(cat "$node" $libs | digest)
  NODE_BASE="localhost/slipway/node-base:$hash"
  bah inspect --type image "$NODE_BASE" >/dev/null 2>&1 && return
  log "node base: building $NODE_BASE"
  dir=$(staging node-base)
  mkdir -p "$dir/nodejs/bin" "$dir/etc" "$dir/tmp" "$dir/home/nonroot"
  chmod 1777 "$dir/tmp"
  cp "$node" "$dir/nodejs/bin/node"
  for lib in $libs; do mkdir -p "$dir$(dirname "$lib")" && cp -L "$lib" "$dir$lib"; done
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$dir/etc/group"
  chown 65532:65532 "$dir/home/nonroot"
  commit_scratch "$NODE_BASE" "" "" "$dir"
}

# /app/node_modules with the production dependencies: a hard-linked copy of node_modules pruned offline.
deps_image() {
  local hash dir
  hash=$(files_digest package.json package-lock.json)
  DEPS_IMAGE="localhost/slipway/deps:$hash"
  bah inspect --type image "$DEPS_IMAGE" >/dev/null 2>&1 && return
  log "deps: building $DEPS_IMAGE"
  dir=$(staging deps)
  mkdir -p "$dir/app"
  cp -al "$(readlink -f "$root/node_modules")" "$dir/app/node_modules"
  cp "$root/package.json" "$root/package-lock.json" "$dir/app/"
  (cd "$dir/app" && npm prune --omit=dev --offline --ignore-scripts --no-audit --no-fund >&2)
  rm "$dir/app/package.json" "$dir/app/package-lock.json"
  commit_scratch "$DEPS_IMAGE" "" "" "$dir"
}

# /app/web/dist, built on this machine with the dev dependencies already in node_modules.
web_image() {
  local hash dir
  # shellcheck disable=SC2046
  hash=$(files_digest package-lock.json $(tree_files web src))
  WEB_IMAGE="localhost/slipway/web:$hash"
  bah inspect --type image "$WEB_IMAGE" >/dev/null 2>&1 && return
  log "web: building $WEB_IMAGE"
  dir=$(staging web)
  (cd "$root" && node_modules/.bin/vite build --config web/vite.config.ts --outDir "$dir/app/web/dist" \
    --emptyOutDir --logLevel warn >&2)
  commit_scratch "$WEB_IMAGE" "" "" "$dir"
}

slipway_image() {
  node_base
  deps_image
  web_image
  local hash archive
  # shellcheck disable=SC2046
  hash=$( (echo "$NODE_BASE $DEPS_IMAGE $WEB_IMAGE"
    files_digest Dockerfile .dockerignore tsconfig.json tools/kube/versions.env $(tree_files src deploy)) | digest)
  archive="$images/slipway-$hash.tar"
  if [ ! -f "$archive" ]; then
    log "slipway: building ${ref[slipway]} from the Dockerfile"
    bah build --quiet --isolation chroot --pull=never --layers=false \
      --build-arg "BUILD_BASE=$NODE_BASE" --build-arg "RUNTIME_BASE=$NODE_BASE" \
      --build-arg "DEPS_FROM=$DEPS_IMAGE" --build-arg "WEB_FROM=$WEB_IMAGE" \
      -t "${ref[slipway]}" -f "$root/Dockerfile" "$root" >/dev/null
    save "${ref[slipway]}" "$archive"
    built=1
  fi
  echo "${ref[slipway]} $archive"
}

# drops the intermediate images of earlier inputs (vfs keeps a full copy of each) and dangling layers
prune() {
  local keep=" $NODE_BASE $DEPS_IMAGE $WEB_IMAGE " image
  for image in $(bah images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/slipway/' || true); do
    [[ $keep == *" $image "* ]] || bah rmi "$image" >/dev/null 2>&1 || true
  done
  bah rmi --prune >/dev/null 2>&1 || true
}

pause_image
coredns_image
slipway_image
source "$here/buildah-image.sh" && buildah_image
[ $built = 0 ] || prune
