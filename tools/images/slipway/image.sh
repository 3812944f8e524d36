# shellcheck shell=bash
# ghcr.io/slipway-dev/slipway: the project's Dockerfile, with build arguments for its base and for where
# node_modules, web/dist and dist come from (all made on this machine, below).

# The Slipway image's base: Node from the `node` npm package already in node_modules plus the shared
# libraries it links (found by ldd), at /nodejs/bin/node as in distroless. Chosen over a debootstrapped
# Debian because it needs no download, takes seconds, and its hash is the binary's and the libraries'.
node_base() {
  local node libs hash dir lib
  node=$(readlink -f "$root/node_modules/node/bin/node")
  libs=$(linked_libraries "$node")
  # shellcheck disable=SC2086
  hash=$(cat "$node" $libs | digest)
  NODE_BASE="localhost/slipway/node-base:$hash"
  KEEP_IMAGES+=("$NODE_BASE")
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
  commit_scratch "$NODE_BASE" "" "$dir"
}

# /app/node_modules with the production dependencies: a hard-linked copy of node_modules pruned offline.
deps_image() {
  local hash dir
  hash=$(files_digest package.json package-lock.json)
  DEPS_IMAGE="localhost/slipway/deps:$hash"
  KEEP_IMAGES+=("$DEPS_IMAGE")
  bah inspect --type image "$DEPS_IMAGE" >/dev/null 2>&1 && return
  log "deps: building $DEPS_IMAGE"
  dir=$(staging deps)
  mkdir -p "$dir/app"
  cp -al "$(readlink -f "$root/node_modules")" "$dir/app/node_modules"
  cp "$root/package.json" "$root/package-lock.json" "$dir/app/"
  (cd "$dir/app" && npm prune --omit=dev --offline --ignore-scripts --no-audit --no-fund >&2)
  rm "$dir/app/package.json" "$dir/app/package-lock.json"
  commit_scratch "$DEPS_IMAGE" "" "$dir"
}

# /app/web/dist, built on this machine with the dev dependencies already in node_modules.
web_image() {
  local hash dir
  # shellcheck disable=SC2046
  hash=$(files_digest package-lock.json $(tree_files web src))
  WEB_IMAGE="localhost/slipway/web:$hash"
  KEEP_IMAGES+=("$WEB_IMAGE")
  bah inspect --type image "$WEB_IMAGE" >/dev/null 2>&1 && return
  log "web: building $WEB_IMAGE"
  dir=$(staging web)
  (cd "$root" && node_modules/.bin/vite build --config web/vite.config.ts --outDir "$dir/app/web/dist" \
    --emptyOutDir --logLevel warn >&2)
  commit_scratch "$WEB_IMAGE" "" "$dir"
}

# /app/dist, the compiled JavaScript the image runs (`npm run build`, with the TypeScript in node_modules).
dist_image() {
  local hash dir
  # shellcheck disable=SC2046
  hash=$(files_digest package-lock.json tsconfig.json tsconfig.build.json $(tree_files src))
  DIST_IMAGE="localhost/slipway/dist:$hash"
  KEEP_IMAGES+=("$DIST_IMAGE")
  bah inspect --type image "$DIST_IMAGE" >/dev/null 2>&1 && return
  log "dist: building $DIST_IMAGE"
  dir=$(staging dist)
  (cd "$root" && node_modules/.bin/tsc -p tsconfig.build.json --outDir "$dir/app/dist" >&2)
  commit_scratch "$DIST_IMAGE" "" "$dir"
}

slipway_image() {
  local image=$1 hash
  node_base
  deps_image
  web_image
  dist_image
  # shellcheck disable=SC2046
  hash=$( (echo "$NODE_BASE $DEPS_IMAGE $WEB_IMAGE $DIST_IMAGE"
    files_digest Dockerfile .dockerignore tsconfig.json tsconfig.build.json tools/kube/versions.env $(tree_files src deploy)) | digest)
  if ! cached slipway "$hash"; then
    log "slipway: building $image from the Dockerfile"
    bah build --quiet --isolation chroot --pull=never --layers=false \
      --build-arg "BUILD_BASE=$NODE_BASE" --build-arg "RUNTIME_BASE=$NODE_BASE" \
      --build-arg "DEPS_FROM=$DEPS_IMAGE" --build-arg "WEB_FROM=$WEB_IMAGE" --build-arg "DIST_FROM=$DIST_IMAGE" \
      -t "$image" -f "$root/Dockerfile" "$root" >/dev/null
    save "$image" "$ARCHIVE"
    built=1
  fi
  echo "$image $ARCHIVE"
}
