"""Audit entries: append-only, hash-chained per owner (docs/rules.md section 10.3): an event here,
and in the layer above the engine a series (seasons.models.SeriesAuditEntry), both on
`ChainedEntry`."""

from __future__ import annotations

from typing import Any

from django.db import models

from events.models import Event


class ActorKind(models.TextChoices):
    """Who acted, as a fact the entry records beside the `actor` text a display name could mimic."""

    SYSTEM = "system"
    HOUSE = "house"
    PLAYER = "player"


class ChainedEntry(models.Model):
    """One entry of a hash chain (audit/chain.py); its owner's foreign key is the concrete
    model's. The owner keeps its chain's head in `audit_seq` and `audit_hash` (audit/writer.py)."""

    seq = models.PositiveIntegerField()
    at = models.CharField(max_length=32)  # the exact ISO 8601 string that was hashed
    actor = models.CharField(max_length=100)
    # Null only on entries written before the kind was recorded: their hashes cover no kind.
    actor_kind = models.CharField(  # noqa: DJ001 - null is "not recorded", unlike any kind
        max_length=8, choices=ActorKind.choices, null=True, blank=True
    )
    # The staff role House acted in (staff/roles.py); null on player and system entries and on
    # entries written before roles were recorded: their hashes cover no role.
    actor_role = models.CharField(  # noqa: DJ001 - null is "no role", unlike any role
        max_length=8, null=True, blank=True
    )
    action = models.CharField(max_length=40)
    player = models.CharField(max_length=48, null=True, blank=True)  # noqa: DJ001 - null is "no player"
    details = models.JSONField(default=dict)
    reason = models.TextField(null=True, blank=True)  # noqa: DJ001 - null is "no reason"
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"#{self.seq} {self.action}"

    def as_dict(self) -> dict[str, Any]:
        """The entry as exported and hashed (with `hash`); an entry written before the actor's
        kind was recorded has no `actor_kind` key, as when it was hashed."""
        entry: dict[str, Any] = {
            "seq": self.seq,
            "at": self.at,
            "actor": self.actor,
        }
        if self.actor_kind is not None:
            entry["actor_kind"] = self.actor_kind
        if self.actor_role is not None:
            entry["actor_role"] = self.actor_role
        return entry | {
            "action": self.action,
            "player": self.player,
            "details": self.details,
            "reason": self.reason,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


class AuditEntry(ChainedEntry):
    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="audit_entries")

    class Meta:
        ordering = ["event_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["event", "seq"], name="one_entry_per_seq"),
        ]
        verbose_name_plural = "audit entries"


class SignedHeadRow(models.Model):
    """A head the deployment signed for an export (audit/heads.py), kept so that exporting the
    same chain again carries the same signature; the owner's foreign key and the digest of the
    block it signs are the concrete model's."""

    seq = models.PositiveIntegerField()
    hash = models.CharField(max_length=64)
    key_id = models.CharField(max_length=16)
    at = models.CharField(max_length=32)
    signature = models.CharField(max_length=128)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"head #{self.seq}"


class HeadSignature(SignedHeadRow):
    """A head the deployment signed for an export (audit/heads.py). An export of the same chain,
    phase and event block under the same key carries it again, so downloading twice gives the
    same file, and `at` is when that head was first signed."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="head_signatures")
    phase = models.CharField(max_length=8)
    event_block = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["event", "seq", "hash", "phase", "event_block", "key_id"],
                name="one_signature_per_head",
            ),
        ]

    def __str__(self) -> str:
        return f"head #{self.seq} ({self.phase})"
