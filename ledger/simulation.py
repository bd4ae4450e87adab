"""A simulated night's ledger, recorded as House would (`manage.py simulate_event`; the ledger's
app hands it to the engine's simulation): entries paid in cash and by card, one comp, the refund
of the player who withdraws, every award paid out."""

from __future__ import annotations

from accounts.models import User
from events.models import Event
from ledger import services


class LedgerNight:
    """The ledger's part of `events.simulation.Simulation`: told when everyone is checked in,
    when a player withdraws with a refund due, and once the event is finalized."""

    def checked_in(self, event_id: int, house: User, registration_ids: list[int]) -> None:
        if not Event.objects.filter(pk=event_id, contribution__gt=0).exists():
            return
        for index, registration_id in enumerate(registration_ids):
            if index == 0 and len(registration_ids) >= 4:
                method, reason = "comp", "Tonight's sponsor's guest"
            else:
                method, reason = ("cash", "") if index % 2 else ("card", "")
            services.entry_payment(
                event_id=event_id,
                registration_id=registration_id,
                by=house,
                method=method,
                reason=reason,
            )

    def withdrawn(self, event_id: int, house: User, registration_id: int, amount: int) -> None:
        services.entry_refund(
            event_id=event_id,
            registration_id=registration_id,
            by=house,
            amount=amount,
            method="cash",
            reason="Left early: refunded under the event's policy",
        )

    def finalized(self, event_id: int, house: User) -> None:
        event = Event.objects.get(pk=event_id)
        for registration in event.registrations.filter(award__gt=0).order_by("pk"):
            services.payout_record(
                event_id=event_id,
                registration_id=registration.pk,
                by=house,
                amount=registration.award or 0,
                method="cash",
                handed_by=house.display_name or "House",
                acknowledged=True,
            )
