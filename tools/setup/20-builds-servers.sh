#!/usr/bin/env bash
# Real servers for the image-build tests (issue 5), built from the Go module proxy into a version-keyed cache:
#   $SLIPWAY_CACHE/bin/minio-<version>/minio                       a real S3 server
#   $SLIPWAY_CACHE/bin/fake-gcs-server-<version>/fake-gcs-server   a GCS emulator
# Neither module has `replace` directives, so `go install module@version` builds them as published.
# A tool already in the cache is skipped. The Docker registry (docker-registry), htpasswd (apache2-utils)
# and buildah come from Debian (tools/setup/debian-packages.txt).
set -euo pipefail
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
FAKE_GCS_VERSION=v1.56.1

log() { printf '[tools/setup/builds] %s\n' "$*" >&2; }

# install DIR BINARY MODULE@VERSION
install() {
  local out="$cache/bin/$1"
  if [ -x "$out/$2" ]; then log "$1: cached in $out"; return; fi
  mkdir -p "$out"
  log "$1: building $3"
  GOBIN="$out" go install -trimpath -ldflags "-s -w" "$3"
  log "$1: done"
}

install "minio-$MINIO_VERSION" minio "github.com/minio/minio@$MINIO_VERSION"
install "fake-gcs-server-$FAKE_GCS_VERSION" fake-gcs-server "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION"
