"""Two organizers' worlds on one deployment, each built through the services as its staff would
build it: the staff of every role, held in the scope above events that the world's events belong
to (an organization, its series and its events at its venues; or, on the laptop's one
organization, a series); an event open for registration with its waitlist, one started and
mid-game, one finalized in a season; players, ledger lines, reviews, announcements,
invitations and display links. A world keeps the ids a route can name and the private text a
page of another world must never show.

Where a world's staff hold their roles is `house_above_events`: the one place that says what
scope a tenant is (`LEVELS`).
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.test import TestCase

from accounts.models import User
from events import services
from events.models import Event, Registration
from events.simulation import Simulation
from ledger import services as ledger
from organizations import services as organizations
from organizations.models import Organization
from seasons import services as seasons
from seasons.models import PlayerKey, Series
from staff.roles import Role
from staff.scopes import Scope
from tests.factories import make_user

ROLES = (Role.OWNER, Role.DIRECTOR, Role.CASHIER, Role.SCORER)
PHASES = ("open", "started", "finalized")
# Where a tenant's staff hold their roles: its own organization (its series, events and venues
# in it), or a series of the laptop's one organization.
LEVELS = ("organization", "series")
FIRST_NIGHT = datetime.date(2026, 9, 3)


@dataclass
class House:
    """A tenant's staff, one account per role, the scope above events they hold it in (their
    organization, or a series), the series its nights are in and the venues they are at."""

    scope: Organization | Series
    series: Series
    staff: dict[str, User]
    venue_ids: list[int] = field(default_factory=list)
    invitation_id: int = 0

    @property
    def owner(self) -> User:
        return self.staff[Role.OWNER]

    @property
    def director(self) -> User:
        return self.staff[Role.DIRECTOR]

    @property
    def organization_id(self) -> int:
        organization_id = self.series.organization_id
        assert organization_id is not None
        return organization_id


def house_above_events(name: str, level: str = "organization") -> House:
    """A tenant's own House. An organization: its owner signs up, adds two venues, appoints
    its staff and opens a series at its hall, with no site staff. A series (of the laptop's
    organization): made by the deployment's site staff, who appoint its staff, hand it to its
    owner and leave."""
    staff: dict[str, User] = {role: make_user(f"{name} {role}") for role in ROLES}
    if level == "organization":
        owner = staff[Role.OWNER]
        organization_id = organizations.organization_create(
            by=owner, name=f"{name} Cornhole"
        ).organization_id
        venue_ids = [
            organizations.venue_create(
                organization_id=organization_id, by=owner, name=f"{name} {place}"
            ).venue_id
            for place in ("Hall", "Annex")
        ]
        scope = Scope(Organization, organization_id)
        for each in ROLES[1:]:
            services.house_member_add(scope=scope, by=owner, member=staff[each], role=each)
        invited = services.staff_invite(
            scope=scope,
            by=owner,
            email=f"{name.lower()}-organization-invited@example.com",
            role=Role.CASHIER,
        )
        series_id = seasons.series_create(
            by=owner,
            name=f"{name} League",
            organization_id=organization_id,
            venue_id=venue_ids[0],
        ).series_id
        return House(
            scope=Organization.objects.get(pk=organization_id),
            series=Series.objects.get(pk=series_id),
            staff=staff,
            venue_ids=venue_ids,
            invitation_id=invited.invitation_id,
        )
    founder = make_user(f"{name} founder", staff=True)
    series_id = seasons.series_create(
        by=founder, name=f"{name} League", venue=f"{name} Hall"
    ).series_id
    scope = Scope(Series, series_id)
    for role, member in staff.items():
        appointed = Role.DIRECTOR if role == Role.OWNER else role
        services.house_member_add(scope=scope, by=founder, member=member, role=appointed)
    services.ownership_transfer(scope=scope, by=founder, member=staff[Role.OWNER])
    services.house_member_remove(scope=scope, by=founder, member=founder)
    series = Series.objects.get(pk=series_id)
    return House(scope=series, series=series, staff=staff)


@dataclass
class World:
    """One tenant: its House, its players, the ids its routes name (per phase of its events), and
    text only its own staff (or the player it belongs to) may read."""

    name: str
    house: House
    players: list[User] = field(default_factory=list)
    ids: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    private: set[str] = field(default_factory=set)

    @property
    def staff(self) -> list[User]:
        return list(self.house.staff.values())

    def event(self, phase: str) -> Event:
        return Event.objects.get(pk=self.ids[phase]["event_id"])


def build_world(name: str, level: str = "organization") -> World:
    """A whole tenant, built through the services (its staff's roles held at `level`)."""
    house = house_above_events(name, level)
    world = World(name=name, house=house)
    series_id = house.series.pk
    season_id = seasons.season_create(
        series_id=series_id,
        by=house.owner,
        name=f"{name} Autumn",
        starts_on=FIRST_NIGHT,
        ends_on=FIRST_NIGHT + datetime.timedelta(weeks=12),
    ).season_id
    common = {
        "series_id": series_id,
        "season_id": season_id,
        "user_id": house.director.pk,
        "organization_id": house.organization_id,
        "venue_id": house.venue_ids[0] if house.venue_ids else 0,
    }

    by_phase = {
        "finalized": _finalized_night(world),
        "open": _open_with_waitlist(world),
        "started": _started_mid_game(world),
    }
    world.ids = {phase: {**common, **ids} for phase, ids in by_phase.items()}

    invited = services.staff_invite(
        scope=Scope.of(world.event("open")),
        by=house.owner,
        email=f"{name.lower()}-invited@example.com",
        role=Role.SCORER,
    )
    series_invited = services.staff_invite(
        scope=Scope(Series, series_id),
        by=house.owner,
        email=f"{name.lower()}-series-invited@example.com",
        role=Role.CASHIER,
    )
    link = services.display_link_create(
        scope=Scope.of(world.event("started")), by=house.owner, label=f"{name} bar screen"
    )
    series_link = services.display_link_create(
        scope=Scope(Series, series_id), by=house.owner, label=f"{name} hall screen"
    )
    player = world.players[0]
    public_id = PlayerKey.objects.get(user=player).public_id
    for phase in PHASES:
        world.ids[phase] |= {
            "player_id": public_id,
            # An event's invitations and display links under events/, the series' under series/.
            "invitation_id": invited.invitation_id,
            "link_id": link.link_id,
            "series_invitation_id": series_invited.invitation_id,
            "series_link_id": series_link.link_id,
            # The organization's invitation under organizations/ (none at the series level).
            "organization_invitation_id": house.invitation_id or invited.invitation_id,
        }
    for phase in PHASES:
        world.ids[phase] |= {
            "email": house.director.email,
            "invitation_token": invited.token,
            "series_invitation_token": series_invited.token,
        }
    world.tokens = {
        "invitation": invited.token,
        "series_invitation": series_invited.token,
        "display": _token(link.path),
        "series_display": _token(series_link.path),
    }
    code = world.event("open").check_in_code
    assert code
    everyone = [*world.staff, *world.players]
    world.private = {
        *(user.email for user in everyone),
        f"{name.lower()}-invited@example.com",
        f"{name.lower()}-series-invited@example.com",
        f"{name.lower()}-organization-invited@example.com",
        invited.token,
        series_invited.token,
        *world.tokens.values(),
        code,
        f"{name} comp for the band",
        f"{name} card terminal 7",
    }
    return world


def _token(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[1]


def _player(world: World, label: str) -> User:
    player = make_user(f"{world.name} {label}")
    world.players.append(player)
    return player


def _finalized_night(world: World) -> dict[str, Any]:
    """A night played to its end in the world's series and season, at its hall (the standings
    moved after the commit, as in production), run by the world's owner."""
    players = [_player(world, f"regular {n}") for n in range(1, 5)]
    house = world.house
    with TestCase.captureOnCommitCallbacks(execute=True):
        event_id = int(
            Simulation(
                format="league",
                players=len(players),
                seed=7,
                house=house.owner,
                users=players,
                date=FIRST_NIGHT,
                scope_above_id=house.series.pk,
                venue_id=house.venue_ids[0] if house.venue_ids else None,
            ).run()["event_id"]
        )
    registration = Registration.objects.filter(event_id=event_id).order_by("pk").first()
    assert registration is not None
    return {"event_id": event_id, "registration_id": registration.pk, "review_id": 0}


def _event(world: World, name: str, *, capacity: int | None = None) -> int:
    house = world.house
    return int(
        services.event_create(
            by=house.director,
            name=f"{world.name} {name}",
            date=FIRST_NIGHT + datetime.timedelta(weeks=1),
            format="league",
            contribution=10,
            remainder_policy="Unallocated dollars roll into the next event.",
            capacity=capacity,
            scope_above_id=house.series.pk,
            # The second night at the world's annex, when it has venues.
            venue_id=house.venue_ids[-1] if house.venue_ids else None,
        ).event_id
    )


def _open_with_waitlist(world: World) -> dict[str, Any]:
    """Registration open, full, one player waiting; self check-in on; paid at the door."""
    director, cashier = world.house.director, world.house.staff[Role.CASHIER]
    event_id = _event(world, "Friday", capacity=2)
    services.registration_open(event_id=event_id, by=director)
    placed = [_player(world, f"early {n}") for n in (1, 2)]
    registrations = [
        int(services.player_register(event_id=event_id, by=p).registration_id) for p in placed
    ]
    waiting = _player(world, "waiting")
    waitlisted = int(services.player_register(event_id=event_id, by=waiting).registration_id)
    services.self_check_in_switch(event_id=event_id, by=director, enabled=True)
    ledger.entry_payment(
        event_id=event_id,
        registration_id=registrations[0],
        by=cashier,
        method="card",
        reference=f"{world.name} card terminal 7",
    )
    services.announcement_send(event_id=event_id, by=director, text="Doors at seven")
    return {"event_id": event_id, "registration_id": waitlisted, "review_id": 0}


def _started_mid_game(world: World) -> dict[str, Any]:
    """Started, a win choice waiting, a review open, a comp and an entry paid."""
    director, cashier = world.house.director, world.house.staff[Role.CASHIER]
    event_id = _event(world, "Saturday")
    services.registration_open(event_id=event_id, by=director)
    ann, bob, cy = (_player(world, name) for name in ("Ann", "Bob", "Cy"))
    rid = {}
    for player in (ann, bob, cy):
        rid[player] = int(services.player_register(event_id=event_id, by=player).registration_id)
        services.player_check_in(registration_id=rid[player], by=cashier)
    services.event_start(event_id=event_id, by=director)
    rules = Event.objects.get(pk=event_id).rules
    services.starting_selection_confirm(
        registration_id=rid[ann], by=ann, slots=list(range(rules.starting))
    )
    services.result_submit(registration_id=rid[ann], by=ann, game=1, outcome="win")
    review = services.review_open(registration_id=rid[cy], by=director, reason="Bag count")
    ledger.entry_payment(
        event_id=event_id,
        registration_id=rid[bob],
        by=cashier,
        method="comp",
        reason=f"{world.name} comp for the band",
    )
    ledger.entry_payment(event_id=event_id, registration_id=rid[cy], by=cashier, method="cash")
    services.announcement_send(event_id=event_id, by=director, text="Round two now")
    return {"event_id": event_id, "registration_id": rid[ann], "review_id": review.review_id}


# Rows a request may write without changing anything of a world: the sessions of the clients
# signed in for the sweep (Django saves a session that a request touched).
NOT_FINGERPRINTED = frozenset({"django_session"})
# A refusal is stored under the caller's Idempotency-Key, so that a retry is answered alike
# (docs/decisions.md, "Events and House"): the caller's own row, naming nothing of the world
# beyond the id the caller sent. Only a refusal: a stored answer is a change made.
CALLERS_REFUSALS = "events_idempotencyrecord"


@functools.cache
def _fingerprint_parts() -> dict[str, str]:
    """Each fingerprinted table's statement: its name, row count, largest id and rows' hash."""
    tables = sorted(set(connection.introspection.table_names()) - NOT_FINGERPRINTED)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND column_name = 'id'"
        )
        with_id = {name for (name,) in cursor.fetchall()}
    top = {table: "max(r.id)::bigint" if table in with_id else "NULL::bigint" for table in tables}
    return {
        table: f"SELECT '{table}', count(*), {top[table]},"
        f" md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) FROM \"{table}\" r"
        + (
            " WHERE NOT (r.user_id = ANY(%(callers)s) AND r.answer IS NULL)"
            if table == CALLERS_REFUSALS
            else ""
        )
        for table in tables
    }


Fingerprint = dict[str, tuple[int, int | None, str]]


def fingerprint(
    callers: list[int] | tuple[int, ...] = (), tables: Collection[str] | None = None
) -> Fingerprint:
    """Every table of the database (but `NOT_FINGERPRINTED`, and the refusals stored for
    `callers`), or those of `tables` among them: its row count, its largest id and a hash of all
    its rows, in one statement."""
    parts = _fingerprint_parts()
    chosen = sorted(parts if tables is None else set(tables) & parts.keys())
    if not chosen:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            " UNION ALL ".join(parts[table] for table in chosen), {"callers": list(callers)}
        )
        return {table: (count, top, digest) for table, count, top, digest in cursor.fetchall()}


