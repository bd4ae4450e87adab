"""Building the shoes at start and dealing from them, strictly in order, under a row lock."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cards import shuffle
from cards.models import CardState, DealtCard, Offer, Shoe, ShoeKind, Shuffle
from events.errors import StockExhausted
from events.models import Event, Registration


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


def build_shoes(event: Event, size: StockSize) -> str:
    """Draw the secret seed, shuffle both shoes and return the public commitment."""
    seed = shuffle.new_seed()
    commitment = shuffle.commitment(seed)
    Shuffle.objects.create(event=event, seed=seed, commitment=commitment)
    for kind, decks, label in (
        (ShoeKind.STOCK, size.decks, shuffle.STOCK),
        (ShoeKind.HOUSE, size.house_decks, shuffle.HOUSE),
    ):
        order = shuffle.shuffled(decks, seed, label)
        Shoe.objects.create(
            event=event, kind=kind, decks=decks, size=len(order), order="".join(order)
        )
    return commitment


def deal(
    *,
    event: Event,
    kind: ShoeKind,
    count: int,
    registration: Registration,
    state: CardState,
    moment: datetime,
    offer: Offer | None = None,
    face_down: bool = False,
) -> list[DealtCard]:
    """Deal `count` cards from the top of the shoe to `registration`, recording each position."""
    shoe = Shoe.objects.select_for_update(no_key=True).get(event=event, kind=kind)
    start = shoe.next_position
    if start + count > shoe.size:
        raise StockExhausted()
    cards = [
        DealtCard(
            shoe=shoe,
            position=position,
            card=shoe.card_at(position),
            registration=registration,
            offer=offer,
            slot=slot,
            face_down=face_down,
            state=state,
            dealt_at=moment,
        )
        for slot, position in enumerate(range(start, start + count))
    ]
    shoe.next_position = start + count
    shoe.save(update_fields=["next_position"])
    return DealtCard.objects.bulk_create(cards)


def seed_hex(event: Event) -> str:
    """The seed, for the finalization entry only."""
    return bytes(Shuffle.objects.get(event=event).seed).hex()


def audit_card(card: DealtCard, *, kind: str | None = None, reveal: bool = False) -> dict[str, Any]:
    """A dealt card as the audit writes it; face-down cards keep their identity until revealed."""
    shoe_kind = kind or card.shoe.kind
    written: dict[str, Any] = {"shoe": shoe_kind, "position": card.position}
    if reveal or not card.face_down:
        written["card"] = card.card
    return written
