"""One account plays at every venue (docs/decisions.md, "Organizations"): a player who plays a
night at each of two venues of one organization, and a night of another organization, finds all
three in their history, and the organization's season table counts both of its venues' nights;
none of those public pages shows anything private of the other organization (its staff, its
ledger, its invitations, anyone's email)."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client, TestCase
from django.urls import reverse

from accounts.models import User
from events import services as events
from events.simulation import Simulation
from ledger import services as ledger
from organizations import services as organizations
from organizations.models import Organization
from seasons import services as seasons
from seasons.models import PlayerKey, SeasonResult
from staff.roles import Role
from staff.scopes import Scope
from tests.factories import make_user

pytestmark = pytest.mark.django_db

FIRST = datetime.date(2026, 9, 3)


class Organizer:
    """An organization with its owner, a cashier, two venues, a series at the first and a
    season."""

    def __init__(self, name: str) -> None:
        self.owner = make_user(f"{name} owner")
        self.cashier = make_user(f"{name} cashier")
        self.organization_id = organizations.organization_create(
            by=self.owner, name=f"{name} Cornhole"
        ).organization_id
        self.venues = {
            place: organizations.venue_create(
                organization_id=self.organization_id, by=self.owner, name=f"{name} {place}"
            ).venue_id
            for place in ("Hall", "Annex")
        }
        self.scope = Scope(Organization, self.organization_id)
        events.house_member_add(
            scope=self.scope, by=self.owner, member=self.cashier, role=Role.CASHIER
        )
        self.series_id = seasons.series_create(
            by=self.owner,
            name=f"{name} League",
            organization_id=self.organization_id,
            venue_id=self.venues["Hall"],
        ).series_id
        self.season_id = seasons.season_create(
            series_id=self.series_id,
            by=self.owner,
            name="Autumn",
            starts_on=FIRST,
            ends_on=FIRST + datetime.timedelta(weeks=8),
        ).season_id

    def night(self, place: str, players: list[User], week: int) -> int:
        """A night at `place`, played to its end; the standings move after the commit."""
        with TestCase.captureOnCommitCallbacks(execute=True):
            return int(
                Simulation(
                    format="league",
                    players=len(players),
                    seed=week,
                    house=self.owner,
                    users=players,
                    date=FIRST + datetime.timedelta(weeks=week),
                    scope_above_id=self.series_id,
                    venue_id=self.venues[place],
                ).run()["event_id"]
            )


def test_a_player_plays_at_every_venue_and_sees_nothing_private_of_another_organization() -> None:
    dock, harbour = Organizer("Dock"), Organizer("Harbour")
    traveller = make_user("Traveller")
    locals_ = [make_user(f"Local {n}") for n in range(1, 4)]
    hall_night = dock.night("Hall", [traveller, *locals_], week=0)
    annex_night = dock.night("Annex", [*locals_, traveller], week=1)
    away_night = harbour.night("Hall", [traveller, *(make_user(f"Away {n}") for n in (1, 2, 3))], 2)
    # Harbour's private things: an invitation, a ledger note, its staff's and players' emails.
    events.staff_invite(
        scope=harbour.scope, by=harbour.owner, email="harbour-invited@example.com", role="scorer"
    )
    later = events.event_create(
        by=harbour.owner,
        scope_above_id=harbour.series_id,
        venue_id=harbour.venues["Annex"],
        name="Harbour next",
        date=FIRST + datetime.timedelta(weeks=3),
        format="league",
        contribution=5,
        remainder_policy="Rolls over.",
    ).event_id
    events.registration_open(event_id=later, by=harbour.owner)
    signed = events.player_register(event_id=later, by=traveller).registration_id
    ledger.entry_payment(
        event_id=later,
        registration_id=signed,
        by=harbour.cashier,
        method="card",
        reference="Harbour terminal 9",
    )
    private = {
        "harbour-invited@example.com",
        "Harbour terminal 9",
        harbour.owner.email,
        harbour.cashier.email,
        *(user.email for user in User.objects.filter(display_name__startswith="Away")),
    }

    # The season of Dock's series counts the nights of both of its venues.
    counted = set(
        SeasonResult.objects.filter(season_id=dock.season_id).values_list("event_id", flat=True)
    )
    assert counted == {hall_night, annex_night}
    assert SeasonResult.objects.filter(season_id=dock.season_id, player=traveller).count() == 2
    season_page = Client().get(reverse("seasons:season", args=[dock.season_id])).content.decode()
    assert "2 events counted" in season_page and "Traveller" in season_page
    assert "Harbour" not in season_page

    # One account: the traveller's history holds the nights of both organizations.
    public_id = PlayerKey.objects.get(user=traveller).public_id
    own = Client()
    own.force_login(traveller)
    played = {hall_night, annex_night, away_night}
    for client, path in (
        (own, reverse("seasons:my_history")),
        (Client(), reverse("seasons:history", args=[public_id])),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        text = response.content.decode()
        for night in played:
            assert reverse("web:board_final", args=[night]) in text, (path, night)
        assert not [secret for secret in private if secret in text], path
    answer = Client().get(f"/api/players/{public_id}/history/")
    assert {row["event_id"] for row in answer.json()["events"]} == played
    assert not [secret for secret in private if secret in answer.content.decode()]

    # Dock's staff and Dock's players see nothing private of Harbour on the public pages.
    for viewer in (dock.owner, locals_[0]):
        client = Client()
        client.force_login(viewer)
        for path in (
            reverse("seasons:season", args=[harbour.season_id]),
            reverse("web:board", args=[away_night]),
            reverse("web:event", args=[later]),
            reverse("seasons:history", args=[public_id]),
        ):
            response = client.get(path)
            assert response.status_code == 200, path
            assert not [s for s in private if s in response.content.decode()], (viewer, path)
