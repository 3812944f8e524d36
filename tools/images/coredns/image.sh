# shellcheck shell=bash
# registry.k8s.io/coredns/coredns: the CoreDNS binary built by tools/kube/build.sh, nothing else.
coredns_image() {
  local image=$1 binary="$cache/bin/coredns-$COREDNS_VERSION/coredns" hash dir
  [ -x "$binary" ] || "$root/tools/kube/build.sh" coredns >&2
  hash=$( (digest <"$binary"; files_digest tools/images/coredns/image.sh) | digest)
  if ! cached coredns "$hash"; then
    log "coredns: building $image"
    dir=$(staging coredns)
    cp "$binary" "$dir/coredns"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["/coredns"]'
  fi
  echo "$image $ARCHIVE"
}
