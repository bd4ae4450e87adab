"""The local Stripe server (tests/payments/stripe_server.py) for each test that pays, with the
app's settings pointed at it and its webhook deliveries posted to the app's live server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.payments.stripe_server import StripeServer, stripe_running


@pytest.fixture
def stripe_server(live_server: Any, settings: Any) -> Iterator[StripeServer]:
    with stripe_running(settings, f"{live_server.url}/payments/stripe/webhook") as server:
        yield server
