# shellcheck shell=bash
# The in-cluster buildah backend's image (docs/builds.md, "The buildah Job"), sourced by build.sh, which
# provides ref[buildah], bah, log, digest, staging, commit_scratch. Debian's buildah 1.28 with the shared
# libraries it links, copied from this machine's packages (nothing is downloaded), set up for buildah's
# documented rootless mode in a pod (docs/tutorials/05-openshift-rootless-build.md in buildah's repository):
# a non-root user `build` (uid 1000) with subordinate id ranges in /etc/subuid and /etc/subgid, Debian's
# newuidmap/newgidmap with file capabilities to map them (the pod keeps only SETUID and SETGID), BUILDAH_ISOLATION=chroot
# and vfs storage (the Job also passes both as flags). It also holds Debian's awscli (with its Python),
# the command the Job's `fetch-artifact` step runs for S3, so that one image serves the whole Job.
# Cached by the Debian versions of everything copied and this file: a warm run builds nothing.

# awscli and the python3-* packages it depends on, recursively (the Python modules `aws` imports)
buildah_python_packages() {
  local -A seen=()
  local queue=(awscli) package dep
  while [ ${#queue[@]} -gt 0 ]; do
    package=${queue[0]} queue=("${queue[@]:1}")
    [ -z "${seen[$package]:-}" ] || continue
    seen[$package]=1
    echo "$package"
    for dep in $(dpkg-query -W -f='${Depends}\n' "$package" | tr ',|' '\n\n' | awk '{print $1}' | sed 's/:any$//'); do
      [[ $dep == python3-* ]] && [ "$(dpkg-query -W -f='${db:Status-Status}' "$dep" 2>/dev/null)" = installed ] &&
        queue+=("$dep")
    done
  done | sort
}

buildah_image() {
  local python_packages hash archive dir python
  python_packages=$(buildah_python_packages)
  python=$(readlink -f /usr/bin/python3)
  # shellcheck disable=SC2086
  hash=$( (cat "$here/buildah/image.sh"
    dpkg-query -W buildah uidmap libcap2-bin golang-github-containers-common ca-certificates libc6 libssl3 openssl python3 \
      "$(basename "$python")" $python_packages) | digest)
  archive="$images/buildah-$hash.tar"
  if [ ! -f "$archive" ]; then
    log "buildah: building ${ref[buildah]}"
    dir=$(staging buildah)
    copy_elf "$dir" /usr/bin/buildah /usr/bin/newuidmap /usr/bin/newgidmap "$python"
    # file capabilities instead of Debian's setuid root, as buildah's own image has them: the pod then
    # needs no capability beyond SETUID and SETGID (setuid root would also need DAC_OVERRIDE for uid_map)
    chmod 0755 "$dir/usr/bin/newuidmap" "$dir/usr/bin/newgidmap"
    setcap cap_setuid=ep "$dir/usr/bin/newuidmap"
    setcap cap_setgid=ep "$dir/usr/bin/newgidmap"
    ln -s "$(basename "$python")" "$dir/usr/bin/python3"
    mkdir -p "$dir/etc/containers" "$dir/usr/share/containers" "$dir/etc/ssl/certs" "$dir/home/build" \
      "$dir/tmp" "$dir/var/tmp"
    cp /etc/containers/policy.json /etc/containers/registries.conf "$dir/etc/containers/"
    cp /usr/share/containers/containers.conf "$dir/usr/share/containers/"
    cp -L /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/"
    # OpenSSL's configuration and provider modules: awscrt's TLS (s2n) loads providers at start
    cp /etc/ssl/openssl.cnf "$dir/etc/ssl/"
    copy_elf "$dir" /usr/lib/x86_64-linux-gnu/ossl-modules/*.so
    chmod 1777 "$dir/tmp" "$dir/var/tmp"
    # the Python standard library (no tests, no GUI) and its extension modules' libraries
    (cd / && tar -cf - --exclude='*/test' --exclude='*/tests' --exclude='*/idlelib' --exclude='*/tkinter' \
      --exclude='*/ensurepip' --exclude='__pycache__' "usr/lib/$(basename "$python")") | tar -xf - -C "$dir"
    copy_elf "$dir" /usr/lib/"$(basename "$python")"/lib-dynload/*.so
    # shellcheck disable=SC2086
    dpkg -L $python_packages | grep -E '^/usr/(lib/python3/dist-packages|bin)/' | grep -v __pycache__ |
      while read -r file; do [ ! -f "$file" ] || echo "${file#/}"; done | (cd / && tar -cf - -T -) | tar -xf - -C "$dir"
    copy_elf "$dir" $(find "$dir/usr/lib/python3/dist-packages" -name '*.so' | sed "s|^$dir||")
    printf 'root:x:0:0:root:/root:/sbin/nologin\nbuild:x:1000:1000:build:/home/build:/sbin/nologin\n' >"$dir/etc/passwd"
    printf 'root:x:0:\nbuild:x:1000:\n' >"$dir/etc/group"
    printf 'build:100000:65536\n' | tee "$dir/etc/subuid" >"$dir/etc/subgid"
    buildah_commit "$dir" "$archive"
  fi
  echo "${ref[buildah]} $archive"
}

# commit_scratch with the environment and user of buildah's rootless mode
buildah_commit() {
  local dir=$1 archive=$2 ctr
  built=1
  ctr=$(bah from scratch)
  bah copy --quiet "$ctr" "$dir" / >/dev/null
  bah copy --quiet --chown 1000:1000 "$ctr" "$dir/home" /home >/dev/null
  bah config --user build --workingdir /home/build --env HOME=/home/build --env BUILDAH_ISOLATION=chroot \
    --env PATH=/usr/bin:/bin "$ctr"
  bah commit --quiet "$ctr" "${ref[buildah]}" >/dev/null
  bah rm "$ctr" >/dev/null
  rm -rf "$dir"
  save "${ref[buildah]}" "$archive"
}
