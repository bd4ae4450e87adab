"""Helpers for the House page tests; it holds no tests itself."""

from __future__ import annotations

import uuid
from typing import Any

from django.test import Client
from django.urls import reverse

from tests import refusals
from tests.factories import Table

REASON = "Scoreholio shows a different result."


def url(name: str, *args: int) -> str:
    return reverse(f"house:{name}", args=args)


def post(client: Client, name: str, *args: int, **data: Any) -> Any:
    """POST a House action the way its form does: with a fresh idempotency key."""
    data.setdefault("idempotency_key", uuid.uuid4().hex)
    return client.post(url(name, *args), data)


def house_client(client: Client, table: Table) -> Client:
    client.force_login(table.house)
    return client


def refused_by_page(
    client: Client, table: Table, name: str, *args: int, message: str, **data: Any
) -> Any:
    """The action is refused with the service's message, and nothing in the event changed."""
    return refusals.refused_by_page(
        lambda: post(client, name, *args, **data), table.event, message=message
    )
