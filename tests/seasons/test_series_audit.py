"""A series' own audit (docs/audit.md, "A series' audit"): every change of a series runs through the
engine's runner and writes its entry, naming the role its actor acted in; a refused change writes
nothing; a retry with the same Idempotency-Key replays the first answer (a refusal too), and the
same key with other content is refused; changes made at the same moment by real threads keep the
chain unbroken; the export carries a signed head and `verify_audit` checks it, refusing a tampered
file; the database refuses to change an entry."""

from __future__ import annotations

import datetime
import json
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.urls import reverse

from audit.anchor import public_key_document
from audit.signing import signing_key
from audit.verify import verify
from events import services as staff_changes
from events.errors import DomainError, IdempotencyConflict, NotAllowed, NotFound
from events.models import Event
from seasons import services
from seasons.answers import SeriesDefaultsSaved
from seasons.audit import series_audit_document
from seasons.models import Series, SeriesAuditEntry
from staff.scopes import Scope
from tests.audit.test_database_roles import app_role, connect
from tests.events.test_concurrency import at_once
from tests.factories import make_table, make_user
from tests.seasons.test_series_staff import make_crew

pytestmark = pytest.mark.django_db


def chain(series_id: int) -> list[tuple[str, str | None]]:
    """The series' audit as (action, acting role), in order."""
    return list(
        SeriesAuditEntry.objects.filter(series_id=series_id)
        .order_by("seq")
        .values_list("action", "actor_role")
    )


def added(series_id: int, before: int) -> list[tuple[str, str | None]]:
    return chain(series_id)[before:]


def test_making_a_crew_writes_the_series_audit_with_each_role() -> None:
    crew = make_crew()
    assert chain(crew.series_id) == [
        ("series_created", "site"),
        ("house_member_added", "site"),
        ("event_put_in_series", "owner"),
        ("season_created", "owner"),
        ("house_member_added", "owner"),
        ("house_member_added", "owner"),
        ("house_member_added", "owner"),
        ("house_member_added", "owner"),
        ("house_member_added", "owner"),
        ("ownership_transferred", "owner"),
        ("house_member_removed", "director"),  # the founder left, as director by then
        ("display_link_created", "owner"),
    ]
    first = SeriesAuditEntry.objects.get(series_id=crew.series_id, seq=1)
    assert first.actor_kind == "house"
    assert first.details == {"name": "Thursday League", "venue": "", "time_zone": "UTC"}
    assert Series.objects.get(pk=crew.series_id).audit_seq == 12


def test_every_series_change_writes_its_entry_naming_the_acting_role() -> None:
    crew = make_crew()
    s, owner, director = crew.series_id, crew.people["owner"], crew.people["director"]
    steps: list[tuple[Any, list[tuple[str, str | None]]]] = [
        (
            lambda: staff_changes.house_member_add(
                scope=Scope(Series, s), by=owner, member=crew.newcomer, role="scorer"
            ),
            [("house_member_added", "owner")],
        ),
        (
            lambda: staff_changes.house_member_add(
                scope=Scope(Series, s), by=owner, member=crew.newcomer, role="cashier"
            ),
            [("staff_role_set", "owner")],
        ),
        (
            lambda: services.series_defaults_set(
                series_id=s, by=director, entry_mode="sponsored", minimum_age=21
            ),
            [("series_defaults_set", "director")],
        ),
        (
            lambda: services.series_next_event(series_id=s, by=director),
            [("next_event_created", "director")],
        ),
        (
            lambda: services.season_create(
                series_id=s,
                by=director,
                name="Spring",
                starts_on=datetime.date(2027, 1, 1),
                ends_on=datetime.date(2027, 3, 31),
            ),
            [("season_created", "director")],
        ),
        (
            lambda: services.season_update(season_id=crew.season_id, by=owner, name="Autumn 26"),
            [("season_updated", "owner")],
        ),
        (
            lambda: services.championship_create(
                season_id=crew.season_id, by=owner, date=datetime.date(2026, 12, 10)
            ),
            [("championship_created", "owner")],
        ),
        (
            lambda: staff_changes.display_link_create(
                scope=Scope(Series, s), by=director, label="Door"
            ),
            [("display_link_created", "director")],
        ),
        (
            lambda: staff_changes.display_link_revoke(
                scope=Scope(Series, s), by=director, link_id=crew.link_id
            ),
            [("display_link_revoked", "director")],
        ),
        (
            lambda: staff_changes.ownership_transfer(
                scope=Scope(Series, s), by=owner, member=crew.spare
            ),
            [("ownership_transferred", "owner")],
        ),
        (
            lambda: staff_changes.house_member_remove(
                scope=Scope(Series, s), by=crew.spare, member=owner
            ),
            [("house_member_removed", "owner")],
        ),
        (
            lambda: staff_changes.house_member_remove(
                scope=Scope(Series, s), by=director, member=director
            ),
            [("house_member_removed", "director")],  # leaving, in their own role
        ),
        (
            lambda: services.event_series_set(
                event_id=crew.event_id, series_id=None, by=crew.spare
            ),
            [("event_taken_out_of_series", "owner")],
        ),
    ]
    for call, expected in steps:
        before = len(chain(s))
        call()
        assert added(s, before) == expected, expected

    entries = SeriesAuditEntry.objects.filter(series_id=s)
    update = entries.get(action="season_updated")
    assert update.details == {"season": crew.season_id, "changes": {"name": "Autumn 26"}}
    defaults = entries.get(action="series_defaults_set")
    assert defaults.details == {"changes": {"entry_mode": "sponsored", "minimum_age": 21}}
    assert entries.get(action="ownership_transferred", seq__gt=12).details == {"member": "Spare"}


