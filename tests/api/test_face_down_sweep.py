"""No answer shows a face-down card before its player confirms (docs/rules.md section 2.6).

An event is walked from the offers to the last confirmation through the API. After every
response, the face-down cards are read from the database (DealtCard rows with face_down=True)
and the response is searched for their identities in every structured form an answer uses:
two-character card strings anywhere (values, list items, keys), {rank, suit} objects, and card
names ("Queen of hearts"). Printed duplicates are normal in a multi-deck stock, so a face-down
card's code only counts as hidden while no face-up card shows the same code; the first phase,
before any confirmation, has no face-up card at all, so there every code is checked.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest

from cards.models import DealtCard
from cards.names import RANK_NAMES, SUIT_NAMES
from events.models import Event
from tests.api.support import Api
from tests.factories import make_user

pytestmark = pytest.mark.django_db

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
RANKS = {name: rank for rank, name in RANK_NAMES.items()}
SUITS = {name: suit for suit, name in SUIT_NAMES.items()}
CARD_NAME = re.compile(rf"\b({'|'.join(RANKS)}) of ({'|'.join(SUITS)})\b")


def cards_in(value: Any) -> set[str]:
    """Every card identity a decoded answer holds, as codes."""
    found: set[str] = set()
    if isinstance(value, str):
        if CARD.match(value):
            found.add(value)
        found |= {RANKS[r] + SUITS[s] for r, s in CARD_NAME.findall(value)}
    elif isinstance(value, dict):
        if isinstance(value.get("rank"), str) and isinstance(value.get("suit"), str):
            rank = "T" if value["rank"] == "10" else value["rank"]
            found.add(rank + value["suit"])
        for key, inner in value.items():
            found |= cards_in(key) | cards_in(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= cards_in(inner)
    return found


def decoded(response: Any) -> Any:
    if response["Content-Type"].startswith("text/csv"):
        rows = list(csv.reader(io.StringIO(response.content.decode())))
        return [[_maybe_json(cell) for cell in row] for row in rows]
    return response.json()


def _maybe_json(cell: str) -> Any:
    try:
        return json.loads(cell)
    except ValueError:
        return cell


class Watch:
    """Checks every response the moment it arrives against the cards face down right then."""

    def __init__(self) -> None:
        self.event: Event | None = None
        self.checked = 0  # responses checked while some card was face down
        self.full_strength = 0  # ... while no face-up card could mask a face-down code

    def hidden(self) -> tuple[set[str], bool]:
        dealt = DealtCard.objects.filter(registration__event=self.event)
        down = set(dealt.filter(face_down=True).values_list("card", flat=True))
        shown = set(dealt.filter(face_down=False).values_list("card", flat=True))
        return down - shown, not shown

    def check(self, response: Any, what: str) -> Any:
        if self.event is None:
            return response
        hidden, unmasked = self.hidden()
        if hidden:
            leaked = cards_in(decoded(response)) & hidden
            assert not leaked, f"{what} showed face-down cards {leaked}"
            self.checked += 1
            self.full_strength += unmasked
        return response


class Client(Api):
    def __init__(self, watch: Watch, user=None) -> None:
        super().__init__(user)
        self.watch = watch

    def get(self, path: str, **query: Any) -> Any:
        return self.watch.check(super().get(path, **query), f"GET {path} {query}")

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.watch.check(super().post(path, body, **kwargs), f"POST {path} {body}")

    def patch(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.watch.check(super().patch(path, body, **kwargs), f"PATCH {path} {body}")


@pytest.mark.parametrize("format", ["league", "switch"])
def test_it_shows_no_face_down_card_before_confirmation(format: str) -> None:
    watch = Watch()
    house = Client(watch, make_user("House", staff=True))
    players = [Client(watch, make_user(name)) for name in ("Ann", "Ben", "Cy")]
    late_user = make_user("Late")
    late = Client(watch, late_user)
    visitor = Client(watch)

    event_id = house.post(
        "/api/events/",
        {"name": "Sweep", "date": "2026-12-04", "format": format, "contribution": 10},
    ).json()["event_id"]
    watch.event = Event.objects.get(pk=event_id)
    event = f"/api/events/{event_id}"
    house.patch(f"{event}/", {"remainder_policy": "Rolls over."})
    house.post(f"{event}/registration/open/")
    rid = {}
    for player in players:
        rid[player] = player.post(f"{event}/register/").json()["registration_id"]
        house.post(f"/api/registrations/{rid[player]}/check-in/")
    assert house.post(f"{event}/start/").status_code == 200
    starting = 1 if format == "league" else 3

    def look_everywhere() -> None:
        for client in (visitor, *players, late, house):
            client.get("/api/events/")
            client.get(f"{event}/")
            client.get(f"{event}/board/")
            client.get("/api/formats/")
        for player in [*players, late]:
            player.get(f"{event}/me/")
            if player in rid:
                player.get(f"/api/registrations/{rid[player]}/")
                house.get(f"/api/registrations/{rid[player]}/")
        house.get(f"{event}/house/")
        house.get(f"{event}/checklist/")
        house.get(f"{event}/audit/")
        house.get(f"{event}/audit/", format="csv")

    def try_refused_writes(player: Client) -> None:
        path = f"/api/registrations/{rid[player]}"
        assert player.post(f"{path}/results/", {"game": 1, "outcome": "win"}).status_code == 409
        assert player.post(f"{path}/starting-selection/", {"slots": []}).status_code == 400
        assert player.post(f"{path}/starting-selection/", {"slots": [0, 0]}).status_code == 400
        assert player.post(f"{path}/starting-selection/", {"slots": [9]}).status_code == 400
        assert player.post(f"{path}/win-choice/", {"slot": 0}).status_code == 409
        assert house.post(f"{path}/starting-selection/", {"slots": [0]}).status_code == 400
        assert house.post(f"{path}/check-in/undo/").status_code == 409
        assert house.post(f"{path}/wild-reveal/").status_code == 409
        correction = {"game": 1, "outcome": "win", "reason": "x"}
        assert house.post(f"{path}/corrections/", correction).status_code == 404
        assert player.post(f"{path}/cancel/").status_code == 409

    # Phase 1: every card dealt is face down; no face-up card exists to mask a code.
    look_everywhere()
    for player in players:
        try_refused_writes(player)
    assert house.post(f"{event}/pool/confirm/").status_code == 409
    assert house.post(f"{event}/finalize/").status_code == 409
    added = house.post(f"{event}/participants/", {"email": late_user.email}).json()
    rid[late] = added["registration_id"]
    look_everywhere()
    try_refused_writes(late)
    assert watch.full_strength >= 100

    # Phase 2: players confirm one by one while others still hold face-down offers.
    ann, ben, cy = players
    offer = DealtCard.objects.filter(registration_id=rid[ann]).values_list("card", flat=True)
    confirmed = ann.post(
        f"/api/registrations/{rid[ann]}/starting-selection/", {"slots": list(range(starting))}
    )
    assert cards_in(confirmed.json()) == set(offer)  # the search finds what is really there
    ann.post(f"/api/registrations/{rid[ann]}/results/", {"game": 1, "outcome": "win"})
    ann.post(f"/api/registrations/{rid[ann]}/win-choice/", {"slot": 1})
    ann.post(f"/api/registrations/{rid[ann]}/results/", {"game": 2, "outcome": "loss"})
    look_everywhere()

    house.post(
        f"/api/registrations/{rid[ben]}/starting-selection/",
        {"slots": list(range(starting)), "reason": "Phone died"},
    )
    look_everywhere()

    voided = set(DealtCard.objects.filter(registration_id=rid[cy]).values_list("card", flat=True))
    cy.post(f"/api/registrations/{rid[cy]}/withdraw/")
    audit = house.get(f"{event}/audit/")
    assert voided <= cards_in(audit.json())  # revealed by the withdrawal, and found
    look_everywhere()

    late.post(
        f"/api/registrations/{rid[late]}/starting-selection/", {"slots": list(range(starting))}
    )
    assert not DealtCard.objects.filter(registration__event_id=event_id, face_down=True).exists()
    assert watch.checked > watch.full_strength
