"""Each standby test starts and ends with nothing reported (tests/standby/support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.standby.support import forget_everything


@pytest.fixture(autouse=True)
def nothing_reported() -> Iterator[None]:
    forget_everything()
    yield
    forget_everything()
