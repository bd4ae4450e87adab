"""What House pages read: the House snapshot shaped for the dashboard, and what its dialogs show.

`Dashboard` is House's read model: the dashboard's first render and every pushed House fragment
(`live.fragments`) are rendered from it.

No face-down card identity is read here. Win choices are dealt face up; reviews show the face-up
cards the reviewed game dealt; starting selections are slots only.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any, TypedDict

from django.db.models import Count, Q, QuerySet

from accounts.models import User
from cards.models import CardState, DealtCard, OfferKind, Shoe, ShoeKind, pending_offer
from cards.names import card_face
from cards.stock import stock_size
from events import scoreholio
from events.errors import RemainderPolicyRequired
from events.models import Event, GameResult, Phase, RegistrationStatus, Review
from events.play_rules import PlayerFacts, hand_complete, house_actions, starting_confirmed
from events.progress import kept_cards
from events.registration_switch import why_registration_cannot_open
from events.snapshots import (
    EventSummary,
    HouseRow,
    HouseTable,
    PendingChoice,
    PoolSummary,
    house_snapshot,
)

OVERDUE_SECONDS = 180  # a pending selection is highlighted past three minutes
RESOLVED_SHOWN = 10
STATUS_ORDER: dict[str, int] = {  # RegistrationStatus values
    RegistrationStatus.CHECKED_IN: 0,
    RegistrationStatus.REGISTERED: 1,
    RegistrationStatus.WITHDRAWN: 2,
    RegistrationStatus.NO_SHOW: 3,
    RegistrationStatus.CANCELLED: 4,
}
STATUS_LABELS = dict(RegistrationStatus.choices)


class PlayerRow(HouseRow[dict[str, Any]]):
    """One player as the dashboard shows them: the House snapshot's row, its pending choice
    shaped, and what House may do for them now (`can`)."""

    anchor: str
    status_label: str
    played: list[tuple[int, str]]
    next_game: int | None
    complete: bool
    paid: bool
    can: dict[str, bool]


class Dashboard(TypedDict):
    """Everything the dashboard's live part shows."""

    summary: EventSummary
    rules: Any
    started: bool
    finalized: bool
    players: list[PlayerRow]
    check_in: list[PlayerRow]
    counts: list[dict[str, Any]]
    checked_in: int
    pending_count: int
    paused_count: int
    pool: dict[str, Any]
    registration_switch: dict[str, Any]
    checklist: list[dict[str, str]]
    start: dict[str, Any] | None
    stock: dict[str, Any] | None
    reviews: dict[str, Any]
    statuses: list[tuple[str, str]]
    start_slots: list[int]


def house_events(user: User) -> QuerySet[Event]:
    """The events this user runs as House (superusers: every event), newest first."""
    listed = Event.objects.all() if user.is_superuser else Event.objects.filter(house=user)
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


def house_members(event: Event) -> list[User]:
    return list(event.house.order_by("display_name", "pk"))


def dashboard(event: Event, snapshot: HouseTable | None = None) -> Dashboard:
    """Everything the dashboard shows, from one House snapshot plus a few set-wide queries.

    `snapshot`, when the caller has read it, is `house_snapshot(event)`.
    """
    snapshot = house_snapshot(event) if snapshot is None else snapshot
    rules = event.rules
    started = event.phase == Phase.STARTED
    counts: dict[str, int] = snapshot["counts"]
    win_offers = _win_offers(event)
    games = _games(event)
    accounts = set(event.registrations.filter(player__isnull=False).values_list("pk", flat=True))
    paid = set(event.registrations.filter(paid=True).values_list("pk", flat=True))
    rows = sorted(
        snapshot["players"],
        key=lambda r: (STATUS_ORDER.get(r["status"], 9), r["registration_id"]),
    )
    players = [_player_row(row, event, games, win_offers, accounts, paid) for row in rows]
    pending = sum(1 for p in players if p["pending"])
    paused = sum(1 for p in players if p["paused"] and p["status"] == "checked_in")
    checked_in = counts.get(RegistrationStatus.CHECKED_IN, 0)
    return {
        "summary": snapshot["event"],
        "rules": rules,
        "started": started,
        "finalized": event.phase == Phase.FINALIZED,
        "players": players,
        "check_in": [p for p in players if p["status"] in ("registered", "checked_in", "no_show")],
        "counts": [
            {"status": status, "label": STATUS_LABELS[status], "count": counts.get(status, 0)}
            for status in STATUS_ORDER
            if counts.get(status, 0)
        ],
        "checked_in": checked_in,
        "pending_count": pending,
        "paused_count": paused,
        "pool": _pool(event, snapshot["pool"], paid=len(paid)),
        "registration_switch": registration_switch(event),
        "checklist": checklist(snapshot["blockers"], players),
        "start": start_preview(event, checked_in)
        if event.phase in (Phase.DRAFT, Phase.OPEN)
        else None,
        "stock": _stock(event, counts) if event.phase != Phase.DRAFT else None,
        "reviews": reviews(event),
        "statuses": [(status, STATUS_LABELS[status]) for status in STATUS_ORDER],
        "start_slots": list(range(rules.offered)),
    }


