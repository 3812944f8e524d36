# shellcheck shell=bash
# quay.io/minio/minio:RELEASE.<commit time>: the MinIO server tools/setup/20-builds-servers.sh builds from
# its Go module (a static binary) at /usr/bin/minio, as in the official image. MinIO itself reads
# MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (and their *_FILE forms); the official image's entrypoint only
# prepends `minio` to arguments that do not start with it, which this one reproduces without a shell:
# the entrypoint is `minio`, so args `server /data` run `minio server /data` there and here alike
# (an args list that itself starts with `minio` is not supported). Port 9000, volume /data, user root.
minio_image() {
  local image=$1 version binary hash dir
  version=$(sed -n 's/^MINIO_VERSION=//p' "$root/tools/setup/20-builds-servers.sh")
  [ -n "$version" ] || fail "object-store: no MINIO_VERSION in tools/setup/20-builds-servers.sh"
  require_tag object-store "$image" "$(minio_release_tag "$version")"
  binary="$cache/bin/minio-$version/minio"
  [ -x "$binary" ] || "$root/tools/setup/20-builds-servers.sh" >&2
  hash=$( (files_digest tools/images/lib.sh tools/images/minio/image.sh; digest <"$binary") | digest)
  if ! cached object-store "$hash"; then
    log "object-store: building $image from $binary"
    dir=$(staging object-store)
    base_files "$dir"
    mkdir -p "$dir/usr/bin" "$dir/data"
    cp "$binary" "$dir/usr/bin/minio"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["/usr/bin/minio"]' \
      --env PATH=/usr/bin --port 9000/tcp --volume /data
  fi
  echo "$image $ARCHIVE"
}

# the tag MinIO releases carry for a Go pseudo-version: v0.0.0-20260212201848-7aac… → RELEASE.2026-02-12T20-18-48Z
minio_release_tag() {
  local stamp
  stamp=$(cut -d- -f2 <<<"$1")
  printf 'RELEASE.%s-%s-%sT%s-%s-%sZ' "${stamp:0:4}" "${stamp:4:2}" "${stamp:6:2}" "${stamp:8:2}" "${stamp:10:2}" "${stamp:12:2}"
}
