# shellcheck shell=bash
# docker.io/library/registry:<version>: Debian's docker-registry (the Distribution registry) as
# /bin/registry, the official image's default configuration at /etc/docker/registry/config.yml
# (filesystem storage at /var/lib/registry, listening on :5000) and its entrypoint, so the documented
# REGISTRY_* environment overrides (htpasswd auth, storage, http) work as they do there. Runs as root,
# port 5000, volume /var/lib/registry; bash stands in for the official image's busybox sh. Every .deb
# at the exact version of tools/images/debian.lock (`image registry:` in tools/setup/debian-packages.txt).
registry_image() {
  local image=$1 version hash dir
  version=$(debian_tag docker-registry)
  require_tag registry "$image" "$version"
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/registry/image.sh \
    tools/images/registry/config.yml tools/images/registry/entrypoint.sh; lock_lines registry) | digest)
  if ! cached registry "$hash"; then
    log "registry: building $image from Debian's docker-registry $(lock_version docker-registry)"
    dir=$(staging registry)
    debs_extract "$dir" registry
    base_files "$dir"
    ln -sfn bash "$dir/usr/bin/sh"
    mv "$dir/usr/bin/docker-registry" "$dir/usr/bin/registry"
    # Debian's service files and configuration give way to the official image's
    rm -rf "$dir/etc/init.d" "$dir/etc/default" "$dir/usr/lib/systemd" "$dir/etc/docker/registry"
    mkdir -p "$dir/etc/docker/registry" "$dir/var/lib/registry"
    cp "$here/registry/config.yml" "$dir/etc/docker/registry/config.yml"
    cp "$here/registry/entrypoint.sh" "$dir/entrypoint.sh"
    check_libraries "$dir"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["/entrypoint.sh"]' \
      --cmd /etc/docker/registry/config.yml --env PATH=/usr/local/bin:/usr/bin:/bin --port 5000/tcp \
      --volume /var/lib/registry
  fi
  echo "$image $ARCHIVE"
}
