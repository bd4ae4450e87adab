"""A final event's results: the winners, the prize split's arithmetic, every player's hand, the
awards and the shuffle's proof.

`final_results(event)` builds them for the final results page and the printed sheet alike;
`final_winners(event)` is the winners alone, as every player's page shows them. Everything here is
public once the event is final; the audit verifier (`audit.verify`) re-checks it independently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated

from django.db.models import Q

from audit.models import AuditEntry
from cards.models import CardState, DealtCard
from cards.names import RANK_FACES, card_face
from events.answers import Described
from events.models import Event, Phase, Registration, RegistrationStatus
from events.player_words import HandNames, hand_names
from events.progress import hands
from events.reads.board import StandsFor, stands_for
from events.reads.common import (
    PAGE_ONLY,
    CardFace,
    EventSummary,
    PoolSummary,
    event_summary,
    face,
    pool_summary,
)
from payouts.allocation import Allocation, allocate
from scoring.evaluator import best_five, evaluate_high, evaluate_low, low_five
from scoring.standings import Hand


@dataclass(frozen=True, slots=True)
class WinnerCard(CardFace):
    """A card of a winning five."""

    wild: Annotated[bool, Described("A card of the winner's wild rank (High only).")]


@dataclass(frozen=True, slots=True)
class Winner:
    """A final event's winner (place 1, High or Low) and the winning five: public once final."""

    player: Annotated[str, Described("The winner's public label.")]
    cards: Annotated[tuple[WinnerCard, ...], Described("The winning five.")]
    description: Annotated[str, Described("'Full House, kings over fives'.")]
    wild_rank: str | None
    prize: Annotated[int, Described("Dollars won in this column.")]
    # The final page's: the card each wild of a High five stands for.
    stands_for: tuple[StandsFor, ...] = field(default=(), metadata=PAGE_ONLY)


@dataclass(frozen=True, slots=True)
class FinalWinners:
    """A final event's High and Low winners."""

    high: tuple[Winner, ...]
    low: tuple[Winner, ...]

    @property
    def sides(self) -> tuple[tuple[str, tuple[Winner, ...]], ...]:
        """Each column's name and winners, High first."""
        return (("high", self.high), ("low", self.low))


@dataclass(frozen=True, slots=True)
class SplitArithmetic:
    """The prize split's steps as the final pages show them (docs/rules.md section 7), in
    dollars."""

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
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FinalHand:
    """One player's final line: the cards kept, the hand's names, places and award.

    A withdrawn player has no place and no award.
    """

    player: str
    status: RegistrationStatus
    cards: tuple[CardFace, ...]  # in the order kept
    wild_rank: str | None
    names: HandNames
    high_place: int | None
    low_place: int | None
    award: int

    @property
    def withdrawn(self) -> bool:
        return self.status == RegistrationStatus.WITHDRAWN

    @property
    def wild(self) -> str | None:
        """The wild rank as printed (`10` for a ten)."""
        return RANK_FACES.get(self.wild_rank or "", self.wild_rank)


@dataclass(frozen=True, slots=True)
class Award:
    """The dollars one winner receives, and the columns they won them in."""

    player: str
    amount: int
    won: str  # "High", "Low" or "High and Low"


@dataclass(frozen=True, slots=True)
class FinalResults:
    """A final event's results, as the final results page and the printed sheet show them."""

    event: EventSummary
    pool: PoolSummary
    split: SplitArithmetic
    winners: FinalWinners
    awards: tuple[Award, ...]  # as the split pays them: Low winners first, in check-in order
    hands: tuple[FinalHand, ...]  # every player who played (withdrawn too), in check-in order
    high: tuple[FinalHand, ...]  # the High standings: placed players by place, then label
    low: tuple[FinalHand, ...]
    payouts: tuple[FinalHand, ...]  # every player, the largest award first
    unallocated: int
    commitment: str | None
    seed: str | None  # revealed at finalization
    seed_matches: bool  # the seed's sha256 is the commitment

    @property
    def withdrawn(self) -> tuple[FinalHand, ...]:
        return tuple(h for h in self.hands if h.withdrawn)


