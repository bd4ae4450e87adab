"""`manage.py keep_standby`: the keeper of the standby copies (`standby.keeper`); `make run` runs it
when STANDBY_DIR or STANDBY_ALLOW is set."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from standby import secrets
from standby.folder import CopyFolder
from standby.keeper import TICK, Connection, FolderCopy, Keeper, Server, reporter, running


class Stop(Exception):
    pass


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stop


class Command(BaseCommand):
    help = "Keep the night's standby copies: stream to STANDBY_DIR, watch the second laptop."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", type=Path, default=None, help="the standby folder")
        parser.add_argument(
            "--laptop", action="store_true", help="watch a second laptop pulling (make standby)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        signal.signal(signal.SIGTERM, _stop)
        database = settings.DATABASES["default"]
        connection = Connection(
            host=database["HOST"] or "127.0.0.1",
            port=int(database["PORT"] or 5432),
            user=database["USER"],
            password=database["PASSWORD"] or "",
            dbname=database["NAME"],
        )
        server = Server(connection)
        server.prepare()
        secrets.keep()  # every copy carries what the night needs to go on elsewhere
        folder = None
        if options["dir"] is not None:
            root = options["dir"].expanduser().resolve()
            folder = FolderCopy(CopyFolder(root), connection, Path(settings.VAR_DIR))
        keeper = Keeper(server, folder, options["laptop"], reporter())
        try:
            with running(keeper):
                while True:
                    keeper.step()
                    time.sleep(TICK)
        except (Stop, KeyboardInterrupt):
            pass
