"""Every hand-written SQL statement of the engine, each a function named in the game's words.

The hot paths send few statements (a result submission sends four): what the ORM would spread over
several round trips is written here as one statement, with named parameters, returning typed rows.
Everything else reads and writes through the ORM. PostgreSQL only.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection, transaction
from django.db.models import Subquery
from psycopg.rows import dict_row

from cards.models import CardState, DealtCard, OfferKind
from events.models import Event, Registration

# --- a player's progress --------------------------------------------------------------------

# A pending offer (`o`) and an open review (`v`), as `Offer.objects.pending()` and
# `Review.objects.open()` name them.
_PENDING = "o.resolved_at IS NULL AND o.voided_at IS NULL"
_OPEN = "v.resolved_at IS NULL"
# The one definition of a player's progress: counts over the rows that hold it. `{results}`,
# `{cards}` and `{offers}` are the tables, or the tables and the rows the same statement writes
# (which a statement's own reads do not see); `{player}` is the registration's id.
_KEPT = f"""(SELECT COUNT(*) FROM {{cards}} c
        WHERE c.registration_id = {{player}} AND c.state = '{CardState.KEPT.value}')"""
_PROGRESS = f"""
    (SELECT COUNT(*) FROM {{results}} g WHERE g.registration_id = {{player}}) AS progress_results,
    {_KEPT} AS progress_kept,
    EXISTS (SELECT 1 FROM {{offers}} o WHERE o.registration_id = {{player}}
            AND o.kind = '{OfferKind.STARTING.value}' AND o.resolved_at IS NOT NULL)
        AS progress_starting_resolved,
    EXISTS (SELECT 1 FROM {{offers}} o WHERE o.registration_id = {{player}} AND {_PENDING})
        AS progress_pending_offer,
    (SELECT COUNT(*) FROM events_review v WHERE v.registration_id = {{player}} AND {_OPEN})
        AS progress_open_reviews
"""
_STORED = {"results": "events_gameresult", "cards": "cards_dealtcard", "offers": "cards_offer"}


class ProgressRow(NamedTuple):
    """What a player's progress is counted from (`events.progress.Progress` reads it)."""

    results: int
    kept: int
    starting_resolved: bool
    pending_offer: bool
    open_reviews: int

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> ProgressRow:
        """The progress columns (`progress_...`) of a row, by name."""
        return cls(**{name: row[f"progress_{name}"] for name in cls._fields})


class PlayerWithProgress(NamedTuple):
    registration: Registration
    progress: ProgressRow


def player_with_progress(*, event_id: int, registration_id: int) -> PlayerWithProgress | None:
    """A registration of this event and its progress, in one statement (the hot paths need both)."""
    found = Registration.objects.raw(
        f"SELECT r.*, {_PROGRESS.format(player='r.id', **_STORED)}"
        " FROM events_registration r"
        " WHERE r.id = %(registration_id)s AND r.event_id = %(event_id)s",
        {"registration_id": registration_id, "event_id": event_id},
    )
    registration = next(iter(found), None)
    if registration is None:
        return None
    return PlayerWithProgress(registration, ProgressRow.of(vars(registration)))


def progress_of(*, registration_id: int) -> ProgressRow:
    """One player's progress."""
    (row,) = _fetch(
        f"SELECT {_PROGRESS.format(player='%(registration_id)s', **_STORED)}",
        {"registration_id": registration_id},
    )
    return ProgressRow.of(row)


def progress_of_many(
    *, event_id: int, registration_ids: Sequence[int] | None = None
) -> dict[int, ProgressRow]:
    """Every player's progress in one event (or only these players'), by registration id,
    whatever their number."""
    rows = _fetch(
        f"SELECT r.id, {_PROGRESS.format(player='r.id', **_STORED)}"
        " FROM events_registration r WHERE r.event_id = %(event_id)s"
        " AND (%(ids)s::bigint[] IS NULL OR r.id = ANY(%(ids)s::bigint[]))",
        {
            "event_id": event_id,
            "ids": None if registration_ids is None else list(registration_ids),
        },
    )
    return {row["id"]: ProgressRow.of(row) for row in rows}


# --- locking --------------------------------------------------------------------------------


def lock_event(*, event_id: int) -> Event | None:
    """The event, locked for the change (its row serializes every change of the event)."""
    return Event.objects.select_for_update(no_key=True).filter(pk=event_id).first()


