"""What House's pages to read and print show: the results and payout sheet, and tonight's events
at a glance."""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from cards.models import Offer, pending_offer
from events.models import Event, Phase, RegistrationStatus, Review
from events.reads.common import event_summary, pool_summary
from events.reads.final import final_results
from events.runner import roles_of
from house.selectors import house_events
from ledger.cash_box import cash_box
from staff import roles as staff


def results(event: Event, *, money: bool) -> dict[str, Any]:
    """What the printed sheet shows: standings, awards, the pool's arithmetic, the proofs; the
    entry money collected only for a viewer who may see the night's money (`money`,
    staff/roles.py `SIGHTS`).

    Once the event is final, the final results page's own results (`events.reads.final`).
    """
    final = final_results(event)
    sheet: dict[str, Any] = {
        "event": event,
        "summary": event_summary(event),
        "pool": pool_summary(event) if final is None else final.pool,
        "collected": cash_box(event).collected if money else None,
        "final": final is not None,
        "commitment": event.commitment,
        "seed": None if final is None else final.seed,
        "head": {"seq": event.audit_seq, "hash": event.audit_hash},
        "printed_at": timezone.now(),
    }
    if final is None:
        return sheet
    # The sheet names winners by label, the Low winners' awards first.
    awards = sorted(final.awards, key=lambda a: ("Low" not in a.won, a.player))
    sheet.update(
        high=final.high,
        low=final.low,
        withdrawn=final.withdrawn,
        awards=awards,
        split=final.split,
        high_winners=sorted(w.player for w in final.winners.high),
        low_winners=sorted(w.player for w in final.winners.low),
        unallocated=final.unallocated,
    )
    return sheet


def tonight_events(events: list[Event], money: set[int]) -> list[dict[str, Any]]:
    """Each event's phase, players, pending choices, open reviews and pool, in a few queries;
    the entry money collected for the events in `money` (whose money the viewer may see)."""
    ids = [e.pk for e in events]
    pending = dict(
        Offer.objects.filter(pending_offer(), registration__event_id__in=ids)
        .values_list("registration__event_id")
        .annotate(n=Count("id"))
        .values_list("registration__event_id", "n")
    )
    reviews = dict(
        Review.objects.filter(resolved_at__isnull=True, registration__event_id__in=ids)
        .values_list("registration__event_id")
        .annotate(n=Count("id"))
        .values_list("registration__event_id", "n")
    )
    counted = {
        row["pk"]: row
        for row in Event.objects.filter(pk__in=ids)
        .annotate(
            checked_in=Count(
                "registrations", filter=Q(registrations__status=RegistrationStatus.CHECKED_IN)
            ),
            registered=Count(
                "registrations", filter=Q(registrations__status=RegistrationStatus.REGISTERED)
            ),
            withdrawn=Count(
                "registrations", filter=Q(registrations__status=RegistrationStatus.WITHDRAWN)
            ),
        )
        .values("pk", "checked_in", "registered", "withdrawn")
    }
    rows = []
    for event in events:
        count = counted[event.pk]
        pool = pool_summary(event)  # as the dashboard shows it: adjustments in force included
        rows.append(
            {
                "event": event,
                "checked_in": count["checked_in"],
                "registered": count["registered"],
                "withdrawn": count["withdrawn"],
                "pending": pending.get(event.pk, 0),
                "reviews": reviews.get(event.pk, 0),
                "pool": pool.pool,
                "pool_confirmed": pool.confirmed,
                # The entry money the ledger holds, as the dashboard shows it.
                "collected": (cash_box(event).collected if event.contribution else 0)
                if event.pk in money
                else None,
            }
        )
    return rows


def is_today(event: Event, now: datetime.datetime) -> bool:
    """The event's date is today where it is played."""
    try:
        zone = zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    return event.date == now.astimezone(zone).date()


def tonight(user: User, now: datetime.datetime) -> list[dict[str, Any]]:
    """Every event this user runs as House today, one row each: those dated today in their venue's
    time zone, and any event in play (started, not finalized) whatever its date (a night that runs
    past midnight, an event dated wrongly). An event open for registration on another day is not
    tonight's."""
    window = (now - datetime.timedelta(days=1)).date(), (now + datetime.timedelta(days=1)).date()
    in_play = Q(phase=Phase.STARTED)
    near = house_events(user).filter(Q(date__range=window) | in_play)
    events = [e for e in near if is_today(e, now) or e.phase == Phase.STARTED]
    # The night's money of the events whose money the user's roles may see (staff/roles.py).
    money = {e.pk for e in events if staff.may_see(roles_of(user, e.pk), "money")}
    return tonight_events(events, money)
