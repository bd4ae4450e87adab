"""What House pages read besides the dashboard's read model (`house.read_model`): the events a
user runs, the House members, the Scoreholio comparison, and the queries the read model is built
from.

No face-down card identity is read here. Win choices are dealt face up; reviews show the face-up
cards the reviewed game dealt.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from accounts.models import User
from cards.models import CardState, DealtCard, OfferKind, pending_offer
from cards.names import card_face
from events import scoreholio
from events.models import Event, GameResult, Phase, RegistrationStatus, Review
from events.reads.common import CardFace


@dataclass(frozen=True, slots=True)
class OfferedCard(CardFace):
    """A card of a pending Win choice, dealt face up, by its slot."""

    slot: int


@dataclass(frozen=True, slots=True)
class NotedCard(CardFace):
    """A card House reviews, noted as kept, not kept, or still offered."""

    note: str


def house_events(user: User) -> QuerySet[Event]:
    """The events this user runs as House, their own, their series' and their organizations'
    (superusers: every event; a suspended organization's: none), newest first."""
    listed = (
        Event.objects.all()
        if user.is_superuser
        else Event.objects.filter(
            Q(staff__user=user) | Q(series__staff__user=user) | Q(organization__staff__user=user)
        )
        .exclude(organization__suspended_at__isnull=False)
        .distinct()
    )
    return listed.annotate(
        checked_in=Count(
            "registrations",
            filter=Q(registrations__status=RegistrationStatus.CHECKED_IN),
            distinct=True,
        ),
        registered=Count(
            "registrations",
            filter=Q(registrations__status=RegistrationStatus.REGISTERED),
            distinct=True,
        ),
    ).order_by("-date", "-id")


def scoreholio_players(event: Event) -> list[scoreholio.PlayerResults]:
    """The event's players (checked in or withdrawn) with the names the log may use for them."""
    registrations = list(
        event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN]
        )
        .select_related("player")
        .order_by("check_in_order", "pk")
    )
    results: dict[int, list[scoreholio.SubmittedResult]] = defaultdict(list)
    for registration_id, game, outcome, opponent, score in (
        GameResult.objects.filter(registration__in=registrations)
        .order_by("registration_id", "game")
        .values_list("registration_id", "game", "outcome", "opponent", "score")
    ):
        results[registration_id].append(scoreholio.SubmittedResult(game, outcome, opponent, score))
    return [
        scoreholio.PlayerResults(
            registration_id=r.pk,
            label=r.label,
            display_name=r.player.display_name if r.player else "",
            results=tuple(results[r.pk]),
        )
        for r in registrations
    ]


def scoreholio_check(event: Event, log_text: str) -> dict[str, Any]:
    """The comparison of the stored Match Log with the submitted results, ready to show."""
    try:
        rows = scoreholio.parse_match_log(log_text)
    except scoreholio.MatchLogError as problem:
        return {"error": problem.message}
    comparison = scoreholio.compare(rows, scoreholio_players(event))
    concerned = {m.registration_id for m in comparison.mismatches}
    states = dict(event.registrations.filter(pk__in=concerned).values_list("pk", "status"))
    reviewing = set(
        Review.objects.open()
        .filter(registration_id__in=concerned)
        .values_list("registration_id", "reason")
    )
    started = event.phase == Phase.STARTED
    shaped = [
        {
            "mismatch": m,
            "anchor": f"player-{m.registration_id}",
            "reviewing": (m.registration_id, m.reason) in reviewing,
            "can_review": started and states.get(m.registration_id) == "checked_in",
        }
        for m in comparison.mismatches
    ]
    contradicted = {m for m in comparison.mismatches if m.row is not None}
    return {
        "comparison": comparison,
        # The log contradicts these results; the others are simply not in the log (yet).
        "mismatches": [item for item in shaped if item["mismatch"] in contradicted],
        "missing": [item for item in shaped if item["mismatch"] not in contradicted],
    }


# --- the queries House's read model (house.read_model) is built from ----------------------------


@dataclass(frozen=True, slots=True)
class WinOffer:
    """A pending Win choice: the game it is for and its cards, dealt face up."""

    game: int
    cards: tuple[OfferedCard, ...]


def win_offers(event: Event, registration_ids: Collection[int]) -> dict[int, WinOffer]:
    """These players' pending Win choices: both cards are dealt face up, so House may see them."""
    offers: dict[int, tuple[int, list[OfferedCard]]] = {}
    for registration_id, slot, card, game in (
        DealtCard.objects.filter(
            pending_offer(via="offer__"),
            offer__registration__event=event,
            offer__registration__in=list(registration_ids),
            offer__kind=OfferKind.WIN,
            face_down=False,
        )
        .order_by("registration_id", "slot")
        .values_list("registration_id", "slot", "card", "offer__result__game")
    ):
        offers.setdefault(registration_id, (game, []))[1].append(
            OfferedCard(**card_face(card), slot=slot)
        )
    return {pk: WinOffer(game, tuple(cards)) for pk, (game, cards) in offers.items()}


def games(event: Event, registration_ids: Collection[int]) -> dict[int, list[tuple[int, str]]]:
    """These players' reported games, in order: (game, outcome)."""
    played: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for registration_id, game, outcome in (
        GameResult.objects.filter(
            registration__event=event, registration__in=list(registration_ids)
        )
        .order_by("registration_id", "game")
        .values_list("registration_id", "game", "outcome")
    ):
        played[registration_id].append((game, outcome))
    return played


def exposed_cards(result_ids: list[int]) -> dict[int, list[NotedCard]]:
    """For each game result under review: the cards it dealt (a loss card, a win's two cards),
    each noted as kept, not kept, or still offered. They are dealt face up."""
    if not result_ids:
        return {}
    dealt: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for result_id, card, state in (
        DealtCard.objects.filter(result_id__in=result_ids, face_down=False)
        .order_by("result_id", "position")
        .values_list("result_id", "card", "state")
    ):
        dealt[result_id].append((card, state))
    shown: dict[int, list[NotedCard]] = {}
    for result_id, cards in dealt.items():
        any_kept = any(state == CardState.KEPT for _, state in cards)
        shown[result_id] = [
            NotedCard(
                **card_face(card),
                note="kept" if state == CardState.KEPT else ("not kept" if any_kept else "offered"),
            )
            for card, state in cards
        ]
    return shown
