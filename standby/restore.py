"""`make restore FROM=<folder>`: the night from a standby copy, on this machine, up to the copy's
last committed write (docs/reliability.md, "Restore and go on").

1. The copy is checked: a marker, a whole base backup, the same PostgreSQL major version as this
   checkout's, `pg_verifybackup` against the copy's log.
2. `var/` must not be in use, and must hold no database unless `--force` (the old one is then
   kept aside, never deleted).
3. The base becomes `var/postgres`; PostgreSQL replays every segment of the copy's log (the
   partial last one included, a short one up to its last complete record) and ends recovery;
   the server's password becomes this checkout's.
4. The secrets the copy carries are written into `var/`; every event's audit chain and signed head
   are checked; what was restored is printed. Then `make run` goes on with the night.

The work is done in `var/restoring/`, private and removed whatever happens. A restore that fails
once the copy is in place (the server refuses it, its audit does not verify) puts `var/` back as
it was, the database kept aside included, and says why in one line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from standby.folder import CopyFolder, CopyProblem, is_segment


@dataclass(frozen=True)
class Restored:
    """What `make restore` reports."""

    events: list[tuple[int, str, str]]  # (id, name, phase)
    last_write: str
    seconds: float
    kept_aside: Path | None


def check_copy(copy: CopyFolder) -> None:
    """Refuse a folder that is not a whole standby copy this checkout can restore."""
    if not copy.root.is_dir():
        raise CopyProblem(f"{copy.root} is not a folder.")
    marker = copy.marker()
    if marker is None:
        if not any(copy.root.iterdir()):
            raise CopyProblem(f"{copy.root} is empty: there is no standby copy in it.")
        raise CopyProblem(
            f"{copy.root} holds no standby copy (no syndicate-standby.json): give the folder "
            "that STANDBY_DIR or `make standby` wrote."
        )
    if not marker.base_complete or not (copy.base / "backup_manifest").exists():
        raise CopyProblem(
            f"The copy in {copy.root} is half written: its base backup never finished. "
            "It cannot be restored."
        )
    ours = server_major_version()
    if marker.major_version != ours:
        raise CopyProblem(
            f"The copy in {copy.root} is of PostgreSQL {marker.major_version}; this checkout "
            f"runs PostgreSQL {ours}. Restore it with a checkout whose PostgreSQL is "
            f"{marker.major_version}."
        )
    if copy.last_write_file() is None:
        raise CopyProblem(f"The copy in {copy.root} has no log after its base backup.")


def server_major_version() -> int:
    from standby.keeper import program

    output = subprocess.run(
        [program("postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    return int(output.split()[-1].split(".")[0])


def check_var_free(var_dir: Path, *, force: bool) -> None:
    from syndicate import embedded

    running = embedded.holders(var_dir)
    if running:
        raise CopyProblem(
            f"`make run` (pid {', '.join(map(str, running))}) uses {var_dir}/: stop it first."
        )
    if embedded.status(var_dir)["postgres"]:
        raise CopyProblem(
            f"The database in {var_dir}/ is running (left by a `manage.py` command): "
            "`make stop` first."
        )
    if (var_dir / "postgres" / "PG_VERSION").exists() and not force:
        raise CopyProblem(
            f"{var_dir}/postgres already holds a database. `make restore FROM=... FORCE=1` keeps "
            "it aside and restores the copy in its place."
        )


def restore(copy: CopyFolder, var_dir: Path, *, force: bool) -> Restored:
    """Restore the copy into `var_dir`. Every failure leaves `var_dir` as it was: its temporary
    folders removed, its database (kept aside under FORCE) and its secrets back in place."""
    from syndicate import embedded

    began = time.monotonic()
    check_copy(copy)
    check_var_free(var_dir, force=force)
    var_dir.mkdir(parents=True, exist_ok=True)
    # Where the server's account reaches: var/, unless it cannot (embedded.server_dir).
    server = embedded.server_dir(var_dir)
    # What a restore killed mid-way left, under this name and under the earlier ones.
    for leftover in (server / WORK, var_dir / "restore-wal", var_dir / "postgres.restoring"):
        shutil.rmtree(leftover, ignore_errors=True)
    work = server / WORK
    try:
        kept_aside = _install(copy, var_dir, work)
        try:
            return _go_on(var_dir, kept_aside, began)
        except Exception as error:  # whatever failed, var/ goes back to what it was
            raise CopyProblem(_put_back(var_dir, kept_aside, error)) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


# The restore's temporary folder in var/: the copy's log and its base while it becomes var's
# database. Private (0700): both hold the night's emails and password hashes.
WORK = "restoring"


def _install(copy: CopyFolder, var_dir: Path, work: Path) -> Path | None:
    """The copy's base, set to replay its log, becomes var/'s database; the database that was
    there is kept aside (its path returned)."""
    from standby.keeper import program
    from syndicate import embedded

    ids = embedded.postgres_account_ids(var_dir)
    work.mkdir(mode=0o700)
    work.chmod(0o700)  # whatever the umask
    if ids is not None:
        os.chown(work, *ids)
    verified = subprocess.run(
        [program("pg_verifybackup"), str(copy.base)],
        capture_output=True,
        text=True,
    )
    if verified.returncode != 0:
        raise CopyProblem(
            f"The copy in {copy.root} does not verify: {_first_line(verified.stderr)}"
        )
    wal, building = work / "wal", work / "postgres"
    _gather_log(copy, wal, _segment_size(copy.base))
    shutil.copytree(copy.base, building, symlinks=True)
    _recover_from(building, wal)
    if ids is not None:
        for path in [wal, *wal.iterdir()]:
            os.chown(path, *ids)
    return embedded.install_data(var_dir, building)


def _go_on(var_dir: Path, kept_aside: Path | None, began: float) -> Restored:
    """The restored server replays the log and ends recovery; its events are checked."""
    from syndicate import embedded

    services = embedded.ensure(var_dir)
    _promoted(services.database_url)
    _own_password(var_dir, services.database_url)
    events, last_write = _checked_events(var_dir, services.database_url, services.redis_url)
    return Restored(events, last_write, time.monotonic() - began, kept_aside)


def _put_back(var_dir: Path, kept_aside: Path | None, error: Exception) -> str:
    """After a failed restore: var/'s database as it was; what went wrong in plain words."""
    from syndicate import embedded

    reason = str(error)
    if isinstance(error, embedded.EmbeddedError):
        # PostgreSQL's own log says why; not the whole of it.
        reason = (
            "PostgreSQL could not replay the copy "
            f"({_server_refusal(var_dir / 'postgres' / 'server.log')})"
        )
    with contextlib.suppress(embedded.EmbeddedError, OSError):
        embedded.stop(var_dir)
    embedded.remove_data(var_dir, kept_aside)
    back = (
        f"The database that was in {var_dir}/ is back in place."
        if kept_aside is not None
        else f"{var_dir}/ holds no database, as before."
    )
    return f"{reason.rstrip('.')}. Nothing was restored. {back}"


