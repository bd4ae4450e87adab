"""A refusal, at every layer: refused in the service's words, and nothing in the event changed.

`snapshot()` is every row an event owns, with every field, and its audit chain; `unchanged()`
holds a block to it. The layers' checks are built on them: `refused()` for a service (the exact
domain error and its code), `refused_by_page()` for a page's form (the service's message, shown
on the next page); an API refusal is `api_error()`'s status and code inside `unchanged()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db.models import QuerySet

from audit.models import AuditEntry
from cards.models import DealtCard, Offer, Shoe, Shuffle
from events.errors import DomainError
from events.models import (
    Event,
    GameResult,
    PoolAdjustment,
    Registration,
    Review,
)
from staff.models import DisplayLink


def every_field(rows: QuerySet[Any]) -> list[dict[str, Any]]:
    """Each row with every field it stores (a scoped row's `scope` is its `scope_type` and
    `scope_id`)."""
    return list(rows.values(*(field.attname for field in rows.model._meta.concrete_fields)))


def snapshot(event: Event | int) -> dict[str, Any]:
    """Every row an event owns, with every field, and its audit sequence."""
    event_id = event if isinstance(event, int) else event.pk
    row = Event.objects.get(pk=event_id)
    return {
        "event": {f.attname: getattr(row, f.attname) for f in Event._meta.concrete_fields},
        "house": sorted(row.staff.values_list("user_id", "role")),
        "registrations": list(
            Registration.objects.filter(event_id=event_id).order_by("pk").values()
        ),
        "results": list(
            GameResult.objects.filter(registration__event_id=event_id).order_by("pk").values()
        ),
        "reviews": list(
            Review.objects.filter(registration__event_id=event_id).order_by("pk").values()
        ),
        "offers": list(
            Offer.objects.filter(registration__event_id=event_id).order_by("pk").values()
        ),
        "cards": list(DealtCard.objects.filter(shoe__event_id=event_id).order_by("pk").values()),
        "shoes": list(
            Shoe.objects.filter(event_id=event_id)
            .order_by("pk")
            .values("kind", "decks", "size", "next_position", "order")
        ),
        "shuffles": Shuffle.objects.filter(event_id=event_id).count(),
        "adjustments": list(
            PoolAdjustment.objects.filter(event_id=event_id).order_by("pk").values()
        ),
        # Its display links, all but "last seen", which a display's page moves as it is shown.
        "display_links": list(
            DisplayLink.objects.of(row)
            .order_by("pk")
            .values("pk", "label", "token_hash", "created_by", "revoked_at", "revoked_by")
        ),
        "audit": list(
            AuditEntry.objects.filter(event_id=event_id).order_by("seq").values_list("seq", "hash")
        ),
    }


@contextmanager
def unchanged(event: Event | int, what: str = "a refused action") -> Iterator[None]:
    """The block leaves every row of the event as it was."""
    before = snapshot(event)
    yield
    assert snapshot(event) == before, f"{what} changed the event"


def refused(
    error: type[DomainError] | tuple[type[DomainError], ...],
    event: Event | int,
    call: Callable[[], object],
) -> DomainError:
    """`call` raises exactly `error` (or one of them; checked by class and code) and changes
    nothing."""
    allowed = error if isinstance(error, tuple) else (error,)
    with unchanged(event), pytest.raises(DomainError) as caught:
        call()
    got = caught.value
    names = " or ".join(e.__name__ for e in allowed)
    assert type(got) in allowed, f"expected {names}, got {type(got).__name__}: {got}"
    assert got.code == type(got).code
    assert got.code in {e.code for e in allowed}
    return got


def said(response: Any) -> list[str]:
    """The messages a page's action left for the next page."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def refused_by_page(
    post: Callable[[], Any], event: Event | int, *, message: str, location: str | None = None
) -> Any:
    """The form's post is sent back (to `location`, when given) with the service's message, and
    nothing in the event changed."""
    with unchanged(event):
        response = post()
    assert response.status_code == 302
    if location is not None:
        assert response["Location"] == location
    assert any(message in text for text in said(response)), said(response)
    return response


def api_error(response: Any) -> tuple[int, str]:
    """The status and error code of an API refusal, after checking the one error shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return response.status_code, body["error"]["code"]
