#!/bin/sh
# Rebuild the database from the standby copy (docs/deploy.md, "Backups"): the base backup, then
# every write-ahead log record the copy received after it, up to the last one, or up to a
# moment (point-in-time recovery).
#
#   restore.sh STANDBY_DIR DATA_DIR [RECOVERY_TARGET_TIME]
#
# DATA_DIR must be empty (a new database volume). Run it as the database's system user; then
# start PostgreSQL on DATA_DIR: it replays the log, ends recovery and opens.
set -eu
standby=${1:?usage: restore.sh STANDBY_DIR DATA_DIR [RECOVERY_TARGET_TIME]}
data=${2:?usage: restore.sh STANDBY_DIR DATA_DIR [RECOVERY_TARGET_TIME]}
target=${3:-}
fail() { printf 'restore: %s\n' "$*" >&2; exit 2; }

[ -f "$standby/base/backup_manifest" ] || fail "$standby holds no base backup: not a standby copy."
[ -d "$standby/wal" ] || fail "$standby holds no write-ahead log (wal/): not a standby copy."
if [ -d "$data" ] && [ -n "$(ls -A "$data")" ]; then
    fail "$data is not empty: restore only into an empty folder (a new volume)."
fi
# Every file of the base backup as its manifest lists it (the log is checked by the replay).
pg_verifybackup --no-parse-wal --quiet "$standby/base" || fail "the base backup in $standby/base does not verify."

mkdir -p "$data"
chmod 700 "$data"
cp -R "$standby/base/." "$data/"
rm -f "$data/backup_manifest"
# Recovery asks for each log file by name; the one being written when the copy stopped has the
# suffix .partial and is read up to its last whole record.
cat >> "$data/postgresql.auto.conf" <<CONF
# Added by deploy/standby/restore.sh: recovery from the standby copy. Remove once it has run.
restore_command = 'cp "$standby/wal/%f" "%p" 2>/dev/null || cp "$standby/wal/%f.partial" "%p"'
CONF
if [ -n "$target" ]; then
    printf "recovery_target_time = '%s'\nrecovery_target_action = 'promote'\n" "$target" \
        >> "$data/postgresql.auto.conf"
fi
touch "$data/recovery.signal"
printf 'restore: %s is ready; start PostgreSQL on it to replay the log.\n' "$data"
