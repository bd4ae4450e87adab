#!/bin/sh
# Runs once, when the postgres container creates its database volume (docker-entrypoint-initdb.d):
# the role the `standby` service streams the write-ahead log as (docs/deploy.md, "Backups"). It
# may only replicate: no login to a database, no table. For a volume made before this script
# existed, run it by hand once: docker compose exec db sh /docker-entrypoint-initdb.d/20-replication.sh
set -eu
: "${POSTGRES_REPLICATION_PASSWORD:?set POSTGRES_REPLICATION_PASSWORD in .env}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v replication_password="$POSTGRES_REPLICATION_PASSWORD" <<'SQL'
SELECT 'CREATE ROLE syndicate_replication LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE'
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'syndicate_replication')\gexec
ALTER ROLE syndicate_replication WITH LOGIN REPLICATION PASSWORD :'replication_password';
SQL
# Replication connections match only lines that name `replication`; the image's own lines do not.
# Only this role, only with its password, from the stack's network.
hba="$PGDATA/pg_hba.conf"
line="host replication syndicate_replication samenet scram-sha-256"
grep -qxF "$line" "$hba" || printf '%s\n' "$line" >> "$hba"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -qc "SELECT pg_reload_conf()"
