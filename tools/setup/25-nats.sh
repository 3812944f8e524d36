#!/usr/bin/env bash
# A real NATS server for the run-completion event tests (issue 18), built from the Go module proxy into
# a version-keyed cache:
#   $SLIPWAY_CACHE/bin/nats-server-<version>/nats-server
# The module has no `replace` directives, so `go install module@version` builds it as published.
# Already in the cache: skipped. Without it the NATS sink test is skipped and says to run this script.
set -euo pipefail
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
NATS_SERVER_VERSION=v2.15.2

log() { printf '[tools/setup/nats] %s\n' "$*" >&2; }

out="$cache/bin/nats-server-$NATS_SERVER_VERSION"
if [ -x "$out/nats-server" ]; then log "cached in $out"; exit 0; fi
mkdir -p "$out"
log "building github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION"
GOBIN="$out" go install -trimpath -ldflags "-s -w" "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION"
log "done"
