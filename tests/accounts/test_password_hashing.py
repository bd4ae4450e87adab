"""Passwords are stored with Argon2id at OWASP's minimum; older PBKDF2 ones still sign in and are
stored again with Argon2id; sign-up and sign-in each hash the password once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.hashers import identify_hasher
from django.test import Client
from pytest_django.fixtures import Settings

from accounts.hashers import OwaspArgon2PasswordHasher
from accounts.models import User
from syndicate import settings as configured

PASSWORD = "cornhole-ann-77"


@pytest.fixture
def hashers(settings: Settings) -> None:
    """The project's hashers (the suite uses a fast one), sign-in without an emailed code."""
    settings.PASSWORD_HASHERS = configured.PASSWORD_HASHERS
    settings.ACCOUNT_EMAIL_VERIFICATION = "none"
    settings.ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = False


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each Argon2id computation: a password hashed, or one checked against its hash."""
    calls: list[str] = []
    encode: Callable[..., str] = OwaspArgon2PasswordHasher.encode
    verify: Callable[..., bool] = OwaspArgon2PasswordHasher.verify

    def counted_encode(self: Any, password: str, salt: str) -> str:
        calls.append("hash")
        return encode(self, password, salt)

    def counted_verify(self: Any, password: str, encoded: str) -> bool:
        calls.append("check")
        return verify(self, password, encoded)

    monkeypatch.setattr(OwaspArgon2PasswordHasher, "encode", counted_encode)
    monkeypatch.setattr(OwaspArgon2PasswordHasher, "verify", counted_verify)
    return calls


def sign_up(client: Client) -> Any:
    return client.post(
        "/accounts/signup/",
        {
            "email": "ann@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "display_name": "Ann",
        },
    )


def sign_in(client: Client, password: str = PASSWORD) -> Any:
    return client.post("/accounts/login/", {"login": "ann@example.com", "password": password})


def test_passwords_are_stored_with_argon2id_at_owasps_minimum() -> None:
    assert configured.PASSWORD_HASHERS[0] == "accounts.hashers.OwaspArgon2PasswordHasher"
    encoded = OwaspArgon2PasswordHasher().encode(PASSWORD, "somesaltvalue123")
    assert encoded.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    # Older hashes still verify: PBKDF2 stays listed after it.
    assert "django.contrib.auth.hashers.PBKDF2PasswordHasher" in configured.PASSWORD_HASHERS


@pytest.mark.django_db
def test_sign_up_and_sign_in_hash_the_password_once_each(
    client: Client, hashers: None, hashed: list[str]
) -> None:
    assert sign_up(client).status_code == 302
    assert hashed == ["hash"]
    user = User.objects.get(email="ann@example.com")
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")

    hashed.clear()
    client.logout()
    assert sign_in(client).status_code == 302
    assert hashed == ["check"]
    assert client.session.get("_auth_user_id") == str(user.pk)


@pytest.mark.django_db
def test_a_pbkdf2_password_still_signs_in_and_is_stored_again_with_argon2id(
    client: Client, hashers: None
) -> None:
    user = User.objects.create_user(email="ann@example.com", password=None, display_name="Ann")
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "oldsalt1234567890", iterations=1000)
    user.save(update_fields=["password"])

    assert sign_in(client, "not-the-password").status_code == 200
    user.refresh_from_db()
    assert identify_hasher(user.password).algorithm == "pbkdf2_sha256"  # a failure changes nothing

    assert sign_in(client).status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    client.logout()
    assert sign_in(client).status_code == 302
