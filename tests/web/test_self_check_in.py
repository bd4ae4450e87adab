"""The way from the board's QR to checked in: the self check-in address with its code, through
sign-up or sign-in (the code carried in `next`), to one step that registers and checks in."""

from __future__ import annotations

import datetime
import re
import uuid
from html import unescape
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.contrib.messages import get_messages
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events import services
from tests.factories import Table, make_table, make_user
from tests.refusals import refused_by_page

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough password 1"


def switch_on(table: Table) -> str:
    code = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True).code
    assert code is not None
    return code


def qr_address(table: Table, code: str) -> str:
    """What the board's QR opens."""
    return f"{reverse('web:self_check_in', args=[table.event.pk])}?code={code}"


def text(response: Any) -> str:
    """The page's words, tags and runs of spaces dropped."""
    html = response.content.decode()
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def heading(response: Any) -> str:
    found = re.search(r"<h1[^>]*>(.*?)</h1>", response.content.decode(), re.S)
    assert found is not None
    return re.sub(r"\s+", " ", found[1]).strip()


def code_box(response: Any) -> str:
    found = re.search(r'<input id="check-in-code"[^>]*value="([^"]*)"', response.content.decode())
    assert found is not None, response.content.decode()
    return found[1]


def sign_up(client: Client, next_url: str, email: str = "newcomer@example.com") -> Any:
    return client.post(
        f"{reverse('account_signup')}?{urlencode({'next': next_url})}",
        {
            "email": email,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "display_name": "Newcomer",
            "next": next_url,
        },
    )


def emailed_code(address: str) -> str:
    (message,) = [m for m in mail.outbox if address in m.to]
    found = re.search(r"^\s*([A-Z0-9]{4}-[A-Z0-9]{4})\s*$", str(message.body), re.MULTILINE)
    assert found is not None, message.body
    return found[1]


def test_a_signed_out_visitor_is_sent_to_sign_up_with_the_address_and_code_as_next(client):
    table = make_table()
    code = switch_on(table)
    response = client.get(qr_address(table, code))
    assert response.status_code == 302
    assert response["Location"] == (
        f"{reverse('account_signup')}?next={quote(qr_address(table, code), safe='/')}"
    )


def test_sign_up_and_sign_in_name_the_event_and_link_to_each_other_keeping_next(client):
    table = make_table()
    code = switch_on(table)
    signup = client.get(client.get(qr_address(table, code))["Location"])
    assert heading(signup) == "Sign up to check in at Thursday League"
    next_param = urlencode({"next": qr_address(table, code)})
    login_link = f"{reverse('account_login')}?{next_param}"
    # Both "sign in" links, the page's and the header's, keep it.
    assert signup.content.decode().replace("&amp;", "&").count(f'href="{login_link}"') == 2
    signin = client.get(login_link)
    assert heading(signin) == "Sign in to check in at Thursday League"
    signup_link = f"{reverse('account_signup')}?{next_param}"
    assert f'href="{signup_link}"' in signin.content.decode().replace("&amp;", "&")
    assert 'name="next"' in signin.content.decode()


@pytest.mark.parametrize(
    "next_url",
    [
        "https://elsewhere.example/events/{id}/check-in?code=ABC",
        "//elsewhere.example/events/{id}/check-in",
        "/events/{id}/",
        "/events/999999999/check-in",
        "",
    ],
)
def test_the_pages_name_no_event_for_any_other_next(client, next_url):
    table = make_table()
    switch_on(table)
    query = urlencode({"next": next_url.format(id=table.event.pk)})
    assert heading(client.get(f"{reverse('account_login')}?{query}")) == "Sign In"
    assert heading(client.get(f"{reverse('account_signup')}?{query}")) == "Sign Up"


def test_the_pages_name_no_draft_event(client):
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Secret Draft", date=datetime.date(2026, 12, 3), format="league"
    ).event_id
    query = urlencode({"next": reverse("web:self_check_in", args=[event_id])})
    page = client.get(f"{reverse('account_login')}?{query}")
    assert heading(page) == "Sign In" and "Secret Draft" not in text(page)


@pytest.mark.parametrize("email_code", [True, False])
def test_a_new_player_signs_up_and_comes_back_with_the_code_filled_in(client, settings, email_code):
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory" if email_code else "none"
    settings.ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = email_code
    table = make_table()
    code = switch_on(table)
    response = sign_up(client, qr_address(table, code))
    if email_code:
        response = client.post(
            reverse("account_email_verification_sent"),
            {"code": emailed_code("newcomer@example.com")},
        )
    assert response.status_code == 302
    assert response["Location"] == qr_address(table, code)
    page = client.get(response["Location"])
    assert code_box(page) == code
    assert "Register and check in" in text(page)
    assert "Prize contribution" in text(page)  # what registering commits to, as on the event page


def test_an_existing_player_signs_in_and_comes_back_with_the_code_filled_in(client):
    table = make_table()
    code = switch_on(table)
    player = make_user("Ann")
    player.set_password(PASSWORD)
    player.save(update_fields=["password"])
    response = client.post(
        f"{reverse('account_login')}?{urlencode({'next': qr_address(table, code)})}",
        {"login": player.email, "password": PASSWORD, "next": qr_address(table, code)},
    )
    assert response.status_code == 302
    assert response["Location"] == qr_address(table, code)
    assert code_box(client.get(response["Location"])) == code


