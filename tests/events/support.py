"""Helpers shared by the service tests (tests/events/test_<service>.py); it holds no tests itself.

Refusals are checked with `tests.refusals.refused()`. `reference_shoe()` recomputes a shoe
from the seed with the algorithm of docs/rules.md section 2.3, written here independently of
cards/shuffle.py.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
from typing import Any

from audit.models import AuditEntry
from cards.models import DealtCard, Offer, Shoe
from events import answers, services
from events.models import Event
from tests.factories import Table, make_table

REASON = "Scoreholio shows a different result."
GENESIS = "0" * 64


def entries(event: Event | int, action: str | None = None) -> list[AuditEntry]:
    event_id = event if isinstance(event, int) else event.pk
    rows = AuditEntry.objects.filter(event_id=event_id).order_by("seq")
    if action is not None:
        rows = rows.filter(action=action)
    return list(rows)


def actions(event: Event | int) -> list[str]:
    return [entry.action for entry in entries(event)]


def last(event: Event | int, action: str) -> AuditEntry:
    found = entries(event, action)
    assert found, f"no {action} entry"
    return found[-1]


def new_entries(event: Event | int, after: int) -> list[AuditEntry]:
    """Entries written after sequence number `after`."""
    return [entry for entry in entries(event) if entry.seq > after]


def head(event: Event | int) -> int:
    """The last sequence number written so far (0 for none)."""
    found = entries(event)
    return found[-1].seq if found else 0


def dealt(event: Event | int, kind: str = "stock") -> list[DealtCard]:
    event_id = event if isinstance(event, int) else event.pk
    return list(
        DealtCard.objects.filter(shoe__event_id=event_id, shoe__kind=kind).order_by("position")
    )


def next_position(event: Event | int, kind: str = "stock") -> int:
    event_id = event if isinstance(event, int) else event.pk
    return Shoe.objects.get(event_id=event_id, kind=kind).next_position


def pending_offer(table: Table, player: Any) -> Offer | None:
    return Offer.objects.pending().filter(registration=table.registration(player)).first()


def offer_cards(offer: Offer) -> list[DealtCard]:
    return list(offer.cards.order_by("slot"))


def reference_shoe(decks: int, seed: bytes, label: bytes) -> list[str]:
    """docs/rules.md section 2.3, written out again: canonical order, HMAC stream, Fisher-Yates."""
    cards = [rank + suit for _ in range(decks) for rank in "23456789TJQKA" for suit in "cdhs"]
    counter = 0

    def below(n: int) -> int:
        nonlocal counter
        while True:
            message = label + b":" + counter.to_bytes(8, "big")
            counter += 1
            x = int.from_bytes(hmac.new(seed, message, hashlib.sha256).digest()[:8], "big")
            if x < (2**64 // n) * n:
                return x % n

    for i in range(len(cards) - 1, 0, -1):
        j = below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def chain_hash(entry: AuditEntry) -> str:
    """The hash of docs/rules.md section 10.3, computed from the stored fields."""
    body = {
        "seq": entry.seq,
        "at": entry.at,
        "actor": entry.actor,
        "action": entry.action,
        "player": entry.player,
        "details": entry.details,
        "reason": entry.reason,
        "prev_hash": entry.prev_hash,
    }
    if entry.actor_kind is not None:  # a stored key too (absent on entries from before it)
        body["actor_kind"] = entry.actor_kind
    if entry.actor_role is not None:  # on House entries since roles (docs/audit.md)
        body["actor_role"] = entry.actor_role
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((entry.prev_hash + text).encode()).hexdigest()


def play(table: Table, player: Any, outcomes: str) -> None:
    """Confirm the starting selection if pending, then report the next games ('w'/'l' each).

    A win is chosen (card 0) except when it is the last letter: that choice is left pending.
    """
    if table.event.rules.offered and (offer := pending_offer(table, player)) is not None:
        assert offer.kind == "starting"
        table.choose_start(player)
    done = table.registration(player).results.count()
    for index, letter in enumerate(outcomes):
        game = done + index + 1
        table.report(player, game, "win" if letter == "w" else "loss")
        if letter == "w" and index < len(outcomes) - 1:
            table.choose_win(player)


def complete_table(
    format: str = "switch",
    *,
    players: int = 2,
    contribution: int = 10,
    outcomes: dict[int, str] | None = None,
) -> Table:
    """A started event where every player has played every game (Standard v1: wilds revealed).

    Registration closes by itself with the last first result; the pool is not yet confirmed.
    """
    table = make_table(format, players=players, start=True, contribution=contribution)
    for index, player in enumerate(table.players):
        table.play_out(player, (outcomes or {}).get(index))
    if format == "standard-v1":
        for player in table.players:
            services.wild_reveal(registration_id=table.rid(player), by=table.house)
    table.refresh()
    return table


def finalized_table(format: str = "switch", *, players: int = 2, contribution: int = 10) -> Table:
    table = complete_table(format, players=players, contribution=contribution)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    table.refresh()
    return table


def correct(
    table: Table, player: Any, game: int, outcome: str, reason: str = REASON
) -> answers.ResultCorrected:
    """House corrects a result, with a reason."""
    return services.result_correct(
        registration_id=table.rid(player), by=table.house, game=game, outcome=outcome, reason=reason
    )


def create_event(house: Any, **settings_: Any) -> int:
    """A draft League event named "Night" (settings as given), created by `house`."""
    values: dict[str, Any] = {
        "name": "Night",
        "date": datetime.date(2026, 12, 3),
        "format": "league",
    }
    values.update(settings_)
    return services.event_create(by=house, **values).event_id
