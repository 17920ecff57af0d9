#!/bin/sh
# Run by Patroni once, on the first leader, with its connection string: the service's role
# and database, and pgBackRest's stanza (WAL is archived from then on).
set -eu
: "${APP_DB_USER:=prefscore}" "${APP_DB_NAME:=prefscore}" "${APP_DB_PASSWORD:?APP_DB_PASSWORD must be set}"
psql "$1" -v ON_ERROR_STOP=1 -q -v user="$APP_DB_USER" -v db="$APP_DB_NAME" -v password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE :"user" LOGIN PASSWORD :'password';
CREATE DATABASE :"db" OWNER :"user";
SQL
pgbackrest --stanza=prefscore stanza-create
