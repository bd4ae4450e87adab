"""Daphne with a stack sampler, for `bench/load.py --sample`: where the server's threads spend time.

    .venv/bin/python bench/load_sampler.py OUTPUT.json INTERVAL DAPHNE-ARGUMENTS...

A poor man's py-spy (which the project does not depend on): a daemon thread wakes every INTERVAL
seconds, reads every other thread's Python stack (`sys._current_frames`) and counts whether the
thread was running Python or waiting (for the database, or idle: a lock, a queue, a selector),
per kind of thread; for the running samples, the innermost frame ("self") and the project's
functions on the stack ("inclusive"). The counts are written to OUTPUT.json when daphne exits.

The sampler only runs when it holds the GIL, so a thread that keeps the GIL is seen less often
than its share: the figures say roughly where the time goes, not exact shares.
"""

from __future__ import annotations

import atexit
import json
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
PROJECT = str(ROOT) + "/"
LIBRARIES = "/site-packages/"

# The innermost Python frame of a thread blocked in C: (file, function).
IDLE = {
    ("threading.py", "wait"),
    ("threading.py", "_wait_for_tstate_lock"),
    ("threading.py", "join"),
    ("queue.py", "get"),
    ("selectors.py", "select"),
    ("concurrent/futures/thread.py", "_worker"),
}
DATABASE_FILES = ("psycopg/connection.py", "psycopg/waiting.py")
DATABASE_FUNCTIONS = {"wait", "wait_conn", "wait_epoll", "wait_select", "wait_poll", "wait_c"}


def where(frame: FrameType) -> tuple[str, bool]:
    """The frame as `file:function`, and whether the file is the project's own."""
    name = frame.f_code.co_filename
    own = name.startswith(PROJECT) and "/.venv/" not in name
    if own:
        name = name[len(PROJECT) :]
    elif LIBRARIES in name:
        name = name.split(LIBRARIES, 1)[1]
    else:
        name = name.rsplit("/lib/python3", 1)[-1].split("/", 1)[-1]
    return f"{name}:{frame.f_code.co_name}", own


class Sampler:
    def __init__(self, output: str, interval: float) -> None:
        self.output = output
        self.interval = interval
        self.samples = 0
        self.threads: dict[str, Counter[str]] = {}
        self.own: Counter[str] = Counter()
        self.inclusive: Counter[str] = Counter()
        self.change: Counter[str] = Counter()
        self.thread = threading.Thread(target=self.run, name="load-sampler", daemon=True)

    def run(self) -> None:
        me = threading.get_ident()
        main = threading.main_thread().ident
        while True:
            time.sleep(self.interval)
            names = {t.ident: t.name for t in threading.enumerate()}
            self.samples += 1
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    self.take(frame, names.get(ident, "?"), ident == main)

    def take(self, leaf: FrameType, name: str, main: bool) -> None:
        stack: list[tuple[str, bool]] = []
        frame: FrameType | None = leaf
        while frame is not None:
            stack.append(where(frame))
            frame = frame.f_back
        top = stack[0][0]
        path, _, function = top.rpartition(":")
        if (path, function) in IDLE:
            state = "idle"
        elif path in DATABASE_FILES and function in DATABASE_FUNCTIONS:
            state = "database"
        else:
            state = "running"
        joined = " ".join(entry for entry, _ in stack)
        if main:
            kind = "main thread (event loop: HTTP, websockets, consumers)"
        elif name == "live-updates":
            kind = "live-updates worker (snapshots after each change)"
        elif "django/core/handlers/" in joined:
            kind = "request threads (views, services)"
        elif "channels/db.py" in joined or "live/consumers.py" in joined:
            kind = "websocket database thread (connects, reloads)"
        elif "concurrent/futures/thread.py:shutdown" in joined:
            kind = "executor shutdowns (waiting for a request thread to end)"
        else:
            kind = "other threads"
        self.threads.setdefault(kind, Counter())[state] += 1
        if "events/runner.py:perform" in joined:
            if "events/runner.py:_lock_event" in joined:
                self.change["waiting for the event lock"] += 1
            else:
                self.change[f"inside the change: {state}"] += 1
        if state != "running":
            return
        self.own[top] += 1
        for entry in dict.fromkeys(
            entry
            for entry, own in stack
            if own and not entry.startswith("bench/") and not entry.endswith(":<module>")
        ):
            self.inclusive[entry] += 1

    def dump(self) -> None:
        with open(self.output, "w") as out:
            json.dump(
                {
                    "interval": self.interval,
                    "samples": self.samples,
                    "threads": self.threads,
                    "change": self.change,
                    "self": self.own.most_common(25),
                    "inclusive": self.inclusive.most_common(40),
                },
                out,
                indent=1,
            )


def main() -> None:
    output, interval = sys.argv[1], float(sys.argv[2])
    sys.argv = ["daphne", *sys.argv[3:]]
    sys.path.insert(0, str(ROOT))
    sampler = Sampler(output, interval)
    atexit.register(sampler.dump)
    sampler.thread.start()
    from daphne.cli import CommandLineInterface

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
