"""`announcement_send`: House sends a short line to every player of an event, audited."""

from __future__ import annotations

import re
from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone

from events import services
from events.announcements import PER_WINDOW, WINDOW
from events.answers import AnnouncementSent
from events.errors import AnnouncementRateLimited, EventIsFinalized, Invalid, NotAllowed, WrongPhase
from events.limits import ANNOUNCEMENT_LENGTH
from events.models import Announcement
from tests.events.support import actions, create_event, finalized_table, last
from tests.events.test_concurrency import at_once
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_stores_and_audits_the_announcement():
    table = make_table(players=2)
    table.register(make_user("Wes"))  # registered, not yet checked in: told too
    gone = make_user("Gus")
    services.registration_cancel(registration_id=table.register(gone), by=gone)
    answer = services.announcement_send(
        event_id=table.event.pk, by=table.house, text="  Round 2 starts at 8:30.  "
    )
    assert answer.recipients == 3
    announcement = Announcement.objects.get(pk=answer.announcement_id)
    assert (announcement.text, announcement.sent_by) == ("Round 2 starts at 8:30.", "House: House")
    entry = last(table.event, "announcement_sent")
    assert (entry.actor, entry.actor_kind, entry.player) == ("House: House", "house", None)
    assert entry.details == {
        "announcement": announcement.pk,
        "text": "Round 2 starts at 8:30.",
        "recipients": 3,
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "x" * (ANNOUNCEMENT_LENGTH + 1),
        "line one\nline two",
        "bell\x07",
        "nul\x00",
        "\u202eevil",
    ],
)
def test_it_refuses_empty_long_or_control_text(text: str):
    table = make_table(players=1)
    refused(
        Invalid,
        table.event,
        lambda: services.announcement_send(event_id=table.event.pk, by=table.house, text=text),
    )


@pytest.mark.django_db
def test_it_takes_the_longest_allowed_line():
    table = make_table(players=1)
    services.announcement_send(
        event_id=table.event.pk, by=table.house, text="é" * ANNOUNCEMENT_LENGTH
    )


@pytest.mark.django_db
def test_only_this_events_house_announces():
    table = make_table(players=1)
    for who in (table.players[0], make_table().house):
        refused(
            NotAllowed,
            table.event,
            partial(services.announcement_send, event_id=table.event.pk, by=who, text="Hi"),
        )


@pytest.mark.django_db
def test_a_draft_or_a_finalized_event_takes_no_announcement():
    house = make_user("House", staff=True)
    draft = create_event(house)
    refused(
        WrongPhase,
        draft,
        lambda: services.announcement_send(event_id=draft, by=house, text="Hello"),
    )
    table = finalized_table()
    refused(
        EventIsFinalized,
        table.event,
        lambda: services.announcement_send(event_id=table.event.pk, by=table.house, text="Hi"),
    )


@pytest.mark.django_db
def test_a_double_tap_sends_once():
    table = make_table(players=1)
    first = services.announcement_send(
        event_id=table.event.pk, by=table.house, text="Food is here", idempotency_key="tap"
    )
    again = services.announcement_send(
        event_id=table.event.pk, by=table.house, text="Food is here", idempotency_key="tap"
    )
    assert again == first
    assert Announcement.objects.filter(event=table.event).count() == 1


@pytest.mark.django_db
def test_an_event_takes_at_most_five_announcements_a_minute():
    table = make_table(players=1)
    other = make_table(players=1)
    second_house = make_user("Hal", staff=True)
    table.event.staff.create(user=second_house)
    for n in range(PER_WINDOW):
        services.announcement_send(event_id=table.event.pk, by=table.house, text=f"Note {n}")
    sent = actions(table.event).count("announcement_sent")

    for who in (table.house, second_house):  # the limit is the event's, whoever sends
        error = refused(
            AnnouncementRateLimited,
            table.event,
            partial(services.announcement_send, event_id=table.event.pk, by=who, text="One more"),
        )
        found = re.search(r"try again in (\d+) seconds?\.$", error.message)
        assert found, error.message
        wait = int(found.group(1))
        assert 1 <= wait <= WINDOW.total_seconds()
    assert Announcement.objects.filter(event=table.event).count() == PER_WINDOW
    assert actions(table.event).count("announcement_sent") == sent
    # Another event has a limit of its own.
    services.announcement_send(event_id=other.event.pk, by=other.house, text="Welcome")

    # Once the oldest is a minute old, one more fits, and only one.
    oldest = Announcement.objects.filter(event=table.event).order_by("sent_at", "pk")[0]
    Announcement.objects.filter(pk=oldest.pk).update(
        sent_at=timezone.now() - WINDOW - timedelta(seconds=1)
    )
    services.announcement_send(event_id=table.event.pk, by=table.house, text="One more")
    refused(
        AnnouncementRateLimited,
        table.event,
        lambda: services.announcement_send(event_id=table.event.pk, by=table.house, text="Again"),
    )


@pytest.mark.django_db(transaction=True)
def test_announcements_sent_at_once_never_exceed_the_limit():
    table = make_table(players=1)
    helpers = [make_user(f"House {n}", staff=True) for n in range(3)]
    for helper in helpers:
        table.event.staff.create(user=helper)
    senders = [table.house, *helpers]
    outcomes = at_once(
        [
            partial(
                services.announcement_send,
                event_id=table.event.pk,
                by=senders[n % len(senders)],
                text=f"Burst {n}",
                idempotency_key=f"burst-{n}",
            )
            for n in range(3 * PER_WINDOW)
        ]
    )

    sent = [outcome for outcome in outcomes if isinstance(outcome, AnnouncementSent)]
    limited = [o for o in outcomes if isinstance(o, AnnouncementRateLimited)]
    assert (len(sent), len(limited)) == (PER_WINDOW, 2 * PER_WINDOW), outcomes
    assert Announcement.objects.filter(event=table.event).count() == PER_WINDOW
    assert actions(table.event).count("announcement_sent") == PER_WINDOW
