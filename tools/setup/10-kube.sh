#!/usr/bin/env bash
# The local control plane's binaries (cached in ~/.cache/slipway/bin; a warm run builds nothing).
exec "$(dirname "$0")/../kube/build.sh"
