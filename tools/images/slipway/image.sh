# shellcheck shell=bash
# ghcr.io/slipway-dev/slipway: the project's Dockerfile, with build arguments for its base and for where
# node_modules, web/dist and dist come from (all made on this machine, below).

# The Slipway image's base: Node from the `node` npm package already in node_modules at /nodejs/bin/node
# as in distroless, with the Debian packages of the libraries it links (libc6, libstdc++6, libgcc-s1 at
# the versions of tools/images/debian.lock: `image slipway:` in tools/setup/debian-packages.txt).
# Chosen over a debootstrapped Debian because it takes seconds; its hash is the binary's and the lock's.
node_base() {
  local node hash dir
  node=$(readlink -f "$root/node_modules/node/bin/node")
  hash=$( (digest <"$node"; files_digest tools/images/lib.sh tools/images/debian.sh tools/images/slipway/image.sh
    lock_lines slipway) | digest)
  NODE_BASE="localhost/slipway/node-base:$hash"
  KEEP_IMAGES+=("$NODE_BASE")
  bah inspect --type image "$NODE_BASE" >/dev/null 2>&1 && return
  log "node base: building $NODE_BASE"
  dir=$(staging node-base)
  debs_extract "$dir" slipway
  mkdir -p "$dir/nodejs/bin" "$dir/etc" "$dir/tmp" "$dir/home/nonroot"
  chmod 1777 "$dir/tmp"
  cp "$node" "$dir/nodejs/bin/node"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$dir/etc/group"
  chown 65532:65532 "$dir/home/nonroot"
  check_libraries "$dir" nodejs
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
