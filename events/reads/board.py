"""The public board: live High and Low standings, the event's progress and the pool.

`board_view(event)` builds it; the board page's first render, every pushed board fragment, the
API's board and the board's socket data all come from it. Public state only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations, product
from typing import Annotated

from cards.models import CardState, DealtCard
from events.answers import Described
from events.models import Event, Phase, Registration, RegistrationStatus
from events.progress import hands, standings_of
from events.reads.common import (
    CardFace,
    EventSummary,
    PoolSummary,
    event_summary,
    face,
    pool_summary,
)
from payouts.allocation import allocate
from scoring.evaluator import (
    RANKS,
    HighValue,
    LowValue,
    best_five,
    evaluate_high,
    evaluate_low,
    low_five,
)
from scoring.standings import STRENGTH, Hand, Place, Standings, competition_places

SNAPSHOT_ROWS = 10  # places per list in the board's JSON snapshot; the board page shows them all


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One place on the board: the player's label (public), never who they are otherwise."""

    place: int
    player: Annotated[str, Described("The player's public label.")]
    cards: Annotated[
        tuple[CardFace, ...], Described("The five cards that make the hand (fewer early on).")
    ]
    held: int
    wild_rank: str | None
    category: str
    description: str
    award: Annotated[int | None, Described("Final board only: dollars won.")] = None


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the event is: cards kept of those a complete field holds."""

    players: int
    kept: int
    to_keep: int


@dataclass(frozen=True, slots=True)
class Board:
    """The public board: live High and Low standings (the top ten each), progress, the pool."""

    event: EventSummary
    version: int
    progress: Progress
    high: tuple[BoardRow, ...]
    low: tuple[BoardRow, ...]
    final: bool
    pool: PoolSummary


@dataclass(frozen=True, slots=True)
class StandsFor:
    """A wild card of a High hand, and the card it stands for."""

    card: CardFace
    meant: CardFace


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """A board row and whose it is (the page's row id; not in the public board).

    Page only, beside it: the prize won in this row's column (final board, winners), and for High
    the card each wild of the hand stands for.
    """

    registration_id: int
    row: BoardRow
    prize: int | None = None
    stands_for: tuple[StandsFor, ...] = ()


@dataclass(frozen=True, slots=True)
class BoardView:
    """The board's read model: the public board, whose each row is, and the standings it shows.

    The board page's first render and every pushed board fragment are rendered from it; the API
    and the sockets send `to_json(view.data)`.
    """

    data: Board
    high: tuple[BoardEntry, ...]  # every ranked player; the public board keeps the top ten
    low: tuple[BoardEntry, ...]
    standings: Standings[int] | None  # None once the event is final
    # Each checked-in player's registration version as read, when the read was `kept_board_view`.
    versions: Mapping[int, int] | None = field(default=None, compare=False)

    @property
    def version(self) -> int:
        return self.data.version


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
    final = event.phase == Phase.FINALIZED
    table = None
    if final:
        high = _final_rows(players, held, low=False)
        low = _final_rows(players, held, low=True)
    else:
        table = standings_of(players, held)
        high = _rows(table.high, labels, held, low=False)
        low = _rows(table.low, labels, held, low=True)
    pool = pool_summary(event)
    if final and pool.confirmed:
        high, low = _with_prizes(pool.pool, high, low)
    board = Board(
        event=event_summary(event),
        version=event.version,
        progress=Progress(
            players=len(players),
            kept=sum(len(hand.cards) for hand in held.values()),
            to_keep=len(players) * event.rules.kept,
        ),
        # The public board (API, socket data) keeps its top ten; the page ranks every player.
        high=tuple(entry.row for entry in high[:SNAPSHOT_ROWS]),
        low=tuple(entry.row for entry in low[:SNAPSHOT_ROWS]),
        final=final,
        pool=pool,
    )
    return BoardView(board, tuple(high), tuple(low), table)


# --- the board kept between changes ---------------------------------------------------------------
# The publisher reads the board at every change of an event, and a change moves few hands: it
# keeps, per event, what the board shows of each checked-in player (label, pause, hand, the hand's
# High and Low values, and the rows last made of them), keyed by the registration's version, which
# every change to the player moves (`events.runner`: the touched players' versions move with the
# change). A change then reads the checked-in players' versions, and the rest only of the players
# whose version moved: a process that missed changes (each publisher process sees some) re-reads
# what moved meanwhile, never shows what was. The final board is read whole (it is read rarely).
KEPT_EVENTS = 8  # events kept per process, the least recently read dropped first


@dataclass(frozen=True, slots=True)
class _Held:
    """What the board shows of one player at one version of their registration."""

    version: int
    label: str
    paused: bool
    hand: Hand
    high: HighValue | None  # None while no card is kept
    low: LowValue | None


@dataclass(slots=True)
class _Kept:
    """One event's players as last read, and each one's board rows as last made (by
    registration id and side: the version and place they were made at, and the row)."""

    players: dict[int, _Held] = field(default_factory=dict)
    entries: dict[tuple[int, bool], tuple[int, int, BoardEntry]] = field(default_factory=dict)


_kept: OrderedDict[str, _Kept] = OrderedDict()
_kept_lock = threading.Lock()


def _kept_for(event: Event) -> _Kept:
    # By the event's id and creation (ids repeat when a database is made again).
    stamp = f"{event.pk}:{event.created_at.isoformat()}"
    with _kept_lock:
        kept = _kept.get(stamp)
        if kept is None:
            kept = _kept[stamp] = _Kept()
        _kept.move_to_end(stamp)
        while len(_kept) > KEPT_EVENTS:
            _kept.popitem(last=False)
        return kept


def forget_kept_boards() -> None:
    """Drop every board kept between changes (the next read reads every player)."""
    with _kept_lock:
        _kept.clear()


def kept_board_view(event: Event) -> BoardView:
    """`board_view(event)`, reading only the players whose registration moved since this process
    last read the event's board (see above); equal to a fresh read."""
    if event.phase == Phase.FINALIZED:
        return board_view(event)
    kept = _kept_for(event)
    versions = dict(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
        .order_by("check_in_order")
        .values_list("pk", "version")
    )
    was = kept.players
    moved = [pk for pk, version in versions.items() if pk not in was or was[pk].version != version]
    read = _read_players(event, moved) if moved else {}
    players: dict[int, _Held] = {}
    for pk in versions:
        held = read.get(pk) or was.get(pk)
        if held is not None:  # None: checked in after the versions were read (no snapshot)
            players[pk] = held
    entries = kept.entries
    made: dict[tuple[int, bool], tuple[int, int, BoardEntry]] = {}

    def rows(places: tuple[Place[int], ...], *, low: bool) -> list[BoardEntry]:
        shown = []
        for entry in places:
            held = players[entry.player]
            key = (entry.player, low)
            last = entries.get(key)
            if last is not None and last[0] == held.version and last[1] == entry.place:
                row = last[2]
            else:
                made_row, stands = _row(entry.place, held.label, held.hand, entry.value, low=low)
                row = BoardEntry(entry.player, made_row, stands_for=stands)
            made[key] = (held.version, entry.place, row)
            shown.append(row)
        return shown

    # The standings as `standings_of` works them out, from the values kept: only the sort is
    # done again.
    ranked = [(pk, held) for pk, held in players.items() if not held.paused and held.hand.cards]
    table = Standings(
        high=competition_places(
            {pk: held.high for pk, held in ranked}, best_is_highest=True, key=STRENGTH
        ),
        low=competition_places(
            {pk: held.low for pk, held in ranked}, best_is_highest=False, key=STRENGTH
        ),
    )
    high = rows(table.high, low=False)
    low = rows(table.low, low=True)
    kept.players = players
    kept.entries = made
    pool = pool_summary(event)
    board = Board(
        event=event_summary(event),
        version=event.version,
        progress=Progress(
            players=len(players),
            kept=sum(len(held.hand.cards) for held in players.values()),
            to_keep=len(players) * event.rules.kept,
        ),
        high=tuple(entry.row for entry in high[:SNAPSHOT_ROWS]),
        low=tuple(entry.row for entry in low[:SNAPSHOT_ROWS]),
        final=False,
        pool=pool,
    )
    return BoardView(board, tuple(high), tuple(low), table, versions)


def _read_players(event: Event, ids: list[int]) -> dict[int, _Held]:
    """What the board shows of these players of `event`, with their hands evaluated."""
    many = len(ids) > 64  # by event (one parameter), skipping the others, rather than by id
    wanted = set(ids)
    registrations = (
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
        if many
        else Registration.objects.filter(pk__in=ids)
    )
    found = registrations.values_list("pk", "version", "label", "paused", "wild_rank")
    cards: dict[int, list[str]] = {pk: [] for pk in ids}
    kept = DealtCard.objects.filter(state=CardState.KEPT)
    kept = kept.filter(registration__event=event) if many else kept.filter(registration_id__in=ids)
    for registration_id, card in kept.order_by("registration_id", "kept_index").values_list(
        "registration_id", "card"
    ):
        if registration_id in wanted:
            cards[registration_id].append(card)
    players = {}
    for pk, version, label, paused, wild_rank in found:
        if pk not in wanted:
            continue
        hand = Hand(cards=tuple(cards[pk]), wild_rank=wild_rank or None)
        players[pk] = _Held(
            version=version,
            label=label,
            paused=paused,
            hand=hand,
            high=evaluate_high(hand.cards, hand.wild_rank) if hand.cards else None,
            low=evaluate_low(hand.cards) if hand.cards else None,
        )
    return players


def _row(
    place: int,
    player: str,
    hand: Hand,
    value: HighValue | LowValue,
    *,
    low: bool,
    award: int | None = None,
) -> tuple[BoardRow, tuple[StandsFor, ...]]:
    cards, stands = _shown_hand(hand.cards, hand.wild_rank, low)
    row = BoardRow(
        place=place,
        player=player,
        cards=cards,
        held=len(hand.cards),
        wild_rank=hand.wild_rank,
        category=value.category,
        description=value.description,
        award=award,
    )
    return row, stands


# The cards a board row shows depend on the hand alone, and most hands do not change from one
# change to the next: the publisher finds them again rather than working them out. (Card faces
# are frozen, so rows share them.)
@lru_cache(maxsize=16384)
def _shown_hand(
    cards: tuple[str, ...], wild_rank: str | None, low: bool
) -> tuple[tuple[CardFace, ...], tuple[StandsFor, ...]]:
    shown = low_five(cards) if low else best_five(cards, wild_rank)
    return tuple(face(c) for c in shown), (() if low else stands_for(shown, wild_rank))


def _rows(
    places: tuple[Place[int], ...], labels: dict[int, str], held: dict[int, Hand], *, low: bool
) -> list[BoardEntry]:
    rows = []
    for entry in places:
        row, stands = _row(
            entry.place, labels[entry.player], held[entry.player], entry.value, low=low
        )
        rows.append(BoardEntry(entry.player, row, stands_for=stands))
    return rows


def _final_rows(
    players: list[Registration], held: dict[int, Hand], *, low: bool
) -> list[BoardEntry]:
    def place_of(r: Registration) -> int | None:
        return r.low_place if low else r.high_place

    rows = []
    placed = sorted((p for p in players if place_of(p)), key=lambda p: place_of(p) or 0)
    for r in placed:
        hand = held[r.pk]
        value = evaluate_low(hand.cards) if low else evaluate_high(hand.cards, hand.wild_rank)
        row, stands = _row(place_of(r) or 0, r.label, hand, value, low=low, award=r.award)
        rows.append(BoardEntry(r.pk, row, stands_for=stands))
    return rows


def _with_prizes(
    pool: int, high: list[BoardEntry], low: list[BoardEntry]
) -> tuple[list[BoardEntry], list[BoardEntry]]:
    """Each winner of the final board with the prize won in that column (High or Low)."""
    split = allocate(
        pool,
        [e.registration_id for e in high if e.row.place == 1],
        [e.registration_id for e in low if e.row.place == 1],
    )

    def paid(entries: list[BoardEntry], each: int) -> list[BoardEntry]:
        return [replace(e, prize=each) if e.row.place == 1 else e for e in entries]

    return paid(high, split.high_each), paid(low, split.low_each)


def stands_for(cards: tuple[str, ...], wild_rank: str | None) -> tuple[StandsFor, ...]:
    """Each wild card of a High five that stands for another card, as faces (`wild_stands_for`)."""
    return tuple(
        StandsFor(card=face(printed), meant=face(meant))
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
    best: tuple[HighValue, tuple[tuple[str, str], ...]] | None = None
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
