"""Publisher processes for the tests: `manage.py publish_live` on the test database, the test's
channel-layer prefix and Redis, as a deployment starts them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from live import delivery

ROOT = Path(__file__).resolve().parents[2]


def publisher_env() -> dict[str, str]:
    database = connection.settings_dict
    user = quote(database["USER"]) + (
        f":{quote(database['PASSWORD'])}" if database["PASSWORD"] else ""
    )
    url = f"postgres://{user}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    return {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": settings.REDIS_URL,
        "CHANNELS_PREFIX": delivery._redis_key("x").removesuffix(":live:x"),
        "DATABASE_POOL_SIZE": "0",
    }


def start_publisher(*arguments: str) -> subprocess.Popen[bytes]:
    """`manage.py publish_live ARGUMENTS`, its log on standard error (read it after it ends)."""
    command = [sys.executable, "manage.py", "publish_live", *arguments]
    return subprocess.Popen(command, cwd=ROOT, env=publisher_env(), stderr=subprocess.PIPE)


def holder_pid(token: object) -> int | None:
    """The process id in a lease's or heartbeat's token (`<pid>@<host>:<random>`)."""
    if not isinstance(token, bytes | str) or not token:
        return None
    text = token.decode() if isinstance(token, bytes) else token
    return int(text.split("@", 1)[0])
