"""What the board, a player and House see: JSON-ready snapshots shared by pages, API and sockets.

The snapshots are typed (`Board`, `PlayerState`): TypedDicts, so what the API and the sockets
send stays plain JSON while mypy checks every reader. The board's read model (`BoardView`) adds
whose each row is, for the pages' row ids; the player's is `PlayerState`; House's is in
`house.read_model`.

Nothing here ever carries a face-down card's identity, an email or a push endpoint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations, product
from typing import Any, NotRequired, TypedDict

from django.db.models import Q
from django.utils import timezone

from audit.models import AuditEntry
from cards.models import CardState, DealtCard, Offer, OfferKind, pending_offer
from cards.names import card_face
from events.check_in import self_check_in_open
from events.formats import Format
from events.models import (
    Event,
    GameResult,
    Outcome,
    Phase,
    Registration,
    RegistrationStatus,
    Review,
)
from events.player_words import ReviewWords, hand_names, review_words, wild_effect
from events.progress import (
    hands,
    participants,
    provisional_standings,
    standings_of,
)
from payouts.allocation import Allocation, allocate
from scoring.evaluator import RANKS, best_five, evaluate_high, evaluate_low, low_five
from scoring.standings import Hand, Place, Standings

SNAPSHOT_ROWS = 10  # places per list in the board's JSON snapshot; the board page shows them all
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


# A wild card of a High hand ("card") and the card it stands for ("as", a Python keyword).
StandsFor = TypedDict("StandsFor", {"card": CardFace, "as": CardFace})


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """A board row and whose it is (the page's row id; not in the public snapshot).

    Page only, beside it: the prize won in this row's column (final board, winners), and for High
    the card each wild of the hand stands for.
    """

    registration_id: int
    row: BoardRow
    prize: int | None = None
    stands_for: tuple[StandsFor, ...] = ()


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


class SplitArithmetic(TypedDict):
    """The prize split's steps as the final pages show them (SPEC section 7), in dollars."""

    low_share: int
    high_share_before: int  # the pool less the Low share, before any Low dollars move to High
    low_each: int
    low_winners: int
    low_paid: int
    low_moved: int
    high_share: int
    high_each: int
    high_winners: int
    high_paid: int
    unallocated: int
    notes: list[str]


@dataclass(frozen=True, slots=True)
class PrizeSplit:
    """A final event's confirmed pool split between its High and its Low winners (place 1)."""

    high_winners: list[Registration]
    low_winners: list[Registration]
    allocation: Allocation[int]  # keyed by registration id
    arithmetic: SplitArithmetic


class Winner(TypedDict):
    """A final event's winner as a player's page shows them: public once final."""

    player: str
    cards: list[CardFace]
    description: str
    wild_rank: str | None
    prize: int


class FinalWinners(TypedDict):
    high: list[Winner]
    low: list[Winner]


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
    # The page's words (events.player_words): only kept cards and a revealed wild go into them.
    hand_names: dict[str, str | None]
    wild_effect: str | None
    review: ReviewWords | None
    # Once the event is final: its winners, the same for every player (None before).
    winners: FinalWinners | None


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
    # What the board shows of each player, and nothing else: it is read at every change.
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
        .order_by("check_in_order")
        .only("label", "wild_rank", "paused", "high_place", "low_place", "award")
    )
    labels = {r.pk: r.label for r in players}
    held = hands(event, players)
    table = None
    if event.phase == Phase.FINALIZED:
        high = _final_rows(players, held, "high_place")
        low = _final_rows(players, held, "low_place")
    else:
        table = standings_of(players, held)
        high = _rows(table.high, labels, held, low=False)
        low = _rows(table.low, labels, held, low=True)
    board: Board = {
        "event": event_summary(event),
        "version": event.version,
        "progress": {
            "players": len(players),
            "kept": sum(len(hand.cards) for hand in held.values()),
            "to_keep": len(players) * event.rules.kept,
        },
        # The snapshot (API, socket data) keeps its top ten; the page ranks every player.
        "high": [entry.row for entry in high[:SNAPSHOT_ROWS]],
        "low": [entry.row for entry in low[:SNAPSHOT_ROWS]],
        "final": event.phase == Phase.FINALIZED,
        "pool": pool_summary(event),
    }
    _with_prizes(board, high, low)
    return BoardView(board, tuple(high), tuple(low), table)


