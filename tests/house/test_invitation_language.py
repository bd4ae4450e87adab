"""A staff invitation is emailed in its reader's language: the invitee's, when an account has
that address, else the inviter's (docs/decisions.md, "Languages")."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import formats, translation
from django.utils.translation import pgettext

from accounts.models import User
from events.models import Event
from staff.models import Invitation
from tests.factories import make_table, make_user
from tests.house.support import post

pytestmark = pytest.mark.django_db


def invite(client: Client, event: Event, email: str, capture: Any) -> Any:
    with capture(execute=True):
        response = post(client, "staff_invite", event.pk, email=email, role="cashier")
    assert response.status_code == 302
    (message,) = [m for m in mail.outbox if m.to == [email]]
    return message


def test_an_invitation_to_an_address_with_no_account_goes_in_the_inviters_language(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    table = make_table()
    User.objects.filter(pk=table.house.pk).update(language="fr")
    client.force_login(table.house)

    message = invite(client, table.event, "casey@example.com", django_capture_on_commit_callbacks)

    event = table.event
    with translation.override("fr"):
        date = formats.date_format(event.date, pgettext("invitation date", "l d F Y"))
    assert message.subject == f"Rejoignez l\u2019équipe de {event.name} en tant que caissier"
    assert str(message.body).startswith(
        f"{table.house.display_name} vous invite à diriger {event.name} ({date}) en tant que "
        "caissier."
    )
    invitation = Invitation.objects.get(event=event)
    assert invitation.token in str(message.body)
    assert "Sign in" not in str(message.body)


def test_an_invitee_with_an_account_reads_it_in_their_own_language(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    table = make_table()
    User.objects.filter(pk=table.house.pk).update(language="fr")
    casey = make_user("Casey")
    User.objects.filter(pk=casey.pk).update(language="es")
    client.force_login(table.house)

    message = invite(client, table.event, casey.email.upper(), django_capture_on_commit_callbacks)

    assert message.subject == f"Únete al equipo de {table.event.name} como cajero"
    assert "te invita a dirigir" in str(message.body)


def test_with_no_language_known_it_is_in_english(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    table = make_table()
    client.force_login(table.house)

    message = invite(client, table.event, "dana@example.com", django_capture_on_commit_callbacks)

    assert message.subject == f"Join the staff of {table.event.name} as cashier"
    assert "invites you to run" in str(message.body)
