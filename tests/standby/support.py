"""House's view of the standby copy lives in the cache, which every suite shares: tests that
report copies or take snapshots leave it as they found it (no copy, no snapshot)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.cache import cache

from standby import snapshots, state


def forget_everything() -> None:
    for name in ("folder", "laptop"):
        state.forget(name)
    cache.delete(snapshots.LAST_KEY)


def mounted(folder: Path, options: str) -> Iterator[Path]:
    """A filesystem of its own at `folder` (tmpfs with `options`), for what only a real one
    does: a full disk, a read-only one."""
    folder.mkdir(exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)