def pool_summary(event: Event) -> PoolSummary:
    """The pool as House sees it: while provisional, the base plus the adjustments in force."""
    count = participants(event)
    base = event.contribution * count
    adjustments: list[Adjustment] = [
        {"amount": a, "explanation": e}
        for a, e in event.adjustments.order_by("id").values_list("amount", "explanation")
    ]
    provisional = max(base + sum(a["amount"] for a in adjustments), 0)
    return {
        "contribution": event.contribution,
        "participants": count,
        "base": base,
        "confirmed": event.pool_confirmed,
        "pool": event.confirmed_pool if event.pool_confirmed else provisional,
        "adjustments": adjustments,
        "unallocated": event.unallocated,
    }


def _rows(
    places: tuple[Place[int], ...], labels: dict[int, str], held: dict[int, Hand], *, low: bool
) -> list[BoardEntry]:
    rows = []
    for entry in places:
        hand = held[entry.player]
        cards, stands = _shown_hand(hand.cards, hand.wild_rank, low)
        row: BoardRow = {
            "place": entry.place,
            "player": labels[entry.player],
            "cards": list(cards),
            "held": len(hand.cards),
            "wild_rank": hand.wild_rank,
            "category": entry.value.category,
            "description": entry.value.description,
        }
        rows.append(BoardEntry(entry.player, row, stands_for=stands))
    return rows


# The cards a board row shows depend on the hand alone, and most hands do not change from one
# change to the next: the publisher finds them again rather than working them out. (Card faces
# are shared between rows: nothing changes them once made.)
@lru_cache(maxsize=16384)
def _shown_hand(
    cards: tuple[str, ...], wild_rank: str | None, low: bool
) -> tuple[tuple[CardFace, ...], tuple[StandsFor, ...]]:
    shown = low_five(cards) if low else best_five(cards, wild_rank)
    stands = () if low else _stands_for(shown, wild_rank)
    return tuple(card_face(c) for c in shown), stands


def _final_rows(players: list[Registration], held: dict[int, Hand], field: str) -> list[BoardEntry]:
    rows = []
    placed = sorted((p for p in players if getattr(p, field)), key=lambda p: getattr(p, field))
    for r in placed:
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
        stands = () if is_low else _stands_for(shown, hand.wild_rank)
        rows.append(BoardEntry(r.pk, final, stands_for=stands))
    return rows


def _with_prizes(board: Board, high: list[BoardEntry], low: list[BoardEntry]) -> None:
    """Give each winner of the final board the prize won in that column (High or Low)."""
    if not board["final"] or not board["pool"]["confirmed"] or board["pool"]["pool"] is None:
        return
    high_winners = [e.registration_id for e in high if e.row["place"] == 1]
    low_winners = [e.registration_id for e in low if e.row["place"] == 1]
    split = allocate(board["pool"]["pool"], high_winners, low_winners)
    for entries, each in ((high, split.high_each), (low, split.low_each)):
        for index, entry in enumerate(entries):
            if entry.row["place"] == 1:
                entries[index] = replace(entry, prize=each)


def _stands_for(cards: tuple[str, ...], wild_rank: str | None) -> tuple[StandsFor, ...]:
    return tuple(
        {"card": card_face(printed), "as": card_face(meant)}
        for printed, meant in wild_stands_for(cards, wild_rank)
    )


@lru_cache(maxsize=4096)
def wild_stands_for(five: tuple[str, ...], wild_rank: str | None) -> tuple[tuple[str, str], ...]:
    """Each wild card of a High five that stands for another card, and the card it stands for.

    As many substitutions as the evaluator counts; a wild used as printed is left out. Suits only
    matter for a flush: otherwise any suit the other cards leave free is shown.
    """
    if wild_rank is None or len(five) < 5:
        return ()
    value = evaluate_high(five, wild_rank)
    wilds = [card for card in five if card[0] == wild_rank]
    natural = [card for card in five if card[0] != wild_rank]
    if not value.substitutions or not wilds:
        return ()
    if value.category == "Five of a Kind":
        rank = natural[0][0] if natural else "A"  # five wilds make five aces
        return tuple((card, rank + card[1]) for card in wilds)
    suits = {card[1] for card in natural}
    flush = value.category in ("Flush", "Straight Flush", "Royal Flush")
    if flush:
        suit = min(suits) if suits else wilds[0][1]
    else:
        suit = next((s for s in "shdc" if s not in suits), "s")
    best: tuple[Any, tuple[tuple[str, str], ...]] | None = None
    for moving in combinations(wilds, value.substitutions):
        printed = list(wilds)
        for card in moving:
            printed.remove(card)
        for ranks in product(RANKS, repeat=len(moving)):
            meant = [rank + suit for rank in ranks]
            hand = evaluate_high([*natural, *printed, *meant], None)
            if best is None or hand > best[0]:
                best = (hand, tuple(zip(moving, meant, strict=True)))
    if best is None:
        return ()
    if flush:
        return best[1]
    # Shown in suits no other card of the five has, when that changes nothing in the hand.
    distinct = _distinct_suits(five, best[1])
    return distinct if evaluate_high(stood_for(five, distinct), None) == best[0] else best[1]