def changed_tables(before: Fingerprint, after: Fingerprint) -> list[str]:
    """The tables whose fingerprint differs."""
    return sorted(t for t in before.keys() | after.keys() if before.get(t) != after.get(t))


Writes = dict[str, int]


@functools.cache
def _writes_counted() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('track_counts')::boolean")
        return bool(cursor.fetchone()[0])


def writes() -> Writes:
    """The rows this transaction has inserted, updated or deleted so far, by table (those with
    any), as PostgreSQL counts them: its savepoints' writes included, those of a savepoint
    rolled back too (they were attempted), so a count never goes down within the transaction;
    a row updated to the values it had counts as well. The counts `pg_stat_xact_user_tables`
    shows (n_tup_ins + n_tup_upd + n_tup_del), read from the functions it reads them from:
    the view also sums its tables' index scans, which takes several times as long."""
    assert _writes_counted(), "PostgreSQL counts no writes (track_counts is off)"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, n FROM ("
            " SELECT c.relname, pg_stat_get_xact_tuples_inserted(c.oid)"
            " + pg_stat_get_xact_tuples_updated(c.oid) + pg_stat_get_xact_tuples_deleted(c.oid)"
            " AS n FROM pg_class c"
            " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')"
            ") AS counted WHERE n > 0"
        )
        return dict(cursor.fetchall())


def written_since(written: Writes) -> set[str]:
    """The fingerprinted tables PostgreSQL counted a write to since `written` (`writes()`, in
    the same transaction)."""
    return {t for t, n in writes().items() if n != written.get(t, 0)} - NOT_FINGERPRINTED


def changed_since(
    before: Fingerprint, written: Writes, callers: list[int] | tuple[int, ...] = ()
) -> list[str]:
    """The tables whose fingerprint differs from `before` (a whole `fingerprint`), read again
    only for the tables written to since `written` (`written_since`): a table none of whose
    rows was inserted, updated or deleted since is as it was. A table written to that the
    fingerprint does not know is reported too."""
    moved = written_since(written)
    after = fingerprint(callers, moved)
    unknown = moved - _fingerprint_parts().keys()
    return sorted({*changed_tables({t: before[t] for t in after if t in before}, after), *unknown})
