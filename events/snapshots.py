"""What the board, a player and House see: JSON-ready snapshots shared by pages, API and sockets.

The snapshots are typed (`Board`, `PlayerState`, `HouseTable`): TypedDicts, so what the API and
the sockets send stays plain JSON while mypy checks every reader. The board's read model
(`BoardView`) adds whose each row is, for the pages' row ids; the player's is `PlayerState`;
House's dashboard is built on `HouseTable` (`house.selectors.dashboard`).

Nothing here ever carries a face-down card's identity, an email or a push endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from django.db.models import Q
from django.utils import timezone

from cards.models import CardState, DealtCard, Offer, OfferKind, pending_offer
from cards.names import card_face
from events.formats import Format
from events.models import Event, GameResult, Phase, Registration, RegistrationStatus
from events.progress import (
    blockers,
    hands,
    participants,
    progress_of_many,
    provisional_standings,
    standings_of,
)
from scoring.evaluator import best_five, evaluate_high, evaluate_low, low_five
from scoring.standings import Hand, Place, Standings

BOARD_ROWS = 10
REVEAL_SECONDS = 10  # how long a page load still shows the revealed starting offer

# A card as every page and snapshot shows it (`cards.names.card_face`): code, rank, suit, symbol,
# name; some carry more (a slot, where it came from, whether it is wild or kept).
CardFace = dict[str, Any]


class EventSummary(TypedDict):
    id: int
    name: str
    venue: str
    date: str
    time_zone: str
    format: str
    format_label: str
    games: int
    offered: int
    starting: int
    kept: int
    contribution: int
    remainder_policy: str
    phase: str
    registration_open: bool
    commitment: str | None
    version: int


class Adjustment(TypedDict):
    amount: int
    explanation: str


class PoolSummary(TypedDict):
    contribution: int
    participants: int
    base: int
    confirmed: bool
    pool: int | None
    adjustments: list[Adjustment]
    unallocated: int | None


class BoardRow(TypedDict):
    """One place on the board: the player's label (public), never who they are otherwise."""

    place: int
    player: str
    cards: list[CardFace]
    held: int
    wild_rank: str | None
    category: str
    description: str
    award: NotRequired[int | None]  # once the event is final


class BoardProgress(TypedDict):
    players: int
    kept: int
    to_keep: int


class Board(TypedDict):
    """The public board's snapshot."""

    event: EventSummary
    version: int
    progress: BoardProgress
    high: list[BoardRow]
    low: list[BoardRow]
    final: bool
    pool: PoolSummary


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """A board row and whose it is (the page's row id; not in the public snapshot)."""

    registration_id: int
    row: BoardRow


@dataclass(frozen=True, slots=True)
class BoardView:
    """The board's read model: the snapshot, whose each row is, and the standings it shows.

    The board page's first render and every pushed board fragment are rendered from it.
    """

    data: Board
    high: tuple[BoardEntry, ...]
    low: tuple[BoardEntry, ...]
    standings: Standings[int] | None  # None once the event is final

    @property
    def version(self) -> int:
        return self.data["version"]


class PlayerState(TypedDict):
    """One player's own state: the player page's panel, the API's and the socket's snapshot."""

    registration_id: int
    label: str
    status: str
    paused: bool
    version: int
    event_version: int
    next_step: dict[str, str]
    hand: list[CardFace]
    slots: int
    wild_rank: str | None
    wild_indicator: CardFace | None
    pending: dict[str, Any] | None  # face-down cards are slots only
    reveal: dict[str, Any] | None
    empty: list[int]
    games: list[dict[str, Any]]
    high_place: int | None
    low_place: int | None
    ranked: int
    award: int | None
    final: bool


class PendingChoice(TypedDict):
    kind: str
    since: str
    waited_seconds: int
    reminded_at: str | None


class HouseRow(TypedDict):
    """One player in House's table."""

    registration_id: int
    label: str
    status: str
    late: bool
    paused: bool
    games: int
    kept: int
    open_reviews: int
    wild_rank: str | None
    pending: PendingChoice | None
    high_place: int | None
    low_place: int | None
    award: int | None


class HouseTable(TypedDict):
    """House's snapshot: every player, the counts, the pool and what finalizing waits for."""

    event: EventSummary
    version: int
    players: list[HouseRow]
    counts: dict[str, int]
    pool: PoolSummary
    blockers: list[str]
    supported_places: int | None