def test_an_invitation_is_recorded_without_its_address() -> None:
    crew = make_crew()
    s, owner = crew.series_id, crew.people["owner"]
    newcomer = crew.newcomer
    before = len(chain(s))
    first = staff_changes.staff_invite(
        scope=Scope(Series, s), by=owner, email=newcomer.email, role="scorer"
    )
    staff_changes.staff_invitation_cancel(
        scope=Scope(Series, s), by=owner, invitation_id=first.invitation_id
    )
    second = staff_changes.staff_invite(scope=Scope(Series, s), by=owner, email=newcomer.email)
    staff_changes.staff_invitation_accept(scope=Scope(Series, s), by=newcomer, token=second.token)
    assert added(s, before) == [
        ("staff_invited", "owner"),
        ("staff_invitation_cancelled", "owner"),
        ("staff_invited", "owner"),
        ("house_member_added", "director"),  # they joined in the role the invitation gave
    ]
    text = json.dumps(series_audit_document(Series.objects.get(pk=s)))
    assert newcomer.email not in text
    assert second.token not in text


def test_a_refused_change_writes_nothing() -> None:
    crew = make_crew()
    s = crew.series_id
    before = chain(s)
    head = Series.objects.values_list("audit_seq", "audit_hash").get(pk=s)
    for role in ("cashier", "scorer", "player", "outsider"):
        with pytest.raises(NotFound if role == "outsider" else NotAllowed):
            services.series_defaults_set(series_id=s, by=crew.people[role], minimum_age=18)
    with pytest.raises(NotAllowed, match=r"^Your role in this series \(director\) does not"):
        staff_changes.house_member_add(
            scope=Scope(Series, s), by=crew.people["director"], member=crew.newcomer
        )
    with pytest.raises(NotAllowed, match=r"^Only House of this series can do that\.$"):
        staff_changes.house_member_add(
            scope=Scope(Series, s), by=crew.people["player"], member=crew.newcomer
        )
    with pytest.raises(NotFound, match=r"^No such series\.$"):
        staff_changes.house_member_add(
            scope=Scope(Series, s), by=crew.people["outsider"], member=crew.newcomer
        )
    with pytest.raises(NotAllowed, match=r"^Only House of this season's series can do that\.$"):
        services.season_update(season_id=crew.season_id, by=crew.people["player"], name="X")
    with pytest.raises(DomainError):
        services.season_update(
            season_id=crew.season_id,
            by=crew.people["owner"],
            starts_on=datetime.date(2026, 12, 1),
            ends_on=datetime.date(2026, 11, 1),
        )
    assert chain(s) == before
    assert Series.objects.values_list("audit_seq", "audit_hash").get(pk=s) == head


