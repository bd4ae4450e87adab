"""What House's pages to read and print show: the results and payout sheet, and tonight's events
at a glance."""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from audit.export import final_result
from cards.models import Offer, pending_offer
from cards.names import RANK_FACES, card_face
from cards.stock import seed_hex
from events.check_in import collected
from events.models import Event, Phase, RegistrationStatus, Review
from events.player_words import hand_names
from events.snapshots import event_summary, pool_summary, prize_split
from house.selectors import house_events


def results(event: Event) -> dict[str, Any]:
    """What the printed sheet shows: standings, awards, the pool's arithmetic, the proofs."""
    pool = pool_summary(event)
    sheet: dict[str, Any] = {
        "event": event,
        "summary": event_summary(event),
        "pool": pool,
        "adjusted": sum(a["amount"] for a in pool["adjustments"]),
        "collected": collected(event),
        "final": event.phase == Phase.FINALIZED,
        "commitment": event.commitment,
        "seed": seed_hex(event.pk) if event.phase == Phase.FINALIZED else None,
        "head": {"seq": event.audit_seq, "hash": event.audit_hash},
        "printed_at": timezone.now(),
    }
    if not sheet["final"]:
        return sheet
    result = final_result(event)
    # Each hand as the final page names it, and each card with its face ("10♣").
    players = [
        {
            **p,
            "faces": [card_face(card) for card in p["cards"]],
            "names": hand_names(p["cards"], p["wild_rank"]),
            "wild": RANK_FACES.get(p["wild_rank"] or "", p["wild_rank"]),
        }
        for p in result["players"]
    ]
    eligible = [p for p in players if p["status"] == "eligible" and p["high_place"] is not None]
    high = sorted(eligible, key=lambda p: (p["high_place"], p["player"]))
    low = sorted(
        (p for p in eligible if p["low_place"] is not None),
        key=lambda p: (p["low_place"], p["player"]),
    )
    winners = sorted(
        event.registrations.filter(
            Q(high_place=1) | Q(low_place=1), status=RegistrationStatus.CHECKED_IN
        ),
        key=lambda r: r.label,
    )
    prizes = prize_split(event, winners)
    high_winners = [r.label for r in prizes.high_winners]
    low_winners = [r.label for r in prizes.low_winners]
    labels = {r.pk: r.label for r in winners}
    awards = [
        {
            "player": labels[pk],
            "amount": amount,
            "for": " and ".join(
                what
                for what, names in (("High", high_winners), ("Low", low_winners))
                if labels[pk] in names
            ),
        }
        for pk, amount in prizes.allocation.awards.items()
    ]
    sheet.update(
        high=high,
        low=low,
        withdrawn=[p for p in players if p["status"] == "withdrawn"],
        awards=awards,
        split=prizes.arithmetic,
        high_winners=high_winners,
        low_winners=low_winners,
        confirmed_pool=result["pool"],
        unallocated=result["unallocated"],
    )
    return sheet


def tonight_events(events: list[Event]) -> list[dict[str, Any]]:
    """Each event's phase, players, pending choices, open reviews and pool, in a few queries."""
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
            paid=Count("registrations", filter=Q(registrations__paid=True)),
        )
        .values("pk", "checked_in", "registered", "withdrawn", "paid")
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
                "pool": pool["pool"],
                "pool_confirmed": pool["confirmed"],
                "collected": event.contribution * count["paid"],
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
    return tonight_events(events)
