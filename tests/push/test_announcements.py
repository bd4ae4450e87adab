"""House's announcements by Poker push: every device of the players taking part, once each."""

from __future__ import annotations

import pytest

from accounts.models import User
from events import services
from push.models import PushSubscription
from push.subscriptions import subscription_save
from push.tasks import send_announcement
from tests.factories import make_table, make_user
from tests.push.standin import Device, PushService


def subscribe(user: User, device: Device) -> None:
    subscription_save(
        user=user, endpoint=device.endpoint, p256dh=device.p256dh, auth=device.auth, user_agent="t"
    )


@pytest.mark.django_db
def test_it_reaches_every_device_of_the_players_taking_part(push_service: PushService) -> None:
    table = make_table("league", players=2)
    ann, bob = table.players
    wes, gus, outsider = make_user("Wes"), make_user("Gus"), make_user("Out")
    table.register(wes)  # registered, not yet checked in: told
    services.registration_cancel(registration_id=table.register(gus), by=gus)  # cancelled: not
    subscribe(ann, push_service.device("ann-phone"))
    subscribe(ann, push_service.device("ann-tablet"))
    subscribe(wes, push_service.device("wes-phone"))
    subscribe(gus, push_service.device("gus-phone"))
    subscribe(outsider, push_service.device("out-phone"))
    # Bob never turned Poker push on.
    answer = services.announcement_send(
        event_id=table.event.pk, by=table.house, text="Round 2 starts at 8:30"
    )

    assert send_announcement(answer.announcement_id) == 3

    received = push_service.wait_for(3)
    assert sorted(r.device for r in received) == [
        "/push/ann-phone",
        "/push/ann-tablet",
        "/push/wes-phone",
    ]
    for r in received:
        assert r.payload["body"] == "Round 2 starts at 8:30"
        assert r.payload["url"] == f"/events/{table.event.pk}/"
        assert r.payload["title"] == "Thursday League: House says"
    assert push_service.refused == []
    assert bob  # no device, nothing sent


@pytest.mark.django_db
def test_a_device_the_push_service_says_is_gone_is_forgotten(push_service: PushService) -> None:
    table = make_table("league", players=1)
    (ann,) = table.players
    subscribe(ann, push_service.device("old-phone"))
    push_service.answer("old-phone", 410)
    answer = services.announcement_send(event_id=table.event.pk, by=table.house, text="Hi all")

    send_announcement(answer.announcement_id)

    assert not PushSubscription.objects.filter(user=ann).exists()
