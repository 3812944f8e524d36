# shellcheck shell=bash
# The in-cluster buildah backend's image (docs/builds.md, "The buildah Job"), sourced by build.sh, which
# provides ref[buildah], bah, log, digest, staging, commit_scratch. Debian's buildah 1.28 with the
# packages of the libraries it links, uidmap and ca-certificates, every .deb at the exact version of
# tools/images/debian.lock (`image buildah:` in tools/setup/debian-packages.txt), set up for buildah's
# documented rootless mode in a pod (docs/tutorials/05-openshift-rootless-build.md in buildah's repository):
# a non-root user `build` (uid 1000) with subordinate id ranges in /etc/subuid and /etc/subgid, Debian's
# newuidmap/newgidmap with file capabilities to map them (the pod keeps only SETUID and SETGID), BUILDAH_ISOLATION=chroot
# and vfs storage (the Job also passes both as flags). Of containers-common's configuration it keeps
# policy.json, registries.conf and containers.conf, as before: no seccomp.json (buildah's built-in
# default profile applies) and no short-name aliases. The Job's `fetch-artifact` step runs in
# Slipway's own image (src/builds/build-job.ts), so this one holds nothing else.
# Cached by the lock's lines of its packages and this file: a warm run builds nothing.
buildah_image() {
  local version hash archive dir
  version=$(debian_tag buildah)
  require_tag buildah "${ref[buildah]}" "$version"
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/buildah/image.sh; lock_lines buildah) | digest)
  archive="$images/buildah-$hash.tar"
  if [ ! -f "$archive" ]; then
    log "buildah: building ${ref[buildah]} from Debian's buildah $(lock_version buildah)"
    dir=$(staging buildah)
    debs_extract "$dir" buildah
    ca_bundle "$dir"
    rm -rf "$dir/usr/share/containers/seccomp.json" "$dir/etc/containers/registries.conf.d"
    # file capabilities instead of Debian's setuid root, as buildah's own image has them: the pod then
    # needs no capability beyond SETUID and SETGID (setuid root would also need DAC_OVERRIDE for uid_map)
    chmod 0755 "$dir/usr/bin/newuidmap" "$dir/usr/bin/newgidmap"
    setcap cap_setuid=ep "$dir/usr/bin/newuidmap"
    setcap cap_setgid=ep "$dir/usr/bin/newgidmap"
    mkdir -p "$dir/home/build" "$dir/tmp" "$dir/var/tmp"
    chmod 1777 "$dir/tmp" "$dir/var/tmp"
    printf 'root:x:0:0:root:/root:/sbin/nologin\nbuild:x:1000:1000:build:/home/build:/sbin/nologin\n' >"$dir/etc/passwd"
    printf 'root:x:0:\nbuild:x:1000:\n' >"$dir/etc/group"
    printf 'build:100000:65536\n' | tee "$dir/etc/subuid" >"$dir/etc/subgid"
    check_libraries "$dir"
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