def test_one_tap_registers_and_checks_in_a_player_not_registered(client):
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    client.force_login(ann)
    response = client.post(
        reverse("web:self_check_in", args=[table.event.pk]),
        {"code": code, "idempotency_key": uuid.uuid4().hex},
    )
    assert response["Location"] == reverse("web:event", args=[table.event.pk])
    assert table.registration(ann).status == "checked_in"
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "You are checked in. Good luck!"
    ]


def test_a_refusal_keeps_the_code_that_was_typed(client):
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    client.force_login(ann)
    wrong = "".join("A" if ch != "A" else "B" for ch in code)
    response = client.post(
        reverse("web:self_check_in", args=[table.event.pk]),
        {"code": wrong.lower(), "idempotency_key": uuid.uuid4().hex},
    )
    assert response["Location"] == qr_address(table, wrong)
    assert not table.event.registrations.filter(player=ann).exists()


def test_with_registration_closed_a_new_player_is_told_to_ask_house(client):
    table = make_table("league", players=2)
    code = switch_on(table)
    services.registration_close(event_id=table.event.pk, by=table.house)
    client.force_login(make_user("Ann"))
    page = client.get(qr_address(table, code))
    assert "Registration is closed for this event." in text(page)
    assert "Ask House" in text(page)
    assert 'id="check-in-code"' not in page.content.decode()


def test_the_code_box_shows_only_what_can_be_a_code(client):
    table = make_table()
    switch_on(table)
    client.force_login(make_user("Ann"))
    address = reverse("web:self_check_in", args=[table.event.pk])
    assert code_box(client.get(f"{address}?code=ab-c 2d3")) == "ABC2D3"
    assert code_box(client.get(f"{address}?code=%22%3E%3Cscript%3E")) == ""
    assert code_box(client.get(f"{address}?code=\u00b2\u00b3")) == ""


# The next step in words, with self check-in on or off


def player_page(client: Client, table: Table, player: User) -> str:
    client.force_login(player)
    response = client.get(reverse("web:event", args=[table.event.pk]))
    return text(response)


def test_the_next_step_names_the_boards_code_while_self_check_in_is_on(client):
    table = make_table()
    pat = make_user("Pat")
    table.register(pat)
    page = player_page(client, table, pat)
    assert "Check in with House before playing." in page
    assert "Check in with the board's code" not in page
    switch_on(table)
    page = player_page(client, table, pat)
    assert "Check in with the board's code or with House before playing." in page
    assert page.count("Check in with the board's code") == 2  # the step and its button
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=False)
    assert "Check in with House before playing." in player_page(client, table, pat)


def test_after_the_start_a_late_entrant_is_sent_to_house(client):
    table = make_table("league", players=2, start=True)
    switch_on(table)
    lou = make_user("Lou")
    table.register(lou)
    page = player_page(client, table, lou)
    assert "Check in with House before playing." in page
    assert "board's code" not in page


# The age an event asks, on every form that registers


def asks_age(table: Table, age: int = 21) -> None:
    services.event_update(event_id=table.event.pk, by=table.house, changes={"minimum_age": age})


def age_box(response: Any) -> bool:
    return 'name="age_confirmed" value="1" required' in response.content.decode()


def test_every_form_that_registers_asks_the_events_age_and_the_one_tap_keeps_the_code(client):
    table = make_table()
    asks_age(table)
    code = switch_on(table)
    ann = make_user("Ann")
    client.force_login(ann)
    register_page = client.get(reverse("web:event", args=[table.event.pk]))
    assert age_box(register_page) and "I am 21 or over" in text(register_page)
    page = client.get(qr_address(table, code))
    assert age_box(page) and "I am 21 or over" in text(page)
    assert code_box(page) == code
    address = reverse("web:self_check_in", args=[table.event.pk])
    refused = refused_by_page(
        lambda: client.post(address, {"code": code, "idempotency_key": uuid.uuid4().hex}),
        table.event,
        message="confirm your age to register",
        location=qr_address(table, code),
    )
    assert code_box(client.get(refused["Location"])) == code
    response = client.post(
        address, {"code": code, "age_confirmed": "1", "idempotency_key": uuid.uuid4().hex}
    )
    assert response["Location"] == reverse("web:event", args=[table.event.pk])
    registration = table.registration(ann)
    assert (registration.status, registration.age_confirmed) == ("checked_in", True)


def test_a_registered_player_checking_in_is_not_asked_the_age_again(client):
    table = make_table()
    asks_age(table)
    code = switch_on(table)
    ann = make_user("Ann")
    services.player_register(event_id=table.event.pk, by=ann, age_confirmed=True)
    client.force_login(ann)
    page = client.get(qr_address(table, code))
    assert not age_box(page) and code_box(page) == code


def test_an_event_asking_no_age_shows_no_age_box(client):
    table = make_table()
    code = switch_on(table)
    client.force_login(make_user("Ann"))
    assert not age_box(client.get(qr_address(table, code)))
    assert not age_box(client.get(reverse("web:event", args=[table.event.pk])))


def test_the_register_page_says_how_the_player_can_check_in(client):
    table = make_table()
    client.force_login(make_user("Ann"))
    address = reverse("web:event", args=[table.event.pk])
    page = text(client.get(address))
    assert "After registering, check in with House when you arrive" in page
    assert "board's code" not in page
    switch_on(table)
    response = client.get(address)
    page = text(response)
    assert "check in with the board's code or with House" in page
    assert "check in with House when you arrive" not in page
    assert f'href="{reverse("web:self_check_in", args=[table.event.pk])}"' in (
        response.content.decode()
    )
