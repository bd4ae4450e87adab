"""The register page and the player's page for registering ahead (events/waitlist.py): the window
said in the venue's time, the places left, the waitlist's place, an offered place's Claim, and
Pay online only where Stripe is configured."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from events import services
from events.models import Event, Registration
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_the_register_page_says_when_the_window_opens_and_registers_no_one_before() -> None:
    table = make_table()
    opens = timezone.now() + datetime.timedelta(days=2)
    Event.objects.filter(pk=table.event.pk).update(
        registration_opens_at=opens, time_zone="America/Chicago"
    )
    ann = make_user("Ann")
    page = _client(ann).get(reverse("web:event", args=[table.event.pk])).content.decode()
    local = opens.astimezone(zoneinfo.ZoneInfo("America/Chicago"))
    assert f"Registration opens on {local:%Y-%m-%d} at {local:%H:%M}" in page
    assert 'button class="primary big" type="submit">Register' not in page
    _client(ann).post(reverse("web:register", args=[table.event.pk]), {"idempotency_key": "r1"})
    assert not Registration.objects.filter(event=table.event, player=ann).exists()


def test_a_full_event_says_registering_joins_the_waitlist_and_shows_the_place() -> None:
    table = make_table(players=1)
    Event.objects.filter(pk=table.event.pk).update(capacity=1)
    ann, bob = make_user("Ann"), make_user("Bob")
    page = _client(ann).get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert "All 1 places are taken: registering puts you on the waitlist" in page
    for player, key in ((ann, "a"), (bob, "b")):
        _client(player).post(
            reverse("web:register", args=[table.event.pk]), {"idempotency_key": key}
        )
    page = _client(bob).get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert "You are #2 on the waitlist." in page
    assert 'data-waitlist-position="2"' in page
    assert "Cancel your registration" in page


def test_an_offered_place_is_claimed_from_the_page() -> None:
    table = make_table(contribution=0)
    Event.objects.filter(pk=table.event.pk).update(capacity=1)
    ann, bob = make_user("Ann"), make_user("Bob")
    first = services.player_register(event_id=table.event.pk, by=ann).registration_id
    services.player_register(event_id=table.event.pk, by=bob)
    services.registration_cancel(registration_id=first, by=ann)
    client = _client(bob)
    page = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert "A place is yours until" in page and "Claim it" in page
    client.post(reverse("web:claim", args=[table.event.pk]), {"idempotency_key": "c1"})
    registration = Registration.objects.get(event=table.event, player=bob)
    assert registration.status == "registered"
    again = client.post(
        reverse("web:claim", args=[table.event.pk]), {"idempotency_key": "c2"}, follow=True
    )
    assert "No place is offered to this registration." in again.content.decode()
    assert Registration.objects.get(pk=registration.pk).status == "registered"


def test_pay_online_without_stripe_says_so_and_sends_no_one_away() -> None:
    table = make_table(players=1)
    Event.objects.filter(pk=table.event.pk).update(pay_ahead=True)
    player = table.players[0]
    page = _client(player).get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert "Pay $10 online" not in page  # at the door, as always
    answer = _client(player).post(
        reverse("web:pay", args=[table.event.pk]), {"idempotency_key": "p1"}
    )
    assert answer.status_code == 302
    assert answer["Location"] == reverse("web:event", args=[table.event.pk])
