# shellcheck shell=bash
# registry.k8s.io/pause: tools/images/pause/main.go, a static Go program (the sandbox of every pod).
pause_image() {
  local image=$1 hash dir
  hash=$( (files_digest tools/images/pause/main.go tools/images/pause/go.mod tools/images/pause/image.sh; go version) | digest)
  if ! cached pause "$hash"; then
    log "pause: building $image"
    dir=$(staging pause)
    (cd "$here/pause" && go build -trimpath -ldflags "-s -w" -o "$dir/pause" .)
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["/pause"]'
  fi
  echo "$image $ARCHIVE"
}
