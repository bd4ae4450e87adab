"""What every audience's read model shares: a card face, the event's summary, the pool, and the
one way a read model becomes JSON (`to_json`)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
from dataclasses import dataclass
from typing import Annotated, Any

from django.conf import settings

from cards.names import card_face
from events.answers import Described, OneOf
from events.formats import FormatName
from events.models import Event, Phase
from events.progress import participants

# A field the page shows but the JSON leaves out (`to_json`, and so the API's description).
PAGE_ONLY = {"page_only": True}


def to_json(model: Any) -> Any:
    """A read model as the API and the sockets send it: dates as ISO 8601 text, tuples as lists.

    A field whose default is None is left out when it is None (a live board row has no `award`);
    one without a default is always there, possibly null. Page-only fields are left out.
    """
    kind = type(model)
    if kind in _AS_IS:
        return model
    fields = _FIELDS.get(kind)
    if fields is None and dataclasses.is_dataclass(kind):
        fields = _FIELDS[kind] = tuple(
            (field.name, field.default is None)
            for field in dataclasses.fields(kind)
            if not field.metadata.get("page_only")
        )
    if fields is not None:
        found = {}
        for name, optional in fields:
            value = getattr(model, name)
            if value is None and optional:
                continue
            # Most values are plain: no call for them (a board or a player holds thousands).
            found[name] = value if type(value) in _AS_IS else to_json(value)
        return found
    if isinstance(model, list | tuple):
        return [item if type(item) in _AS_IS else to_json(item) for item in model]
    if isinstance(model, dict):
        return {key: to_json(value) for key, value in model.items()}
    if isinstance(model, datetime.date):  # datetimes too
        return model.isoformat()
    if isinstance(model, enum.Enum):
        return model.value
    return model


_AS_IS = frozenset({str, int, bool, float, type(None)})
# Each read model's JSON fields, and whether each is left out when None (`to_json`).
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


@dataclass(frozen=True, slots=True)
class CardFace:
    """A playing card face up, as every page shows it."""

    code: Annotated[str, Described("Rank and suit, like `As`, `Td`, `7h`.")]
    rank: Annotated[str, Described("The rank as printed (`10` for a ten).")]
    suit: Annotated[str, Described("`c`, `d`, `h` or `s`.")]
    symbol: str
    name: Annotated[str, Described("The card in words, like `Ace of spades`.")]


def face(card: str) -> CardFace:
    """A card's face (`cards.names.card_face`)."""
    return CardFace(**card_face(card))


@dataclass(frozen=True, slots=True)
class EventSummary:
    """An event's settings and where it stands."""

    id: int
    name: str
    venue: str
    date: datetime.date
    time_zone: str
    format: Annotated[str, OneOf(tuple(name.value for name in FormatName))]
    format_label: str
    games: int
    offered: Annotated[int, Described("Face-down starting cards offered.")]
    starting: Annotated[int, Described("Starting cards kept.")]
    kept: Annotated[int, Described("Cards a complete hand holds.")]
    contribution: Annotated[int, Described("Whole dollars per participant.")]
    remainder_policy: str
    phase: Phase
    registration_open: bool
    commitment: Annotated[
        str | None, Described("sha256 of the secret shuffle seed, public from the start.")
    ]
    version: int
    # Registration ahead and the waitlist (events/waitlist.py).
    registration_opens_at: Annotated[
        datetime.datetime | None, Described("Players register from then on (null: no bound).")
    ]
    registration_closes_at: Annotated[
        datetime.datetime | None, Described("Players register until then (null: no bound).")
    ]
    capacity: Annotated[
        int | None,
        Described("The most players who hold a place; past it they are waitlisted (null: no cap)."),
    ]
    hold_minutes: Annotated[
        int, Described("How long an offered (or unpaid) place is held before the event's day.")
    ]
    day_hold_minutes: Annotated[int, Described("The same hold, on the event's day.")]
    pay_ahead: Annotated[
        bool, Described("The entry is paid online when taking a place, where payments are set up.")
    ]
    language: Annotated[
        str,
        OneOf(("", *(code for code, _ in settings.LANGUAGES))),
        Described("The board's and printed sheets' language; empty: the venue's."),
    ]


def event_summary(event: Event) -> EventSummary:
    """The event's summary, as every audience sees it."""
    rules = event.rules
    return EventSummary(
        id=event.pk,
        name=event.name,
        venue=event.venue,
        date=event.date,
        time_zone=event.time_zone,
        format=event.format,
        format_label=rules.label_words,
        games=rules.games,
        offered=rules.offered,
        starting=rules.starting,
        kept=rules.kept,
        contribution=event.contribution,
        remainder_policy=event.remainder_policy,
        phase=Phase(event.phase),
        registration_open=event.registration_open,
        commitment=event.commitment or None,
        version=event.version,
        registration_opens_at=event.registration_opens_at,
        registration_closes_at=event.registration_closes_at,
        capacity=event.capacity,
        hold_minutes=event.hold_minutes,
        day_hold_minutes=event.day_hold_minutes,
        pay_ahead=event.pay_ahead,
        language=event.language,
    )


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A change House made to the pool, and why."""

    amount: int
    explanation: str


@dataclass(frozen=True, slots=True)
class PoolSummary:
    """The pool: its base, House's adjustments, and whether House confirmed it."""

    contribution: int
    participants: int
    base: int
    confirmed: bool
    # Free entry: the pool the sponsor puts up is the base (0 in a paid event).
    sponsored: int
    pool: int
    adjustments: tuple[Adjustment, ...]
    unallocated: int | None


def pool_summary(event: Event) -> PoolSummary:
    """The pool as House sees it: while provisional, the base plus the adjustments in force."""
    count = participants(event)
    base = event.sponsored_pool if event.sponsored else event.contribution * count
    adjustments = tuple(
        Adjustment(amount, explanation)
        for amount, explanation in event.adjustments.order_by("id").values_list(
            "amount", "explanation"
        )
    )
    provisional = max(base + sum(a.amount for a in adjustments), 0)
    return PoolSummary(
        contribution=event.contribution,
        participants=count,
        base=base,
        confirmed=event.pool_confirmed,
        sponsored=event.sponsored_pool if event.sponsored else 0,
        pool=event.confirmed_pool
        if event.pool_confirmed and event.confirmed_pool is not None
        else provisional,
        adjustments=adjustments,
        unallocated=event.unallocated,
    )
