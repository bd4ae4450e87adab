"""Poker push reminders (docs/rules.md section 5.5: one reminder after three minutes)."""

from __future__ import annotations

import datetime
import threading

import pytest
from django.db import connection
from django.utils import timezone

from cards.models import Offer
from events import services
from push.models import DeliveryStatus, PushDelivery, PushSubscription
from push.subscriptions import subscription_save
from push.tasks import send_reminder, sweep_reminders
from tests.factories import Table, make_table
from tests.push.standin import Device, PushService


def subscribe(table: Table, index: int, device: Device) -> None:
    subscription_save(
        user=table.players[index],
        endpoint=device.endpoint,
        p256dh=device.p256dh,
        auth=device.auth,
        user_agent="pytest",
    )


def pending_offer(table: Table, index: int) -> Offer:
    return Offer.objects.get(
        registration=table.registration(table.players[index]), resolved_at__isnull=True
    )


def make_due(offer: Offer) -> None:
    """As if the selection had waited past the reminder delay."""
    past = timezone.now() - datetime.timedelta(seconds=181)
    Offer.objects.filter(pk=offer.pk).update(offered_at=past, reminder_due_at=past)


@pytest.mark.django_db
def test_it_sends_a_due_reminder_that_the_phone_can_decrypt(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    phone = push_service.device("phone")
    subscribe(table, 0, phone)
    offer = pending_offer(table, 0)
    make_due(offer)

    assert send_reminder(offer.pk) == 1

    (received,) = push_service.wait_for(1)
    assert received.payload["url"] == f"/events/{table.event.pk}/"
    assert "choose 1 to keep" in received.payload["body"]
    assert received.claims["sub"].startswith("mailto:")
    assert push_service.refused == []
    offer.refresh_from_db()
    assert offer.reminded_at is not None
    assert PushDelivery.objects.get(offer=offer).status == DeliveryStatus.SENT


@pytest.mark.django_db
def test_it_reminds_every_device_of_the_player_once(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("phone"))
    subscribe(table, 0, push_service.device("tablet"))
    subscribe(table, 1, push_service.device("someone-else"))
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)
    send_reminder(offer.pk)  # the task delivered twice
    sweep_reminders()  # and the sweep racing it

    assert sorted(r.device for r in push_service.wait_for(2)) == ["/push/phone", "/push/tablet"]
    assert PushDelivery.objects.filter(offer=offer).count() == 2


@pytest.mark.django_db
def test_it_does_not_remind_before_the_delay(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("phone"))
    offer = pending_offer(table, 0)

    assert send_reminder(offer.pk) == 0
    assert sweep_reminders() == 0
    assert push_service.received == []
    assert offer.reminder_due_at is not None
    assert offer.reminder_due_at - offer.offered_at == datetime.timedelta(seconds=180)


@pytest.mark.django_db
def test_it_sends_nothing_for_a_selection_resolved_at_179_seconds(
    push_service: PushService,
) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("phone"))
    offer = pending_offer(table, 0)
    almost = timezone.now() - datetime.timedelta(seconds=179)
    Offer.objects.filter(pk=offer.pk).update(
        offered_at=almost, reminder_due_at=almost + datetime.timedelta(seconds=180)
    )
    table.choose_start(table.players[0])  # resolved with a second to spare
    make_due(offer)  # then the countdown fires

    assert send_reminder(offer.pk) == 0
    assert sweep_reminders() == 0
    assert push_service.received == []


@pytest.mark.django_db
def test_it_reminds_about_a_win_choice(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    subscribe(table, 0, push_service.device("phone"))
    table.choose_start(player)
    table.report(player, 1, "win")
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)

    (received,) = push_service.wait_for(1)
    assert received.payload["body"] == "You won game 1: keep one of two cards."


@pytest.mark.django_db
def test_a_win_corrected_to_a_loss_is_not_called_a_win(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    subscribe(table, 0, push_service.device("phone"))
    table.choose_start(player)
    table.report(player, 1, "win")
    services.result_correct(
        registration_id=table.rid(player), by=table.house, game=1, outcome="loss", reason="Misread"
    )
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)

    (received,) = push_service.wait_for(1)
    assert received.payload["body"] == (
        "Game 1 is now a loss, but its choice stays: keep one of two cards."
    )


@pytest.mark.django_db
def test_it_sends_nothing_once_the_event_is_finalized_or_the_player_withdrew(
    push_service: PushService,
) -> None:
    table = make_table("league", players=3, start=True)
    subscribe(table, 0, push_service.device("phone"))
    from events import services

    services.player_withdraw(registration_id=table.rid(table.players[0]), by=table.players[0])
    offer = Offer.objects.get(registration=table.registration(table.players[0]))
    make_due(offer)

    assert send_reminder(offer.pk) == 0
    assert push_service.received == []


@pytest.mark.django_db
def test_it_deletes_a_subscription_the_push_service_says_is_gone(
    push_service: PushService,
) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("old-phone"))
    push_service.answer("old-phone", 410)
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)

    assert not PushSubscription.objects.filter(user=table.players[0]).exists()
    assert PushDelivery.objects.get(offer=offer).status == DeliveryStatus.GONE


@pytest.mark.django_db
def test_it_retries_when_the_push_service_is_unavailable(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("phone"))
    push_service.answer("phone", 503, 429)
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)

    (received,) = push_service.wait_for(1)
    assert received.device == "/push/phone"
    delivery = PushDelivery.objects.get(offer=offer)
    assert delivery.status == DeliveryStatus.SENT
    assert delivery.attempts == 3


@pytest.mark.django_db
def test_it_records_other_failures_for_house(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("phone"))
    push_service.answer("phone", 400)
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)

    delivery = PushDelivery.objects.get(offer=offer)
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_error.startswith("400")
    assert PushSubscription.objects.filter(user=table.players[0]).exists()


@pytest.mark.django_db(transaction=True)
def test_it_sends_one_reminder_when_the_countdown_and_the_sweep_race(
    push_service: PushService,
) -> None:
    table = make_table("league", players=2, start=True)
    subscribe(table, 0, push_service.device("phone"))
    offer = pending_offer(table, 0)
    make_due(offer)
    barrier = threading.Barrier(4)
    results: list[int] = []

    def race(work: object) -> None:
        try:
            barrier.wait()
            results.append(work())  # type: ignore[operator]
        finally:
            connection.close()

    threads = [
        threading.Thread(target=race, args=(lambda: send_reminder(offer.pk),)),
        threading.Thread(target=race, args=(lambda: send_reminder(offer.pk),)),
        threading.Thread(target=race, args=(sweep_reminders,)),
        threading.Thread(target=race, args=(sweep_reminders,)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == [0, 0, 0, 1]
    assert len(push_service.wait_for(1)) == 1
    assert PushDelivery.objects.filter(offer=offer).count() == 1
