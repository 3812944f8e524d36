# shellcheck shell=bash
# docker.io/library/python:<version>-slim: Debian's python3.11 (the interpreter, its standard library
# and the packages of the libraries its modules link) at Debian's paths, `python3` and `python` on PATH,
# plus bash and coreutils for `sh -c` steps and tzdata: every .deb at the exact version of
# tools/images/debian.lock (`image python:` in tools/setup/debian-packages.txt). The standard library is
# byte-compiled by the image's own interpreter, as Debian's postinst does. What a pipeline step needs
# to run its code and write an output artifact (Argo's emissary executor, copied in by its init
# container, does the upload). As in the official image: CMD python3, LANG C.UTF-8, user root. No pip: a
# step's dependencies belong in its own image (tools/images/mlflow/ builds one that way).
PYTHON=/usr/bin/python3.11
PYTHON_LIB=/usr/lib/python3.11
# the parts of Debian's python3.11 package directory a step never imports (tests, Tk, headers, pip's bootstrap)
PYTHON_LEFT_OUT=(test idlelib tkinter turtledemo ensurepip lib2to3/tests config-3.11-x86_64-linux-gnu)

python_image() {
  local image=$1 version hash dir
  version=$(debian_tag python3.11)
  require_tag python "$image" "$version-slim"
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/python/image.sh; lock_lines python) | digest)
  if ! cached python "$hash"; then
    log "python: building $image from Debian's python3.11 $(lock_version python3.11)"
    dir=$(staging python)
    python_rootfs "$dir"
    check_libraries "$dir"
    commit_scratch "$image" "$ARCHIVE" "$dir" --cmd python3 --env LANG=C.UTF-8 \
      --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  fi
  echo "$image $ARCHIVE"
}

# python_rootfs DIR [IMAGE...]: the python image's packages, and those of the named images, in DIR
python_rootfs() {
  local dir=$1 part
  shift
  debs_extract "$dir" python "$@"
  base_files "$dir"
  ln -sfn bash "$dir/usr/bin/sh"
  for part in "${PYTHON_LEFT_OUT[@]}"; do rm -rf "${dir:?}$PYTHON_LIB/$part"; done
  rm -f "$dir$PYTHON_LIB/lib-dynload/_tkinter"*.so
  ln -sfn python3.11 "$dir/usr/bin/python3"
  ln -sfn python3.11 "$dir/usr/bin/python"
  python_compile "$dir" "$PYTHON_LIB"
}

# python_compile DIR PATH: the modules under PATH byte-compiled by the image's interpreter (in a chroot)
python_compile() {
  chroot "$1" "$PYTHON" -m compileall -q -j 1 "$2" >/dev/null || fail "python: compileall $2 failed"
}
