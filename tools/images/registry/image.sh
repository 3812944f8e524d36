# shellcheck shell=bash
# docker.io/library/registry:<version>: Debian's docker-registry (the Distribution registry) as
# /bin/registry, the official image's default configuration at /etc/docker/registry/config.yml
# (filesystem storage at /var/lib/registry, listening on :5000) and its entrypoint, so the documented
# REGISTRY_* environment overrides (htpasswd auth, storage, http) work as they do there. Runs as root,
# port 5000, volume /var/lib/registry; bash stands in for the official image's busybox sh.
registry_image() {
  local image=$1 version binary=/usr/bin/docker-registry hash dir
  version=$(debian_upstream docker-registry)
  require_tag registry "$image" "$version"
  hash=$( (files_digest tools/images/lib.sh tools/images/registry/image.sh tools/images/registry/config.yml \
    tools/images/registry/entrypoint.sh
    host_digest "$binary" "$(command -v bash)" $(linked_libraries "$binary" "$(command -v bash)")) | digest)
  if ! cached registry "$hash"; then
    log "registry: building $image from Debian's docker-registry $version"
    dir=$(staging registry)
    base_files "$dir"
    shell_tools "$dir"
    copy_elf "$dir" "$binary"
    mv "$dir$binary" "$dir/usr/bin/registry"
    mkdir -p "$dir/etc/docker/registry" "$dir/var/lib/registry"
    cp "$here/registry/config.yml" "$dir/etc/docker/registry/config.yml"
    cp "$here/registry/entrypoint.sh" "$dir/entrypoint.sh"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["/entrypoint.sh"]' \
      --cmd /etc/docker/registry/config.yml --env PATH=/usr/local/bin:/usr/bin:/bin --port 5000/tcp \
      --volume /var/lib/registry
  fi
  echo "$image $ARCHIVE"
}
