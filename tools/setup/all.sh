#!/usr/bin/env bash
# Everything `make demo`, `make test` and CI (.ci/run) need on a fresh Debian/Ubuntu machine with Go
# and Node: every tools/setup/NN-*.sh, in order. Each step prints what it does and skips what is
# already there, so a warm run takes about a second.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
started=$(date +%s)
for script in "$here"/[0-9][0-9]-*.sh; do
  bash "$script"
done
printf '[tools/setup] ready (%ss)\n' "$(( $(date +%s) - started ))" >&2
