"""Registering ahead for a capped event, on the phone and at House's table (events/waitlist.py):
past the capacity a player is waitlisted and sees their place in line; a freed place reaches them
live and they claim it in one tap; House promotes or removes a player in line with a reason. Where
the entry is paid ahead, Pay online reaches Stripe Checkout (the tests' local Stripe server) and
the page says the payment is pending until Stripe's signed webhook confirms it."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import expect

from events import services
from events.models import Event, Registration, RegistrationStatus
from tests.browser.test_event_flow import LAPTOP, PHONE, WAIT, next_step, sign_in
from tests.factories import make_user
from tests.payments.stripe_server import StripeServer
from tests.waiting import wait_until


def capped_event(house: Any, *, capacity: int, contribution: int = 0, **more: Any) -> int:
    event_id = services.event_create(
        by=house,
        name="Capped Night",
        date=datetime.date.today() + datetime.timedelta(days=7),
        format="league",
        contribution=contribution,
        remainder_policy="Rolls over to next week." if contribution else "",
        capacity=capacity,
        **more,
    ).event_id
    services.registration_open(event_id=event_id, by=house)
    return event_id


def phone(browser: Any, base: str, email: str) -> Any:
    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, base, email)
    return page


def register(page: Any, base: str, event_id: int) -> None:
    page.goto(f"{base}/events/{event_id}/")
    page.click("button:has-text('Register')")
    expect(page.locator(".next-step")).to_be_visible(timeout=WAIT)


def status_of(event_id: int, player: Any) -> str:
    return str(Registration.objects.get(event_id=event_id, player=player).status)


@pytest.mark.django_db(transaction=True)
def test_a_freed_place_reaches_the_first_in_line_live_and_is_claimed_in_one_tap(
    server: str, browser: Any
) -> None:
    house = make_user("Hattie House", staff=True)
    ann, bob = make_user("Ann"), make_user("Bob")
    event_id = capped_event(house, capacity=1)

    first = phone(browser, server, ann.email)
    register(first, server, event_id)
    assert next_step(first) == "Check in with House before playing."

    second = phone(browser, server, bob.email)
    second.goto(f"{server}/events/{event_id}/")
    expect(second.locator("[data-places]")).to_contain_text("registering puts you on the waitlist")
    register(second, server, event_id)
    expect(second.locator(".next-step .what")).to_have_text("You are #1 on the waitlist.")
    # The page is live before anything happens elsewhere.
    expect(second.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)

    # Ann is not coming: she cancels from her page, as before.
    first.click("a:has-text('Cancel your registration')")
    first.click("button:has-text('Cancel my registration')")
    expect(first.locator("button:has-text('Register')")).to_be_visible(timeout=WAIT)

    # Bob's page, not reloaded, is offered the place.
    expect(second.locator(".next-step .what")).to_contain_text(
        "A place is yours until", timeout=WAIT
    )
    claim = second.locator("button:has-text('Claim it')")
    expect(claim).to_be_enabled(timeout=WAIT)
    claim.click()
    expect(second.locator(".next-step .what")).to_have_text(
        "Check in with House before playing.", timeout=WAIT
    )
    assert status_of(event_id, bob) == RegistrationStatus.REGISTERED
    first.context.close()
    second.context.close()


@pytest.mark.django_db(transaction=True)
def test_house_promotes_and_removes_players_in_line_with_a_reason(
    server: str, browser: Any
) -> None:
    house = make_user("Hattie House", staff=True)
    ann, cat, dan = make_user("Ann"), make_user("Cat"), make_user("Dan")
    event_id = capped_event(house, capacity=1)
    for player in (ann, cat, dan):
        services.player_register(event_id=event_id, by=player)
    assert [status_of(event_id, p) for p in (ann, cat, dan)] == [
        "registered",
        "waitlisted",
        "waitlisted",
    ]
    dans = phone(browser, server, dan.email)
    dans.goto(f"{server}/events/{event_id}/")
    expect(dans.locator(".next-step .what")).to_have_text("You are #2 on the waitlist.")
    expect(dans.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)

    table = browser.new_context(viewport=LAPTOP).new_page()
    sign_in(table, server, house.email)
    table.goto(f"{server}/house/events/{event_id}/")
    waitlist = table.locator("#waitlist")
    expect(waitlist.locator("[data-places-held]")).to_contain_text("1 of 1 place held")
    expect(waitlist.locator("[data-waitlist-row]")).to_have_count(2)

    promote = waitlist.locator("[data-waitlist-row='Cat'] button:has-text('Promote')")
    expect(promote).to_be_enabled(timeout=WAIT)
    promote.click()
    dialog = table.locator("#dlg-promote")
    expect(dialog).to_be_visible()
    expect(dialog.locator("button[data-confirm]")).to_be_disabled()  # a reason first
    dialog.locator("textarea[name=reason]").fill("Cat drove two hours to be here.")
    dialog.locator("button[data-confirm]").click()
    expect(waitlist.locator("[data-waitlist-row]")).to_have_count(1, timeout=WAIT)
    expect(waitlist.locator("[data-places-held]")).to_contain_text("2 of 1 place", timeout=WAIT)
    assert status_of(event_id, cat) == RegistrationStatus.REGISTERED
    # Dan moved up, live.
    expect(dans.locator(".next-step .what")).to_have_text(
        "You are #1 on the waitlist.", timeout=WAIT
    )

    remove = waitlist.locator("[data-waitlist-row='Dan'] button:has-text('Remove')")
    expect(remove).to_be_enabled(timeout=WAIT)
    remove.click()
    dialog = table.locator("#dlg-remove")
    dialog.locator("textarea[name=reason]").fill("Asked to be taken off the list.")
    dialog.locator("button[data-confirm]").click()
    expect(waitlist.locator("[data-waitlist-row]")).to_have_count(0, timeout=WAIT)
    assert status_of(event_id, dan) == RegistrationStatus.CANCELLED
    actions = list(Event.objects.get(pk=event_id).audit_entries.values_list("action", "reason"))
    assert ("waitlist_promoted", "Cat drove two hours to be here.") in actions
    assert ("registration_removed", "Asked to be taken off the list.") in actions
    dans.context.close()
    table.context.close()


@pytest.fixture
def stripe(monkeypatch: pytest.MonkeyPatch) -> Iterator[StripeServer]:
    """The tests' local Stripe server, configured for daphne (started after this) and here."""
    local = StripeServer(api_key="sk_test_local", webhook_secret="whsec_test_local").start()
    for name, value in (
        ("STRIPE_SECRET_KEY", local.api_key),
        ("STRIPE_WEBHOOK_SECRET", local.webhook_secret),
        ("STRIPE_API_BASE", local.url),
        ("STRIPE_CURRENCY", "usd"),
    ):
        monkeypatch.setenv(name, value)
        monkeypatch.setattr(settings, name, value)
    try:
        yield local
    finally:
        local.stop()


