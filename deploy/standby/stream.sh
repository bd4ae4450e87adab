#!/bin/sh
# The standby copy of the database (docs/deploy.md, "Backups"), run by the `standby` service: a
# base backup, then every write-ahead log record streamed into the same folder as the database
# writes it, on a replication slot, so the database keeps the log until the copy has it.
#
# Environment: PGHOST, PGPORT, PGUSER (the replication role), PGPASSWORD, STANDBY_DIR (the copy's
# folder), STANDBY_SLOT (default `standby`). The programs come from PATH (the postgres image's).
#
# The copy is asynchronous: commits do not wait for it (docs/decisions.md, "The production
# standby"). pg_receivewal --synchronous flushes each record to disk as it arrives, so the copy
# is behind by what was in flight, milliseconds.
set -eu
: "${STANDBY_DIR:?set STANDBY_DIR}"
slot=${STANDBY_SLOT:-standby}
base="$STANDBY_DIR/base"
wal="$STANDBY_DIR/wal"
say() { printf 'standby: %s\n' "$*"; }

until pg_isready -q -d postgres; do
    say "waiting for the database at ${PGHOST:-localhost}:${PGPORT:-5432}"
    sleep 2
done

# The slot's state: none (no such slot), lost (the copy fell behind max_slot_wal_keep_size and the
# database removed log it still needed), or reserved/extended/unreserved (it can go on).
slot_state() {
    psql -d postgres -XAtc "SELECT coalesce((SELECT wal_status FROM pg_replication_slots WHERE slot_name = '$slot'), 'none')"
}
state=$(slot_state)

if [ -f "$base/backup_manifest" ] && { [ "$state" = none ] || [ "$state" = lost ]; }; then
    # The database was rebuilt (a restore) or replaced, or the copy fell too far behind: it cannot
    # go on. Keep it aside, whole, and start a copy of the database as it is now.
    previous="$STANDBY_DIR/previous-$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "$previous"
    mv "$base" "$previous/"
    if [ -d "$wal" ]; then mv "$wal" "$previous/"; fi
    say "the slot '$slot' is $state: the copy so far is kept in $previous"
fi

if [ ! -f "$base/backup_manifest" ]; then
    rm -rf "$base.partial"
    if [ "$state" != none ]; then
        # A slot with no copy to go with it (lost, or a copy never finished): start again.
        pg_receivewal --drop-slot --slot="$slot"
    fi
    say "taking the base backup into $base"
    # The slot is created at the backup's start and WAL is kept from there, so the backup and
    # the stream that follows it meet with no gap.
    pg_basebackup --pgdata="$base.partial" --wal-method=stream --create-slot --slot="$slot" \
        --checkpoint=fast --no-password
    mv "$base.partial" "$base"
    rm -rf "$wal"
fi

mkdir -p "$wal"
say "streaming the write-ahead log into $wal"
# --no-loop: on a lost connection it exits, and the service's restart runs this script again,
# which waits for the database and checks the slot before streaming on.
exec pg_receivewal --directory="$wal" --slot="$slot" --synchronous --no-loop --no-password
