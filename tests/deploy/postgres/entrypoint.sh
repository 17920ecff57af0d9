#!/bin/sh
# First start: a cluster owned by POSTGRES_USER with POSTGRES_PASSWORD (scram-sha-256 over
# TCP, trust on the local socket as in the official image) and the database POSTGRES_DB.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}" > "$pwfile"
    initdb -D "$PGDATA" --encoding=UTF8 --locale=C.UTF-8 -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != "postgres" ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\"" | postgres --single -D "$PGDATA" postgres >/dev/null
    fi
fi
if [ "${1:-}" = "postgres" ]; then
    shift
    exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql "$@"
fi
exec "$@"
