"""Create a demo House user and a League event with a few players (idempotent)."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from events.models import Event, Phase, Registration

HOUSE_EMAIL = "house@example.com"
DEMO_PASSWORD = "cornhole-demo-7"
PLAYERS = ["Ace Tosser", "Bag Queen", "Corner Pocket", "Dirty Deuce"]


class Command(BaseCommand):
    help = "Seed a demo House user and a League event with a few registered players."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            house = self._user(HOUSE_EMAIL, "House Demo", staff=True)
            event, _ = Event.objects.get_or_create(
                name="Demo League Night",
                defaults={
                    "venue": "Syndicate Taproom",
                    "date": timezone.localdate() + datetime.timedelta(days=1),
                    "format": "league",
                    "contribution": 10,
                    "extra_decks": 1,
                    "remainder_policy": "An indivisible High remainder goes to next week's pool.",
                    "phase": Phase.OPEN,
                    "registration_open": True,
                },
            )
            event.house.add(house)
            players = []
            for number, name in enumerate(PLAYERS, start=1):
                player = self._user(f"player{number}@example.com", name)
                Registration.objects.get_or_create(
                    event=event, player=player, defaults={"label": name}
                )
                players.append(player)
        self.stdout.write(f"Demo event: {event.name} ({event.get_format_display()})")
        self.stdout.write(f"House:   {HOUSE_EMAIL} / {DEMO_PASSWORD}")
        for player in players:
            self.stdout.write(f"Player:  {player.email} / {DEMO_PASSWORD}  ({player.display_name})")

    def _user(self, email: str, display_name: str, *, staff: bool = False) -> User:
        user = User.objects.filter(email=email).first()
        if user is None:
            user = User.objects.create_user(
                email=email, password=DEMO_PASSWORD, display_name=display_name, is_staff=staff
            )
        return user