def registration_switch(event: Event) -> dict[str, Any]:
    """Whether House may open registration now, and if not, why in plain words, with the
    setting to fix when that is the remainder policy (events.registration_switch)."""
    refusal = None if event.registration_open else why_registration_cannot_open(event)
    return {
        "can_open": not event.registration_open and refusal is None,
        "why_not": refusal.message if refusal is not None else "",
        "needs_policy": isinstance(refusal, RemainderPolicyRequired),
    }


def start_preview(event: Event, checked_in: int) -> dict[str, Any]:
    """The stock the start would build from the players checked in now
    (docs/rules.md section 2.2)."""
    rules = event.rules
    size = stock_size(players=checked_in, reserve=rules.reserve, extra_decks=event.extra_decks)
    return {
        "players": checked_in,
        "reserve": rules.reserve,
        "extra_decks": event.extra_decks,
        "decks": size.decks,
        "cards": size.decks * 52,
        "supported_places": size.supported_places,
        "spare_places": max(size.supported_places - checked_in, 0),
        "house_decks": size.house_decks,
        "ready": checked_in >= 2,
    }


def checklist(blockers: Iterable[str], players: list[PlayerRow]) -> list[dict[str, str]]:
    """The finalization blockers in plain words, each with a link to what it concerns and an id
    that stays with it while it stays on the list (its anchor and how many came before it)."""
    anchors = {p["label"]: p["anchor"] for p in players if p["status"] == "checked_in"}
    items = []
    seen: dict[str, int] = defaultdict(int)
    for text in blockers:
        anchor = ""
        player = ""
        if text.startswith("Registration"):
            anchor = "registration"
        elif text.startswith("The pool"):
            anchor = "pool"
        else:
            # The longest label the text starts with: "Ann #2 has ..." belongs to "Ann #2", not
            # to "Ann". One look-up per word, whatever the number of players.
            end = len(text)
            while (end := text.rfind(" ", 0, end)) > 0:
                if text[:end] in anchors:
                    anchor, player = anchors[text[:end]], text[:end]
                    break
        seen[anchor] += 1
        item_id = f"check-{anchor or 'event'}-{seen[anchor]}"
        items.append({"text": text, "anchor": anchor, "player": player, "id": item_id})
    return items


def reviews(event: Event) -> dict[str, Any]:
    """Open reviews with what changed, who, when and the cards exposed; the latest resolved ones."""
    rows = list(
        Review.objects.filter(registration__event=event)
        .select_related("registration", "result")
        .order_by("-opened_at", "-pk")
    )
    open_rows = [r for r in rows if r.resolved_at is None]
    exposed = _exposed_cards([r.result_id for r in open_rows if r.result_id is not None])

    def shape(review: Review) -> dict[str, Any]:
        game = review.result.game if review.result is not None else None
        if review.resolved_at is not None:
            cards: list[dict[str, Any]] = []
        elif review.result_id is not None:
            cards = exposed.get(review.result_id, [])
        else:
            cards = [
                {**card_face(card), "note": "kept"} for card in kept_cards(review.registration)
            ]
        return {
            "id": review.pk,
            "registration_id": review.registration_id,
            "anchor": f"player-{review.registration_id}",
            "player": review.registration.label,
            "game": game,
            "corrected_from": review.corrected_from,
            "corrected_to": review.corrected_to,
            "reason": review.reason,
            "opened_by": review.opened_by,
            "opened_at": review.opened_at,
            "resolution": review.resolution,
            "resolved_by": review.resolved_by,
            "resolved_at": review.resolved_at,
            "cards": cards,
            "cards_are_hand": game is None,
        }

    resolved = [r for r in rows if r.resolved_at is not None]
    resolved.sort(key=lambda r: r.resolved_at or r.opened_at, reverse=True)
    return {
        "open": [shape(r) for r in reversed(open_rows)],
        "resolved": [shape(r) for r in resolved[:RESOLVED_SHOWN]],
        "resolved_total": len(resolved),
    }


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


# --- the parts ----------------------------------------------------------------------------------


