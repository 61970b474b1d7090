#!/usr/bin/env bash
# Makes the PostgreSQL the tests use answer at 127.0.0.1:$POSTGRES_PORT (default 5432), with user
# postgres trusted from loopback and a database `test`. When nothing answers there it installs
# Debian's postgresql (apt-get; needs root or sudo), creates or configures a cluster on that port
# and starts it. A server that already answers is left as it is; only the database is added.
set -euo pipefail
PORT="${POSTGRES_PORT:-5432}"
# Test files that start at once may all call this: one works, the others wait and find it done.
exec 9>"${TMPDIR:-/tmp}/static-deploy-install-postgres.lock"
flock 9
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

answers() {
  if command -v pg_isready >/dev/null; then
    pg_isready -q -h 127.0.0.1 -p "$PORT"
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
  fi
}

ensure_test_database() {
  local psql=(psql -h 127.0.0.1 -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -tAq)
  if ! "${psql[@]}" -d postgres -c "SELECT 1" >/dev/null; then
    echo "PostgreSQL answers at 127.0.0.1:$PORT but user postgres cannot log in without a password" >&2
    exit 1
  fi
  if [ "$("${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'test'")" != "1" ]; then
    "${psql[@]}" -d postgres -c "CREATE DATABASE test"
  fi
  echo "PostgreSQL ready: postgres://postgres@127.0.0.1:$PORT/test"
}

if answers && command -v psql >/dev/null; then
  ensure_test_database
  exit 0
fi

if ! command -v pg_createcluster >/dev/null || ! command -v psql >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends postgresql postgresql-client
fi

if ! answers; then
  # The cluster on this port, else a new one ("main" unless the newest version already has one).
  read -r version name < <(pg_lsclusters -h | awk -v port="$PORT" '$3 == port { print $1, $2; exit }') || true
  if [ -z "${version:-}" ]; then
    version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
    name="main"
    if [ -d "/etc/postgresql/$version/main" ]; then name="port$PORT"; fi
    $SUDO pg_createcluster "$version" "$name" --port "$PORT" -- --auth=trust
  fi
  hba="/etc/postgresql/$version/$name/pg_hba.conf"
  # The first matching line wins: loopback connections are trusted, as on this project's machines.
  if ! grep -q "static-deploy tests" "$hba"; then
    {
      echo "# static-deploy tests: loopback is trusted"
      echo "host all all 127.0.0.1/32 trust"
      echo "host all all ::1/128 trust"
      cat "$hba"
    } | $SUDO tee "$hba.new" >/dev/null
    $SUDO mv "$hba.new" "$hba"
    $SUDO chown postgres:postgres "$hba"
  fi
  $SUDO pg_ctlcluster "$version" "$name" start || $SUDO pg_ctlcluster "$version" "$name" reload
  for _ in $(seq 1 60); do
    if answers; then break; fi
    sleep 0.5
  done
fi

ensure_test_database
