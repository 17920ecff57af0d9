#!/bin/sh
# Writes pgbouncer.ini and its user list from the environment, then runs PgBouncer.
# Transaction pooling: a server connection is lent for one transaction, which is all the
# service holds one for. Clients must not use server-side prepared statements through it
# (PgBouncer < 1.21): the service runs with PREFSCORE_DB_PREPARED_STATEMENTS=0 here.
set -eu
: "${DB_HOST:=db}" "${DB_PORT:=5432}" "${DB_USER:?DB_USER must be set}" "${DB_PASSWORD:?DB_PASSWORD must be set}"
: "${POOL_SIZE:=20}" "${MAX_CLIENT_CONN:=2000}"
dir=$(mktemp -d)
umask 077
printf '"%s" "%s"\n' "$DB_USER" "$DB_PASSWORD" > "$dir/userlist.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=$DB_HOST port=$DB_PORT

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = $POOL_SIZE
max_client_conn = $MAX_CLIENT_CONN
ignore_startup_parameters = extra_float_digits
server_check_delay = 5
# After a failed server login PgBouncer refuses clients for this long ("server login has been
# failing, try again later"; 15 s by default): a database slow to accept one login under load,
# or not up yet when PgBouncer starts, should cost the clients a second, not fifteen.
server_login_retry = 1
# A PostgreSQL restart or a new address of the db container: look the name up again soon.
dns_max_ttl = 5
log_connections = 0
log_disconnections = 0
INI
exec pgbouncer "$dir/pgbouncer.ini"
