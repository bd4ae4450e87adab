"""Display links (events/display.py, docs/decisions.md "Display links"): made and revoked by the
owner or a director, audited with the role and never with the token; refused to a cashier, a
scorer, a player and an outsider with nothing changed; a series' links by the series' House."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.models import AuditEntry
from events import display, services
from events.errors import Invalid, NotAllowed, NotFound
from events.models import Event
from seasons import services as seasons
from seasons.models import Series
from staff.models import DisplayLink, Membership, scope_type
from staff.scopes import Scope
from tests.events.test_roles import _scene
from tests.factories import make_table, make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db


def _token(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[1]


def test_it_makes_a_link_kept_only_as_the_hash_of_its_token() -> None:
    table = make_table(players=1)
    made = services.display_link_create(
        scope=Scope.of(table.event), by=table.house, label="  Projector by the bar "
    )
    token = _token(made.path)
    assert made.path == f"/display/{token}/" and len(token) >= 43
    link = DisplayLink.objects.get(pk=made.link_id)
    assert link.label == made.label == "Projector by the bar"
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert (link.scope_type, link.scope_id) == (scope_type(Event), table.event.pk)
    assert link.created_by == table.house and link.revoked_at is None
    assert display.find(token) == link
    entry = AuditEntry.objects.filter(event=table.event).order_by("-seq")[0]
    assert entry.action == "display_link_created" and entry.actor_role == "owner"
    assert entry.details == {"link": link.pk, "label": "Projector by the bar"}
    assert token not in str(AuditEntry.objects.filter(event=table.event).values())


def test_a_retry_with_the_same_key_gets_the_same_link() -> None:
    table = make_table()
    first = services.display_link_create(
        scope=Scope.of(table.event), by=table.house, label="Bar", idempotency_key="k1"
    )
    again = services.display_link_create(
        scope=Scope.of(table.event), by=table.house, label="Bar", idempotency_key="k1"
    )
    assert again == first
    assert DisplayLink.objects.filter(event=table.event).count() == 1


def test_it_revokes_a_link_once_and_tells_its_audit() -> None:
    table = make_table()
    made = services.display_link_create(scope=Scope.of(table.event), by=table.house, label="Bar")
    services.display_link_revoke(scope=Scope.of(table.event), by=table.house, link_id=made.link_id)
    link = DisplayLink.objects.get(pk=made.link_id)
    assert link.revoked_at is not None and link.revoked_by == table.house
    entry = AuditEntry.objects.filter(event=table.event).order_by("-seq")[0]
    assert entry.action == "display_link_revoked" and entry.actor_role == "owner"
    assert entry.details == {"link": link.pk, "label": "Bar"}
    # Again: nothing changes, nothing more is written.
    count = AuditEntry.objects.filter(event=table.event).count()
    services.display_link_revoke(scope=Scope.of(table.event), by=table.house, link_id=made.link_id)
    assert DisplayLink.objects.get(pk=made.link_id).revoked_at == link.revoked_at
    assert AuditEntry.objects.filter(event=table.event).count() == count


@pytest.mark.parametrize("role", ["cashier", "scorer"])
def test_a_cashier_and_a_scorer_are_told_their_role_and_nothing_changes(role: str) -> None:
    scene = _scene()
    event, by = scene.table.event, scene.people[role]
    error = refused(
        NotAllowed,
        event,
        lambda: services.display_link_create(scope=Scope.of(event), by=by, label="Mine"),
    )
    assert error.message == (
        f"Your role in this event ({role}) does not include that (display link create)."
    )
    refused(
        NotAllowed,
        event,
        lambda: services.display_link_revoke(scope=Scope.of(event), by=by, link_id=scene.link_id),
    )
    assert DisplayLink.objects.get(pk=scene.link_id).revoked_at is None


@pytest.mark.parametrize("who", ["player", "outsider"])
def test_a_player_and_an_outsider_are_refused_and_nothing_changes(who: str) -> None:
    scene = _scene()
    event, by = scene.table.event, scene.people[who]
    # Its player knows the event and is told House's words; an outsider, that it is not there.
    expected, words = (
        (NotAllowed, "Only House can do that for this event.")
        if who == "player"
        else (NotFound, "No such event.")
    )
    error = refused(
        expected,
        event,
        lambda: services.display_link_create(scope=Scope.of(event), by=by, label="Mine"),
    )
    assert error.message == words
    refused(
        expected,
        event,
        lambda: services.display_link_revoke(scope=Scope.of(event), by=by, link_id=scene.link_id),
    )


def test_a_director_makes_and_revokes_and_the_audit_names_the_role() -> None:
    scene = _scene()
    event, by = scene.table.event, scene.people["director"]
    made = services.display_link_create(scope=Scope.of(event), by=by, label="Door screen")
    services.display_link_revoke(scope=Scope.of(event), by=by, link_id=made.link_id)
    entries = AuditEntry.objects.filter(event=event).order_by("-seq")[:2]
    assert [(e.action, e.actor_role) for e in entries] == [
        ("display_link_revoked", "director"),
        ("display_link_created", "director"),
    ]


@pytest.mark.parametrize("label", ["", "   ", "x" * 81, "line\nbreak", "bell\x07"])
def test_a_label_that_is_empty_too_long_or_not_plain_is_refused(label: str) -> None:
    table = make_table()
    refused(
        Invalid,
        table.event,
        lambda: services.display_link_create(
            scope=Scope.of(table.event), by=table.house, label=label
        ),
    )
    assert not DisplayLink.objects.exists()


@pytest.mark.parametrize("link_id", [0, -1, 2**63, 987_654_321])
def test_revoking_a_link_that_is_not_the_events_is_refused(link_id: int) -> None:
    table, other = make_table(), make_table()
    theirs = services.display_link_create(scope=Scope.of(other.event), by=other.house, label="Bar")
    refused(
        NotFound,
        table.event,
        lambda: services.display_link_revoke(
            scope=Scope.of(table.event), by=table.house, link_id=link_id
        ),
    )
    # Another event's link, named through this event: not found, and it stays.
    refused(
        NotFound,
        table.event,
        lambda: services.display_link_revoke(
            scope=Scope.of(table.event), by=table.house, link_id=theirs.link_id
        ),
    )
    assert DisplayLink.objects.get(pk=theirs.link_id).revoked_at is None


def test_a_link_names_an_event_or_a_series_never_both_nor_neither() -> None:
    # One scope (its kind and its id) per link: it cannot name both, and the database refuses
    # a link that names neither.
    table = make_table()
    scopes: list[dict[str, Any]] = [
        {"scope_id": table.event.pk},
        {"scope_type": scope_type(Series)},
        {},
    ]
    for n, scope in enumerate(scopes):
        with pytest.raises(IntegrityError), transaction.atomic():
            DisplayLink.objects.create(label="Bar", token_hash=f"link {n}", **scope)
    assert not DisplayLink.objects.exists()


def test_a_series_link_is_made_and_revoked_by_the_series_owner_or_director() -> None:
    table = make_table()
    owner = table.house
    series = seasons.series_create(by=owner, name="Thursday League").series_id
    director, cashier = make_user("Director"), make_user("Cashier")
    Membership.objects.create(
        scope_type=scope_type(Series), scope_id=series, user=director, role="director"
    )
    Membership.objects.create(
        scope_type=scope_type(Series), scope_id=series, user=cashier, role="cashier"
    )
    made = services.display_link_create(scope=Scope(Series, series), by=director, label="Bar TV")
    link = DisplayLink.objects.get(pk=made.link_id)
    assert (link.scope_type, link.scope_id) == (scope_type(Series), series)
    assert display.find(_token(made.path)) == link
    with pytest.raises(NotAllowed, match=r"\(cashier\) does not include that"):
        services.display_link_create(scope=Scope(Series, series), by=cashier, label="Mine")
    with pytest.raises(NotAllowed, match=r"\(cashier\) does not include that"):
        services.display_link_revoke(scope=Scope(Series, series), by=cashier, link_id=link.pk)
    with pytest.raises(NotFound, match=r"^No such series\.$"):
        services.display_link_revoke(
            scope=Scope(Series, series), by=make_user("Outsider"), link_id=link.pk
        )
    assert DisplayLink.objects.filter(series=series).count() == 1
    assert DisplayLink.objects.get(pk=link.pk).revoked_at is None
    services.display_link_revoke(scope=Scope(Series, series), by=owner, link_id=link.pk)
    assert DisplayLink.objects.get(pk=link.pk).revoked_by == owner


def test_a_series_link_shows_the_series_current_event() -> None:
    """In play, else today's, else the next one open for registration, else the last final."""
    today = timezone.now().date()  # the series' time zone is UTC
    first, later = make_table(), make_table()
    house = first.house
    series = seasons.series_create(by=house, name="Thursday League").series_id
    made = services.display_link_create(scope=Scope(Series, series), by=house, label="Bar TV")
    link = DisplayLink.objects.get(pk=made.link_id)
    assert display.shown_event(link) is None  # no event in the series yet
    Membership.objects.create(
        scope_type=scope_type(Series), scope_id=series, user=later.house, role="director"
    )
    for table, days in ((first, 1), (later, 8)):
        seasons.event_series_set(event_id=table.event.pk, series_id=series, by=table.house)
        Event.objects.filter(pk=table.event.pk).update(date=today + datetime.timedelta(days))
    assert display.shown_event(link) == first.event  # the next one open for registration
    Event.objects.filter(pk=later.event.pk).update(date=today, registration_open=False)
    assert display.shown_event(link) == later.event  # tonight's
    first.join("Ann"), first.join("Bob")
    first.start()
    assert display.shown_event(link) == first.event  # in play
    Event.objects.filter(pk=first.event.pk).update(phase="finalized")
    assert display.shown_event(link) == later.event  # tonight's again
    Event.objects.filter(pk=later.event.pk).update(date=today - datetime.timedelta(1))
    assert display.shown_event(link) == first.event  # none ahead: the latest finalized
