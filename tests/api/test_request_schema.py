"""The request schemas and the API agree, request by request: a body the schema allows is taken
(or refused only for the event's state), a body it refuses is refused 400 and changes nothing.

The schema is read as schemathesis reads it (`jsonschema_rs`, ECMA 262 patterns), from the live
/api/schema/. The cases are where the two once parted: characters beyond the Basic Multilingual
Plane, lone surrogates, whitespace and control characters at the ends of text, text padded past
its length, and starting slots past the event's offer.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from django.test import Client

from events import limits
from events.models import Event, Review
from tests.api.support import Api, error
from tests.factories import make_table
from tests.refusals import snapshot, unchanged

pytestmark = pytest.mark.django_db


def body_schema(name: str) -> Any:
    """A validator for the request body component `name` of the served schema."""
    spec = Api().get("/api/schema/", format="json").json()
    return jsonschema_rs.validator_for(
        {"$ref": f"#/components/schemas/{name}", "components": spec["components"]},
        validate_formats=True,  # as schemathesis does: `format: date` is a check, not a note
    )


def raw_post(user: Any, path: str, body: bytes) -> Any:
    """A body sent byte for byte (a test client would re-encode a lone surrogate)."""
    client = Client()
    client.force_login(user)
    return client.post(
        path, body, content_type="application/json", headers={"Idempotency-Key": body.hex()[:64]}
    )


def test_text_beyond_the_basic_multilingual_plane_is_accepted_where_the_schema_allows_it() -> None:
    table = make_table(players=2)
    name = "Corn \U0001f33d Hole \U0001f3af"
    assert body_schema("PatchedEventUpdate").is_valid({"name": name})
    response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"name": name})
    assert response.status_code == 200, response.content
    assert Event.objects.get(pk=table.event.pk).name == name
    table.start()

    reason = "Checked on camera \U0001f4f7"
    assert body_schema("Reason").is_valid({"reason": reason})
    path = f"/api/registrations/{table.rid(table.players[0])}/reviews/"
    assert Api(table.house).post(path, {"reason": reason}).status_code == 201
    # The same character as a JSON escape pair is the same text.
    pair = raw_post(table.house, path, b'{"reason": "Thumbs up \\ud83d\\udc4d"}')
    assert pair.status_code == 201, pair.content
    reasons = set(Review.objects.values_list("reason", flat=True))
    assert reasons == {reason, "Thumbs up \U0001f44d"}


@pytest.mark.parametrize(
    "body",
    [
        b'{"reason": "Score \\ud800 checked"}',  # a high half alone
        b'{"reason": "\\udc00\\ud800"}',  # the halves the wrong way round
        b'{"reason": "Checked \\ud83d"}',  # a pair cut short
        b'{"\\udfff": 1, "reason": "Checked"}',  # in a field name
    ],
)
def test_a_lone_surrogate_is_refused_clearly_and_changes_nothing(body: bytes) -> None:
    table = make_table(players=2, start=True)
    with unchanged(table.event):
        path = f"/api/registrations/{table.rid(table.players[0])}/reviews/"
        response = raw_post(table.house, path, body)
        assert error(response) == (400, "invalid")
        assert "lone surrogate" in response.json()["error"]["message"]
    assert not Review.objects.exists()


def test_a_lone_surrogate_deep_in_a_body_is_refused_and_changes_nothing() -> None:
    table = make_table(players=2, start=True)
    Api(table.house).post(f"/api/events/{table.event.pk}/registration/close/")
    with unchanged(table.event):
        body = b'{"adjustments": [{"amount": 5, "explanation": "Refund \\udbff"}]}'
        response = raw_post(table.house, f"/api/events/{table.event.pk}/pool/confirm/", body)
        assert error(response) == (400, "invalid")
        assert "lone surrogate" in response.json()["error"]["message"]


NAME = limits.NAME_LENGTH
VENUE = limits.VENUE_LENGTH
TEXTS = [
    "Plain",
    "\U0001f33d" * NAME,  # at the limit, each character beyond the BMP counted once
    "\U0001f33d" * (NAME + 1),
    "x" * NAME,
    "x" * NAME + " ",  # padded past the limit: refused, not trimmed to fit
    " " * (NAME + 1),
    " Padded ",
    "Trailing line break\n",
    "\tLeading tab",
    "\u3000",  # an ideographic space: blank
    "\ufeff",  # a byte-order mark: not whitespace to Python, so not blank
    "\u00a0Non-breaking\u00a0",
    "\x85",  # NEL: a C1 control character
    "Right \u202eto left",
    "Line\u2028separator",
    "",
]


@pytest.mark.parametrize("text", TEXTS, ids=[ascii(text)[:40] for text in TEXTS])
@pytest.mark.parametrize("field", ["name", "venue"])
def test_text_is_taken_exactly_when_the_schema_allows_it(field: str, text: str) -> None:
    table = make_table(players=2)
    allowed = body_schema("PatchedEventUpdate").is_valid({field: text})
    before = snapshot(table.event)
    response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {field: text})
    if allowed:
        assert response.status_code == 200, response.content
        event = Event.objects.get(pk=table.event.pk)
        assert getattr(event, field) == text.strip()
    else:
        assert error(response) == (400, "invalid")
        assert snapshot(table.event) == before


@pytest.mark.parametrize(
    "reason", ["\ufeff", "\u3000", "Seen\n", "\n\t", "x" * limits.REASON_LENGTH + "\n", "\x00"]
)
def test_a_reason_is_taken_exactly_when_the_schema_allows_it(reason: str) -> None:
    table = make_table(players=2, start=True)
    allowed = body_schema("Reason").is_valid({"reason": reason})
    before = snapshot(table.event)
    path = f"/api/registrations/{table.rid(table.players[0])}/reviews/"
    response = Api(table.house).post(path, {"reason": reason})
    if allowed:
        assert response.status_code == 201, response.content
    else:
        assert response.status_code == 400, response.content
        assert error(response)[1] in ("invalid", "reason_required")
        assert snapshot(table.event) == before


def test_a_slot_past_the_events_offer_is_refused_for_the_events_state() -> None:
    table = make_table("league", players=2, start=True)  # League: choose 1 of 3 (slots 0 to 2)
    player = table.players[0]
    schema = body_schema("StartingSelection")
    path = f"/api/registrations/{table.rid(player)}/starting-selection/"
    before = snapshot(table.event)

    # Switch offers five cards: slots 3 and 4 are well formed, but this offer has three.
    assert schema.is_valid({"slots": [3]})
    response = Api(player).post(path, {"slots": [3]})
    assert error(response) == (409, "wrong_state")
    assert "numbered 0 to 2" in response.json()["error"]["message"]
    assert snapshot(table.event) == before

    # No format offers a sixth card: the schema refuses slot 5, and so does the API.
    assert not schema.is_valid({"slots": [5]})
    assert error(Api(player).post(path, {"slots": [5]})) == (400, "invalid")
    assert snapshot(table.event) == before

    assert Api(player).post(path, {"slots": [2]}).status_code == 200


DAYS = [
    "2026-12-05",
    "2026-1-5",
    "20261205",
    "2026-W49-2",
    "\uff12\uff10\uff12\uff16-12-05",  # full-width digits
    "2026-12-05\n",
    "2026-02-30",
]


@pytest.mark.parametrize("day", DAYS)
def test_a_date_is_taken_exactly_when_the_schema_allows_it(day: str) -> None:
    table = make_table(players=2)
    allowed = body_schema("PatchedEventUpdate").is_valid({"date": day})
    before = snapshot(table.event)
    response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"date": day})
    if allowed:
        assert response.status_code == 200, response.content
        assert str(Event.objects.get(pk=table.event.pk).date) == day
    else:
        assert error(response) == (400, "invalid")
        assert snapshot(table.event) == before