def lock_event_of_registration(*, registration_id: int) -> Event | None:
    """The event a registration belongs to (that never changes), locked, in one statement."""
    # Through the ORM, which knows the event's columns: a raw statement has them described by
    # the driver at each call, 38 of them, a measurable share of a write's time.
    event_of = Registration.objects.filter(pk=registration_id).values("event_id")[:1]
    return Event.objects.select_for_update(no_key=True).filter(pk=Subquery(event_of)).first()


# --- dealing --------------------------------------------------------------------------------


class NewResult(NamedTuple):
    """A game result that earns the cards of a deal, inserted with them."""

    game: int
    outcome: str
    opponent: str
    score: str
    assisted: bool


class NewOffer(NamedTuple):
    """An offer the cards of a deal are dealt into, inserted with them (after its result)."""

    kind: str
    keep: int
    face_down: bool
    reminder_due_at: datetime | None


class DealtRow(NamedTuple):
    id: int
    shoe_id: int
    position: int
    card: str
    slot: int


class Deal(NamedTuple):
    cards: list[DealtRow]  # in slot order
    result_id: int | None
    offer_id: int | None
    progress: ProgressRow  # the player's, with what this deal wrote


_AFTER_DEAL = {
    "results": "(SELECT registration_id FROM events_gameresult"
    " UNION ALL SELECT registration_id FROM new_result)",
    "cards": "(SELECT registration_id, state FROM cards_dealtcard"
    " UNION ALL SELECT registration_id, state FROM dealt)",
    "offers": "(SELECT registration_id, kind, resolved_at, voided_at FROM cards_offer"
    " UNION ALL SELECT registration_id, kind, resolved_at, voided_at FROM new_offer)",
}

_DEAL = f"""
WITH taken AS (
    UPDATE cards_shoe SET next_position = next_position + %(count)s
    WHERE event_id = %(event_id)s AND kind = %(shoe)s AND next_position + %(count)s <= size
    RETURNING id, next_position - %(count)s AS start, "order" AS shuffled
), new_result AS (
    INSERT INTO events_gameresult
        (registration_id, game, outcome, original_outcome, opponent, score, assisted, submitted_at)
    SELECT %(registration_id)s, %(game)s, %(outcome)s, %(outcome)s, %(opponent)s, %(score)s,
        %(assisted)s, %(dealt_at)s
    FROM taken WHERE %(game)s::integer IS NOT NULL
    RETURNING id, registration_id
), new_offer AS (
    INSERT INTO cards_offer (registration_id, kind, result_id, keep, face_down, offered_at,
        resolved_at, resolved_by_house, voided_at, reminder_due_at, reminded_at)
    SELECT %(registration_id)s, %(offer_kind)s, (SELECT id FROM new_result), %(keep)s,
        %(offer_face_down)s, %(dealt_at)s, NULL, FALSE, NULL, %(reminder_due_at)s, NULL
    FROM taken WHERE %(offer_kind)s::text IS NOT NULL
    RETURNING id, registration_id, kind, resolved_at, voided_at
), dealt AS (
    INSERT INTO cards_dealtcard (shoe_id, position, card, registration_id, offer_id, result_id,
        slot, face_down, state, kept_index, kept_source, dealt_at)
    SELECT taken.id, taken.start + slot, SUBSTR(taken.shuffled, 2 * (taken.start + slot) + 1, 2),
        %(registration_id)s, (SELECT id FROM new_offer), (SELECT id FROM new_result), slot,
        %(face_down)s, %(state)s, %(kept_index)s::integer + slot, %(kept_source)s, %(dealt_at)s
    FROM taken, generate_series(0, %(count)s - 1) AS slot
    RETURNING id, shoe_id, position, card, slot, offer_id, result_id, registration_id, state
)
SELECT dealt.id, dealt.shoe_id, dealt.position, dealt.card, dealt.slot, dealt.offer_id,
    dealt.result_id, {_PROGRESS.format(player="%(registration_id)s", **_AFTER_DEAL)}
FROM dealt ORDER BY dealt.slot
"""


