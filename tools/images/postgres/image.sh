# shellcheck shell=bash
# docker.io/library/postgres:<version>: Debian's PostgreSQL (postgresql-<major>, postgresql-client-<major>)
# at Debian's paths, with the shared libraries it links, bash + the few tools its entrypoint uses, and
# tools/images/postgres/docker-entrypoint.sh, which reproduces the official image's documented
# behaviour (see its header). Image configuration as the official image's: PGDATA=/var/lib/postgresql/data,
# the server binaries on PATH, STOPSIGNAL SIGINT, port 5432, user postgres = uid/gid 999, CMD postgres.
# LANG is C.UTF-8 (UTF8 encoding like the official en_US.utf8, without a locale archive); no LLVM JIT.
postgres_image() {
  local image=$1 version major prefix programs hash dir
  major=$(tag_of "$image")
  major=${major%%.*}
  version=$(debian_upstream "postgresql-$major")
  require_tag postgres "$image" "$version"
  [ "$(debian_upstream "postgresql-client-$major")" = "$version" ] ||
    fail "postgres: postgresql-client-$major must be $version like postgresql-$major (apt-get install postgresql-client-$major)"
  prefix=/usr/lib/postgresql/$major
  programs=$(postgres_programs "$prefix")
  # shellcheck disable=SC2086
  hash=$( (files_digest tools/images/lib.sh tools/images/postgres/image.sh tools/images/postgres/docker-entrypoint.sh
    host_digest $programs $(linked_libraries $programs); dpkg-query -W tzdata) | digest)
  if ! cached postgres "$hash"; then
    log "postgres: building $image from Debian's postgresql-$major $version"
    dir=$(staging postgres)
    postgres_rootfs "$dir" "$prefix" "$major"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint '["docker-entrypoint.sh"]' --cmd postgres \
      --env "PGDATA=/var/lib/postgresql/data" --env "PG_MAJOR=$major" --env "PG_VERSION=$version" \
      --env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$prefix/bin" \
      --env LANG=C.UTF-8 --stop-signal SIGINT --port 5432/tcp --volume /var/lib/postgresql/data
  fi
  echo "$image $ARCHIVE"
}

# the ELF files of the server and client (the LLVM JIT provider is left out: 100 MB of libLLVM)
postgres_programs() {
  find "$1/bin" "$1/lib" -type f \( -perm -u+x -o -name '*.so' \) ! -name 'llvmjit*' | sort
}

postgres_rootfs() {
  local dir=$1 prefix=$2 major=$3
  base_files "$dir" postgres:999:999:/var/lib/postgresql
  shell_tools "$dir" id mkdir chmod chown find cat rm ls sleep setpriv locale
  # shellcheck disable=SC2046
  copy_elf "$dir" $(postgres_programs "$prefix")
  copy_host "$dir" "/usr/share/postgresql/$major" /usr/share/zoneinfo /usr/lib/locale/C.utf8
  rm -rf "$dir/usr/share/postgresql/$major/man"
  sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$dir/usr/share/postgresql/$major/postgresql.conf.sample"
  grep -F "listen_addresses = '*'" "$dir/usr/share/postgresql/$major/postgresql.conf.sample" >/dev/null ||
    fail "postgres: could not set listen_addresses in postgresql.conf.sample"
  mkdir -p "$dir/usr/local/bin" "$dir/docker-entrypoint-initdb.d" "$dir/var/lib/postgresql/data" "$dir/var/run/postgresql"
  cp "$here/postgres/docker-entrypoint.sh" "$dir/usr/local/bin/"
  chown -R 999:999 "$dir/var/lib/postgresql" "$dir/var/run/postgresql"
  chmod 3777 "$dir/var/run/postgresql"
  chmod 1777 "$dir/var/lib/postgresql/data"
}
