"""allauth's email page, as a player trying to take someone else's email: refused, never a 500."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
import redis
from allauth.account.models import EmailAddress
from django.conf import settings as django_settings
from django.contrib.messages import get_messages
from django.core import mail
from django.test import Client
from pytest_django.fixtures import Settings

from accounts.models import User
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_rate_limit_counts(settings: Settings) -> Iterator[None]:
    """allauth counts email changes per account id in Redis: under a prefix of this test's own."""
    prefix = f"emailtest-{uuid.uuid4().hex}"
    server = redis.Redis.from_url(django_settings.REDIS_URL)
    settings.CACHES = {"default": {**django_settings.CACHES["default"], "KEY_PREFIX": prefix}}
    yield
    for key in server.scan_iter(match=f"{prefix}:*"):
        server.delete(key)


def signed_in(user: User) -> Client:
    """A client on the email page (whose first visit records the account's own address)."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    assert client.get("/accounts/email/").status_code == 200
    return client


def addresses() -> list[tuple[int, str, bool]]:
    return list(EmailAddress.objects.order_by("pk").values_list("user_id", "email", "primary"))


@pytest.mark.parametrize("spelling", [str.lower, str.upper, str.title])
def test_adding_another_accounts_email_is_refused(spelling: object) -> None:
    owner, taker = make_user(), make_user()
    client = signed_in(taker)
    before = addresses()
    response = client.post(
        "/accounts/email/",
        {"action_add": "", "email": spelling(owner.email)},  # type: ignore[operator]
    )
    assert response.status_code == 200
    assert "That email belongs to another account." in response.content.decode()
    assert addresses() == before
    assert User.objects.get(pk=taker.pk).email != owner.email


def test_adding_an_address_another_account_added_is_refused() -> None:
    owner, taker = make_user(), make_user()
    EmailAddress.objects.create(user=owner, email="second@example.com", verified=True)
    response = signed_in(taker).post(
        "/accounts/email/", {"action_add": "", "email": "Second@Example.com"}
    )
    assert "That email belongs to another account." in response.content.decode()
    assert EmailAddress.objects.filter(email__iexact="second@example.com").count() == 1
    assert not [m for m in mail.outbox if "second@example.com" in m.to]


def test_make_primary_with_another_accounts_email_answers_with_a_message_not_a_500() -> None:
    owner, taker = make_user(), make_user()
    # An address stored before the check (or won in a race): the taker holds the owner's email.
    EmailAddress.objects.create(user=taker, email=owner.email, primary=False, verified=False)
    client = signed_in(taker)
    response = client.post("/accounts/email/", {"action_primary": "", "email": owner.email})
    assert response.status_code == 302
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("belongs to another account" in m for m in said), said
    assert User.objects.get(pk=taker.pk).email != owner.email
    assert User.objects.get(pk=owner.pk).email == owner.email
    assert client.get("/accounts/email/").status_code == 200


@pytest.mark.parametrize(
    "email", ["", "not-an-email", "nobody@example.com", "x" * 300 + "@example.com"]
)
def test_make_primary_with_odd_input_never_fails(email: str) -> None:
    client = signed_in(make_user())
    before = addresses()
    response = client.post("/accounts/email/", {"action_primary": "", "email": email})
    assert response.status_code in (200, 302)
    assert addresses() == before


def test_make_primary_of_ones_own_new_address_works() -> None:
    """Added with the code emailed to it, then made primary: the account's sign-in email."""
    player = make_user()
    client = signed_in(player)
    response = client.post("/accounts/email/", {"action_add": "", "email": "mine@example.com"})
    assert response.status_code == 302
    (message,) = [m for m in mail.outbox if "mine@example.com" in m.to]
    code = re.search(r"^\s*([A-Z0-9]{4}-[A-Z0-9]{4})\s*$", str(message.body), re.MULTILINE)
    assert code is not None
    client.post(response["Location"], {"code": code[1]})
    assert EmailAddress.objects.get(email="mine@example.com").verified
    response = client.post("/accounts/email/", {"action_primary": "", "email": "mine@example.com"})
    assert response.status_code == 302
    assert User.objects.get(pk=player.pk).email == "mine@example.com"