def _server_refusal(log: Path) -> str:
    """The line of the server's log that says why it stopped."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return "its log is missing"
    for level in ("PANIC:", "FATAL:", "ERROR:"):
        found = [line.split(level, 1)[1].strip() for line in lines if level in line]
        if found:
            return found[-1]
    return "no reason in its log"


def _segment_size(base: Path) -> int:
    """The size of the copy's log segments, as its server was made with."""
    from standby.keeper import program

    shown = subprocess.run(
        [program("pg_controldata"), "-D", str(base)],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C", "LANG": "C"},
    )
    for line in shown.stdout.splitlines():
        if line.startswith("Bytes per WAL segment:"):
            return int(line.split(":", 1)[1])
    raise CopyProblem(f"The copy's base backup in {base} has no readable control file.")


def _gather_log(copy: CopyFolder, wal: Path, segment_size: int) -> None:
    """Every segment of the copy, the partial last one under its full name, as recovery reads
    them; the timelines' history files too. A last segment cut short (a stick pulled while it
    was written) is filled up with zeros to a whole segment: replay then ends at its last
    complete record, where the zeros begin. An earlier one cut short would end the replay before
    writes that followed: the copy is refused."""
    wal.mkdir(mode=0o700)
    wal.chmod(0o700)
    segments = sorted(p for p in copy.wal.iterdir() if is_segment(p.name))
    last = segments[-1] if segments else None
    for path in sorted(copy.wal.iterdir()):
        if not (is_segment(path.name) or path.name.endswith(".history")):
            continue
        target = wal / path.name.removesuffix(".partial")
        shutil.copyfile(path, target)
        target.chmod(0o600)
        if not is_segment(path.name):
            continue
        size = target.stat().st_size
        if size > segment_size or (size < segment_size and path != last):
            raise CopyProblem(
                f"The copy in {copy.root} is damaged: its log segment {path.name} is "
                f"{size} bytes, not {segment_size}; later writes would be lost. It cannot be "
                "restored."
            )
        if size < segment_size:
            os.truncate(target, segment_size)


