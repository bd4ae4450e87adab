"""Where an invitation's link is (docs/decisions.md, "Where an invitation's link is"): an event's
and a series' are built the one way, on the site's address, and with no mail server nothing is
sent (not even to the worker's log, which would show the token) and House is told where the link
is to hand over."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from events.models import Event
from seasons.models import Series
from staff.models import Invitation
from tests.factories import make_table
from tests.house.support import post, url
from tests.refusals import said
from tests.seasons.test_series_staff import make_crew

pytestmark = pytest.mark.django_db

LAN = "http://192.168.1.20:8000"
NO_MAIL = {"default": {"BACKEND": "helpers.console_mail.ConsoleBackend"}}


def _signed_in(user: Any) -> Client:
    client = Client()  # the page opened at the browser's own address, `testserver`
    client.force_login(user)
    return client


def _invite_both(capture: Any) -> tuple[Client, str, Client, str, list[str]]:
    """An event's and a series' invitation made from House's pages; their pages and the notices."""
    table = make_table()
    crew = make_crew()
    house, owner = _signed_in(table.house), _signed_in(crew.people["owner"])
    with capture(execute=True):
        made = post(house, "staff_invite", table.event.pk, email="casey@example.com", role="scorer")
        made_series = owner.post(
            reverse("seasons:invite", args=[crew.series_id]),
            {"email": crew.newcomer.email, "role": "cashier", "idempotency_key": "invite-1"},
        )
    event_page = house.get(url("event_edit", table.event.pk)).content.decode()
    series_page = owner.get(reverse("seasons:series", args=[crew.series_id])).content.decode()
    return house, event_page, owner, series_page, [*said(made), *said(made_series)]


def test_an_event_and_a_series_invitation_link_are_both_on_the_site_address(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.SITE_URL = LAN
    _, event_page, _, series_page, _ = _invite_both(django_capture_on_commit_callbacks)
    event_token = Invitation.objects.of_kind(Event).get().token
    series_token = Invitation.objects.of_kind(Series).get().token
    event_link = LAN + reverse("house:invitation", args=[event_token])
    series_link = LAN + reverse("staff_invitation", args=[series_token])
    assert f'value="{event_link}"' in event_page
    assert f'value="{series_link}"' in series_page
    assert "testserver" not in event_page.split("invitation-link", 1)[1][:300]
    # The emails carry the very same links.
    bodies = {tuple(m.to): str(m.body) for m in mail.outbox}
    assert event_link in bodies[("casey@example.com",)]
    assert series_link in "".join(bodies.values())


def test_with_a_mail_server_house_is_told_the_invitation_was_emailed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    *_, notices = _invite_both(django_capture_on_commit_callbacks)
    assert notices[0].startswith("Invitation emailed to casey@example.com (scorer);")
    assert notices[1].startswith("Invitation emailed to ")
    assert all("its link is listed below to hand over" in notice for notice in notices)
    assert len(mail.outbox) == 2


def test_with_no_mail_server_nothing_is_sent_and_house_is_told_where_the_link_is(
    settings: Any, django_capture_on_commit_callbacks: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    settings.MAILERS = NO_MAIL
    _, event_page, _, series_page, notices = _invite_both(django_capture_on_commit_callbacks)
    for notice in notices:
        assert "Invitation emailed" not in notice
        assert notice.endswith(
            "No mail server is set, so nothing was emailed: hand them its link, listed below."
        )
    # The links are on the pages to hand over, and in no output of the process.
    event_token = Invitation.objects.of_kind(Event).get().token
    series_token = Invitation.objects.of_kind(Series).get().token
    assert event_token in event_page and series_token in series_page
    out, err = capfd.readouterr()
    assert event_token not in out + err and series_token not in out + err
    assert "Subject:" not in out
