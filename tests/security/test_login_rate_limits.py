"""Failed sign-in limits live in Redis and refuse password guessing: allauth's per address
(ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip"}) and a per-account backoff that spares the
owner's own devices (accounts/lockout.py; tests/security/test_lockout.py).

Each test counts under its own cache key prefix on the real Redis (other runs share the server)
and clears it before and after. Client IPs come from the documentation ranges.
"""

from __future__ import annotations

import logging

import pytest
import redis
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client

from accounts.models import User
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests/factories.make_user's
TOO_MANY = "Too many failed login attempts"


def sign_in(email: str, password: str, ip: str) -> tuple[Client, str]:
    client = Client()
    response = client.post(
        "/accounts/login/", {"login": email, "password": password}, REMOTE_ADDR=ip
    )
    return client, response.content.decode() if response.status_code == 200 else ""


def is_signed_in(client: Client, user: User) -> bool:
    return client.session.get("_auth_user_id") == str(user.pk)


def test_the_counts_are_kept_in_redis(cache_prefix: str) -> None:
    assert isinstance(caches["default"], RedisCache)
    sign_in("nobody@example.com", "guess", "192.0.2.10")
    server = redis.Redis.from_url(django_settings.REDIS_URL)
    keys = [key.decode() for key in server.scan_iter(match=f"{cache_prefix}:*")]
    assert any(":allauth:rl:allauth.account:login_failed:" in key for key in keys), keys


def test_one_address_guessing_passwords_is_refused_but_not_everyone_else(
    cache_prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    player = make_user()
    guesser, elsewhere = "192.0.2.20", "198.51.100.20"
    for attempt in range(10):
        client, page = sign_in(f"guess{attempt}@example.com", "password1", guesser)
        assert "The email address and/or password you specified are not correct" in page
    caplog.set_level(logging.INFO, logger="syndicate.security")
    caplog.clear()

    # The eleventh try from that address is refused before the password is even checked.
    client, page = sign_in(player.email, PASSWORD, guesser)
    assert TOO_MANY in page
    assert not is_signed_in(client, player)
    logged = [r.getMessage() for r in caplog.records if r.name == "syndicate.security"]
    assert logged == [
        "refused code=too_many_login_attempts action=account_login method=POST "
        f"path=/accounts/login/ user=anonymous ip={guesser}"
    ]

    # The same player, with the right password, from another address: signed in.
    client, _ = sign_in(player.email, PASSWORD, elsewhere)
    assert is_signed_in(client, player)


def test_an_account_under_attack_is_locked_for_a_while_but_others_are_not(
    cache_prefix: str,
) -> None:
    victim, other = make_user(), make_user()
    for n in range(5):  # five wrong passwords, each from its own address
        sign_in(victim.email, "password1", f"203.0.113.{n + 1}")

    # The account backs off: even the right password, from a fresh address on a device that never
    # signed in to it, is refused (it lifts by itself, on a password reset, or from the owner's
    # own devices: tests/security/test_lockout.py).
    client, page = sign_in(victim.email, PASSWORD, "203.0.113.50")
    assert TOO_MANY in page
    assert not is_signed_in(client, victim)

    # Nobody else is affected, from that address or any other.
    client, _ = sign_in(other.email, PASSWORD, "203.0.113.50")
    assert is_signed_in(client, other)


def test_a_right_password_does_not_use_up_the_allowance(cache_prefix: str) -> None:
    player = make_user()
    for _ in range(12):  # more than either limit
        client, _ = sign_in(player.email, PASSWORD, "192.0.2.30")
        assert is_signed_in(client, player)
