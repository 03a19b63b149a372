#!/usr/bin/env bash
# Runs a command with TEST_DATABASE_URL pointing at a throwaway PostgreSQL cluster.
#
#   bash scripts/with-postgres.sh vitest run --project integration
#
# - TEST_DATABASE_URL already set: runs the command with it, nothing else.
# - PostgreSQL binaries found (/usr/lib/postgresql/15/bin, else `pg_config --bindir`): creates a
#   cluster in a temporary directory, listening on 127.0.0.1 only, with trust auth and fsync off
#   (the data is thrown away), creates the jumbe_test database, runs the command, then stops the
#   server and deletes the directory. The command's exit code is this script's exit code.
# - No PostgreSQL: says so and exits 0, unless JUMBE_REQUIRE_POSTGRES=1 (CI sets it), then exits 1.
#
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` system user.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  exec "$@"
fi

find_bindir() {
  local candidate
  for candidate in /usr/lib/postgresql/15/bin "$(pg_config --bindir 2>/dev/null || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ] && [ -x "$candidate/postgres" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if ! bindir="$(find_bindir)"; then
  if [ "${JUMBE_REQUIRE_POSTGRES:-}" = "1" ]; then
    echo "PostgreSQL not available, but JUMBE_REQUIRE_POSTGRES=1: failing" >&2
    exit 1
  fi
  echo "PostgreSQL not available: skipping PostgreSQL integration run"
  exit 0
fi

owner=""
if [ "$(id -u)" -eq 0 ]; then
  if ! id -u postgres >/dev/null 2>&1; then
    echo "Running as root needs the 'postgres' system user to own the test cluster (install Debian's postgresql)." >&2
    exit 1
  fi
  owner="postgres"
fi

cluster_dir="$(mktemp -d /tmp/jumbe-pg.XXXXXX)"
data_dir="$cluster_dir/data"
log_file="$cluster_dir/server.log"
[ -z "$owner" ] || chown "$owner:" "$cluster_dir"
chmod 700 "$cluster_dir"

# Cluster commands run inside the cluster directory (the postgres user may not be able to read
# the caller's working directory) and, as root, as the postgres user.
as_owner() {
  (
    cd "$cluster_dir"
    if [ -n "$owner" ]; then runuser -u "$owner" -- "$@"; else "$@"; fi
  )
}

started=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$started" ]; then
    as_owner "$bindir/pg_ctl" -D "$data_dir" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$cluster_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

as_owner "$bindir/initdb" -D "$data_dir" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$cluster_dir/initdb.log" 2>&1 || {
  cat "$cluster_dir/initdb.log" >&2
  exit 1
}

# Throwaway data: durability settings off for speed. The Unix socket goes in the cluster
# directory so nothing touches /var/run/postgresql.
cat >>"$data_dir/postgresql.conf" <<CONF

# scripts/with-postgres.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$cluster_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
CONF

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

port=""
# Set before starting: a start that times out may still leave a server behind for cleanup to stop.
started=1
for candidate in $(seq 54329 54399); do
  port_in_use "$candidate" && continue
  if as_owner "$bindir/pg_ctl" -D "$data_dir" -l "$log_file" -o "-p $candidate" -w -t 60 start >/dev/null 2>&1; then
    port="$candidate"
    break
  fi
  # Lost a race for the port (or failed for another reason the log will show): try the next one.
  grep -qi "could not bind\|address already in use" "$log_file" 2>/dev/null || { cat "$log_file" >&2; exit 1; }
done
if [ -z "$port" ]; then
  echo "with-postgres: no free port between 54329 and 54399" >&2
  exit 1
fi

"$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres jumbe_test

export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/jumbe_test"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (TEST_DATABASE_URL=$TEST_DATABASE_URL)"

set +e
"$@"
status=$?
set -e
exit "$status"