def event_summary(event: Event) -> EventSummary:
    rules = event.rules
    return {
        "id": event.pk,
        "name": event.name,
        "venue": event.venue,
        "date": event.date.isoformat(),
        "time_zone": event.time_zone,
        "format": event.format,
        "format_label": rules.label,
        "games": rules.games,
        "offered": rules.offered,
        "starting": rules.starting,
        "kept": rules.kept,
        "contribution": event.contribution,
        "remainder_policy": event.remainder_policy,
        "phase": event.phase,
        "registration_open": event.registration_open,
        "commitment": event.commitment or None,
        "version": event.version,
    }


def board_snapshot(event: Event) -> Board:
    """The public board: live High and Low standings and progress. Public state only."""
    return board_view(event).data


def board_with_standings(event: Event) -> tuple[Board, Standings[int] | None]:
    """The board, and the provisional standings it shows (None once the event is final)."""
    view = board_view(event)
    return view.data, view.standings


def board_view(event: Event) -> BoardView:
    """The board's read model (see `BoardView`)."""
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by("check_in_order")
    )
    labels = {r.pk: r.label for r in players}
    held = hands(event, players)
    table = None
    if event.phase == Phase.FINALIZED:
        high = _final_rows(players, held, "high_place")
        low = _final_rows(players, held, "low_place")
    else:
        table = standings_of(players, held)
        high = _rows(table.high[:BOARD_ROWS], labels, held, low=False)
        low = _rows(table.low[:BOARD_ROWS], labels, held, low=True)
    board: Board = {
        "event": event_summary(event),
        "version": event.version,
        "progress": {
            "players": len(players),
            "kept": sum(len(hand.cards) for hand in held.values()),
            "to_keep": len(players) * event.rules.kept,
        },
        "high": [entry.row for entry in high],
        "low": [entry.row for entry in low],
        "final": event.phase == Phase.FINALIZED,
        "pool": pool_summary(event),
    }
    return BoardView(board, tuple(high), tuple(low), table)


def pool_summary(event: Event) -> PoolSummary:
    count = participants(event)
    base = event.contribution * count
    return {
        "contribution": event.contribution,
        "participants": count,
        "base": base,
        "confirmed": event.pool_confirmed,
        "pool": event.confirmed_pool if event.pool_confirmed else base,
        "adjustments": [
            {"amount": a, "explanation": e}
            for a, e in event.adjustments.order_by("id").values_list("amount", "explanation")
        ],
        "unallocated": event.unallocated,
    }


def _rows(
    places: tuple[Place[int], ...], labels: dict[int, str], held: dict[int, Hand], *, low: bool
) -> list[BoardEntry]:
    rows = []
    for entry in places:
        hand = held[entry.player]
        shown = low_five(hand.cards) if low else best_five(hand.cards, hand.wild_rank)
        row: BoardRow = {
            "place": entry.place,
            "player": labels[entry.player],
            "cards": [card_face(c) for c in shown],
            "held": len(hand.cards),
            "wild_rank": hand.wild_rank,
            "category": entry.value.category,
            "description": entry.value.description,
        }
        rows.append(BoardEntry(entry.player, row))
    return rows


def _final_rows(players: list[Registration], held: dict[int, Hand], field: str) -> list[BoardEntry]:
    rows = []
    placed = sorted((p for p in players if getattr(p, field)), key=lambda p: getattr(p, field))
    for r in placed[:BOARD_ROWS]:
        hand = held[r.pk]
        is_low = field == "low_place"
        value = evaluate_low(hand.cards) if is_low else evaluate_high(hand.cards, hand.wild_rank)
        shown = low_five(hand.cards) if is_low else best_five(hand.cards, hand.wild_rank)
        final: BoardRow = {
            "place": getattr(r, field),
            "player": r.label,
            "cards": [card_face(c) for c in shown],
            "held": len(hand.cards),
            "wild_rank": hand.wild_rank,
            "category": value.category,
            "description": value.description,
            "award": r.award,
        }
        rows.append(BoardEntry(r.pk, final))
    return rows


def player_snapshot(registration: Registration) -> PlayerState:
    """One player's own page: next step, hand, pending choice, games, places."""
    return player_snapshots([registration])[registration.pk]


