"""Queries per write, as the requests players and House make during a night send them: the
exact count of each, so a query that creeps in (a middleware read, a re-read to answer, a
permission read per row) fails here.

Each count is the whole request (middleware, view, service, answer), measured with the test
transaction's SAVEPOINT/RELEASE pair left out (a request in production commits its own
transaction instead). What each count is made of is written beside it; the same counts hold
with 4 players and with 16.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from cards.models import Offer
from tests.factories import Table, make_table, make_user

pytestmark = pytest.mark.django_db

# The sign-in (the session, the user) is two queries in every request; the service's own write
# is what `tests/events/test_query_counts.py` bounds.
SIGN_IN = 2
COUNTS = {
    # + House's limit (api/throttles.py: is the account House anywhere) + the write's 6: lock the
    # event, the idempotency key, the player, deal, whether registration closes, the audit.
    "api_result": SIGN_IN + 1 + 6,
    # + House's limit + the write's 7: lock, key, player, the offer's cards, resolve the offer,
    # keep the card, the audit.
    "api_win_choice": SIGN_IN + 1 + 7,
    # + the event and the player's registration (one query) + the write's 6 + the answer: the
    # player's panel (the registration after the write, their cards, offers, the offer's cards,
    # their games, and the standings for their place line: the players and their kept cards).
    "page_result": SIGN_IN + 1 + 6 + 7,
    # + the event and the registration + the write's 7 + the answer's 7.
    "page_win_choice": SIGN_IN + 1 + 7 + 7,
    # (House here is site staff: its limit needs no lookup) + the write's 10: lock, key, the
    # player, House's roles, the game under way, the places taken, the check-in order, check in,
    # deal the late entry's cards, the audit.
    "api_check_in": SIGN_IN + 10,
}


def counted(request: Callable[[], Any]) -> tuple[Any, list[str]]:
    """The request's answer and its statements, the test transaction's savepoints left out."""
    with CaptureQueriesContext(connection) as captured:
        answer = request()
    statements = [q["sql"] for q in captured.captured_queries]
    return answer, [sql for sql in statements if not sql.startswith(("SAVEPOINT", "RELEASE"))]


def key() -> dict[str, str]:
    return {"Idempotency-Key": uuid.uuid4().hex}


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def night(players: int) -> Table:
    """A started League event whose players all chose their starting cards; half reported."""
    table = make_table("league", players=players, start=True)
    for index, player in enumerate(table.players):
        table.choose_start(player)
        if index % 2 and index > 2:
            table.report(player, 1, "loss")
    return table


def writes(table: Table) -> dict[str, list[str]]:
    """Each write of the night once, through the API and the pages; its statements."""
    ann, bob = table.players[:2]
    event_id = table.event.pk
    found: dict[str, list[str]] = {}
    api = signed_in(ann)
    ann_results = f"/api/registrations/{table.rid(ann)}/results/"
    ann_choice = f"/api/registrations/{table.rid(ann)}/win-choice/"
    answer, found["api_result"] = counted(
        lambda: api.post(
            ann_results, {"game": 1, "outcome": "win"}, "application/json", headers=key()
        )
    )
    assert answer.status_code == 201, answer.content
    answer, found["api_win_choice"] = counted(
        lambda: api.post(ann_choice, {"slot": 0}, "application/json", headers=key())
    )
    assert answer.status_code == 200, answer.content

    page = signed_in(bob)
    htmx = {"HX-Request": "true"}
    answer, found["page_result"] = counted(
        lambda: page.post(
            f"/events/{event_id}/report",
            {"game": 1, "outcome": "win", "idempotency_key": uuid.uuid4().hex},
            headers=htmx,
        )
    )
    assert answer.status_code == 200 and b"data-refusal" not in answer.content
    offer = Offer.objects.get(registration__player=bob, resolved_at__isnull=True)
    answer, found["page_win_choice"] = counted(
        lambda: page.post(
            f"/events/{event_id}/keep",
            {"slot": 0, "offer_id": offer.pk, "idempotency_key": uuid.uuid4().hex},
            headers=htmx,
        )
    )
    assert answer.status_code == 200 and b"data-refusal" not in answer.content
    assert len(table.kept(bob)) == table.event.rules.starting + 1

    late = make_user()
    registration_id = table.register(late)
    house = signed_in(table.house)
    answer, found["api_check_in"] = counted(
        lambda: house.post(
            f"/api/registrations/{registration_id}/check-in/", {}, "application/json", headers=key()
        )
    )
    assert answer.status_code == 200, answer.content
    return found


@pytest.mark.parametrize("players", [4, 16])
def test_each_write_sends_exactly_its_queries(players: int) -> None:
    found = writes(night(players))

    assert {write: len(statements) for write, statements in found.items()} == COUNTS


def test_a_page_write_reads_the_event_and_the_registration_once_before_writing() -> None:
    found = writes(night(4))

    for write in ("page_result", "page_win_choice"):
        before = found[write][
            : found[write].index(next(s for s in found[write] if "FOR NO KEY UPDATE" in s))
        ]
        assert len(before) == SIGN_IN + 1, before
        assert "events_event" in before[-1] and "events_registration" in before[-1]
