"""The night's money in Chromium: collected beside the pool with comps apart, a cash box that
goes below $0 written with a true minus sign and a warning that leaves once cash comes in, a
sponsor's money recorded on the night page, and the leave page stating the refund policy."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from events import services
from events.models import Event
from ledger import services as ledger
from tests.browser.test_event_flow import LAPTOP, WAIT, shot
from tests.browser.test_live_pushes import logged_in
from tests.factories import make_table, make_user

MINUS = "\u2212"


@pytest.mark.django_db(transaction=True)
def test_collected_leaves_comps_apart_and_a_short_box_reads_minus_with_a_warning(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2, contribution=20)
    ann, bob = table.players
    ledger.entry_payment(
        event_id=table.event.pk,
        registration_id=table.rid(ann),
        by=table.house,
        method="comp",
        reason="Sponsor's guest",
    )
    cal = make_user("Cal")
    table.register(cal)
    ledger.entry_payment(
        event_id=table.event.pk, registration_id=table.rid(cal), by=table.house, method="card"
    )
    services.registration_cancel(registration_id=table.rid(cal), by=cal)
    context = logged_in(browser, server, table.house)
    house = context.new_page()
    house.set_viewport_size(LAPTOP)

    # Cal's card entry is given back in cash: the box should hold less than nothing.
    house.goto(f"{server}/house/events/{table.event.pk}/night")
    form = house.locator("#refund-form")
    form.get_by_label("Dollars").fill("20")
    form.get_by_label("Method").select_option("cash")
    form.get_by_label("Reason").fill("Cannot come after all")
    form.get_by_role("button", name="Record the refund").click()
    expect(house.locator(".message")).to_contain_text(
        f"Refund recorded: $20 (cash). Warning: the box should hold {MINUS}$20", timeout=WAIT
    )
    expect(house.locator("#expected-cash")).to_have_text(f"{MINUS}$20")
    expect(house.locator("#night-short")).to_be_visible()
    expect(house.locator("#night-collected")).to_have_text("$0")
    shot(house, "house-night-short")

    # The dashboard: the same box and its warning; collected leaves the comp apart.
    house.goto(f"{server}/house/events/{table.event.pk}/")
    expect(house.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    expect(house.locator("#cash-box-expected")).to_have_text(f"{MINUS}$20")
    expect(house.locator("#cash-box-short")).to_be_visible()
    collected = house.locator("#registration .collected")
    expect(collected).to_have_text("Collected: $0 (0 paid) · comped apart: 1 entry, $20 waived")
    expect(house.locator(f"#house-row-{table.rid(ann)} .paid-toggle")).to_have_text(
        f"Comped — {table.registration(ann).label}"
    )
    shot(house, "house-cash-box-short")
    # Bob pays $20 at the table: the box is back to $0 and the warning goes, live.
    house.locator(f"#house-row-{table.rid(bob)}").get_by_role("button", name="Not paid").click()
    expect(collected).to_have_text(
        "Collected: $20 (1 paid) · comped apart: 1 entry, $20 waived", timeout=WAIT
    )
    expect(house.locator("#cash-box-expected")).to_have_text("$0", timeout=WAIT)
    expect(house.locator("#cash-box-short")).to_have_count(0)
    expect(house.locator("#house-messages .message").last).to_contain_text(
        "marked paid: $20 collected", timeout=WAIT
    )
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_sponsors_money_is_recorded_on_the_night_page(server: str, browser: Any) -> None:
    table = make_table("league", players=2, contribution=0)
    services.event_update(
        event_id=table.event.pk,
        by=table.house,
        changes={"entry_mode": "sponsored", "sponsored_pool": 300},
    )
    context = logged_in(browser, server, table.house)
    house = context.new_page()
    house.set_viewport_size(LAPTOP)
    house.goto(f"{server}/house/events/{table.event.pk}/night")
    form = house.locator("#sponsor-form")
    expect(form).to_contain_text("$0 of $300 recorded")
    form.get_by_label("Dollars").fill("200")
    form.get_by_role("button", name="Record the sponsor's money").click()
    expect(house.locator(".message")).to_contain_text(
        "Sponsor's money recorded: $200 (cash), $100 of the sponsored pool still to come: "
        "$200 in the box.",
        timeout=WAIT,
    )
    expect(house.locator("#expected-cash")).to_have_text("$200")
    expect(house.locator("#night-difference")).to_contain_text(f"{MINUS}$100")
    expect(house.locator("#night-lines tbody tr").first).to_contain_text("Sponsor")
    shot(house, "house-night-sponsor")
    context.close()


@pytest.mark.django_db(transaction=True)
def test_the_leave_page_states_a_refund_policy_that_refunds_withdrawals(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2, contribution=10, start=True)
    Event.objects.filter(pk=table.event.pk).update(refund_policy="withdrawals")
    ann = table.players[0]
    context = logged_in(browser, server, ann)
    phone = context.new_page()
    phone.goto(f"{server}/events/{table.event.pk}/leave")
    expect(phone.locator("#leave-refund")).to_have_text(
        "This event refunds withdrawals: House gives the contribution (up to $10) back on "
        "request, and the pool is adjusted."
    )
    expect(phone.get_by_text("stays in the pool")).to_have_count(0)
    shot(phone, "phone-leave-refund-policy")
    context.close()
