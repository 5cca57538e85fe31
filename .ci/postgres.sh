#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: Debian's package, initdb into a temp dir,
# trust auth, a free local port (unix socket in that dir and 127.0.0.1), fsync off (the cluster
# is thrown away; a killed client, not a crashed server, is what the tests exercise).
#
#   eval "$(bash .ci/postgres.sh start)"   # exports REWIREKIT_TEST_POSTGRES and REWIREKIT_PG_DIR
#   bash .ci/postgres.sh stop              # stops the cluster of $REWIREKIT_PG_DIR and removes it
#
# Only the export lines go to standard output; everything else goes to standard error.
set -euo pipefail
sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)

bindir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -z "$dir" ]; then
        $sudo apt-get update >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y postgresql >&2
        dir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
    echo "$dir"
}

# initdb refuses to run as root: as root the cluster belongs to the postgres user.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
    local bin dir port
    bin=$(bindir)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/rewirekit-postgres.XXXXXX")
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >&2
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >&2
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres rewirekit >&2
    echo "export REWIREKIT_PG_DIR=$dir"
    echo "export REWIREKIT_TEST_POSTGRES=postgresql://postgres@127.0.0.1:$port/rewirekit"
}

stop() {
    local dir=${1:-${REWIREKIT_PG_DIR:?give the cluster dir or set REWIREKIT_PG_DIR}}
    [ -d "$dir/data" ] || { echo "no cluster in $dir" >&2; return 0; }
    as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    *) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
esac
