# shellcheck shell=bash
# ghcr.io/slipway-dev/mlflow:<mlflow version>: Slipway's own MLflow image, because the upstream
# ghcr.io/mlflow/mlflow image does not document that it contains a PostgreSQL driver or an S3 client,
# and the platform's tracking server keeps its runs in PostgreSQL and its artifacts in the object store.
# Contents: the python image's root filesystem (Debian's python3.11, python/image.sh) with the packages
# of the libraries the wheels' extension modules link (`image mlflow:` in tools/setup/debian-packages.txt,
# at the versions of tools/images/debian.lock), plus mlflow and its drivers from PyPI
# (mlflow/requirements.txt: every package pinned with its wheel's hash, wheels only) in
# /usr/local/lib/python3.11/dist-packages, their console scripts (mlflow, uvicorn, gunicorn,
# alembic, …) in /usr/local/bin. Entrypoint none, CMD `mlflow server` (pods give the whole command);
# user root; port 5000 (mlflow server's default).
mlflow_image() {
  local image=$1 version packages hash dir
  version=$(sed -n 's/^mlflow==\([^ ]*\) .*/\1/p' "$here/mlflow/requirements.txt")
  require_tag mlflow "$image" "$version"
  packages=$(mlflow_packages)
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/python/image.sh \
    tools/images/mlflow/image.sh tools/images/mlflow/requirements.txt; lock_lines python mlflow) | digest)
  if ! cached mlflow "$hash"; then
    log "mlflow: building $image (mlflow $version on Debian's python3.11 $(lock_version python3.11))"
    dir=$(staging mlflow)
    python_rootfs "$dir" mlflow
    mkdir -p "$dir/usr/local/lib/python3.11" "$dir/usr/local/bin"
    cp -a "$packages" "$dir/usr/local/lib/python3.11/dist-packages"
    rm -rf "$dir/usr/local/lib/python3.11/dist-packages/bin"
    mlflow_scripts "$packages/bin" "$dir/usr/local/bin"
    check_libraries "$dir"
    # byte-compiled by the image's interpreter, so mlflow starts without compiling
    python_compile "$dir" /usr/local/lib/python3.11/dist-packages
    commit_scratch "$image" "$ARCHIVE" "$dir" --cmd '["mlflow","server"]' --env LANG=C.UTF-8 \
      --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --port 5000/tcp
  fi
  echo "$image $ARCHIVE"
}

# The packages of requirements.txt installed (once per requirements.txt) into the cache, for CPython 3.11
# on manylinux x86-64 whatever Python runs pip; prints the directory.
mlflow_packages() {
  local out work
  out="$cache/python/mlflow-$(files_digest tools/images/mlflow/requirements.txt)"
  if [ ! -d "$out" ]; then
    log "mlflow: installing tools/images/mlflow/requirements.txt from PyPI into $out"
    work=$(mktemp -d "$cache/.mlflow.XXXXXX")
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-compile \
      --no-deps --require-hashes --only-binary :all: --target "$work" --python-version 3.11 \
      --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -r "$here/mlflow/requirements.txt" >&2
    mkdir -p "$(dirname "$out")" && mv "$work" "$out"
  fi
  printf '%s' "$out"
}

# mlflow_scripts FROM TO: pip's console scripts, their interpreter line pointed at the image's Python
mlflow_scripts() {
  local script
  for script in "$1"/*; do
    { printf '#!%s\n' "$PYTHON"; tail -n +2 "$script"; } >"$2/$(basename "$script")"
    chmod 755 "$2/$(basename "$script")"
  done
}
