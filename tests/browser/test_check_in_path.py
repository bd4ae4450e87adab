"""From the board's QR to checked in, in a fresh browser: the self check-in address with its
code, sign-up (with the emailed code) or sign-in, and one tap that registers and checks in."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from events import services
from events.models import Registration
from tests.browser.test_event_flow import PASSWORD, PHONE, WAIT, emailed_code, shot, sign_in
from tests.factories import Table, make_table, make_user


def qr_address(server: str, table: Table) -> tuple[str, str]:
    """House switches self check-in on; the board's QR opens this address."""
    code = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True).code
    assert code is not None
    return code, f"{server}/events/{table.event.pk}/check-in?code={code}"


def fresh_phone(browser: Any) -> Any:
    return browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True).new_page()


@pytest.mark.django_db(transaction=True)
def test_a_new_player_goes_from_the_qr_through_sign_up_to_checked_in(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=1)
    code, address = qr_address(server, table)
    phone = fresh_phone(browser)
    phone.goto(address)
    expect(phone.get_by_role("heading", level=1)).to_have_text(
        "Sign up to check in at Thursday League"
    )
    phone.fill("input[name=email]", "quinn@example.com")
    phone.fill("input[name=display_name]", "Quinn QR")
    phone.fill("input[name=password1]", PASSWORD)
    phone.fill("input[name=password2]", PASSWORD)
    shot(phone, "qr-01-sign-up")
    phone.click("form button[type=submit]")
    # The site sends a code to confirm the address (daphne's console mailer, in its log).
    phone.fill("input[name=code]", emailed_code("quinn@example.com"))
    phone.click("form button[type=submit]")
    expect(phone).to_have_url(address, timeout=WAIT)
    expect(phone.get_by_label("Check-in code")).to_have_value(code)
    shot(phone, "qr-02-register-and-check-in")
    phone.get_by_role("button", name="Register and check in").click()
    expect(phone).to_have_url(f"{server}/events/{table.event.pk}/", timeout=WAIT)
    expect(phone.locator(".message.success")).to_contain_text("You are checked in")
    expect(phone.locator(".next-step")).to_have_attribute("data-step", "wait_start")
    shot(phone, "qr-03-checked-in")
    registration = Registration.objects.get(event=table.event, player__email="quinn@example.com")
    assert registration.status == "checked_in"
    phone.context.close()


@pytest.mark.django_db(transaction=True)
def test_an_existing_player_goes_from_the_qr_through_sign_in_to_checked_in(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=1)
    ann = make_user("Ann")
    code, address = qr_address(server, table)
    phone = fresh_phone(browser)
    phone.goto(address)
    phone.locator("main").get_by_role("link", name="sign in").click()
    expect(phone.get_by_role("heading", level=1)).to_have_text(
        "Sign in to check in at Thursday League"
    )
    phone.fill("input[name=login]", ann.email)
    phone.fill("input[name=password]", PASSWORD)
    shot(phone, "qr-sign-in")
    phone.click("form button[type=submit]")
    expect(phone).to_have_url(address, timeout=WAIT)
    expect(phone.get_by_label("Check-in code")).to_have_value(code)
    phone.get_by_role("button", name="Register and check in").click()
    expect(phone).to_have_url(re.compile(rf".*/events/{table.event.pk}/$"), timeout=WAIT)
    expect(phone.locator(".next-step")).to_have_attribute("data-step", "wait_start")
    assert table.registration(ann).status == "checked_in"
    phone.context.close()


@pytest.mark.django_db(transaction=True)
def test_at_an_event_asking_an_age_the_qrs_one_tap_asks_it_and_keeps_the_code(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=1)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"minimum_age": 21})
    ann = make_user("Ann")
    code, address = qr_address(server, table)
    phone = fresh_phone(browser)
    sign_in(phone, server, ann.email)
    phone.goto(address)
    expect(phone.get_by_label("Check-in code")).to_have_value(code)
    age = phone.get_by_label("I am 21 or over")
    expect(age).not_to_be_checked()
    tap = phone.get_by_role("button", name="Register and check in")
    tap.click()
    # The box is required: the browser holds the form and nothing is registered.
    expect(phone).to_have_url(address)
    assert not Registration.objects.filter(event=table.event, player=ann).exists()
    age.check()
    shot(phone, "qr-age-confirmed")
    tap.click()
    expect(phone).to_have_url(f"{server}/events/{table.event.pk}/", timeout=WAIT)
    expect(phone.locator(".next-step")).to_have_attribute("data-step", "wait_start")
    registration = table.registration(ann)
    assert (registration.status, registration.age_confirmed) == ("checked_in", True)
    phone.context.close()
