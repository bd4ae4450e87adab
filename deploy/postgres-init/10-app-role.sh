#!/bin/sh
# Runs once, when the postgres container creates its database volume (docker-entrypoint-initdb.d):
# the app's runtime role, which owns nothing. POSTGRES_USER (`syndicate`) owns the tables and runs
# the migrations; `manage.py grant_app_role syndicate_app` (the migrate service, every deploy)
# grants the runtime role what it needs. For a volume made before this script existed, run it by
# hand once: docker compose exec db sh /docker-entrypoint-initdb.d/10-app-role.sh
set -eu
: "${POSTGRES_APP_PASSWORD:?set POSTGRES_APP_PASSWORD in .env}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v app_password="$POSTGRES_APP_PASSWORD" <<'SQL'
SELECT 'CREATE ROLE syndicate_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION'
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'syndicate_app')\gexec
ALTER ROLE syndicate_app WITH LOGIN PASSWORD :'app_password';
SQL