def player_snapshots(
    registrations: list[Registration], standings: Standings[int] | None = None
) -> dict[int, PlayerState]:
    """`player_snapshot` for several players of one event, in four queries whatever their number.

    Each registration's `event` must be loaded; `standings`, when given, are the event's
    provisional standings.
    """
    if not registrations:
        return {}
    event = registrations[0].event
    rules = event.rules
    ids = [r.pk for r in registrations]
    kept: dict[int, list[DealtCard]] = {pk: [] for pk in ids}
    indicators: dict[int, str] = {}
    for card in DealtCard.objects.filter(
        registration_id__in=ids, state__in=[CardState.KEPT, CardState.INDICATOR]
    ).order_by("registration_id", "kept_index", "id"):
        if card.state == CardState.KEPT:
            kept[card.registration_id].append(card)
        else:
            indicators.setdefault(card.registration_id, card.card)
    pending_offers: dict[int, Offer] = {}
    starting_offers: dict[int, Offer] = {}
    for offer in (
        Offer.objects.filter(registration_id__in=ids)
        .filter(pending_offer() | Q(kind=OfferKind.STARTING, resolved_at__isnull=False))
        .select_related("result")
        .order_by("registration_id", "id")
    ):
        if offer.resolved_at is None:
            pending_offers.setdefault(offer.registration_id, offer)
        else:
            starting_offers.setdefault(offer.registration_id, offer)
    now = timezone.now()
    recent = {
        pk: offer
        for pk, offer in starting_offers.items()
        if offer.resolved_at is not None
        and (now - offer.resolved_at).total_seconds() <= REVEAL_SECONDS
    }
    shown = [o.pk for o in pending_offers.values()] + [o.pk for o in recent.values()]
    offer_cards: dict[int, list[DealtCard]] = {pk: [] for pk in shown}
    for card in DealtCard.objects.filter(offer_id__in=shown).order_by("offer_id", "slot"):
        if card.offer_id is not None:
            offer_cards[card.offer_id].append(card)
    results: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for registration_id, game, outcome, opponent, score in (
        GameResult.objects.filter(registration_id__in=ids)
        .order_by("registration_id", "game")
        .values_list("registration_id", "game", "outcome", "opponent", "score")
    ):
        results[registration_id].append(
            {"game": game, "outcome": outcome, "opponent": opponent, "score": score}
        )
    table = (
        standings
        if standings is not None
        else (provisional_standings(event) if event.phase == Phase.STARTED else None)
    )
    return {
        r.pk: _player(
            r,
            rules,
            kept=kept[r.pk],
            indicator=indicators.get(r.pk),
            offer=pending_offers.get(r.pk),
            recent=recent.get(r.pk),
            offer_cards=offer_cards,
            results=results[r.pk],
            table=table,
        )
        for r in registrations
    }


def _player(
    registration: Registration,
    rules: Format,
    *,
    kept: list[DealtCard],
    indicator: str | None,
    offer: Offer | None,
    recent: Offer | None,
    offer_cards: dict[int, list[DealtCard]],
    results: list[dict[str, Any]],
    table: Standings[int] | None,
) -> PlayerState:
    event = registration.event
    pending = None
    if offer is not None:
        cards = offer_cards[offer.pk]
        pending = {
            "kind": offer.kind,
            "keep": offer.keep,
            "offered": len(cards),
            "game": offer.result.game if offer.result else None,
            "since": offer.offered_at.isoformat(),
            # Face-down cards are only slots until the confirmation reveals them.
            "cards": [
                {
                    "slot": c.slot,
                    "face_down": c.face_down,
                    **({} if c.face_down else card_face(c.card)),
                }
                for c in cards
            ],
        }
    # Every offered starting card, face up, for a few seconds after the confirmation.
    reveal = (
        None
        if recent is None
        else {
            "cards": [
                {**card_face(c.card), "kept": c.state == CardState.KEPT}
                for c in offer_cards[recent.pk]
            ]
        }
    )
    in_play = len([e for e in (table.high if table else ())])
    return {
        "registration_id": registration.pk,
        "label": registration.label,
        "status": registration.status,
        "paused": registration.paused,
        "version": registration.version,
        "event_version": event.version,
        "next_step": next_step(registration, rules, len(kept), len(results), pending),
        "hand": [
            {
                **card_face(c.card),
                "source": c.kept_source,
                "wild": bool(registration.wild_rank) and c.card[0] == registration.wild_rank,
            }
            for c in kept
        ],
        "slots": rules.kept,
        "wild_rank": registration.wild_rank or None,
        # The House-deck card that set the wild; not a playable card.
        "wild_indicator": (card_face(indicator) if registration.wild_rank and indicator else None),
        "pending": pending,
        "reveal": reveal,
        "empty": list(range(max(rules.kept - len(kept), 0))),
        "games": [
            {"game": g, **next((r for r in results if r["game"] == g), {"outcome": None})}
            for g in range(1, rules.games + 1)
        ],
        "high_place": (
            registration.high_place
            if event.phase == Phase.FINALIZED
            else table.high_place(registration.pk)
            if table
            else None
        ),
        "low_place": (
            registration.low_place
            if event.phase == Phase.FINALIZED
            else table.low_place(registration.pk)
            if table
            else None
        ),
        "ranked": in_play,
        "award": registration.award if event.phase == Phase.FINALIZED else None,
        "final": event.phase == Phase.FINALIZED,
    }


