"""The database side of `bench/load.py`: seeding through the services, and the checks after.

Import only after `django.setup()`. Nothing here is timed: the measured traffic goes over HTTP
and websockets from `bench/load.py`.
"""

from __future__ import annotations

import datetime
import secrets
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.db.models import Count, Max, Min

from accounts.models import User
from audit.export import audit_document
from audit.models import AuditEntry
from audit.verify import verify
from cards.models import CardState, DealtCard, Offer, Shoe
from events import services, store
from events.models import Event, Registration, RegistrationStatus
from live import targeting

SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"


@dataclass(frozen=True, slots=True)
class Player:
    """A signed-in player as the HTTP client sees them: cookies, and their registration."""

    event_id: int
    registration_id: int
    label: str
    sessionid: str
    csrftoken: str


@dataclass
class EventPlan:
    event_id: int
    players: list[Player]  # the load
    marker: Player  # held back: plays after the load, one change at a time
    house_sessionid: str = ""  # the House member who created the event, signed in


@dataclass
class Checks:
    """What the database says after the run."""

    versions: dict[int, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    stock_dealt: int = 0
    house_dealt: int = 0
    hands_checked: int = 0
    hands_matching_answers: int = 0
    hands_complete: int = 0
    audit_entries: int = 0
    audit_ok: int = 0
    snapshot_ms: dict[str, float] = field(default_factory=dict)


def sign_in(user: User) -> tuple[str, str]:
    """A database session for `user` (as `login()` makes one) and a CSRF secret for the cookie.

    No password is involved: the daphne processes keep the project's password hashers, which
    are slow on purpose, and signing 516 players in through the login form is not what we measure.
    """
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = SESSION_BACKEND
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    assert session.session_key is not None
    return session.session_key, secrets.token_hex(16)  # 32 characters: an unmasked CSRF secret


def seed(*, events: int, players: int, tag: str) -> list[EventPlan]:
    """Started League events of `players` + 1 checked-in players each (the last: the marker)."""
    plans = []
    for number in range(1, events + 1):
        house = User.objects.create_user(
            email=f"house{number}-{tag}@bench.invalid",
            display_name=f"House {number}",
            is_staff=True,
        )
        event_id = services.event_create(
            by=house,
            name=f"Load bench event {number}",
            date=datetime.date.today(),
            format="league",
            contribution=10,
            remainder_policy="An indivisible High remainder goes to next event's pool.",
            venue="Benchmark",
        ).event_id
        services.registration_open(event_id=event_id, by=house)
        seated = []
        for seat in range(1, players + 2):
            user = User.objects.create_user(
                email=f"e{number}p{seat}-{tag}@bench.invalid",
                display_name=f"E{number} P{seat:03d}",
            )
            answer = services.player_register(event_id=event_id, by=user)
            services.player_check_in(registration_id=answer.registration_id, by=house)
            sessionid, csrftoken = sign_in(user)
            seated.append(
                Player(event_id, answer.registration_id, answer.label, sessionid, csrftoken)
            )
        services.event_start(event_id=event_id, by=house)
        house_session, _ = sign_in(house)
        plans.append(
            EventPlan(
                event_id=event_id,
                players=seated[:-1],
                marker=seated[-1],
                house_sessionid=house_session,
            )
        )
    return plans


def prepare_reference() -> None:
    """The row the reference transaction updates, in a table only the scratch database has."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE bench_reference_row (id bigint PRIMARY KEY, counter bigint NOT NULL)"
        )
        cursor.execute("INSERT INTO bench_reference_row (id, counter) VALUES (1, 0)")


Change = tuple[str, str | None, int | None, float]  # action, player, game, when (epoch s)


def changes_by_version(event_id: int) -> list[Change] | None:
    """For each version 1..N of the event, the change that made it, and when it took the lock.

    Every committed change writes its audit entries with one timestamp (taken once it holds the
    event's lock) and moves the version by one, under that lock; so the N-th group of entries in
    the chain is version N. None if the groups do not add up to the event's version.
    """
    groups: list[Change] = []
    last_at = None
    for at, action, player, details in (
        AuditEntry.objects.filter(event_id=event_id)
        .order_by("seq")
        .values_list("at", "action", "player", "details")
    ):
        if at != last_at:
            game = details.get("game") if isinstance(details, dict) else None
            when = datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ")
            groups.append((action, player, game, when.replace(tzinfo=datetime.UTC).timestamp()))
            last_at = at
    version = Event.objects.values_list("version", flat=True).get(pk=event_id)
    return groups if len(groups) == version else None


def snapshot_cost(event_ids: list[int], rounds: int = 5) -> dict[str, float]:
    """Median milliseconds (wall, this process) of one board snapshot as a connect or a reload
    computes it, and of the snapshots one change calls for (board, House, one player)."""
    board: list[float] = []
    change: list[float] = []
    for event_id in event_ids:
        one = Registration.objects.filter(event_id=event_id).values_list("pk", flat=True).first()
        for _ in range(rounds):
            began = time.perf_counter()
            with store.consistent_read():
                targeting.board(Event.objects.get(pk=event_id))
            board.append(time.perf_counter() - began)
            began = time.perf_counter()
            targeting.change_snapshots(event_id, [one] if one else [])
            change.append(time.perf_counter() - began)
    return {
        "board": statistics.median(board) * 1000,
        "change": statistics.median(change) * 1000,
    }


def event_versions(event_ids: list[int]) -> dict[int, int]:
    return dict(Event.objects.filter(pk__in=event_ids).values_list("pk", "version"))


def check(plans: list[EventPlan], answered: dict[int, list[str]], finished: set[int]) -> Checks:
    """Cards, hands, audit chains and versions.

    `answered` is each registration's kept cards as the HTTP answers told the player, in order;
    `finished` the registrations that played every game (a run cut short leaves some unfinished:
    their hands are checked against the answers, not for being complete).
    """
    found = Checks()
    event_ids = [plan.event_id for plan in plans]
    found.versions = event_versions(event_ids)
    for plan in plans:
        _check_shoes(plan.event_id, found)
        _check_hands(plan, answered, finished, found)
        _check_audit(plan.event_id, found)
    return found


def _check_shoes(event_id: int, found: Checks) -> None:
    for shoe in Shoe.objects.filter(event_id=event_id):
        dealt = DealtCard.objects.filter(shoe=shoe).aggregate(
            n=Count("id"),
            distinct=Count("position", distinct=True),
            low=Min("position"),
            high=Max("position"),
        )
        if shoe.kind == "stock":
            found.stock_dealt += dealt["n"]
        else:
            found.house_dealt += dealt["n"]
        if dealt["n"] != dealt["distinct"]:
            found.problems.append(f"event {event_id} {shoe.kind}: a position was dealt twice")
        if dealt["n"] != shoe.next_position or (
            dealt["n"] and (dealt["low"] != 0 or dealt["high"] != shoe.next_position - 1)
        ):
            found.problems.append(
                f"event {event_id} {shoe.kind}: {dealt['n']} cards dealt at positions "
                f"{dealt['low']}..{dealt['high']}, next_position {shoe.next_position}"
            )
        wrong = [
            card.position
            for card in DealtCard.objects.filter(shoe=shoe).only("position", "card")
            if card.card != shoe.card_at(card.position)
        ]
        if wrong:
            found.problems.append(f"event {event_id} {shoe.kind}: wrong card at {wrong[:5]}")


def _check_hands(
    plan: EventPlan, answered: dict[int, list[str]], finished: set[int], found: Checks
) -> None:
    event = Event.objects.get(pk=plan.event_id)
    full = event.rules.kept
    statuses = Counter(Registration.objects.filter(event=event).values_list("status", flat=True))
    if set(statuses) != {RegistrationStatus.CHECKED_IN}:
        found.problems.append(f"event {event.pk}: registrations {dict(statuses)}")
    kept: dict[int, list[tuple[int, str]]] = {}
    for registration_id, index, card in DealtCard.objects.filter(
        registration__event=event, state=CardState.KEPT
    ).values_list("registration_id", "kept_index", "card"):
        kept.setdefault(registration_id, []).append((index, card))
    pending = set(
        Offer.objects.pending()
        .filter(registration__event=event)
        .values_list("registration_id", flat=True)
    )
    wilds = dict(Registration.objects.filter(event=event).values_list("pk", "wild_rank"))
    for player in [*plan.players, plan.marker]:
        rid = player.registration_id
        hand = sorted(kept.get(rid, []))
        found.hands_checked += 1
        slots = [index for index, _ in hand]
        if slots != list(range(len(hand))):
            found.problems.append(f"{player.label}: kept slots {slots} are not 0, 1, 2 ...")
        cards = [card for _, card in hand]
        told = answered.get(rid, [])
        if cards == told:
            found.hands_matching_answers += 1
        else:
            found.problems.append(f"{player.label}: holds {cards}, the answers said {told}")
        if len(hand) == full and wilds[rid] and rid not in pending:
            found.hands_complete += 1
        elif rid in finished or player is plan.marker:
            found.problems.append(
                f"{player.label}: finished with {len(hand)} cards, wild {wilds[rid]!r}, "
                f"{'an offer pending' if rid in pending else 'nothing pending'}"
            )


def _check_audit(event_id: int, found: Checks) -> None:
    event = Event.objects.get(pk=event_id)
    document: dict[str, Any] = audit_document(event)
    verdict = verify(document)
    found.audit_entries += len(document["entries"])
    if verdict.ok:
        found.audit_ok += 1
    else:
        found.problems.append(f"event {event_id}: audit does not verify: {verdict.problem}")
