"""Sign-up answers the same whether or not an email has an account: nobody learns who plays."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from accounts.models import User
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough password 1"


def sign_up(client: Client, email: str) -> tuple[int, str, str]:
    response = client.post(
        "/accounts/signup/",
        {"email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": "Newcomer"},
        follow=True,
    )
    # Only what differs by request anyway: the CSRF tokens and the CSP nonces.
    page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())
    page = re.sub(r'"X-CSRFToken": "[^"]+"', "", page)
    page = re.sub(r'nonce="[^"]+"', "", page)
    page = re.sub(r"[\w.+-]+@example\.com", "EMAIL", page)
    return response.status_code, response.redirect_chain[-1][0], page


def test_an_existing_email_gets_the_same_answer_as_a_new_one() -> None:
    player = make_user()
    taken = sign_up(Client(), player.email)
    fresh = sign_up(Client(), "someone.new@example.com")
    assert taken == fresh
    assert "code" in taken[2].lower()
    assert User.objects.filter(email__iexact=player.email).count() == 1


def test_the_owner_is_told_and_the_newcomer_gets_a_code_that_signs_them_in() -> None:
    player = make_user()
    client = Client()
    sign_up(Client(), player.email)
    (told,) = [m for m in mail.outbox if player.email in m.to]
    assert "already" in told.body.lower()

    sign_up(client, "newcomer@example.com")
    (message,) = [m for m in mail.outbox if "newcomer@example.com" in m.to]
    code = re.search(r"^\s*([A-Z0-9]{4}-[A-Z0-9]{4})\s*$", str(message.body), re.MULTILINE)
    assert code is not None, message.body
    assert client.session.get("_auth_user_id") is None
    response = client.post("/accounts/confirm-email/", {"code": code[1]}, follow=True)
    assert response.status_code == 200
    newcomer = User.objects.get(email="newcomer@example.com")
    assert client.session.get("_auth_user_id") == str(newcomer.pk)
    assert newcomer.display_name == "Newcomer"


def test_accounts_made_by_staff_sign_in_without_a_code() -> None:
    player = make_user()
    client = Client()
    client.post(
        "/accounts/login/", {"login": player.email, "password": "correct horse battery staple"}
    )
    assert client.session.get("_auth_user_id") == str(player.pk)
