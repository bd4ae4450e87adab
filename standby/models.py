"""The secrets that travel with a standby copy (docs/reliability.md, "Who holds the copy")."""

from __future__ import annotations

from django.db import models


class TravellingSecret(models.Model):
    """A secret the night needs on whichever laptop goes on with it: the audit's signing key, the
    Poker push key pair and the secret key. Kept in the database so that every copy of it (the
    standby folder, the second laptop, a snapshot) carries them; `make restore` writes them back
    into `var/`. Never shown in the admin or any page."""

    name = models.CharField(max_length=40, primary_key=True)
    value = models.TextField()

    def __str__(self) -> str:
        return self.name
