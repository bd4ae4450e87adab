"""`manage.py publish_live`: the publisher of live updates, in a process of its own.

The servers run with LIVE_UPDATES=process and hand every committed change to it through Redis
(`live.delivery`). SIGTERM or Ctrl-C stops it after the delivery under way.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
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

    def handle(self, *args: Any, nice: int, **options: Any) -> None:
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
        delivery.serve(stop)
