#!/bin/sh
# A Patroni node named by PATRONI_NAME (the container's host name by default), reached by the
# others at that name; or, with another command (`etcd ...`, `pgbackrest ...`), that command.
set -eu
if [ "${1:-}" = "patroni" ]; then
    : "${PATRONI_NAME:=$(hostname)}"
    : "${PATRONI_SUPERUSER_PASSWORD:?PATRONI_SUPERUSER_PASSWORD must be set}"
    : "${PATRONI_REPLICATION_PASSWORD:?PATRONI_REPLICATION_PASSWORD must be set}"
    : "${PATRONI_ETCD3_HOSTS:=etcd1:2379}"
    export PATRONI_NAME PATRONI_ETCD3_HOSTS
    export PATRONI_RESTAPI_CONNECT_ADDRESS="${PATRONI_RESTAPI_CONNECT_ADDRESS:-$PATRONI_NAME:8008}"
    export PATRONI_POSTGRESQL_CONNECT_ADDRESS="${PATRONI_POSTGRESQL_CONNECT_ADDRESS:-$PATRONI_NAME:5432}"
fi
exec "$@"