def deal(
    *,
    event_id: int,
    shoe: str,
    count: int,
    registration_id: int,
    state: str,
    dealt_at: datetime,
    face_down: bool = False,
    kept_index: int | None = None,
    kept_source: str = "",
    result: NewResult | None = None,
    offer: NewOffer | None = None,
) -> Deal | None:
    """Deal `count` cards from the top of the event's `shoe` to a player, in one statement: the
    shoe moves on, the cards are recorded (with the game `result` that earned them and the `offer`
    they are dealt into, both inserted here), and the player's progress is read with them.

    Cards dealt straight into the hand take slots from `kept_index` on. The UPDATE takes the
    shoe's row lock, so concurrent deals queue and each gets the next positions in order. A shoe
    that would run past its end (or none yet) deals nothing and writes nothing: None.
    """
    rows = _fetch(
        _DEAL,
        {
            "event_id": event_id,
            "shoe": shoe,
            "count": count,
            "registration_id": registration_id,
            "state": state,
            "dealt_at": dealt_at,
            "face_down": face_down,
            "kept_index": kept_index,
            "kept_source": kept_source,
            "game": result.game if result else None,
            "outcome": result.outcome if result else None,
            "opponent": result.opponent if result else None,
            "score": result.score if result else None,
            "assisted": result.assisted if result else None,
            "offer_kind": offer.kind if offer else None,
            "keep": offer.keep if offer else None,
            "offer_face_down": offer.face_down if offer else None,
            "reminder_due_at": offer.reminder_due_at if offer else None,
        },
    )
    if not rows:
        return None
    return Deal(
        cards=[DealtRow(**{name: row[name] for name in DealtRow._fields}) for row in rows],
        result_id=rows[0]["result_id"],
        offer_id=rows[0]["offer_id"],
        progress=ProgressRow.of(rows[0]),
    )


# --- choosing -------------------------------------------------------------------------------


class PendingOffer(NamedTuple):
    """A player's pending offer and its cards, in slot order."""

    id: int
    kind: str
    keep: int
    game: int | None  # the game a win choice follows
    cards: list[DealtCard]
    in_hand: int  # cards the player's hand holds already


def pending_choice(*, registration_id: int) -> PendingOffer | None:
    """The player's pending offer (there is at most one) with its cards, in one statement."""
    cards = list(
        DealtCard.objects.raw(
            "SELECT c.*, o.kind AS offer_kind, o.keep AS offer_keep, g.game AS offer_game,"
            f" {_KEPT.format(player='o.registration_id', cards='cards_dealtcard')}"
            " AS offer_in_hand"
            " FROM cards_dealtcard c"
            " JOIN cards_offer o ON o.id = c.offer_id"
            " LEFT JOIN events_gameresult g ON g.id = o.result_id"
            f" WHERE o.registration_id = %(registration_id)s AND {_PENDING}"
            " ORDER BY c.slot",
            {"registration_id": registration_id},
        )
    )
    if not cards:
        return None
    # The offer's own columns arrive as extra attributes of each card.
    offer = vars(cards[0])
    return PendingOffer(
        id=offer["offer_id"],
        kind=offer["offer_kind"],
        keep=offer["offer_keep"],
        game=offer["offer_game"],
        cards=cards,
        in_hand=offer["offer_in_hand"],
    )


def resolve_offer(*, offer_id: int, resolved_at: datetime, by_house: bool) -> None:
    """The player (or House for them) has chosen: the offer is no longer pending."""
    _execute(
        "UPDATE cards_offer SET resolved_at = %(resolved_at)s, resolved_by_house = %(by_house)s"
        " WHERE id = %(offer_id)s",
        {"offer_id": offer_id, "resolved_at": resolved_at, "by_house": by_house},
    )


class CardChange(NamedTuple):
    """What became of a dealt card: its state, face, hand slot and where it came from."""

    id: int
    state: str
    face_down: bool
    kept_index: int | None
    kept_source: str


def write_cards(*, cards: Sequence[CardChange]) -> None:
    """Write what became of these cards, all in one UPDATE."""
    _execute(
        "UPDATE cards_dealtcard c SET state = v.state, face_down = v.face_down,"
        " kept_index = v.kept_index, kept_source = v.kept_source"
        " FROM jsonb_to_recordset(%(cards)s::jsonb) AS v(id bigint, state text,"
        " face_down boolean, kept_index integer, kept_source text)"
        " WHERE c.id = v.id",
        {"cards": json.dumps([card._asdict() for card in cards])},
    )


def waiting_for_a_first_result(*, event_id: int) -> bool:
    """Whether a checked-in player of the event has no result for game 1 yet."""
    (row,) = _fetch(
        "SELECT EXISTS (SELECT 1 FROM events_registration r"
        " WHERE r.event_id = %(event_id)s AND r.status = 'checked_in' AND NOT EXISTS"
        " (SELECT 1 FROM events_gameresult g WHERE g.registration_id = r.id AND g.game = 1))"
        " AS waiting",
        {"event_id": event_id},
    )
    return bool(row["waiting"])


