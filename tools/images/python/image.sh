# shellcheck shell=bash
# docker.io/library/python:<version>-slim: Debian's python3.11 (the interpreter, its standard library
# and the shared libraries its modules link) at Debian's paths, `python3` and `python` on PATH, plus
# bash and a few coreutils for `sh -c` steps. What a pipeline step needs to run its code and write an
# output artifact (Argo's emissary executor, copied in by its init container, does the upload). As in the
# official image: CMD python3, LANG C.UTF-8, user root. No pip: a step's dependencies belong in its own
# image (tools/images/mlflow/ builds one that way).
PYTHON=/usr/bin/python3.11
PYTHON_LIB=/usr/lib/python3.11
# the parts of Debian's python3.11 package directory a step never imports (tests, Tk, headers, pip's bootstrap)
PYTHON_LEFT_OUT=(test idlelib tkinter turtledemo ensurepip lib2to3/tests config-3.11-x86_64-linux-gnu)

python_image() {
  local image=$1 version hash dir
  version=$(debian_upstream python3.11)
  require_tag python "$image" "$version-slim"
  hash=$( (files_digest tools/images/lib.sh tools/images/python/image.sh; python_digest) | digest)
  if ! cached python "$hash"; then
    log "python: building $image from Debian's python3.11 $version"
    dir=$(staging python)
    python_rootfs "$dir"
    commit_scratch "$image" "$ARCHIVE" "$dir" --cmd python3 --env LANG=C.UTF-8 \
      --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  fi
  echo "$image $ARCHIVE"
}

# the interpreter's and its modules' ELF files
python_elves() { printf '%s\n' "$PYTHON"; find "$PYTHON_LIB/lib-dynload" -name '*.so' ! -name '_tkinter*' | sort; }

# a digest of everything python_rootfs copies
python_digest() {
  local elves
  elves=$(python_elves)
  # shellcheck disable=SC2046,SC2086
  (host_digest $elves $(linked_libraries $elves) "$(command -v bash)"
    dpkg-query -W python3.11 libpython3.11-stdlib libpython3.11-minimal tzdata) | digest
}

python_rootfs() {
  local dir=$1 part
  base_files "$dir"
  shell_tools "$dir" cat ls mkdir rm cp mv env sleep
  # shellcheck disable=SC2046
  copy_elf "$dir" $(python_elves)
  copy_host "$dir" "$PYTHON_LIB" /usr/share/zoneinfo
  for part in "${PYTHON_LEFT_OUT[@]}"; do rm -rf "${dir:?}$PYTHON_LIB/$part"; done
  rm -f "$dir$PYTHON_LIB/lib-dynload/_tkinter"*.so
  ln -sfn python3.11 "$dir/usr/bin/python3"
  ln -sfn python3.11 "$dir/usr/bin/python"
}
