"""The local Stripe server (tests/payments/stripe_server.py) for each test that pays, with the
app's settings pointed at it and its webhook deliveries posted to the app's live server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.payments.stripe_server import StripeServer


@pytest.fixture
def stripe_server(live_server: Any, settings: Any) -> Iterator[StripeServer]:
    server = StripeServer(api_key="sk_test_local", webhook_secret="whsec_test_local").start()
    server.webhook_url = f"{live_server.url}/payments/stripe/webhook"
    settings.STRIPE_SECRET_KEY = server.api_key
    settings.STRIPE_WEBHOOK_SECRET = server.webhook_secret
    settings.STRIPE_API_BASE = server.url
    settings.STRIPE_CURRENCY = "usd"
    try:
        yield server
    finally:
        server.stop()
