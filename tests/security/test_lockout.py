"""Someone at the next table types a player's email with wrong passwords: they slow themselves
down, never the player, whose own phone still signs in with the right password."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core import mail, signing
from django.core.cache import cache
from django.test import Client
from pytest_django.fixtures import Settings

from accounts import lockout
from accounts.models import User
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests/factories.make_user's
TOO_MANY = "Too many failed login attempts"


def sign_in(client: Client, email: str, password: str, ip: str) -> str:
    response = client.post(
        "/accounts/login/", {"login": email, "password": password}, REMOTE_ADDR=ip
    )
    return response.content.decode() if response.status_code == 200 else ""


def signed_in_as(client: Client) -> str | None:
    return client.session.get("_auth_user_id")


def attack(email: str, times: int = 8) -> None:
    """Wrong passwords from fresh devices, each on its own address (no per-address limit)."""
    for n in range(times):
        sign_in(Client(), email, "wrong password", f"203.0.113.{n + 1}")


def test_the_owners_phone_signs_in_while_the_account_is_under_attack() -> None:
    player = make_user()
    phone = Client()
    sign_in(phone, player.email, PASSWORD, "192.0.2.1")
    assert signed_in_as(phone) == str(player.pk)
    assert lockout.DEVICE_COOKIE in phone.cookies
    phone.post("/accounts/logout/")
    assert signed_in_as(phone) is None

    attack(player.email)
    stranger = Client()
    assert TOO_MANY in sign_in(stranger, player.email, PASSWORD, "203.0.113.99")
    assert signed_in_as(stranger) is None

    # The phone that signed in before: the right password works, from the venue's address.
    assert TOO_MANY not in sign_in(phone, player.email, PASSWORD, "203.0.113.1")
    assert signed_in_as(phone) == str(player.pk)


def test_a_forged_or_borrowed_device_cookie_does_not_skip_the_backoff() -> None:
    player, attacker = make_user(), make_user()
    attack(player.email)
    forged = Client()
    forged.cookies[lockout.DEVICE_COOKIE] = signing.dumps([player.pk], salt="another salt")
    assert TOO_MANY in sign_in(forged, player.email, PASSWORD, "198.51.100.1")
    # A cookie of the attacker's own device names the attacker's account, not the player's.
    own = Client()
    sign_in(own, attacker.email, PASSWORD, "198.51.100.2")
    assert signed_in_as(own) == str(attacker.pk)
    own.post("/accounts/logout/")
    assert TOO_MANY in sign_in(own, player.email, PASSWORD, "198.51.100.2")
    assert signed_in_as(own) is None


def test_the_wait_doubles_with_each_failure_after_five() -> None:
    now = time.time()
    waits = [lockout.Failures(count, now).wait(now) for count in range(4, 12)]
    assert waits == [0, 30, 60, 120, 240, 480, 900, 900]
    assert lockout.Failures(5, now - 31).wait(now) == 0


def test_a_guesser_gets_one_try_per_wait_and_each_wait_is_longer(settings: Settings) -> None:
    player = make_user()
    attack(player.email, times=5)
    key = lockout._key(player.email)
    assert cache.get(key).count == 5
    assert TOO_MANY in sign_in(Client(), player.email, "guess", "198.51.100.3")
    assert cache.get(key).count == 5  # refused tries are not even counted

    # The 30 s have passed: one more guess is checked, then the wait is 60 s.
    cache.set(key, lockout.Failures(5, time.time() - 31), 3600)
    tried_at = time.time()
    page = sign_in(Client(), player.email, "guess", "198.51.100.4")
    assert TOO_MANY not in page and "not correct" in page
    failures = cache.get(key)
    # Counted from the failed try, which came after `tried_at`: however slow the machine.
    now = time.time()
    assert failures.count == 6 and 60 - (now - tried_at) <= failures.wait(now) <= 60


def test_the_right_password_from_a_new_device_clears_the_failures() -> None:
    player = make_user()
    attack(player.email, times=4)
    client = Client()
    sign_in(client, player.email, PASSWORD, "198.51.100.5")
    assert signed_in_as(client) == str(player.pk)
    assert cache.get(lockout._key(player.email)) is None


def test_a_password_reset_lifts_the_backoff(settings: Any) -> None:
    player = make_user()
    attack(player.email)
    client = Client()
    client.post("/accounts/password/reset/", {"email": player.email})
    (message,) = mail.outbox
    link = next(word for word in message.body.split() if "/password/reset/key/" in word)
    response = client.get(link, follow=True)
    form_url = response.redirect_chain[-1][0]
    new_password = "a new horse battery staple"
    client.post(form_url, {"password1": new_password, "password2": new_password})
    assert User.objects.get(pk=player.pk).check_password(new_password)

    fresh = Client()
    sign_in(fresh, player.email, new_password, "198.51.100.6")
    assert signed_in_as(fresh) == str(player.pk)
