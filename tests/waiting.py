"""Waiting in tests: on a condition, never for a fixed time.

The suite runs on machines busy with other work (CI runners, a laptop building something else,
the browser suite beside it), so the limit is generous: a condition that holds returns at once,
and only one that never holds costs the whole limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

PATIENCE = 60.0  # seconds


def wait_until(
    check: Callable[[], object], what: str, *, timeout: float = PATIENCE, step: float = 0.05
) -> float:
    """Ask `check` until it holds; return the seconds it took. Fails the test after `timeout`
    seconds, naming `what` it waited for."""
    start = time.monotonic()
    while True:
        if check():
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError(f"Timed out after {timeout} s waiting for {what}.")
        time.sleep(step)


async def wait_until_async(
    check: Callable[[], object], what: str, *, timeout: float = PATIENCE, step: float = 0.05
) -> float:
    """`wait_until` inside an event loop: the loop runs on while it waits."""
    start = time.monotonic()
    while True:
        if check():
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError(f"Timed out after {timeout} s waiting for {what}.")
        await asyncio.sleep(step)


def holds_throughout(
    check: Callable[[], object], what: str, *, seconds: float, step: float = 0.05
) -> None:
    """Ask `check` for `seconds`; fails the test as soon as it does not hold. For what must not
    happen (a second delivery, a lost countdown firing): an absence can only be watched for a
    while, so the window is the shortest that would show the thing if it happened."""
    deadline = time.monotonic() + seconds
    while True:
        assert check(), f"{what} no longer held"
        if time.monotonic() >= deadline:
            return
        time.sleep(step)