def stood_for(five: tuple[str, ...], stands: tuple[tuple[str, str], ...]) -> list[str]:
    """The five with each listed wild card replaced by the card it stands for."""
    left = list(stands)
    cards = []
    for card in five:
        match = next((i for i, (wild, _) in enumerate(left) if wild == card), None)
        cards.append(card if match is None else left.pop(match)[1])
    return cards


def _distinct_suits(
    five: tuple[str, ...], stands: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """The same ranks, each in a suit no other card of the five shows, where one is free."""
    shown = {card for card in five if card not in {wild for wild, _ in stands}}
    chosen = []
    for wild, meant in stands:
        card = next((meant[0] + s for s in "shdc" if meant[0] + s not in shown), meant)
        shown.add(card)
        chosen.append((wild, card))
    return tuple(chosen)


def final_results(event: Event) -> dict[str, Any] | None:
    """The final results page: winners, payouts, the pool's arithmetic, commitment and seed.

    None until the event is final. Everything shown is public by then.
    """
    if event.phase != Phase.FINALIZED:
        return None
    players = list(
        event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN]
        ).order_by("check_in_order")
    )
    held = hands(event, players)
    pool = pool_summary(event)
    prizes = prize_split(event, players)
    split = prizes.allocation
    finalized = (
        AuditEntry.objects.filter(event=event, action="event_finalized").order_by("-seq").first()
    )
    seed = finalized.details.get("seed") if finalized is not None else None

    def hand_of(r: Registration, *, low: bool) -> dict[str, Any]:
        return _winning_hand(r.label, held[r.pk], low=low)

    return {
        "event": event_summary(event),
        "pool": pool,
        "adjusted": sum(a["amount"] for a in pool["adjustments"]),
        "split": prizes.arithmetic,
        "high_winners": [
            {**hand_of(r, low=False), "prize": split.high_each} for r in prizes.high_winners
        ],
        "low_winners": [
            {**hand_of(r, low=True), "prize": split.low_each} for r in prizes.low_winners
        ],
        "payouts": sorted(
            (
                {
                    "player": r.label,
                    "status": r.status,
                    "high_place": r.high_place,
                    "low_place": r.low_place,
                    "award": r.award or 0,
                }
                for r in players
            ),
            key=lambda p: (-p["award"], p["high_place"] or 10**9, p["player"]),
        ),
        "unallocated": event.unallocated or 0,
        "commitment": event.commitment or None,
        "seed": seed,
        "seed_matches": (
            seed is not None and hashlib.sha256(bytes.fromhex(seed)).hexdigest() == event.commitment
        ),
    }


def _winning_hand(label: str, hand: Hand, *, low: bool) -> dict[str, Any]:
    """A winner's five as the final pages show them: for High, the wilds marked."""
    value = evaluate_low(hand.cards) if low else evaluate_high(hand.cards, hand.wild_rank)
    shown = low_five(hand.cards) if low else best_five(hand.cards, hand.wild_rank)
    wild = None if low else hand.wild_rank
    return {
        "player": label,
        "cards": [{**card_face(c), "wild": c[0] == wild} for c in shown],
        "description": value.description,
        "wild_rank": hand.wild_rank,
        "stands_for": _stands_for(shown, wild),
    }


def final_winners(event: Event) -> FinalWinners | None:
    """A final event's High and Low winners (place 1), with their hands and prizes; None until
    the event is final. Everything in it is public by then."""
    if event.phase != Phase.FINALIZED:
        return None
    winners = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
        .filter(Q(high_place=1) | Q(low_place=1))
        .order_by("check_in_order")
    )
    cards: dict[int, list[str]] = {r.pk: [] for r in winners}
    for registration_id, card in (
        DealtCard.objects.filter(registration_id__in=cards, state=CardState.KEPT)
        .order_by("registration_id", "kept_index")
        .values_list("registration_id", "card")
    ):
        cards[registration_id].append(card)
    split = prize_split(event, winners)

    def winner(r: Registration, *, low: bool) -> Winner:
        hand = Hand(cards=tuple(cards[r.pk]), wild_rank=r.wild_rank or None)
        shown = _winning_hand(r.label, hand, low=low)
        prize = split.allocation.low_each if low else split.allocation.high_each
        return {
            "player": shown["player"],
            "cards": shown["cards"],
            "description": shown["description"],
            "wild_rank": shown["wild_rank"],
            "prize": prize,
        }

    return {
        "high": [winner(r, low=False) for r in split.high_winners],
        "low": [winner(r, low=True) for r in split.low_winners],
    }


