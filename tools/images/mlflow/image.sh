# shellcheck shell=bash
# ghcr.io/slipway-dev/mlflow:<mlflow version>: Slipway's own MLflow image, because the upstream
# ghcr.io/mlflow/mlflow image does not document that it contains a PostgreSQL driver or an S3 client,
# and the platform's tracking server keeps its runs in PostgreSQL and its artifacts in the object store.
# Contents: the python image's root filesystem (Debian's python3.11, python/image.sh) with the packages
# of the libraries the wheels' extension modules link (`image mlflow:` in tools/setup/debian-packages.txt,
# at the versions of tools/images/debian.lock), plus mlflow and its drivers from PyPI
# (mlflow/requirements.txt: every package pinned with its wheel's hash, wheels only; installed by the
# pip of mlflow/installer.txt, pinned the same way) in
# /usr/local/lib/python3.11/dist-packages, their console scripts (mlflow, uvicorn, gunicorn,
# alembic, …) in /usr/local/bin. Entrypoint none, CMD `mlflow server` (pods give the whole command);
# user root; port 5000 (mlflow server's default).
mlflow_image() {
  local image=$1 version packages hash dir
  version=$(sed -n 's/^mlflow==\([^ ]*\) .*/\1/p' "$here/mlflow/requirements.txt")
  require_tag mlflow "$image" "$version"
  packages=$(mlflow_packages)
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/python/image.sh \
    tools/images/mlflow/image.sh tools/images/mlflow/requirements.txt tools/images/mlflow/installer.txt
    lock_lines python mlflow) | digest)
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

# The packages of requirements.txt installed (once per requirements.txt and installer.txt) into the
# cache by the pinned pip of installer.txt, for CPython 3.11 on manylinux x86-64 whatever Python runs it;
# prints the directory.
mlflow_packages() {
  local out work pip
  out="$cache/python/mlflow-$(files_digest tools/images/mlflow/requirements.txt tools/images/mlflow/installer.txt)"
  if [ ! -d "$out" ]; then
    pip=$(mlflow_installer)
    log "mlflow: installing tools/images/mlflow/requirements.txt from PyPI into $out with $(basename "$pip")"
    work=$(mktemp -d "$cache/.mlflow.XXXXXX")
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 "$pip/pip" install --quiet --disable-pip-version-check --no-input --root-user-action=ignore \
      --no-compile --no-deps --require-hashes --only-binary :all: --target "$work" --python-version 3.11 \
      --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -r "$here/mlflow/requirements.txt" >&2
    mkdir -p "$(dirname "$out")" && mv "$work" "$out"
  fi
  printf '%s' "$out"
}

# The wheel of installer.txt's pip, downloaded once (checked against its hash) into the cache; pip runs
# from its wheel (`python3 pip-<version>-py3-none-any.whl/pip`). Prints the wheel's path.
mlflow_installer() {
  local out work
  out="$cache/python/installer-$(files_digest tools/images/mlflow/installer.txt)"
  if [ ! -d "$out" ]; then
    work=$(mktemp -d "$cache/.installer.XXXXXX")
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip download --quiet --disable-pip-version-check --no-input --no-deps \
      --require-hashes --only-binary :all: -d "$work" -r "$here/mlflow/installer.txt" >&2 ||
      fail "mlflow: could not download the pip of tools/images/mlflow/installer.txt from PyPI"
    mkdir -p "$(dirname "$out")" && mv "$work" "$out"
  fi
  printf '%s' "$out"/pip-*.whl
}

# mlflow_scripts FROM TO: pip's console scripts, their interpreter line pointed at the image's Python
mlflow_scripts() {
  local script
  for script in "$1"/*; do
    { printf '#!%s\n' "$PYTHON"; tail -n +2 "$script"; } >"$2/$(basename "$script")"
    chmod 755 "$2/$(basename "$script")"
  done
}
