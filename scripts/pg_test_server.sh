#!/usr/bin/env bash
# A private PostgreSQL server for the tests (Debian's `postgresql`, installed by
# scripts/install.sh): its own cluster under $SPARRING_PG_DIR (default /tmp/sparring-pg),
# listening on 127.0.0.1:$SPARRING_PG_PORT (default 55432) only, with a role and a database
# `sparring_test` for the tests.  Safe to run again (an initialised cluster is reused, a
# running one left running).
#
#   bash scripts/pg_test_server.sh start   # prints the URL: export SPARRING_TEST_PG_URL=$(...)
#   bash scripts/pg_test_server.sh stop
#   bash scripts/pg_test_server.sh url
#
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` user.
set -euo pipefail

DIR=${SPARRING_PG_DIR:-/tmp/sparring-pg}
PORT=${SPARRING_PG_PORT:-55432}
ROLE=sparring_test
DB=sparring_test
PASSWORD=sparring_test   # loopback only (TCP needs it; the socket in $DIR trusts its owner), a throwaway cluster
URL="postgresql://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"

bindir() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$found" ] && command -v pg_ctl >/dev/null; then found=$(dirname "$(command -v pg_ctl)"); fi
  if [ -z "$found" ]; then
    echo "pg_test_server.sh: PostgreSQL is not installed (Debian: apt-get install postgresql, or bash scripts/install.sh as root)" >&2
    exit 1
  fi
  echo "$found"
}

as_owner() {  # run a command as the cluster's owner
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local bin
  bin=$(bindir)
  if [ "$(id -u)" = 0 ]; then
    mkdir -p "$DIR"
    chown postgres:postgres "$DIR"
  else
    mkdir -p "$DIR"
  fi
  chmod 700 "$DIR"
  if [ ! -f "$DIR/data/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$DIR/data" --auth-local=trust --auth-host=scram-sha-256 -U postgres --no-instructions >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; exit 1; }
  fi
  if ! as_owner "$bin/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    # loopback TCP and a socket in the cluster's folder (not /var/run/postgresql)
    as_owner "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c max_connections=200" start >/dev/null \
      || { tail -n 20 "$DIR/server.log" >&2; exit 1; }
  fi
  local psql=("$bin/psql" -h "$DIR" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
  if [ "$(as_owner "${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != 1 ]; then
    as_owner "${psql[@]}" -c "CREATE ROLE $ROLE LOGIN PASSWORD '$PASSWORD'" >/dev/null
  fi
  if [ "$(as_owner "${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
    as_owner "${psql[@]}" -c "CREATE DATABASE $DB OWNER $ROLE" >/dev/null
  fi
  echo "$URL"
}

stop() {
  local bin
  bin=$(bindir)
  if [ -f "$DIR/data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null
  fi
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  url) echo "$URL" ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
