"""Building the shoes at start and dealing from them, strictly in order, under a row lock."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from cards import shuffle
from cards.models import CardState, DealtCard, Offer, Shoe, ShoeKind, Shuffle
from events.errors import DomainError, StockExhausted, WrongPhase
from events.models import Event, GameResult, Registration
from events.rows import assignments, insert_statement, mark_saved


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
    result: GameResult | None = None,
    face_down: bool = False,
    kept_index: int | None = None,
    kept_source: str = "",
) -> list[DealtCard]:
    """Deal `count` cards from the top of the shoe to `registration`, recording each position.

    Cards dealt straight into the hand (`state` kept) take slots from `kept_index` on. An `offer`
    not saved yet is saved with its cards, and so is the game `result` that earned them (before
    the offer, which points to it).
    """
    # What every card of this deal shares; its shoe, position, card and slot come from the shoe.
    like = DealtCard(
        registration=registration,
        offer=offer,
        face_down=face_down,
        state=state,
        kept_index=kept_index,
        kept_source=kept_source,
        dealt_at=moment,
    )
    saved = connection.vendor == "postgresql"  # there, one statement writes the cards
    if saved:
        rows = _deal_in_one_statement(event, kind, count, like, result)
    else:
        if result is not None and result.pk is None:
            result.save()
        if offer is not None and offer.pk is None:
            offer.save()
        shoe_id, start, cards = _take(event, kind, count)
        rows = [
            (None, shoe_id, start + slot, cards[2 * slot : 2 * slot + 2], slot)
            for slot in range(count)
        ]
    dealt = [
        DealtCard(
            id=pk,
            shoe_id=shoe_id,
            position=position,
            card=card,
            registration=registration,
            offer=offer,
            slot=slot,
            face_down=face_down,
            state=state,
            kept_index=None if kept_index is None else kept_index + slot,
            kept_source=kept_source,
            dealt_at=moment,
        )
        for pk, shoe_id, position, card, slot in rows
    ]
    return dealt if saved else DealtCard.objects.bulk_create(dealt)


type Row = tuple[int | None, int, int, str, int]  # id, shoe id, position, card, slot


def _deal_in_one_statement(
    event: Event, kind: ShoeKind, count: int, like: DealtCard, result: GameResult | None
) -> list[Row]:
    """`deal` on PostgreSQL: the shoe moves on and the cards (with a new result and offer) are
    recorded in one statement; returns the cards' rows in slot order.

    The UPDATE takes the shoe's row lock, as `_take` does; a shoe that would run past its end is
    left as it is and no card is inserted (the caller's transaction, refused, rolls the rest back).
    """
    shoe = connection.ops.quote_name(Shoe._meta.db_table)
    dealt = connection.ops.quote_name(DealtCard._meta.db_table)
    offer = like.offer
    new_result, result_params = _new_result(result)
    new_offer, offer_params = _new_offer(offer, after=bool(new_result))
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH {new_result} {new_offer}"
            f" taken AS (UPDATE {shoe} SET next_position = next_position + %s"
            " WHERE event_id = %s AND kind = %s AND next_position + %s <= size"
            ' RETURNING id, next_position - %s AS start, "order" AS shuffled)'
            f" INSERT INTO {dealt} (shoe_id, position, card, registration_id, offer_id, slot,"
            " face_down, state, kept_index, kept_source, dealt_at)"
            " SELECT taken.id, taken.start + slot,"
            " SUBSTR(taken.shuffled, 2 * (taken.start + slot) + 1, 2), %s,"
            f" {'(SELECT id FROM new_offer)' if new_offer else '%s'}, slot, %s, %s,"
            " %s::integer + slot, %s, %s"
            " FROM taken, generate_series(0, %s - 1) AS slot"
            " RETURNING id, shoe_id, position, card, slot, offer_id"
            f"{', (SELECT id FROM new_result)' if new_result else ''}",
            [
                *result_params,
                *offer_params,
                count,
                event.pk,
                str(kind),
                count,
                count,
                like.registration_id,
                *([] if new_offer else [offer.pk if offer else None]),
                like.face_down,
                str(like.state),
                like.kept_index,
                like.kept_source,
                connection.ops.adapt_datetimefield_value(like.dealt_at),
                count,
            ],
        )
        found = sorted(cursor.fetchall(), key=lambda row: row[4])
    if not found:
        raise _refusal(event, kind)
    if result is not None and new_result:
        mark_saved(result, found[0][6])
    if offer is not None and new_offer:
        mark_saved(offer, found[0][5])
        if new_result:
            offer.result_id = found[0][6]
    return [row[:5] for row in found]


def _new_result(result: GameResult | None) -> tuple[str, list[Any]]:
    """The CTE that inserts a game result not saved yet (with its parameters), or nothing."""
    if result is None or result.pk is not None:
        return "", []
    statement, params = insert_statement([result])
    return f"new_result AS ({statement} RETURNING id),", params


def _new_offer(offer: Offer | None, *, after: bool) -> tuple[str, list[Any]]:
    """The CTE that inserts an offer not saved yet (with its parameters), or nothing; `after` a
    new result in the same statement, the offer points to it."""
    if offer is None or offer.pk is not None:
        return "", []
    statement, params = insert_statement(
        [offer], sql={"result_id": "(SELECT id FROM new_result)"} if after else None
    )
    return f"new_offer AS ({statement} RETURNING id),", params


def _take(event: Event, kind: ShoeKind, count: int) -> tuple[int, int, str]:
    """Move the shoe's next position on by `count` and return (shoe id, first position, cards).

    One UPDATE: it takes the shoe's row lock, so concurrent deals queue and each gets the next
    positions in order; a shoe that would run past its end is left as it is.
    """
    table = connection.ops.quote_name(Shoe._meta.db_table)
    order = connection.ops.quote_name("order")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET next_position = next_position + %s"
            " WHERE event_id = %s AND kind = %s AND next_position + %s <= size"
            f" RETURNING id, next_position - %s, SUBSTR({order}, 2 * (next_position - %s) + 1,"
            " 2 * %s)",
            [count, event.pk, str(kind), count, count, count, count],
        )
        row = cursor.fetchone()
    if row is None:
        raise _refusal(event, kind)
    shoe_id, start, cards = row
    return shoe_id, start, cards


def _refusal(event: Event, kind: ShoeKind) -> DomainError:
    """Why the shoe gave no cards: there is none yet, or it would run past its end."""
    if not Shoe.objects.filter(event=event, kind=kind).exists():
        return WrongPhase("The cards are not shuffled yet: the event has not started.")
    return StockExhausted()


def save_cards(cards: list[DealtCard]) -> None:
    """Write each card's state, face, hand slot and source, all cards in one UPDATE."""
    if not cards:
        return
    fields = ("state", "face_down", "kept_index", "kept_source")
    clauses, params = assignments((card, fields) for card in cards)
    table = connection.ops.quote_name(DealtCard._meta.db_table)
    ids = ", ".join(["%s"] * len(cards))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {clauses} WHERE id IN ({ids})",
            [*params, *(card.pk for card in cards)],
        )


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
