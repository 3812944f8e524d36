#!/usr/bin/env bash
# The real KFP SDK, for the test that checks Slipway's KFP IR (issue 17): kfp from PyPI, pinned, in a
# virtual environment in a version-keyed cache, $SLIPWAY_CACHE/kfp-sdk-<version>/, skipped when present.
# test/support/kfp-sdk.ts looks for the same path and the `.installed` marker written last.
set -euo pipefail
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
KFP_VERSION=2.17.3
venv="$cache/kfp-sdk-$KFP_VERSION"

log() { printf '[tools/setup/kfp-sdk] %s\n' "$*" >&2; }

if [ -f "$venv/.installed" ]; then
  log "kfp $KFP_VERSION: cached in $venv"
  exit 0
fi
python=python3.11
command -v "$python" >/dev/null || python=python3
rm -rf "$venv" # an interrupted install
mkdir -p "$cache"
log "kfp $KFP_VERSION: creating $venv with $("$python" --version)"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-input "kfp==$KFP_VERSION"
"$venv/bin/python" -c "import kfp; assert kfp.__version__ == '$KFP_VERSION', kfp.__version__"
touch "$venv/.installed"
log "kfp $KFP_VERSION: done"
