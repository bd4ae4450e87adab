"""What the board, a player and House see: JSON-ready snapshots shared by pages, API and sockets.

Nothing here ever carries a face-down card's identity, an email or a push endpoint.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from itertools import combinations, product
from typing import Any

from django.db.models import Q
from django.utils import timezone

from audit.models import AuditEntry
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
from payouts.allocation import allocate
from scoring.evaluator import RANKS, best_five, evaluate_high, evaluate_low, low_five
from scoring.standings import Hand, Place, Standings

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
    return board_with_standings(event)[0]


def board_with_standings(event: Event) -> tuple[dict[str, Any], Standings[int] | None]:
    """The board, and the provisional standings it shows (None once the event is final)."""
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
        high = _rows(table.high, labels, held, low=False)
        low = _rows(table.low, labels, held, low=True)
    board = {
        "event": event_summary(event),
        "version": event.version,
        "progress": {
            "players": len(players),
            "kept": sum(len(hand.cards) for hand in held.values()),
            "to_keep": len(players) * event.rules.kept,
        },
        "high": high,
        "low": low,
        "final": event.phase == Phase.FINALIZED,
        "pool": pool_summary(event),
    }
    return board, table


def pool_summary(event: Event) -> dict[str, Any]:
    """The pool as House sees it: while provisional, the base plus the adjustments in force."""
    count = participants(event)
    base = event.contribution * count
    adjustments: list[dict[str, Any]] = [
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
    rows = []
    placed = sorted((p for p in players if getattr(p, field)), key=lambda p: getattr(p, field))
    for r in placed:
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


def board_page(event: Event, board: dict[str, Any]) -> dict[str, Any]:
    """What the board page shows of its snapshot: one row per player, holding their High and Low.

    Page only (the snapshot's JSON stays as it is): each row carries the player's registration id,
    each cell its place in its column, the prize won in that column (final board) and, for High,
    the card each wild stands for.
    """
    ids = dict(
        event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN]
        ).values_list("label", "pk")
    )
    high_prizes, low_prizes = _column_prizes(board)
    rows: dict[str, dict[str, Any]] = {}

    def row(label: str) -> dict[str, Any]:
        return rows.setdefault(label, {"id": ids[label], "label": label, "high": None, "low": None})

    for index, entry in enumerate(board["high"]):
        codes = [card["code"] for card in entry["cards"]]
        wild = entry["wild_rank"] if entry["held"] >= 5 else None
        row(entry["player"])["high"] = {
            **entry,
            "index": index,
            "prize": high_prizes.get(entry["player"]),
            "cards": [{**card, "wild": card["code"][0] == wild} for card in entry["cards"]],
            "stands_for": [
                {"card": card_face(printed), "as": card_face(meant)}
                for printed, meant in wild_stands_for(tuple(codes), wild)
            ],
        }
    for index, entry in enumerate(board["low"]):
        row(entry["player"])["low"] = {
            **entry,
            "index": index,
            "prize": low_prizes.get(entry["player"]),
        }
    return {
        "event": event,
        "board": board,
        "rows": list(rows.values()),
        "high_count": len(board["high"]),
        "low_count": len(board["low"]),
    }


def _column_prizes(board: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    """Dollars won in the High column and in the Low column, by label (final board only)."""
    if not board["final"] or not board["pool"]["confirmed"]:
        return {}, {}
    high = [r["player"] for r in board["high"] if r["place"] == 1]
    low = [r["player"] for r in board["low"] if r["place"] == 1]
    split = allocate(board["pool"]["pool"], high, low)
    return {p: split.high_each for p in high}, {p: split.low_each for p in low}


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
        rank = natural[0][0]
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
    swapped = dict(distinct)
    if evaluate_high([swapped.get(c, c) for c in five], None) == best[0]:
        return distinct
    return best[1]


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
    high_winners = [r for r in players if r.high_place == 1]
    low_winners = [r for r in players if r.low_place == 1]
    split = allocate(pool["pool"], [r.pk for r in high_winners], [r.pk for r in low_winners])
    finalized = (
        AuditEntry.objects.filter(event=event, action="event_finalized").order_by("-seq").first()
    )
    seed = finalized.details.get("seed") if finalized is not None else None

    def hand_of(r: Registration, *, low: bool) -> dict[str, Any]:
        hand = held[r.pk]
        value = evaluate_low(hand.cards) if low else evaluate_high(hand.cards, hand.wild_rank)
        shown = low_five(hand.cards) if low else best_five(hand.cards, hand.wild_rank)
        wild = None if low else hand.wild_rank
        return {
            "player": r.label,
            "cards": [{**card_face(c), "wild": c[0] == wild} for c in shown],
            "description": value.description,
            "wild_rank": hand.wild_rank,
            "stands_for": [
                {"card": card_face(printed), "as": card_face(meant)}
                for printed, meant in wild_stands_for(shown, wild)
            ],
        }

    low_share = split.low_share
    low_paid = split.low_each * len(low_winners)
    return {
        "event": event_summary(event),
        "pool": pool,
        "adjusted": sum(a["amount"] for a in pool["adjustments"]),
        "split": {
            "low_share": low_share,
            "high_share_before": pool["pool"] - low_share,
            "low_each": split.low_each,
            "low_winners": len(low_winners),
            "low_paid": low_paid,
            "low_moved": low_share - low_paid,
            "high_share": split.high_share,
            "high_each": split.high_each,
            "high_winners": len(high_winners),
            "high_paid": split.high_each * len(high_winners),
            "unallocated": split.unallocated,
            "notes": list(split.notes),
        },
        "high_winners": [{**hand_of(r, low=False), "prize": split.high_each} for r in high_winners],
        "low_winners": [{**hand_of(r, low=True), "prize": split.low_each} for r in low_winners],
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


def player_snapshot(registration: Registration) -> dict:
    """One player's own page: next step, hand, pending choice, games, places."""
    return player_snapshots([registration])[registration.pk]


def player_snapshots(
    registrations: list[Registration], standings: Standings[int] | None = None
) -> dict[int, dict[str, Any]]:
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
) -> dict[str, Any]:
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


def house_snapshot(event: Event) -> dict[str, Any]:
    """House's players table and checklist. House sees no face-down card either."""
    now = timezone.now()
    registrations = list(event.registrations.order_by("status", "check_in_order", "id"))
    progress = progress_of_many(event, registrations)
    offers = {
        o.registration_id: o for o in Offer.objects.pending().filter(registration__event=event)
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
