"""The stock: its size, the shoes shuffled at start, and how the audit writes a card dealt from
them.

Dealing itself (the shoe moving on under its row lock) is `events.dealing`: it records cards with
the game results and offers they belong to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cards import shuffle
from cards.models import DealtCard, Shoe, ShoeKind, Shuffle


@dataclass(frozen=True, slots=True)
class StockSize:
    decks: int
    supported_places: int
    house_decks: int


def stock_size(*, players: int, reserve: int, extra_decks: int) -> StockSize:
    """Decks = ceil(players x reserve / 52) + extra; places = floor(decks x 52 / reserve)."""
    decks = math.ceil(players * reserve / 52) + extra_decks
    places = decks * 52 // reserve
    return StockSize(decks=decks, supported_places=places, house_decks=math.ceil(places / 52))


def build_shoes(event_id: int, size: StockSize) -> str:
    """Draw the secret seed, shuffle both shoes of the event and return the public commitment."""
    seed = shuffle.new_seed()
    commitment = shuffle.commitment(seed)
    Shuffle.objects.create(event_id=event_id, seed=seed, commitment=commitment)
    for kind, decks, label in (
        (ShoeKind.STOCK, size.decks, shuffle.STOCK),
        (ShoeKind.HOUSE, size.house_decks, shuffle.HOUSE),
    ):
        order = shuffle.shuffled(decks, seed, label)
        Shoe.objects.create(
            event_id=event_id, kind=kind, decks=decks, size=len(order), order="".join(order)
        )
    return commitment


def seed_hex(event_id: int) -> str:
    """The seed, for the finalization entry only."""
    return bytes(Shuffle.objects.get(event_id=event_id).seed).hex()


def audit_card(card: DealtCard, *, kind: str | None = None, reveal: bool = False) -> dict[str, Any]:
    """A dealt card as the audit writes it; face-down cards keep their identity until revealed."""
    shoe_kind = kind or card.shoe.kind
    written: dict[str, Any] = {"shoe": shoe_kind, "position": card.position}
    if reveal or not card.face_down:
        written["card"] = card.card
    return written