def next_step(
    registration: Registration,
    rules: Format,
    kept: int,
    reported: int,
    pending: dict[str, Any] | None,
) -> dict[str, str]:
    """The one thing to do now, in the rules' words."""
    event = registration.event
    status = registration.status
    if event.phase == Phase.FINALIZED:
        return {"code": "final", "text": "The event is final."}
    if status == RegistrationStatus.WITHDRAWN:
        return {"code": "withdrawn", "text": "You have left this event."}
    if status in (RegistrationStatus.CANCELLED, RegistrationStatus.NO_SHOW):
        return {"code": "out", "text": "You are not playing in this event."}
    if status == RegistrationStatus.REGISTERED:
        return {"code": "check_in", "text": "Check in with House before playing."}
    if event.phase != Phase.STARTED:
        return {"code": "wait_start", "text": "Checked in. Waiting for House to start the event."}
    if pending and pending["kind"] == OfferKind.STARTING:
        return {
            "code": "choose_start",
            "text": f"Choose {pending['keep']} of {pending['offered']} starting cards",
        }
    if pending:
        return {"code": "choose_win", "text": f"You won game {pending['game']}: keep one card"}
    if registration.paused:
        return {"code": "review", "text": "Waiting for House review"}
    if reported < rules.games:
        return {"code": "report", "text": f"Report game {reported + 1}", "game": str(reported + 1)}
    if registration.wild_rank:
        return {
            "code": "done",
            "text": f"All done: your Wild is {_rank_word(registration.wild_rank)}",
        }
    if kept == rules.kept:
        return {"code": "await_reveal", "text": "All games reported: House reveals your Wild"}
    return {"code": "wait", "text": "Waiting for House."}


def _rank_word(rank: str) -> str:
    return {"T": "10"}.get(rank, rank)


def house_snapshot(event: Event) -> HouseTable:
    """House's players table and checklist. House sees no face-down card either."""
    now = timezone.now()
    registrations = list(event.registrations.order_by("status", "check_in_order", "id"))
    progress = progress_of_many(event, registrations)
    offers = {
        o.registration_id: o for o in Offer.objects.pending().filter(registration__event=event)
    }
    rows: list[HouseRow] = []
    for r in registrations:
        offer = offers.get(r.pk)
        rows.append(
            {
                "registration_id": r.pk,
                "label": r.label,
                "status": r.status,
                "late": r.late,
                "paused": r.paused,
                "games": progress[r.pk].results,
                "kept": progress[r.pk].kept,
                "open_reviews": progress[r.pk].open_reviews,
                "wild_rank": r.wild_rank or None,
                "pending": None
                if offer is None
                else {
                    "kind": offer.kind,
                    "since": offer.offered_at.isoformat(),
                    "waited_seconds": int((now - offer.offered_at).total_seconds()),
                    "reminded_at": offer.reminded_at.isoformat() if offer.reminded_at else None,
                },
                "high_place": r.high_place,
                "low_place": r.low_place,
                "award": r.award,
            }
        )
    counts: dict[str, int] = {}
    for r in registrations:
        counts[r.status] = counts.get(r.status, 0) + 1
    return {
        "event": event_summary(event),
        "version": event.version,
        "players": rows,
        "counts": counts,
        "pool": pool_summary(event),
        "blockers": (
            blockers(event, registrations, progress) if event.phase == Phase.STARTED else []
        ),
        "supported_places": event.supported_places,
    }
