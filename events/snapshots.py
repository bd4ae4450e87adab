"""What the board, a player and House see: JSON-ready snapshots shared by pages, API and sockets.

Nothing here ever carries a face-down card's identity, an email or a push endpoint.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from cards.models import CardState, DealtCard, Offer, OfferKind
from cards.names import card_face
from events.formats import Format
from events.models import Event, Phase, Registration, RegistrationStatus
from events.progress import blockers, hands, provisional_standings
from scoring.evaluator import best_five, low_five
from scoring.standings import Hand, Place, Standings

BOARD_ROWS = 10
REVEAL_SECONDS = 10  # how long a page load still shows the revealed starting offer


def event_summary(event: Event) -> dict[str, Any]:
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


def board_snapshot(event: Event) -> dict[str, Any]:
    """The public board: live High and Low standings and progress. Public state only."""
    table = provisional_standings(event) if event.phase != Phase.FINALIZED else None
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by("check_in_order")
    )
    labels = {r.pk: r.label for r in players}
    held = hands(event, players)
    if table is None:
        high = _final_rows(players, held, "high_place")
        low = _final_rows(players, held, "low_place")
    else:
        high = _rows(table.high, labels, held, low=False)
        low = _rows(table.low, labels, held, low=True)
    return {
        "event": event_summary(event),
        "version": event.version,
        "progress": progress_counts(event),
        "high": high[:BOARD_ROWS],
        "low": low[:BOARD_ROWS],
        "final": event.phase == Phase.FINALIZED,
        "pool": pool_summary(event),
    }


def progress_counts(event: Event) -> dict[str, int]:
    """Cards kept of cards to keep, over players in play."""
    active = event.registrations.filter(status=RegistrationStatus.CHECKED_IN).count()
    kept = DealtCard.objects.filter(
        registration__event=event,
        registration__status=RegistrationStatus.CHECKED_IN,
        state=CardState.KEPT,
    ).count()
    return {"players": active, "kept": kept, "to_keep": active * event.rules.kept}


def pool_summary(event: Event) -> dict[str, Any]:
    from events.lifecycle import participants

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
) -> list[dict[str, Any]]:
    rows = []
    for entry in places:
        hand = held[entry.player]
        shown = low_five(hand.cards) if low else best_five(hand.cards, hand.wild_rank)
        rows.append(
            {
                "place": entry.place,
                "player": labels[entry.player],
                "cards": [card_face(c) for c in shown],
                "held": len(hand.cards),
                "wild_rank": hand.wild_rank,
                "category": entry.value.category,
                "description": entry.value.description,
            }
        )
    return rows


def _final_rows(
    players: list[Registration], held: dict[int, Hand], field: str
) -> list[dict[str, Any]]:
    from scoring.evaluator import evaluate_high, evaluate_low

    rows = []
    for r in sorted((p for p in players if getattr(p, field)), key=lambda p: getattr(p, field)):
        hand = held[r.pk]
        is_low = field == "low_place"
        value = evaluate_low(hand.cards) if is_low else evaluate_high(hand.cards, hand.wild_rank)
        shown = low_five(hand.cards) if is_low else best_five(hand.cards, hand.wild_rank)
        rows.append(
            {
                "place": getattr(r, field),
                "player": r.label,
                "cards": [card_face(c) for c in shown],
                "held": len(hand.cards),
                "wild_rank": hand.wild_rank,
                "category": value.category,
                "description": value.description,
                "award": r.award,
            }
        )
    return rows


def player_snapshot(registration: Registration, standings: Standings[int] | None = None) -> dict:
    """One player's own page: next step, hand, pending choice, games, places."""
    event = registration.event
    rules = event.rules
    kept = list(
        DealtCard.objects.filter(registration=registration, state=CardState.KEPT).order_by(
            "kept_index"
        )
    )
    offer = (
        Offer.objects.filter(
            registration=registration, resolved_at__isnull=True, voided_at__isnull=True
        )
        .select_related("result")
        .first()
    )
    pending = None
    if offer is not None:
        cards = list(offer.cards.order_by("slot"))
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
    reveal = _recent_reveal(registration)
    results = list(
        registration.results.order_by("game").values("game", "outcome", "opponent", "score")
    )
    table = (
        standings
        if standings is not None
        else (provisional_standings(event) if event.phase == Phase.STARTED else None)
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
        "wild_indicator": _indicator(registration),
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


def _indicator(registration: Registration) -> dict[str, Any] | None:
    """The House-deck card that set the wild; not a playable card."""
    if not registration.wild_rank:
        return None
    card = (
        DealtCard.objects.filter(registration=registration, state=CardState.INDICATOR)
        .values_list("card", flat=True)
        .first()
    )
    return card_face(card) if card else None


def _recent_reveal(registration: Registration) -> dict[str, Any] | None:
    """Every offered starting card, face up, for a few seconds after the confirmation."""
    offer = (
        Offer.objects.filter(registration=registration, kind=OfferKind.STARTING)
        .exclude(resolved_at__isnull=True)
        .first()
    )
    if offer is None or offer.resolved_at is None:
        return None
    if (timezone.now() - offer.resolved_at).total_seconds() > REVEAL_SECONDS:
        return None
    return {
        "cards": [
            {**card_face(c.card), "kept": c.state == CardState.KEPT}
            for c in offer.cards.order_by("slot")
        ]
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


def house_snapshot(event: Event) -> dict[str, Any]:
    """House's players table and checklist. House sees no face-down card either."""
    now = timezone.now()
    registrations = list(
        event.registrations.annotate(
            games=Count("results", distinct=True),
            kept=Count("dealt_cards", filter=Q(dealt_cards__state=CardState.KEPT), distinct=True),
            open_reviews=Count(
                "reviews", filter=Q(reviews__resolved_at__isnull=True), distinct=True
            ),
        ).order_by("status", "check_in_order", "id")
    )
    offers = {
        o.registration_id: o
        for o in Offer.objects.filter(
            registration__event=event, resolved_at__isnull=True, voided_at__isnull=True
        )
    }
    rows = []
    for r in registrations:
        offer = offers.get(r.pk)
        rows.append(
            {
                "registration_id": r.pk,
                "label": r.label,
                "status": r.status,
                "late": r.late,
                "paused": r.paused,
                "games": r.games,
                "kept": r.kept,
                "open_reviews": r.open_reviews,
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
        "blockers": blockers(event) if event.phase == Phase.STARTED else [],
        "supported_places": event.supported_places,
    }
