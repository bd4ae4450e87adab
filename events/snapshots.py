"""House's table (`house_snapshot`, `HouseTable`) and a player's next step (`next_step`).

The other audiences' read models are typed dataclasses in `events.reads`. House's table is still
JSON-shaped: its event summary and pool are `events.reads.common`'s, as the API sends them.

Nothing here ever carries a face-down card's identity, an email or a push endpoint.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

from django.utils import timezone

from cards.models import Offer
from events.check_in import self_check_in_open
from events.formats import Format
from events.models import Event, Outcome, Phase, Registration, RegistrationStatus
from events.play_rules import (
    PlayerFacts,
    hand_complete,
    may_choose_start,
    may_choose_win,
    may_submit_result,
    starting_confirmed,
)
from events.progress import blockers, progress_of_many
from events.reads.common import event_summary, pool_summary, to_json


class EventSummary(TypedDict):
    """`events.reads.common.EventSummary` as JSON, in House's table."""

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
    """`events.reads.common.PoolSummary` as JSON, in House's table."""

    contribution: int
    participants: int
    base: int
    confirmed: bool
    pool: int | None
    adjustments: list[Adjustment]
    unallocated: int | None


class PendingChoice(TypedDict):
    kind: str
    since: str
    waited_seconds: int
    reminded_at: str | None


class HouseRow[Pending = PendingChoice](TypedDict):
    """One player in House's table. The dashboard's row (`house.selectors.PlayerRow`) is this
    row, its pending choice shaped for the page (`Pending`), with what House may do."""

    registration_id: int
    label: str
    status: str
    late: bool
    paused: bool
    games: int
    kept: int
    open_reviews: int
    wild_rank: str | None
    pending: Pending | None
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
    kind = pending["kind"] if pending else None
    facts = PlayerFacts(
        label=registration.label,
        phase=event.phase,
        status=status,
        paused=registration.paused,
        wild_revealed=bool(registration.wild_rank),
        results=reported,
        kept=kept,
        starting_confirmed=starting_confirmed(rules, kind),
        pending=kind,
        open_reviews=int(registration.paused),  # paused while any review of theirs is open
    )
    if pending and may_choose_start(facts):
        return {
            "code": "choose_start",
            "text": f"Choose {pending['keep']} of {pending['offered']} starting cards",
        }
    if pending and may_choose_win(facts) and pending_outcome == Outcome.LOSS:
        # A Win -> Loss correction leaves the choice in place (docs/rules.md section 8.2).
        return {
            "code": "choose_win",
            "text": f"Game {pending['game']} is now a loss, but its choice stays: "
            f"{rules.win_keep_words}",
        }
    if pending and may_choose_win(facts):
        return {
            "code": "choose_win",
            "text": f"You won game {pending['game']}: {rules.win_keep_words}",
        }
    if registration.paused:
        return {"code": "review", "text": "Waiting for House review"}
    if may_submit_result(facts, rules):
        return {"code": "report", "text": f"Report game {reported + 1}", "game": str(reported + 1)}
    if registration.wild_rank:
        return {
            "code": "done",
            "text": f"All done: your Wild is {_rank_word(registration.wild_rank)}",
        }
    if hand_complete(facts, rules):
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
        "event": cast(EventSummary, to_json(event_summary(event))),
        "version": event.version,
        "players": rows,
        "counts": counts,
        "pool": cast(PoolSummary, to_json(pool_summary(event))),
        "blockers": (
            blockers(event, registrations, progress) if event.phase == Phase.STARTED else []
        ),
        "supported_places": event.supported_places,
    }
