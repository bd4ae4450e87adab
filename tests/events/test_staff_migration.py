"""Existing House members keep what they could do (events migration 0009, seasons migration
0002, docs/decisions.md "Roles"): the event's creator, or else its first member, becomes owner,
every other member a director; a series' first member its owner; an event of a series is left
owned by the series' owner (seasons migration 0006, "An event's owner in a series"). Then the
staff of events and series, their invitations and their display links move to the staff layer
(events migration 0012, seasons migration 0008) with nothing lost.

Each test takes the database back to before the staff layer with the migration executor, as a
database migrated then stood, inside the test's transaction: its rollback puts it back as
migrated."""

from __future__ import annotations

import datetime
import importlib
from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from events import services
from seasons import services as seasons
from seasons.models import Series
from staff.models import DisplayLink, Invitation, Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

events_0009 = importlib.import_module("events.migrations.0009_event_staff_roles")
seasons_0002 = importlib.import_module("seasons.migrations.0002_series_staff_roles")
seasons_0006 = importlib.import_module("seasons.migrations.0006_series_events_owned_by_the_series")

BEFORE_THE_STAFF_LAYER = [
    ("events", "0011_display_link"),
    ("seasons", "0006_series_events_owned_by_the_series"),
]
EVENTS_MOVED_FIRST = [
    ("events", "0012_staff_moves_to_the_staff_layer"),
    ("seasons", "0006_series_events_owned_by_the_series"),
]


def model(state: Apps, label: str) -> Any:
    """A model as it stood in a migration state (e.g. "events.EventStaff")."""
    return state.get_model(label)


def migrate(targets: list[tuple[str, str]]) -> Apps:
    """The database migrated to `targets` (back or forward), and its models there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def migrate_to_the_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def before_the_staff_layer() -> Apps:
    """The database as it stood before the staff layer: staff in each app's own tables, the
    display links in `events_displaylink` with the `series` column it had (seasons 0008 drops
    the table, and taking it back does not make it again), nothing in the staff layer's."""
    with connection.cursor() as cursor:
        # Rows written by the test are checked now, so the tables may change under them.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    old = migrate(BEFORE_THE_STAFF_LAYER)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM staff_membership")
        cursor.execute("DELETE FROM staff_invitation")
        cursor.execute("DELETE FROM staff_displaylink")
    if "events_displaylink" not in connection.introspection.table_names():
        with connection.schema_editor() as editor:
            editor.create_model(model(old, "events.DisplayLink"))
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE events_displaylink ADD COLUMN series_id bigint NULL"
            " REFERENCES seasons_series (id)"
        )
    return old


def test_the_creator_becomes_owner_and_every_other_member_a_director() -> None:
    table = make_table()
    event = table.event
    first = make_user("First")
    services.house_member_add(scope=Scope.of(event), by=make_user("Site", staff=True), member=first)
    another = make_table()
    old = before_the_staff_layer()
    staff = model(old, "events.EventStaff")
    # As the members stood before roles: the creator appointed after another member's row.
    staff.objects.create(event_id=event.pk, user_id=first.pk, role="director")
    staff.objects.create(event_id=event.pk, user_id=table.house.pk, role="director")
    staff.objects.create(event_id=another.event.pk, user_id=another.house.pk, role="director")

    events_0009.owners_first(old, None)

    roles = dict(staff.objects.filter(event_id=event.pk).values_list("user", "role"))
    assert roles == {table.house.pk: "owner", first.pk: "director"}
    assert staff.objects.get(event_id=another.event.pk).role == "owner"


def test_a_series_first_member_becomes_its_owner() -> None:
    site = make_user("Site", staff=True)
    other = make_user("Other")
    series_id = seasons.series_create(by=site, name="Thursday League").series_id
    old = before_the_staff_layer()
    staff = model(old, "seasons.SeriesStaff")
    staff.objects.create(series_id=series_id, user_id=site.pk, role="director")
    staff.objects.create(series_id=series_id, user_id=other.pk, role="director")

    seasons_0002.owners_first(old, None)

    assert dict(staff.objects.filter(series_id=series_id).values_list("user", "role")) == {
        site.pk: "owner",
        other.pk: "director",
    }


