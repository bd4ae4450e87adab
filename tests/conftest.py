"""Shared test setup. The suite runs against PostgreSQL and Redis: those named by DATABASE_URL and
REDIS_URL (`make test` finds or starts them), else the embedded servers under var/ (settings)."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shuffle",
        nargs="?",
        const="random",
        default=None,
        metavar="SEED",
        help="run the test files in a shuffled order (a seed repeats an order), to find tests "
        "that pass only after, or before, another file's",
    )


def _shuffle_seed(config: pytest.Config) -> int | None:
    option = config.getoption("--shuffle")
    if option is None:
        return None
    if not hasattr(config, "_shuffle_seed"):
        config._shuffle_seed = (  # type: ignore[attr-defined]
            random.randrange(1_000_000) if option == "random" else int(option)
        )
    return config._shuffle_seed  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = _shuffle_seed(config)
    return None if seed is None else f"test files shuffled: --shuffle={seed} repeats the order"


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """The seed again at the end, where a failure is read (and under -q, which drops the header)."""
    seed = _shuffle_seed(config)
    if seed is not None:
        terminalreporter.write_line(f"test files shuffled: --shuffle={seed} repeats the order")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --shuffle, the files run in a seeded random order; a file's own tests keep theirs, so
    fixtures scoped to a module or class are still set up once."""
    seed = _shuffle_seed(config)
    if seed is None:
        return
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = sorted(files)
    random.Random(seed).shuffle(order)
    items[:] = [item for name in order for item in files[name]]


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        return  # pure modules (scoring, payouts) tested without Django
    from django.db.backends.signals import connection_created

    connection_created.connect(_tests_may_empty_the_audit, dispatch_uid="tests-audit-truncate")


def _tests_may_empty_the_audit(sender: object, connection: object, **kwargs: object) -> None:
    """Transactional tests empty every table between tests, the audit's too: a superuser session
    may TRUNCATE it once it says so (audit/migrations/0005_refuse_truncate.py)."""
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("SET syndicate.audit_truncate = 'allowed'")


@pytest.fixture(autouse=True)
def _celery_tasks_run_inline(request: pytest.FixtureRequest) -> object:
    """Tasks queued by the code under test run inline, unless a test starts a real worker."""
    if request.node.get_closest_marker("real_celery") or not os.environ.get(
        "DJANGO_SETTINGS_MODULE"
    ):
        yield None
        return
    from syndicate.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield None
    app.conf.task_always_eager = before


@pytest.fixture(autouse=True)
def _fast_passwords(request: pytest.FixtureRequest) -> Iterator[None]:
    """Accounts made by the tests need no costly hashing, except where a browser signs in to a
    server of its own, which checks passwords with the project's hashers."""
    if request.node.get_closest_marker("browser") or not os.environ.get("DJANGO_SETTINGS_MODULE"):
        yield
        return
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _live_updates_off() -> Iterator[None]:
    """No publisher thread racing a test's teardown; the live tests turn publishing back on."""
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        yield
        return
    from django.test import override_settings

    with override_settings(LIVE_UPDATES="off"):
        yield


@pytest.fixture(autouse=True)
def _api_throttles_off() -> Iterator[None]:
    """The suite makes thousands of API requests from one address within minutes; the throttle
    tests (tests/api/test_throttling.py) set low rates of their own."""
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        yield
        return
    from django.test import override_settings

    off = {"address": None, "account_read": None, "account_write": None, "house_write": None}
    with override_settings(API_THROTTLE_RATES=off):
        yield


@pytest.fixture(autouse=True)
def cache_prefix(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test keeps its cache entries (sign-in failures, check-in guesses, rate-limit counts)
    under a key prefix of its own, dropped afterwards: ids, addresses and e-mails repeat across
    tests and across runs on the same Redis, and a count one left must never refuse another. The
    processes a test starts inherit the prefix (CACHE_PREFIX)."""
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        yield ""
        return
    import redis
    from django.conf import settings
    from django.test import override_settings

    prefix = f"test-{uuid.uuid4().hex[:16]}"
    default = settings.CACHES["default"]
    monkeypatch.setenv("CACHE_PREFIX", prefix)
    with override_settings(
        CACHES={**settings.CACHES, "default": {**default, "KEY_PREFIX": prefix}}
    ):
        yield prefix
    server = redis.Redis.from_url(default["LOCATION"])
    try:
        stale = list(server.scan_iter(match=f"{prefix}:*", count=1000))
        if stale:
            server.delete(*stale)
    finally:
        server.close()