def _recover_from(data: Path, wal: Path) -> None:
    """Recovery replays every segment in `wal` and ends there; commits wait for no copy; for the
    first connection the server trusts this machine, so its password can become this checkout's."""
    auto = data / "postgresql.auto.conf"
    kept = [
        line
        for line in auto.read_text().splitlines()
        if not line.startswith(("synchronous_standby_names", "restore_command"))
    ]
    kept += [f'restore_command = \'cp "{wal}/%f" "%p"\'', "recovery_target_timeline = 'latest'"]
    auto.write_text("\n".join(kept) + "\n")
    (data / "recovery.signal").write_text("")
    hba = data / "pg_hba.conf"
    shutil.copyfile(hba, data / "pg_hba.conf.restored")
    hba.write_text("host all postgres 127.0.0.1/32 trust\n" + hba.read_text())
    (data / "postmaster.pid").unlink(missing_ok=True)


def _promoted(database_url: str, timeout: float = 600) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(database_url, connect_timeout=5) as connection:
                row = connection.execute("SELECT pg_is_in_recovery()").fetchone()
                if row == (False,):
                    return
        except psycopg.OperationalError:
            pass
        if time.monotonic() > deadline:
            raise CopyProblem("PostgreSQL did not finish replaying the copy's log in time.")
        time.sleep(0.2)


def _own_password(var_dir: Path, database_url: str) -> None:
    """The restored server's password becomes this checkout's; the copy's access rules return."""
    import psycopg

    from syndicate import embedded

    secret = embedded.secret(var_dir)
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(f"ALTER ROLE postgres PASSWORD '{secret}'")
        data_dir = connection.execute("SHOW data_directory").fetchone()
        assert data_dir is not None
        data = Path(data_dir[0])
        (data / "pg_hba.conf.restored").replace(data / "pg_hba.conf")
        connection.execute("SELECT pg_reload_conf()")


def _checked_events(
    var_dir: Path, database_url: str, redis_url: str
) -> tuple[list[tuple[int, str, str]], str]:
    """Django on the restored database: the secrets back into `var/`, each event's audit checked."""
    os.environ["DATABASE_URL"] = database_url
    os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "syndicate.settings")
    import django

    django.setup()
    from standby.restored import check_events, write_secrets
    from standby.secrets import files

    # A copy whose audit does not verify is not restored: var/'s own secrets go back with its
    # database.
    before = {path: path.read_bytes() if path.exists() else None for path in files(var_dir)}
    try:
        write_secrets(var_dir)
        return check_events()
    except BaseException:
        for path, content in before.items():
            if content is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(content)
        raise


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0].split(": ", 1)[-1] if lines else "no reason given"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make restore FROM=<folder>",
        description="Rebuild var/ from a standby copy, up to its last committed write.",
    )
    parser.add_argument("source", type=Path, help="the standby copy's folder")
    parser.add_argument("--force", action="store_true", help="keep var/'s database aside")
    args = parser.parse_args(argv)
    from syndicate import embedded

    var_dir = embedded.default_root()
    copy = CopyFolder(args.source.expanduser().resolve())
    try:
        restored = restore(copy, var_dir, force=args.force)
    except (CopyProblem, embedded.EmbeddedError) as error:
        print(f"make restore: {error}", file=sys.stderr)
        return 1
    print(f"Restored {copy.root} into {var_dir}/ in {restored.seconds:.1f} s.")
    if restored.kept_aside is not None:
        print(f"The database that was in var/ is kept in {restored.kept_aside}/.")
    print(f"Last write: {restored.last_write}")
    print(f"Events ({len(restored.events)}), every audit chain and signed head checked:")
    for event_id, name, phase in restored.events:
        print(f"  {event_id}  {phase:<9}  {name}")
    print("Next: `make run` (HOST=0.0.0.0 for phones): players sign in again at the new address.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
