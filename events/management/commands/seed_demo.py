"""Create a demo House user, the laptop's organization owned by them with one venue, and a
League event there with a few checked-in players (idempotent)."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts.models import User
from events import services
from events.models import Event
from organizations.home import home_organization_id
from organizations.models import Organization, Venue
from staff.models import Membership
from staff.roles import Role

HOUSE_EMAIL = "house@example.com"
DEMO_PASSWORD = "cornhole-demo-7"  # printed for the local demo only
EVENT_NAME = "Demo League Night"
VENUE_NAME = "Syndicate Taproom"
PLAYERS = ["Ace Tosser", "Bag Queen", "Corner Pocket", "Dirty Deuce"]


class Command(BaseCommand):
    help = "Seed a demo House user and a League event with four checked-in players."

    def handle(self, *args: Any, **options: Any) -> None:
        house = self._user(HOUSE_EMAIL, "House Demo", staff=True)
        players = [
            self._user(f"player{n}@example.com", name) for n, name in enumerate(PLAYERS, start=1)
        ]
        venue = self._home(house)
        event = Event.objects.filter(name=EVENT_NAME).first()
        if event is None:
            event_id = services.event_create(
                by=house,
                organization_id=venue.organization_id,
                venue_id=venue.pk,
                name=EVENT_NAME,
                date=timezone.localdate() + datetime.timedelta(days=1),
                format="league",
                contribution=10,
                remainder_policy="An indivisible High remainder rolls into next week's pool.",
            ).event_id
            services.registration_open(event_id=event_id, by=house)
            for player in players:
                registration = services.player_register(event_id=event_id, by=player)
                services.player_check_in(registration_id=registration.registration_id, by=house)
            event = Event.objects.get(pk=event_id)
        self.stdout.write(f"Demo event: {event.name} ({event.get_format_display()})")
        self.stdout.write(f"House:   {HOUSE_EMAIL} / {DEMO_PASSWORD}")
        for player in players:
            self.stdout.write(f"Player:  {player.email} / {DEMO_PASSWORD}  ({player.display_name})")

    def _home(self, house: User) -> Venue:
        """The laptop's organization, the demo House its owner, and its one venue."""
        home = Organization.objects.get(pk=home_organization_id())
        if not Membership.objects.of(home).filter(role=Role.OWNER).exists():
            Membership.objects.create(scope=home, user=house, role=Role.OWNER)
        venue, _ = Venue.objects.get_or_create(organization=home, name=VENUE_NAME)
        return venue

    def _user(self, email: str, display_name: str, *, staff: bool = False) -> User:
        user = User.objects.filter(email=email).first()
        if user is None:
            user = User.objects.create_user(
                email=email, password=DEMO_PASSWORD, display_name=display_name, is_staff=staff
            )
        return user
