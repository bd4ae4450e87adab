"""POST /push/subscribe as an attacker would: endpoints off the push services, oversized or
false keys, too many devices, someone else's device. Each is refused and changes nothing."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from cards.models import Offer
from push import reminders
from push.keys import generate
from push.models import DeliveryStatus, PushDelivery, PushSubscription
from push.subscriptions import endpoint_allowed
from tests.factories import make_table, make_user
from tests.push.standin import Device, PushService, b64encode

pytestmark = pytest.mark.django_db


DEVICE = Device(endpoint="unused")
P256DH, AUTH = DEVICE.p256dh, DEVICE.auth

REFUSED_ENDPOINTS = [
    "http://fcm.googleapis.com/fcm/send/abc",
    "https://127.0.0.1/push/abc",
    "https://127.0.0.1:8000/push/abc",
    "https://localhost/push/abc",
    "https://10.0.0.5/push/abc",
    "https://192.168.1.1/push/abc",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/push/abc",
    "https://[fd00::1]/push/abc",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://fcm.googleapis.com.evil.example/fcm/send/abc",
    "https://fcm.googleapis.com./fcm/send/abc",
    "https://evil.example/fcm.googleapis.com/",
    "https://fcm.googleapis.com@127.0.0.1/fcm/send/abc",
    "https://user:secret@fcm.googleapis.com/fcm/send/abc",
    "https://fcm.googleapis.com\\@127.0.0.1/fcm/send/abc",
    "https://127.0.0.1#@fcm.googleapis.com/",
    "https://fcm.googleapis.com:8443/fcm/send/abc",
    "https://fcm.googleapis.com:0/fcm/send/abc",
    "https://evilpush.apple.com/abc",
    "https://push.apple.com.evil.example/abc",
    "https://notify.windows.com/abc",
    "https:///fcm/send/abc",
    "ftp://fcm.googleapis.com/abc",
    "https://fcm.googleapis.com/" + "a" * 1000,
    "https://fcm.googleapis.com/fcm/send/a b",
]
ACCEPTED_ENDPOINTS = [
    "https://fcm.googleapis.com/fcm/send/dZ3kq9:APA91bH",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABm",
    "https://web.push.apple.com/QGx9_xPdYo",
    "https://api.push.apple.com/3/device/abc",
    "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAC",
    "https://FCM.googleapis.com:443/fcm/send/abc",
]


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def subscribe(client: Client, endpoint: str, p256dh: Any = P256DH, auth: Any = AUTH) -> Any:
    body = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    return client.post("/push/subscribe", json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("endpoint", REFUSED_ENDPOINTS)
def test_an_endpoint_off_the_push_services_is_refused(endpoint: str) -> None:
    response = subscribe(signed_in(make_user()), endpoint)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert "push" in response.json()["error"]["message"]
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize("endpoint", ACCEPTED_ENDPOINTS)
def test_an_endpoint_on_a_browsers_push_service_is_stored(endpoint: str) -> None:
    user = make_user()
    response = subscribe(signed_in(user), endpoint)
    assert response.status_code == 200, response.content
    assert PushSubscription.objects.get().user == user


def test_the_allow_list_can_be_extended(settings: Any) -> None:
    endpoint = "https://push.example.net/abc"
    assert not endpoint_allowed(endpoint)
    settings.PUSH_SERVICE_HOSTS = [*settings.PUSH_SERVICE_HOSTS, "push.example.net"]
    assert endpoint_allowed(endpoint)
    assert not endpoint_allowed("https://sub.push.example.net/abc")


BAD_KEYS = [
    ("p" * 300, AUTH, "p256dh"),
    (P256DH, "a" * 300, "auth"),
    (P256DH[:-2], AUTH, "p256dh"),  # 64 bytes
    (P256DH, AUTH[:-2], "auth"),  # 15 bytes
    (b64encode(b"\x04" + b"\x01" * 64), AUTH, "p256dh"),  # 65 bytes, not a point on the curve
    (P256DH[:-1] + "!", AUTH, "p256dh"),
    (P256DH, AUTH + "%%", "auth"),
    ("", AUTH, "p256dh"),
    (P256DH, "", "auth"),
    (12345, AUTH, "p256dh"),
    (P256DH, ["a"], "auth"),
]


@pytest.mark.parametrize(("p256dh", "auth", "named"), BAD_KEYS)
def test_keys_that_are_not_a_browsers_are_refused(p256dh: Any, auth: Any, named: str) -> None:
    response = subscribe(
        signed_in(make_user()), "https://fcm.googleapis.com/fcm/send/x", p256dh, auth
    )
    assert response.status_code == 400, response.content
    assert named in response.json()["error"]["message"]
    assert not PushSubscription.objects.exists()


def test_an_account_keeps_its_five_newest_devices() -> None:
    user = make_user()
    client = signed_in(user)
    for n in range(7):
        assert (
            subscribe(client, f"https://fcm.googleapis.com/fcm/send/device{n}").status_code == 200
        )
    kept = PushSubscription.objects.filter(user=user).order_by("created_at", "pk")
    assert [s.endpoint[-7:] for s in kept] == [f"device{n}" for n in range(2, 7)]


def test_someone_elses_device_cannot_be_taken_over() -> None:
    owner, attacker = make_user(), make_user()
    endpoint = "https://fcm.googleapis.com/fcm/send/owners-phone"
    assert subscribe(signed_in(owner), endpoint).status_code == 200
    other = Device(endpoint="unused")

    response = subscribe(signed_in(attacker), endpoint, other.p256dh, other.auth)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "wrong_state"
    response = subscribe(signed_in(attacker), endpoint)  # even with the owner's own keys
    assert response.status_code == 409
    removed = signed_in(attacker).post(
        "/push/unsubscribe", json.dumps({"endpoint": endpoint}), content_type="application/json"
    )
    assert removed.json() == {"subscribed": False, "removed": 0}

    subscription = PushSubscription.objects.get(endpoint=endpoint)
    assert (subscription.user, subscription.p256dh, subscription.auth) == (owner, P256DH, AUTH)


def test_the_owner_may_subscribe_the_same_device_again() -> None:
    owner = make_user()
    endpoint = "https://fcm.googleapis.com/fcm/send/owners-phone"
    assert subscribe(signed_in(owner), endpoint).status_code == 200
    renewed = Device(endpoint="unused")
    assert subscribe(signed_in(owner), endpoint, renewed.p256dh, renewed.auth).status_code == 200
    assert PushSubscription.objects.get().p256dh == renewed.p256dh


@pytest.mark.django_db
def test_the_worker_never_connects_to_an_endpoint_stored_before_the_allow_list(
    settings: Any,
) -> None:
    keys = generate()
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = keys.public_key, keys.private_key
    table = make_table("league", players=2, start=True)
    with PushService(keys.public_key) as service:
        phone = service.device("phone")
        # Written straight to the table, as an older release accepted it.
        PushSubscription.objects.create(
            user=table.players[0], endpoint=phone.endpoint, p256dh=phone.p256dh, auth=phone.auth
        )
        offer = Offer.objects.get(registration=table.registration(table.players[0]))
        past = timezone.now() - datetime.timedelta(seconds=181)
        Offer.objects.filter(pk=offer.pk).update(offered_at=past, reminder_due_at=past)
        (delivery_id,) = reminders.claim(offer.pk)
        assert reminders.deliver(delivery_id) == "failed"
        assert service.received == [] and service.refused == []
    delivery = PushDelivery.objects.get(pk=delivery_id)
    assert delivery.status == DeliveryStatus.FAILED
    assert "not on a browser's push service" in delivery.last_error
    assert not PushSubscription.objects.exists()
