#!/bin/bash
# The entrypoint of the local docker.io/library/postgres image. It reproduces the documented behaviour
# of the official image's entrypoint (https://hub.docker.com/_/postgres, "Environment Variables",
# "Initialization scripts", "Arbitrary --user Notes"), no more:
#   - POSTGRES_PASSWORD is required to initialise unless POSTGRES_HOST_AUTH_METHOD=trust (the same error
#     text otherwise, exit 1); POSTGRES_USER defaults to postgres, POSTGRES_DB to $POSTGRES_USER;
#     POSTGRES_INITDB_ARGS and POSTGRES_INITDB_WALDIR go to initdb; PGDATA (default
#     /var/lib/postgresql/data) is initialised only when it holds no database (no PG_VERSION);
#   - each of POSTGRES_PASSWORD, POSTGRES_USER, POSTGRES_DB, POSTGRES_INITDB_ARGS may be given as
#     <NAME>_FILE (a path whose content is the value), not both;
#   - host connections from every address are allowed with POSTGRES_HOST_AUTH_METHOD (default: the
#     server's password_encryption, scram-sha-256) — `host all all all <method>` in pg_hba.conf; the
#     server listens on all addresses (listen_addresses = '*' in the sample configuration);
#   - /docker-entrypoint-initdb.d/*.sh (run when executable, sourced otherwise) and *.sql (psql) run once,
#     in name order, after initdb, against a temporary server listening on the Unix socket only;
#   - started as root, it creates and owns PGDATA and /var/run/postgresql for postgres (uid 999) and runs
#     itself again as that user (setpriv in place of gosu); the server never runs as root;
#   - a first argument starting with "-" is an option of postgres.
# Not reproduced: compressed init files (*.sql.gz/xz/zst) and nss_wrapper for a uid missing from /etc/passwd.
set -Eeo pipefail

# file_env VAR [DEFAULT]: VAR from itself or from the file named by VAR_FILE
file_env() {
  local var=$1 file_var="${1}_FILE" default=${2:-} value
  if [ -n "${!var:-}" ] && [ -n "${!file_var:-}" ]; then
    printf >&2 'error: both %s and %s are set (but are exclusive)\n' "$var" "$file_var"
    exit 1
  fi
  value=$default
  if [ -n "${!var:-}" ]; then value=${!var}; elif [ -n "${!file_var:-}" ]; then value=$(<"${!file_var}"); fi
  export "$var"="$value"
  unset "$file_var"
}

setup_env() {
  file_env POSTGRES_PASSWORD
  file_env POSTGRES_USER postgres
  file_env POSTGRES_DB "$POSTGRES_USER"
  file_env POSTGRES_INITDB_ARGS
  : "${POSTGRES_HOST_AUTH_METHOD:=}"
  DATABASE_ALREADY_EXISTS=
  if [ -s "$PGDATA/PG_VERSION" ]; then DATABASE_ALREADY_EXISTS=true; fi
}

create_directories() {
  local user
  user=$(id -u)
  mkdir -p "$PGDATA"
  chmod 00700 "$PGDATA" || :
  mkdir -p /var/run/postgresql || :
  chmod 03775 /var/run/postgresql || :
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
    mkdir -p "$POSTGRES_INITDB_WALDIR"
    [ "$user" != 0 ] || find "$POSTGRES_INITDB_WALDIR" \! -user postgres -exec chown postgres '{}' +
    chmod 700 "$POSTGRES_INITDB_WALDIR"
  fi
  if [ "$user" = 0 ]; then
    find "$PGDATA" \! -user postgres -exec chown postgres '{}' +
    find /var/run/postgresql \! -user postgres -exec chown postgres '{}' +
  fi
}

verify_minimum_env() {
  if [ -z "$POSTGRES_PASSWORD" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
    cat >&2 <<-'TEXT'
	Error: Database is uninitialized and superuser password is not specified.
	       You must specify POSTGRES_PASSWORD to a non-empty value for the
	       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".

	       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all
	       connections without a password. This is *not* recommended.

	       See PostgreSQL documentation about "trust":
	       https://www.postgresql.org/docs/current/auth-trust.html
	TEXT
    exit 1
  fi
  if [ "$POSTGRES_HOST_AUTH_METHOD" = trust ]; then
    printf >&2 '%s\n' '********************************************************************************' \
      'WARNING: POSTGRES_HOST_AUTH_METHOD has been set to "trust". This will allow' \
      '         anyone with access to the Postgres port to access your database without' \
      '         a password, even if POSTGRES_PASSWORD is set.' \
      '********************************************************************************'
  fi
}

init_database_dir() {
  local args=()
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then args+=(--waldir "$POSTGRES_INITDB_WALDIR"); fi
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of options, split as the official image does
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    $POSTGRES_INITDB_ARGS "${args[@]}"
}

setup_hba_conf() {
  if [ -z "$POSTGRES_HOST_AUTH_METHOD" ]; then
    POSTGRES_HOST_AUTH_METHOD=$(postgres -C password_encryption "$@")
  fi
  {
    printf '\n'
    if [ "$POSTGRES_HOST_AUTH_METHOD" = trust ]; then
      printf '# warning trust is enabled for all connections\n'
      printf '# see https://www.postgresql.org/docs/12/auth-trust.html\n'
    fi
    printf 'host all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD"
  } >>"$PGDATA/pg_hba.conf"
}

# psql as the superuser over the Unix socket, stopping at the first error
run_psql() { PGPASSWORD=$POSTGRES_PASSWORD psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc "$@"; }

temp_server_start() {
  set -- "$@" -c listen_addresses='' -p "${PGPORT:-5432}"
  PGUSER=$POSTGRES_USER pg_ctl -D "$PGDATA" -o "$(printf '%q ' "$@")" -w start
}

setup_db() {
  local exists
  exists=$(POSTGRES_DB='' run_psql --dbname postgres --set db="$POSTGRES_DB" --tuples-only <<-'SQL'
	SELECT 1 FROM pg_database WHERE datname = :'db' ;
	SQL
  )
  if [ -z "$exists" ]; then
    run_psql --dbname postgres --set db="$POSTGRES_DB" <<-'SQL'
	CREATE DATABASE :"db" ;
	SQL
    printf '\n'
  fi
}

process_init_files() {
  local f
  printf '\n'
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then printf '%s: running %s\n' "$0" "$f"; "$f"
        else printf '%s: sourcing %s\n' "$0" "$f"; # shellcheck disable=SC1090
          . "$f"; fi ;;
      *.sql) printf '%s: running %s\n' "$0" "$f"; run_psql --dbname "$POSTGRES_DB" -f "$f"; printf '\n' ;;
      "/docker-entrypoint-initdb.d/*") ;;
      *) printf '%s: ignoring %s\n' "$0" "$f" ;;
    esac
  done
}

initialise() {
  verify_minimum_env
  init_database_dir
  setup_hba_conf "$@"
  export PGPASSWORD="${PGPASSWORD:-$POSTGRES_PASSWORD}"
  temp_server_start "$@"
  setup_db
  process_init_files
  pg_ctl -D "$PGDATA" -m fast -w stop
  unset PGPASSWORD
  printf '\nPostgreSQL init process complete; ready for start up.\n\n'
}

main() {
  if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
  if [ "$1" = postgres ]; then
    setup_env
    create_directories
    if [ "$(id -u)" = 0 ]; then exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"; fi
    if [ -z "$DATABASE_ALREADY_EXISTS" ]; then
      initialise "${@:2}"
    else
      printf '\nPostgreSQL Database directory appears to contain a database; Skipping initialization\n\n'
    fi
  fi
  exec "$@"
}

main "$@"
