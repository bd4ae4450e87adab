"""`manage.py vapid_keys`: generate a VAPID key pair for Poker push."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from push.keys import generate


class Command(BaseCommand):
    help = "Generate a VAPID key pair; put the two lines in the production environment."

    def handle(self, *args: Any, **options: Any) -> None:
        keys = generate()
        self.stdout.write(f"VAPID_PUBLIC_KEY={keys.public_key}")
        self.stdout.write(f"VAPID_PRIVATE_KEY={keys.private_key}")