def final_results(event: Event) -> FinalResults | None:
    """The final event's results (see `FinalResults`); None until the event is final."""
    if event.phase != Phase.FINALIZED:
        return None
    players = list(
        event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN]
        ).order_by("check_in_order")
    )
    held = hands(event, players)
    pool = pool_summary(event)
    split = _split(event, players)
    finalized = (
        AuditEntry.objects.filter(event=event, action="event_finalized").order_by("-seq").first()
    )
    seed = finalized.details.get("seed") if finalized is not None else None
    lines = tuple(_final_hand(r, held[r.pk]) for r in players)
    playing = [h for h in lines if not h.withdrawn]
    return FinalResults(
        event=event_summary(event),
        pool=pool,
        split=split.arithmetic,
        winners=_winners(split, held),
        awards=split.awards,
        hands=lines,
        high=tuple(
            sorted(
                (h for h in playing if h.high_place is not None),
                key=lambda h: (h.high_place or 0, h.player),
            )
        ),
        low=tuple(
            sorted(
                (h for h in playing if h.low_place is not None),
                key=lambda h: (h.low_place or 0, h.player),
            )
        ),
        payouts=tuple(sorted(lines, key=lambda h: (-h.award, h.high_place or 10**9, h.player))),
        unallocated=event.unallocated or 0,
        commitment=event.commitment or None,
        seed=seed,
        seed_matches=(
            seed is not None and hashlib.sha256(bytes.fromhex(seed)).hexdigest() == event.commitment
        ),
    )


def final_winners(event: Event) -> FinalWinners | None:
    """A final event's High and Low winners (place 1), with their hands and prizes; None until
    the event is final. Reads the winners' cards only."""
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
    held = {r.pk: Hand(cards=tuple(cards[r.pk]), wild_rank=r.wild_rank or None) for r in winners}
    return _winners(_split(event, winners), held)


@dataclass(frozen=True, slots=True)
class _Split:
    """A final event's confirmed pool split between the players placed first."""

    high_winners: list[Registration]
    low_winners: list[Registration]
    allocation: Allocation[int]  # keyed by registration id
    arithmetic: SplitArithmetic
    awards: tuple[Award, ...]


def _split(event: Event, players: Iterable[Registration]) -> _Split:
    """How the confirmed pool is split; the winners keep the order of `players`."""
    total = event.confirmed_pool or 0  # a final event's pool is confirmed
    placed = list(players)
    high_winners = [r for r in placed if r.high_place == 1]
    low_winners = [r for r in placed if r.low_place == 1]
    split = allocate(total, [r.pk for r in high_winners], [r.pk for r in low_winners])
    low_paid = split.low_each * len(low_winners)
    labels = {r.pk: r.label for r in placed}
    high_ids = {r.pk for r in high_winners}
    low_ids = {r.pk for r in low_winners}
    return _Split(
        high_winners=high_winners,
        low_winners=low_winners,
        allocation=split,
        arithmetic=SplitArithmetic(
            low_share=split.low_share,
            high_share_before=total - split.low_share,
            low_each=split.low_each,
            low_winners=len(low_winners),
            low_paid=low_paid,
            low_moved=split.low_share - low_paid,
            high_share=split.high_share,
            high_each=split.high_each,
            high_winners=len(high_winners),
            high_paid=split.high_each * len(high_winners),
            unallocated=split.unallocated,
            notes=split.notes,
        ),
        awards=tuple(
            Award(
                player=labels[pk],
                amount=amount,
                won=" and ".join(
                    what for what, ids in (("High", high_ids), ("Low", low_ids)) if pk in ids
                ),
            )
            for pk, amount in split.awards.items()
        ),
    )


def _winners(split: _Split, held: dict[int, Hand]) -> FinalWinners:
    allocation = split.allocation
    return FinalWinners(
        high=tuple(
            _winner(r.label, held[r.pk], allocation.high_each, low=False)
            for r in split.high_winners
        ),
        low=tuple(
            _winner(r.label, held[r.pk], allocation.low_each, low=True) for r in split.low_winners
        ),
    )


def _winner(label: str, hand: Hand, prize: int, *, low: bool) -> Winner:
    """A winner's five as the final pages show them: for High, the wilds marked."""
    value = evaluate_low(hand.cards) if low else evaluate_high(hand.cards, hand.wild_rank)
    shown = low_five(hand.cards) if low else best_five(hand.cards, hand.wild_rank)
    wild = None if low else hand.wild_rank
    return Winner(
        player=label,
        cards=tuple(WinnerCard(**card_face(c), wild=c[0] == wild) for c in shown),
        description=value.description,
        wild_rank=hand.wild_rank,
        prize=prize,
        stands_for=stands_for(shown, wild),
    )


def _final_hand(registration: Registration, hand: Hand) -> FinalHand:
    return FinalHand(
        player=registration.label,
        status=RegistrationStatus(registration.status),
        cards=tuple(face(c) for c in hand.cards),
        wild_rank=hand.wild_rank,
        names=hand_names(hand.cards, hand.wild_rank),
        high_place=registration.high_place,
        low_place=registration.low_place,
        award=registration.award or 0,
    )