# --- the end of every change ----------------------------------------------------------------


class Entry(NamedTuple):
    """An audit entry, chained (its hash computed) and ready to insert."""

    seq: int
    at: str
    actor: str
    actor_kind: str | None
    action: str
    player: str | None
    details: dict[str, Any]
    reason: str | None
    prev_hash: str
    hash: str
    actor_role: str | None = None


class Wild(NamedTuple):
    """A wild revealed in the change, saved with the players' versions."""

    registration_id: int
    wild_rank: str
    revealed_at: datetime


class StoredAnswer(NamedTuple):
    """The answer stored under the author's idempotency key, for a retry to replay."""

    user_id: int
    key: str
    fingerprint: str
    answer: dict[str, Any] | None


def write_change(
    *,
    event_id: int,
    version: int,
    audit_seq: int,
    audit_hash: str,
    entries: Sequence[Entry],
    touched: Sequence[int],
    wilds: Sequence[Wild] = (),
    answer: StoredAnswer | None = None,
    now: datetime,
) -> None:
    """How every change ends, in one statement: its audit entries, the event's version and chain
    head, the touched players' versions (with the wilds revealed) and the answer stored under
    the idempotency key, if any."""
    _execute(
        "WITH entries AS ("
        " INSERT INTO audit_auditentry"
        " (event_id, seq, at, actor, actor_kind, actor_role, action, player, details, reason,"
        " prev_hash, hash)"
        " SELECT %(event_id)s, e.seq, e.at, e.actor, e.actor_kind, e.actor_role, e.action,"
        " e.player, e.details, e.reason, e.prev_hash, e.hash"
        " FROM jsonb_to_recordset(%(entries)s::jsonb) AS e(seq integer, at text, actor text,"
        " actor_kind text, actor_role text, action text, player text, details jsonb,"
        " reason text, prev_hash text, hash text)"
        "), answer AS ("
        " INSERT INTO events_idempotencyrecord"
        " (user_id, key, fingerprint, answer, error_code, error_message, created_at)"
        " SELECT %(user_id)s, %(key)s, %(fingerprint)s, %(answer)s::jsonb, '', '', %(now)s"
        " WHERE %(key)s::text IS NOT NULL"
        "), wilds AS ("
        " SELECT * FROM jsonb_to_recordset(%(wilds)s::jsonb)"
        " AS w(registration_id bigint, wild_rank text, revealed_at timestamptz)"
        "), event AS ("
        " UPDATE events_event SET version = %(version)s, audit_seq = %(audit_seq)s,"
        " audit_hash = %(audit_hash)s WHERE id = %(event_id)s"
        ")"
        " UPDATE events_registration r SET version = r.version + 1,"
        " wild_rank = COALESCE("
        "(SELECT w.wild_rank FROM wilds w WHERE w.registration_id = r.id), r.wild_rank),"
        " revealed_at = COALESCE("
        "(SELECT w.revealed_at FROM wilds w WHERE w.registration_id = r.id), r.revealed_at)"
        " WHERE r.id = ANY(%(touched)s::bigint[])",
        {
            "event_id": event_id,
            "entries": json.dumps([entry._asdict() for entry in entries]),
            "user_id": answer.user_id if answer else None,
            "key": answer.key if answer else None,
            "fingerprint": answer.fingerprint if answer else None,
            "answer": json.dumps(answer.answer) if answer else None,
            "now": now,
            "wilds": json.dumps(
                [{**wild._asdict(), "revealed_at": wild.revealed_at.isoformat()} for wild in wilds]
            ),
            "version": version,
            "audit_seq": audit_seq,
            "audit_hash": audit_hash,
            "touched": list(touched),
        },
    )


# --- live updates ---------------------------------------------------------------------------


@contextlib.contextmanager
def consistent_read() -> Iterator[None]:
    """Read everything inside from one database snapshot, so a version matches its data: what a
    live frame carries, and what an htmx answer renders (a change committing between two of its
    queries would otherwise pair one version with another's data, under READ COMMITTED)."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        read_one_snapshot()
        yield


def read_one_snapshot() -> None:
    """Make the current transaction (before its first read) see one database snapshot."""
    _execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", {})


# --- running statements ---------------------------------------------------------------------


def _fetch(sql: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of one statement, each a dict by column name."""
    with connection.cursor() as cursor:
        cursor.cursor.row_factory = dict_row
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _execute(sql: str, params: Mapping[str, Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or None)
