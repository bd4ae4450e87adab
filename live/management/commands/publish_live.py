"""`manage.py publish_live`: the publisher of live updates, in a process of its own.

The servers run with LIVE_UPDATES=process and hand every committed change to it through Redis
(`live.delivery`). Any number of them share the events' shards (`--shards N`, by default
LIVE_SHARDS, which the servers route by), each holding some under a lease it renews. SIGTERM or
Ctrl-C stops it after the delivery under way and gives its shards back to the others.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from live import delivery


class Command(BaseCommand):
    help = "Send live pages what each committed change calls for (with LIVE_UPDATES=process)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--nice",
            type=int,
            default=0,
            help="add this to the process's niceness, so requests come first for the CPU",
        )
        parser.add_argument(
            "--shards",
            type=int,
            default=None,
            help="split the events into this many shards (default: LIVE_SHARDS, as the servers)",
        )

    def handle(self, *args: Any, nice: int, shards: int | None, **options: Any) -> None:
        if shards is not None and shards < 1:
            raise CommandError("--shards must be 1 or more.")
        if nice:
            os.nice(nice)
        if "pool" not in connection.settings_dict.get("OPTIONS", {}):
            # One thread: it keeps its one connection instead of opening one per delivery.
            connection.settings_dict["CONN_MAX_AGE"] = None
        stop = threading.Event()

        def on_signal(signum: int, frame: FrameType | None) -> None:
            stop.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        delivery.serve(stop, shards)