def _player_row(
    row: HouseRow,
    event: Event,
    games: dict[int, list[tuple[int, str]]],
    win_offers: dict[int, dict[str, Any]],
    accounts: set[int],
    paid: set[int],
) -> PlayerRow:
    rules = event.rules
    rid = row["registration_id"]
    status = row["status"]
    pending = _pending(row["pending"], win_offers.get(rid), rules.offered, rules.starting)
    played = games.get(rid, [])
    reported = len(played)
    pending_kind = row["pending"]["kind"] if row["pending"] else None
    facts = PlayerFacts(
        label=row["label"],
        phase=event.phase,
        status=status,
        paused=row["paused"],
        wild_revealed=bool(row["wild_rank"]),
        results=reported,
        kept=row["kept"],
        starting_confirmed=starting_confirmed(rules, pending_kind),
        pending=pending_kind,
        open_reviews=row["open_reviews"],
    )
    complete = hand_complete(facts, rules)
    return {
        **row,
        "anchor": f"player-{rid}",
        "status_label": STATUS_LABELS.get(status, status),
        "pending": pending,
        "played": played,
        "next_game": reported + 1 if reported < rules.games else None,
        "complete": complete,
        "paid": rid in paid,
        "can": asdict(
            house_actions(
                facts,
                rules,
                contribution=event.contribution,
                paid=rid in paid,
                has_account=rid in accounts,
            )
        ),
    }


def _pending(
    pending: PendingChoice | None, win: dict[str, Any] | None, offered: int, keep: int
) -> dict[str, Any] | None:
    if pending is None:
        return None
    waited = int(pending["waited_seconds"])
    shaped: dict[str, Any] = {
        "kind": pending["kind"],
        "since": datetime.datetime.fromisoformat(pending["since"]),
        "waited_seconds": waited,
        "overdue": waited > OVERDUE_SECONDS,
        "reminded_at": (
            datetime.datetime.fromisoformat(pending["reminded_at"])
            if pending["reminded_at"]
            else None
        ),
    }
    if pending["kind"] == OfferKind.WIN:
        shaped["label"] = f"Win choice (game {win['game']})" if win else "Win choice"
        shaped["game"] = win["game"] if win else None
        shaped["cards"] = win["cards"] if win else []
    else:
        shaped["label"] = f"Starting selection ({keep} of {offered})"
        shaped["offered"] = offered
        shaped["keep"] = keep
        shaped["slots"] = list(range(offered))
    return shaped


def _win_offers(event: Event) -> dict[int, dict[str, Any]]:
    """Pending win choices: both cards are dealt face up, so House may see them."""
    offers: dict[int, dict[str, Any]] = {}
    for registration_id, slot, card, game in (
        DealtCard.objects.filter(
            pending_offer(via="offer__"),
            offer__registration__event=event,
            offer__kind=OfferKind.WIN,
            face_down=False,
        )
        .order_by("registration_id", "slot")
        .values_list("registration_id", "slot", "card", "offer__result__game")
    ):
        entry = offers.setdefault(registration_id, {"game": game, "cards": []})
        entry["cards"].append({**card_face(card), "slot": slot})
    return offers


def _games(event: Event) -> dict[int, list[tuple[int, str]]]:
    played: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for registration_id, game, outcome in (
        GameResult.objects.filter(registration__event=event)
        .order_by("registration_id", "game")
        .values_list("registration_id", "game", "outcome")
    ):
        played[registration_id].append((game, outcome))
    return played


def _pool(event: Event, pool: PoolSummary, *, paid: int = 0) -> dict[str, Any]:
    adjusted = sum(a["amount"] for a in pool["adjustments"])
    reconfirm = not event.pool_confirmed and event.pool_was_confirmed
    return {
        **pool,
        "adjusted_total": pool["base"] + adjusted,
        "total": pool["pool"] if pool["confirmed"] else pool["base"] + adjusted,
        "changed": reconfirm,
        "can_confirm": event.phase == Phase.STARTED and not event.pool_confirmed,
        "free": event.contribution == 0,
        # Beside the pool: the dollars House marked as taken (events.check_in.collected).
        "paid": paid,
        "collected": event.contribution * paid,
    }


def _stock(event: Event, counts: dict[str, int]) -> dict[str, Any] | None:
    shoes = {
        kind: (decks, size, dealt)
        for kind, decks, size, dealt in Shoe.objects.filter(event=event).values_list(
            "kind", "decks", "size", "next_position"
        )
    }
    stock = shoes.get(ShoeKind.STOCK)
    if stock is None or event.supported_places is None:
        return None
    placed = counts.get(RegistrationStatus.CHECKED_IN, 0) + counts.get(
        RegistrationStatus.WITHDRAWN, 0
    )
    round_two = GameResult.objects.filter(registration__event=event, game=2).exists()
    left = max(event.supported_places - placed, 0)
    return {
        "decks": stock[0],
        "cards": stock[1],
        "dealt": stock[2],
        "supported_places": event.supported_places,
        "placed": placed,
        "left": left,
        "late_entry_open": event.phase == Phase.STARTED and not round_two and left > 0,
        "round_two": round_two,
    }


def _exposed_cards(result_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
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
    shown: dict[int, list[dict[str, Any]]] = {}
    for result_id, cards in dealt.items():
        any_kept = any(state == CardState.KEPT for _, state in cards)
        shown[result_id] = [
            {
                **card_face(card),
                "note": "kept"
                if state == CardState.KEPT
                else ("not kept" if any_kept else "offered"),
            }
            for card, state in cards
        ]
    return shown