@pytest.mark.django_db(transaction=True)
def test_pay_online_reaches_checkout_and_only_the_signed_webhook_marks_it_paid(
    stripe: StripeServer, server: str, browser: Any
) -> None:
    stripe.webhook_url = f"{server}/payments/stripe/webhook"
    house = make_user("Hattie House", staff=True)
    ann = make_user("Ann")
    event_id = capped_event(house, capacity=8, contribution=20, pay_ahead=True)

    page = phone(browser, server, ann.email)
    page.goto(f"{server}/events/{event_id}/")
    expect(page.locator("[data-pays-ahead]")).to_be_visible()
    register(page, server, event_id)
    expect(page.locator(".next-step .what")).to_contain_text("Pay the $20 entry online")
    pay = page.locator("button:has-text('Pay $20 online')")
    expect(pay).to_be_enabled(timeout=WAIT)
    pay.click()
    page.wait_for_url(f"{stripe.url}/c/pay/**", timeout=WAIT)
    session_id = page.url.rsplit("/", 1)[-1]
    assert stripe.sessions[session_id]["amount_total"] == 2000

    # Back from Checkout (not paid yet as far as the app knows): pending, never trusted.
    page.goto(f"{server}/events/{event_id}/?paid=1")
    expect(page.locator("[data-payment-pending]")).to_have_text(
        "Payment pending confirmation: this page updates as soon as Stripe confirms it."
    )
    registration = Registration.objects.get(event_id=event_id, player=ann)
    assert not registration.paid
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)

    stripe.pay(session_id)
    wait_until(lambda: Registration.objects.get(pk=registration.pk).paid, "the entry paid")
    expect(page.locator("[data-entry-paid]")).to_have_text("Your entry is paid.", timeout=WAIT)
    expect(page.locator(".next-step .what")).to_have_text("Check in with House before playing.")
    page.context.close()
