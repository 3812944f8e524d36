#!/usr/bin/env bash
# The official Vertex AI protos, for the Vertex test server's validator (issue 32,
# test/support/fakes/vertex-validator.py): google-cloud-aiplatform from PyPI, pinned, in a virtual
# environment in a version-keyed cache, $SLIPWAY_CACHE/vertex-protos-<version>/, skipped when present.
# Only its message types are used (google.cloud.aiplatform_v1.types), so it is installed without
# its client-library dependencies, with the exact versions of the three its types import (those pip
# resolves for it): a bump of any pin goes with a bump of AIPLATFORM_VERSION, the cache's key.
# test/support/fakes/vertex-validator.ts looks for the same path and the `.installed` marker written last.
set -euo pipefail
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
AIPLATFORM_VERSION=2.7.0
pins=(
  "google-cloud-aiplatform==$AIPLATFORM_VERSION"
  "proto-plus==1.29.0"
  "protobuf==7.36.2"
  "googleapis-common-protos==1.76.0"
)
venv="$cache/vertex-protos-$AIPLATFORM_VERSION"

log() { printf '[tools/setup/vertex-protos] %s\n' "$*" >&2; }

if [ -f "$venv/.installed" ]; then
  log "google-cloud-aiplatform $AIPLATFORM_VERSION: cached in $venv"
  exit 0
fi
python=python3.11
command -v "$python" >/dev/null || python=python3
rm -rf "$venv" # an interrupted install
mkdir -p "$cache"
log "google-cloud-aiplatform $AIPLATFORM_VERSION: creating $venv with $("$python" --version)"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-input --no-deps "${pins[@]}"
"$venv/bin/python" "$(dirname "$0")/../../test/support/fakes/vertex-validator.py" --check
touch "$venv/.installed"
log "google-cloud-aiplatform $AIPLATFORM_VERSION: done"