def test_a_retry_with_the_same_key_replays_and_other_content_is_refused() -> None:
    crew = make_crew()
    s, owner = crew.series_id, crew.people["owner"]
    before = len(chain(s))
    first = staff_changes.house_member_add(
        scope=Scope(Series, s), by=owner, member=crew.newcomer, role="scorer", idempotency_key="k1"
    )
    again = staff_changes.house_member_add(
        scope=Scope(Series, s), by=owner, member=crew.newcomer, role="scorer", idempotency_key="k1"
    )
    assert again == first
    assert added(s, before) == [("house_member_added", "owner")]
    with pytest.raises(IdempotencyConflict):
        staff_changes.house_member_add(
            scope=Scope(Series, s),
            by=owner,
            member=crew.newcomer,
            role="cashier",
            idempotency_key="k1",
        )
    assert len(chain(s)) == before + 1

    # A refusal is stored under its key too: the retry is refused the same, even once allowed.
    cashier = crew.people["cashier"]
    with pytest.raises(NotAllowed) as refused:
        services.series_defaults_set(series_id=s, by=cashier, minimum_age=18, idempotency_key="k2")
    staff_changes.house_member_add(
        scope=Scope(Series, s), by=owner, member=cashier, role="director"
    )
    with pytest.raises(NotAllowed) as replayed:
        services.series_defaults_set(series_id=s, by=cashier, minimum_age=18, idempotency_key="k2")
    assert replayed.value.message == refused.value.message
    assert Series.objects.get(pk=s).minimum_age == 0

    # A change made of several steps replays whole.
    made = services.series_next_event(series_id=s, by=owner, idempotency_key="k3")
    events_before = Event.objects.count()
    assert services.series_next_event(series_id=s, by=owner, idempotency_key="k3") == made
    assert Event.objects.count() == events_before
    assert [a for a, _ in chain(s)].count("next_event_created") == 1


def test_the_export_verifies_and_a_tampered_file_does_not(tmp_path: Path) -> None:
    crew = make_crew()
    s = crew.series_id
    services.series_defaults_set(series_id=s, by=crew.people["owner"], minimum_age=21)
    out = tmp_path / "series.json"
    call_command("export_audit", "--series", str(s), stdout=(out.open("w")))
    document = json.loads(out.read_text())
    assert document["series"] == {
        "id": s,
        "name": "Thursday League",
        "venue": "",
        "time_zone": "UTC",
    }
    assert [entry["seq"] for entry in document["entries"]] == list(range(1, 14))
    assert document["head"]["seq"] == 13
    # Downloading twice gives the same file.
    assert series_audit_document(Series.objects.get(pk=s)) == document

    key = tmp_path / "key.json"
    key.write_text(json.dumps(public_key_document(signing_key().public_key())))
    verdict = verify(document)
    assert verdict.ok, verdict.problem
    assert verdict.owner == "series"
    said = _run_verify(out, key)
    assert "OK: the series audit verifies." in said

    tampered = json.loads(out.read_text())
    tampered["entries"][4]["details"]["role"] = "owner"
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered))
    with pytest.raises(CommandError, match="Entry seq 5: its hash does not match"):
        _run_verify(bad, key)

    renamed = json.loads(out.read_text())
    renamed["series"]["name"] = "Friday League"
    bad.write_text(json.dumps(renamed))
    with pytest.raises(CommandError, match="signs another series block"):
        _run_verify(bad, key)

    cut = json.loads(out.read_text())
    cut["entries"] = cut["entries"][:-1]
    bad.write_text(json.dumps(cut))
    with pytest.raises(CommandError, match="entries were cut off or added"):
        _run_verify(bad, key)

    other = Series.objects.create(name="Thursday League")
    moved = json.loads(out.read_text())
    moved["series"]["id"] = other.pk  # another series' head cannot stand for this one
    bad.write_text(json.dumps(moved))
    with pytest.raises(CommandError, match=r"signs another series block|does not hold"):
        _run_verify(bad, key)


def _run_verify(path: Path, key: Path) -> str:
    out = path.parent / "said.txt"
    with out.open("w") as said:
        call_command("verify_audit", str(path), "--public-key", str(key), stdout=said)
    return out.read_text()