def _events_of_a_series() -> dict[str, Any]:
    """A series owned by `site`; an event of it owned by its creator, one owned by `site`, and
    one in no series."""
    site = make_user("Site", staff=True)
    series_id = seasons.series_create(by=site, name="Thursday League").series_id
    own_owner = make_table()  # owned by its creator, who is not the series' owner
    by_series_owner = make_table()
    outside = make_table()  # in no series: keeps its owner
    return {
        "site": site,
        "series": series_id,
        "own_owner": own_owner,
        "by_series_owner": by_series_owner,
        "outside": outside,
    }


def _in_the_series_as_before(scene: dict[str, Any]) -> None:
    """Put two of the events in the series as a database migrated before the seasons layer kept
    the link kept it: in a `series_id` column of the events' table (seasons 0009 moves it)."""
    ids = [scene["own_owner"].event.pk, scene["by_series_owner"].event.pk]
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE events_event ADD COLUMN IF NOT EXISTS series_id bigint NULL")
        cursor.execute(
            "UPDATE events_event SET series_id = %s WHERE id = ANY(%s)", [scene["series"], ids]
        )


def test_an_event_of_a_series_is_left_owned_by_the_series_owner() -> None:
    scene = _events_of_a_series()
    old = before_the_staff_layer()
    _in_the_series_as_before(scene)
    event_staff = model(old, "events.EventStaff")
    model(old, "seasons.SeriesStaff").objects.create(
        series_id=scene["series"], user_id=scene["site"].pk, role="owner"
    )
    # As the rows stood before: an owner row of the event's own, the series' owner's in one.
    for table, owner in (
        (scene["own_owner"], scene["own_owner"].house),
        (scene["by_series_owner"], scene["site"]),
        (scene["outside"], scene["outside"].house),
    ):
        event_staff.objects.create(event_id=table.event.pk, user_id=owner.pk, role="owner")

    with connection.schema_editor() as editor:
        seasons_0006.owned_by_the_series(old, editor)

    def roles(table: Any) -> dict[int, str]:
        return dict(event_staff.objects.filter(event_id=table.event.pk).values_list("user", "role"))

    assert roles(scene["own_owner"]) == {scene["own_owner"].house.pk: "director"}
    assert roles(scene["by_series_owner"]) == {}
    assert roles(scene["outside"]) == {scene["outside"].house.pk: "owner"}


def test_an_event_of_a_series_is_left_owned_by_the_series_owner_once_its_staff_moved() -> None:
    # The events' migrations may run before the series': the event's staff are then already in
    # the staff layer's table when seasons 0006 runs.
    scene = _events_of_a_series()
    old = before_the_staff_layer()
    _in_the_series_as_before(scene)
    model(old, "seasons.SeriesStaff").objects.create(
        series_id=scene["series"], user_id=scene["site"].pk, role="owner"
    )
    event_staff = model(old, "events.EventStaff")
    for table, owner in (
        (scene["own_owner"], scene["own_owner"].house),
        (scene["by_series_owner"], scene["site"]),
        (scene["outside"], scene["outside"].house),
    ):
        event_staff.objects.create(event_id=table.event.pk, user_id=owner.pk, role="owner")
    moved = migrate(EVENTS_MOVED_FIRST)

    with connection.schema_editor() as editor:
        seasons_0006.owned_by_the_series(moved, editor)

    def roles(table: Any) -> dict[int, str]:
        return dict(Membership.objects.of(table.event).values_list("user", "role"))

    assert roles(scene["own_owner"]) == {scene["own_owner"].house.pk: "director"}
    assert roles(scene["by_series_owner"]) == {}
    assert roles(scene["outside"]) == {scene["outside"].house.pk: "owner"}


