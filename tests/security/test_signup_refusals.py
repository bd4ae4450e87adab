"""A refused sign-up changes nothing: no account, no email address, nobody signed in.

allauth sends the new account's code only after it has saved the account; when a code went to
that address moments before (its `confirm_email` limit, one per address per window) it answers
429. The sign-up runs in one transaction that the refusal rolls back (accounts/views.py).

Each test counts under its own cache key prefix on the real Redis and clears it before and after.
"""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from pytest_django.fixtures import Settings

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough password 1"


@pytest.fixture(autouse=True)
def rate_limits(settings: Settings) -> None:
    # One code per address per minute: the window the refused sign-up falls in.
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip", "confirm_email": "1/m/key"}


def sign_up(client: Client, email: str, name: str = "Newcomer") -> int:
    response = client.post(
        "/accounts/signup/",
        {"email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": name},
    )
    return response.status_code


def test_a_sign_up_refused_with_429_creates_no_account() -> None:
    """A code went to the address a moment ago (to an account removed since): the next sign-up
    with it is refused, and after the 429 no account exists."""
    email = "twice@example.com"
    assert sign_up(Client(), email) == 302
    (first,) = User.objects.filter(email__iexact=email)
    assert [m.to for m in mail.outbox] == [[email]]
    EmailAddress.objects.filter(user=first).delete()
    first.delete()  # site staff removed the account; the code was sent all the same

    client = Client()
    assert sign_up(client, email, name="Second") == 429
    assert not User.objects.filter(email__iexact=email).exists()
    assert not User.objects.filter(display_name="Second").exists()
    assert not EmailAddress.objects.filter(email__iexact=email).exists()
    assert client.session.get("_auth_user_id") is None
    assert len(mail.outbox) == 1  # no second code

    # The refusal left nothing behind: the sign-up page opens as for anyone.
    assert client.get("/accounts/signup/").status_code == 200
    assert client.get("/accounts/confirm-email/").status_code in (200, 302)