def prize_split(event: Event, players: Iterable[Registration]) -> PrizeSplit:
    """How a final event's confirmed pool is split between the players placed first.

    The winners keep the order of `players`; so do the awards, Low winners first.
    """
    total = event.confirmed_pool or 0  # a final event's pool is confirmed
    placed = list(players)
    high_winners = [r for r in placed if r.high_place == 1]
    low_winners = [r for r in placed if r.low_place == 1]
    split = allocate(total, [r.pk for r in high_winners], [r.pk for r in low_winners])
    low_paid = split.low_each * len(low_winners)
    return PrizeSplit(
        high_winners=high_winners,
        low_winners=low_winners,
        allocation=split,
        arithmetic={
            "low_share": split.low_share,
            "high_share_before": total - split.low_share,
            "low_each": split.low_each,
            "low_winners": len(low_winners),
            "low_paid": low_paid,
            "low_moved": split.low_share - low_paid,
            "high_share": split.high_share,
            "high_each": split.high_each,
            "high_winners": len(high_winners),
            "high_paid": split.high_each * len(high_winners),
            "unallocated": split.unallocated,
            "notes": list(split.notes),
        },
    )


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
    reviews: dict[int, Review] = {}
    paused = [r.pk for r in registrations if r.paused]
    if paused:
        for review in (
            Review.objects.open()
            .filter(registration_id__in=paused)
            .select_related("result")
            .order_by("registration_id", "-id")
        ):
            reviews.setdefault(review.registration_id, review)
    table = (
        standings
        if standings is not None
        else (provisional_standings(event) if event.phase == Phase.STARTED else None)
    )
    winners = final_winners(event)
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
            review=reviews.get(r.pk),
            winners=winners,
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
    review: Review | None = None,
    winners: FinalWinners | None = None,
) -> PlayerState:
    event = registration.event
    pending = None
    if offer is not None:
        cards = offer_cards[offer.pk]
        pending = {
            "id": offer.pk,  # what a choice names, so it never answers a later offer
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
            ],
            "at": recent.resolved_at.isoformat() if recent.resolved_at else None,
        }
    )
    in_play = len([e for e in (table.high if table else ())])
    pending_game = pending["game"] if pending else None
    pending_outcome = next((r["outcome"] for r in results if r["game"] == pending_game), None)
    wild_rank = registration.wild_rank or None
    held = [c.card for c in kept]
    return {
        "registration_id": registration.pk,
        "label": registration.label,
        "status": registration.status,
        "paused": registration.paused,
        "version": registration.version,
        "event_version": event.version,
        "next_step": next_step(
            registration, rules, len(kept), len(results), pending, pending_outcome=pending_outcome
        ),
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
        # The page's words: only the kept cards and a revealed wild go into them.
        "hand_names": hand_names(held, wild_rank),
        "wild_effect": wild_effect(held, wild_rank),
        "review": review_words(review) if registration.paused else None,
        "winners": winners,
    }


def next_step(
    registration: Registration,
    rules: Format,
    kept: int,
    reported: int,
    pending: dict[str, Any] | None,
    *,
    pending_outcome: str | None = None,
) -> dict[str, str]:
    """The one thing to do now, in the rules' words (`pending_outcome`: the game result, as
    recorded now, that the pending win choice came from)."""
    event = registration.event
    status = registration.status
    if event.phase == Phase.FINALIZED:
        return {"code": "final", "text": "The event is final."}
    if status == RegistrationStatus.WITHDRAWN:
        return {"code": "withdrawn", "text": "You have left this event."}
    if status in (RegistrationStatus.CANCELLED, RegistrationStatus.NO_SHOW):
        return {"code": "out", "text": "You are not playing in this event."}
    if status == RegistrationStatus.REGISTERED:
        if self_check_in_open(event):
            # The page offers the board's code right below (web/_self_check_in.html).
            return {
                "code": "self_check_in",
                "text": "Check in with the board's code or with House before playing.",
            }
        return {"code": "check_in", "text": "Check in with House before playing."}
    if event.phase != Phase.STARTED:
        return {"code": "wait_start", "text": "Checked in. Waiting for House to start the event."}
    if pending and pending["kind"] == OfferKind.STARTING:
        return {
            "code": "choose_start",
            "text": f"Choose {pending['keep']} of {pending['offered']} starting cards",
        }
    if pending and pending_outcome == Outcome.LOSS:
        # A Win -> Loss correction leaves the choice in place (SPEC section 5).
        return {
            "code": "choose_win",
            "text": f"Game {pending['game']} is now a loss, but its choice stays: keep one card",
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
