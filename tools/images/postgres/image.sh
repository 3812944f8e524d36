# shellcheck shell=bash
# docker.io/library/postgres:<version>: Debian's PostgreSQL (postgresql-<major>, postgresql-client-<major>)
# at Debian's paths with the packages of their libraries, bash and the tools its entrypoint uses
# (coreutils, findutils, util-linux's setpriv, libc-bin's `locale` and C.utf8), tzdata: every .deb at the
# exact version of tools/images/debian.lock (`image postgres:` in tools/setup/debian-packages.txt), plus
# tools/images/postgres/docker-entrypoint.sh, which reproduces the official image's documented
# behaviour (see its header). Image configuration as the official image's: PGDATA=/var/lib/postgresql/data,
# the server binaries on PATH, STOPSIGNAL SIGINT, port 5432, user postgres = uid/gid 999, CMD postgres.
# LANG is C.UTF-8 (UTF8 encoding like the official en_US.utf8, without a locale archive); no LLVM JIT.
postgres_image() {
  local image=$1 version major prefix hash dir
  major=$(tag_of "$image")
  major=${major%%.*}
  version=$(debian_tag "postgresql-$major")
  require_tag postgres "$image" "$version"
  [ "$(debian_tag "postgresql-client-$major")" = "$version" ] ||
    fail "postgres: postgresql-client-$major must be $version like postgresql-$major (tools/setup/debian-packages.txt)"
  prefix=/usr/lib/postgresql/$major
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/postgres/image.sh \
    tools/images/postgres/docker-entrypoint.sh; lock_lines postgres) | digest)
  if ! cached postgres "$hash"; then
    log "postgres: building $image from Debian's postgresql-$major $(lock_version "postgresql-$major")"
    dir=$(staging postgres)
    postgres_rootfs "$dir" "$prefix" "$major"
    check_libraries "$dir"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["docker-entrypoint.sh"]' --cmd postgres \
      --env "PGDATA=/var/lib/postgresql/data" --env "PG_MAJOR=$major" --env "PG_VERSION=$version" \
      --env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$prefix/bin" \
      --env LANG=C.UTF-8 --stop-signal SIGINT --port 5432/tcp --volume /var/lib/postgresql/data
  fi
  echo "$image $ARCHIVE"
}

postgres_rootfs() {
  local dir=$1 prefix=$2 major=$3
  debs_extract "$dir" postgres
  base_files "$dir" postgres:999:999:/var/lib/postgresql
  # bash is /bin/sh, as the entrypoint is a bash script (Debian's dash is not in the image)
  ln -sfn bash "$dir/usr/bin/sh"
  # the LLVM JIT provider and its bitcode: libLLVM (100 MB) is left out of the image
  rm -rf "$dir$prefix/lib/llvmjit"* "$dir$prefix/lib/bitcode" "$dir/usr/share/postgresql/$major/man"
  sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$dir/usr/share/postgresql/$major/postgresql.conf.sample"
  grep -F "listen_addresses = '*'" "$dir/usr/share/postgresql/$major/postgresql.conf.sample" >/dev/null ||
    fail "postgres: could not set listen_addresses in postgresql.conf.sample"
  mkdir -p "$dir/usr/local/bin" "$dir/docker-entrypoint-initdb.d" "$dir/var/lib/postgresql/data" "$dir/var/run/postgresql"
  cp "$here/postgres/docker-entrypoint.sh" "$dir/usr/local/bin/"
  chown -R 999:999 "$dir/var/lib/postgresql" "$dir/var/run/postgresql"
  chmod 3777 "$dir/var/run/postgresql"
  chmod 1777 "$dir/var/lib/postgresql/data"
}
