"""Sign-up and password emails (allauth's) in the person's language: the account's choice, else
the browser's asking now; and the browser's language is kept on the account for later emails."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import User
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough password 1"


def reset_subject(language: str) -> str:
    with translation.override(language):
        return gettext("Password Reset Email")


def test_a_password_reset_is_written_in_the_accounts_language_not_the_askers() -> None:
    ana = make_user("Ana")
    User.objects.filter(pk=ana.pk).update(language="es")

    Client(HTTP_ACCEPT_LANGUAGE="en").post("/accounts/password/reset/", {"email": ana.email})

    (message,) = mail.outbox
    assert reset_subject("es") != reset_subject("en")
    assert reset_subject("es") in message.subject


def test_without_a_choice_the_reset_follows_the_browser_asking() -> None:
    ben = make_user("Ben")

    Client(HTTP_ACCEPT_LANGUAGE="fr").post("/accounts/password/reset/", {"email": ben.email})

    (message,) = mail.outbox
    assert reset_subject("fr") in message.subject


def sign_up(accept_language: str, email: str) -> str:
    """Sign up from a browser asking for `accept_language`; the subject of the code's email."""
    Client(HTTP_ACCEPT_LANGUAGE=accept_language).post(
        "/accounts/signup/",
        {"email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": "New"},
    )
    (message,) = [m for m in mail.outbox if m.to == [email]]
    return str(message.subject)


def test_a_sign_up_keeps_the_browsers_language_and_mails_its_code_in_it() -> None:
    spanish = sign_up("es-MX,es;q=0.9", "nuevo@example.com")
    english = sign_up("en-US", "new@example.com")

    newcomer = User.objects.get(email="nuevo@example.com")
    assert (newcomer.language, newcomer.browser_language) == ("", "es")
    assert User.objects.get(email="new@example.com").browser_language == "en"
    assert spanish != english