def test_export_audit_refuses_an_unknown_series() -> None:
    with pytest.raises(CommandError, match="No series with id 999999"):
        call_command("export_audit", "--series", "999999")


def test_the_database_refuses_to_change_a_series_entry() -> None:
    crew = make_crew()
    table = SeriesAuditEntry._meta.db_table
    for sql in (f"UPDATE {table} SET actor = 'nobody'", f"DELETE FROM {table}"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert len(chain(crew.series_id)) == 12


@pytest.mark.django_db(transaction=True)
def test_changes_at_the_same_moment_keep_the_chain_unbroken(settings: Any) -> None:
    settings.LIVE_UPDATES = "off"  # as tests/events/test_concurrency.py
    table = make_table(players=0)
    house = table.house
    s = services.series_create(by=house, name="Thursday League").series_id
    members = [make_user(f"Member {n}") for n in range(4)]
    outcomes = at_once(
        [
            *[
                partial(
                    staff_changes.house_member_add,
                    scope=Scope(Series, s),
                    by=house,
                    member=member,
                    idempotency_key=uuid.uuid4().hex,
                )
                for member in members
            ],
            *[
                partial(
                    services.series_defaults_set,
                    series_id=s,
                    by=house,
                    minimum_age=age,
                    idempotency_key=uuid.uuid4().hex,
                )
                for age in (18, 21)
            ],
        ]
    )
    assert all(not isinstance(outcome, BaseException) for outcome in outcomes), outcomes
    assert isinstance(outcomes[-1], SeriesDefaultsSaved)
    document = series_audit_document(Series.objects.get(pk=s))
    assert [entry["seq"] for entry in document["entries"]] == list(range(1, 9))
    verdict = verify(document)
    assert verdict.ok, verdict.problem


def test_putting_an_event_in_and_taking_it_out_is_recorded_in_each_series() -> None:
    table = make_table(players=0)
    house = table.house
    first = services.series_create(by=house, name="Thursday League").series_id
    second = services.series_create(by=house, name="Friday League").series_id
    services.event_series_set(event_id=table.event.pk, series_id=first, by=house)
    services.event_series_set(event_id=table.event.pk, series_id=second, by=house)
    assert [a for a, _ in chain(first)][-2:] == ["event_put_in_series", "event_taken_out_of_series"]
    assert [a for a, _ in chain(second)][-1] == "event_put_in_series"
    entry = SeriesAuditEntry.objects.filter(series_id=second).last()
    assert entry is not None
    assert entry.details["event"] == table.event.pk


def test_house_of_the_series_downloads_its_audit_and_no_one_else(client: Client) -> None:
    crew = make_crew()
    url = reverse("seasons:audit_json", args=[crew.series_id])
    client.force_login(crew.people["scorer"])
    page = client.get(reverse("seasons:series", args=[crew.series_id]))
    assert url in page.content.decode()
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="series-{crew.series_id}-audit.json"'
    )
    document = json.loads(response.content)
    assert document["head"]["seq"] == 12
    assert verify(document).ok
    client.force_login(crew.people["outsider"])
    assert client.get(url).status_code == 404


__all__ = ["app_role"]  # the fixture, made as production makes the runtime role

SERIES_ATTACKS = [
    "UPDATE seasons_seriesauditentry SET actor = 'nobody'",
    "DELETE FROM seasons_seriesauditentry",
    "TRUNCATE seasons_seriesauditentry",
    "ALTER TABLE seasons_seriesauditentry DISABLE TRIGGER series_audit_entries_append_only",
    "DROP TABLE seasons_seriesauditentry",
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attack", SERIES_ATTACKS)
def test_the_runtime_role_cannot_change_a_series_entry(app_role: str, attack: str) -> None:
    house = make_user("Founder", staff=True)
    s = services.series_create(by=house, name="Thursday League").series_id
    before = chain(s)
    with connect(app_role) as db:
        with pytest.raises(psycopg.Error):
            db.execute(attack)
        assert db.execute("SELECT count(*) FROM seasons_seriesauditentry").fetchone() == (2,)
    assert chain(s) == before