def test_the_staff_their_invitations_and_display_links_move_to_the_staff_layer() -> None:
    table = make_table()
    event = table.event
    cashier, site, scorer, casey = (make_user(n) for n in ("Cashier", "Site", "Scorer", "Casey"))
    series_id = seasons.series_create(
        by=make_user("Founder", staff=True), name="Thursday League"
    ).series_id
    old = before_the_staff_layer()
    model(old, "events.EventStaff").objects.bulk_create(
        [
            model(old, "events.EventStaff")(event_id=event.pk, user_id=u.pk, role=role)
            for u, role in ((table.house, "owner"), (cashier, "cashier"))
        ]
    )
    series_staff = model(old, "seasons.SeriesStaff")
    series_staff.objects.create(series_id=series_id, user_id=site.pk, role="owner")
    series_staff.objects.create(series_id=series_id, user_id=scorer.pk, role="scorer")
    sent = datetime.datetime(2026, 12, 1, 18, 0, tzinfo=datetime.UTC)
    model(old, "events.StaffInvitation").objects.create(
        id=4242,
        event_id=event.pk,
        email="casey@example.com",
        role="director",
        token="event-invitation",
        invited_by_id=table.house.pk,
        accepted_at=sent,
    )
    model(old, "seasons.SeriesStaffInvitation").objects.create(
        series_id=series_id,
        email="dee@example.com",
        role="cashier",
        token="series-invitation",
        invited_by_id=site.pk,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO events_displaylink (id, event_id, series_id, label, token_hash,"
            " created_by_id, created_at, revoked_at, revoked_by_id, last_seen_at) VALUES"
            " (5151, %s, NULL, 'Bar', 'event-hash', %s, %s, NULL, NULL, %s),"
            " (5152, NULL, %s, 'Door', 'series-hash', %s, %s, %s, %s, NULL)",
            [event.pk, table.house.pk, sent, sent, series_id, site.pk, sent, sent, site.pk],
        )

    migrate_to_the_latest()

    series = Series.objects.get(pk=series_id)
    staff_of = {
        scope: dict(Membership.objects.of(scope).values_list("user", "role"))
        for scope in (event, series)
    }
    assert staff_of == {
        event: {table.house.pk: "owner", cashier.pk: "cashier"},
        series: {site.pk: "owner", scorer.pk: "scorer"},
    }
    invitation = Invitation.objects.get(pk=4242)  # its id kept: the audit names it
    assert invitation.scope == event
    assert (invitation.email, invitation.role, invitation.token) == (
        "casey@example.com",
        "director",
        "event-invitation",
    )
    assert (invitation.invited_by, invitation.accepted_at) == (table.house, sent)
    (to_series,) = Invitation.objects.of(series)
    assert (to_series.email, to_series.role, to_series.token, to_series.invited_by) == (
        "dee@example.com",
        "cashier",
        "series-invitation",
        site,
    )
    assert to_series.accepted_at is None
    bar, door = DisplayLink.objects.get(pk=5151), DisplayLink.objects.get(pk=5152)
    assert (bar.scope, bar.label, bar.token_hash, bar.created_by) == (
        event,
        "Bar",
        "event-hash",
        table.house,
    )
    assert (bar.revoked_at, bar.last_seen_at) == (None, sent)
    assert (door.scope, door.label, door.token_hash, door.revoked_by) == (
        series,
        "Door",
        "series-hash",
        site,
    )
    assert door.revoked_at == sent
    assert "events_displaylink" not in connection.introspection.table_names()
    # What is made next takes an id after the kept ones.
    made = services.display_link_create(scope=Scope.of(event), by=table.house, label="Stage")
    invited = services.staff_invite(
        scope=Scope.of(event), by=table.house, email=casey.email, role="scorer"
    )
    assert made.link_id > 5152 and invited.invitation_id > 4242
