"""House's tools in Chromium: self check-in from a phone with the board's code, the results
sheet as printed, and an announcement reaching an open player page over its socket."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from events.models import Event, Registration
from tests.browser.test_event_flow import WAIT, shot
from tests.browser.test_live_pushes import logged_in
from tests.events.support import finalized_table
from tests.factories import make_table, make_user


@pytest.mark.django_db(transaction=True)
def test_a_player_checks_in_from_the_phone_with_the_boards_code(server: str, browser: Any) -> None:
    table = make_table("league", players=1)
    ann = make_user("Ann")
    rid = table.register(ann)
    house_context = logged_in(browser, server, table.house)
    house = house_context.new_page()
    house.set_viewport_size({"width": 1280, "height": 900})
    house.goto(f"{server}/house/events/{table.event.pk}/")
    expect(house.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    house.locator("#self-check-in button", has_text="Switch on").click()
    code_shown = house.locator("[data-check-in-code]")
    expect(code_shown).to_have_count(1, timeout=WAIT)
    code = code_shown.inner_text().strip()
    assert code == Event.objects.get(pk=table.event.pk).check_in_code
    shot(house, "house-self-check-in-on")

    phone_context = logged_in(browser, server, ann)
    phone = phone_context.new_page()
    # The player page offers it while Ann waits to check in.
    phone.goto(f"{server}/events/{table.event.pk}/")
    phone.get_by_role("link", name="Check in with the board's code").click()
    expect(phone).to_have_url(f"{server}/events/{table.event.pk}/check-in")
    wrong = "".join("B" if ch == "A" else "A" for ch in code)
    phone.get_by_label("Check-in code").fill(wrong)
    phone.get_by_role("button", name="Check me in").click()
    expect(phone.locator(".message.error")).to_contain_text("not this event's check-in code")
    assert Registration.objects.get(pk=rid).status == "registered"
    # The board's QR opens the page with the code filled in.
    phone.goto(f"{server}/events/{table.event.pk}/check-in?code={code.lower()}")
    expect(phone.get_by_label("Check-in code")).to_have_value(code)
    shot(phone, "phone-self-check-in")
    phone.get_by_role("button", name="Check me in").click()
    expect(phone).to_have_url(f"{server}/events/{table.event.pk}/")
    expect(phone.locator(".message.success")).to_contain_text("You are checked in")
    expect(phone.locator(".next-step")).to_have_attribute("data-step", "wait_start")
    shot(phone, "phone-self-checked-in")
    assert Registration.objects.get(pk=rid).status == "checked_in"
    # House's open dashboard shows Ann checked in, from its socket.
    expect(house.locator("#checkin-list li", has_text="Ann")).to_contain_text(
        "Checked in", timeout=WAIT
    )
    # Ann pays at the table: her row and the collected total beside the pool follow.
    house.locator(f"#house-row-{rid}").get_by_role("button", name="Not paid").click()
    expect(house.locator(f"#house-row-{rid}")).to_contain_text("Paid $10", timeout=WAIT)
    expect(house.locator("#registration .collected")).to_contain_text("Collected: $10 (1 paid)")
    assert Registration.objects.get(pk=rid).paid
    shot(house, "house-paid")
    # Tonight's overview lists the event, one line, linking to its dashboard.
    Event.objects.filter(pk=table.event.pk).update(date=timezone.now().date())
    house.goto(f"{server}/house/tonight")
    row = house.locator("#tonight-table tbody tr", has_text="Thursday League")
    expect(row).to_contain_text("Open")
    shot(house, "house-tonight")
    row.get_by_role("link", name="Thursday League").click()
    expect(house).to_have_url(f"{server}/house/events/{table.event.pk}/")
    for context in (house_context, phone_context):
        context.close()


@pytest.mark.django_db(transaction=True)
def test_the_results_sheet_prints_on_paper(server: str, browser: Any) -> None:
    table = finalized_table(players=3, contribution=7)
    context = logged_in(browser, server, table.house)
    page = context.new_page()
    page.set_viewport_size({"width": 1000, "height": 1200})
    page.goto(f"{server}/house/events/{table.event.pk}/sheet")
    expect(page.get_by_role("button", name="Print or save as PDF")).to_be_visible()
    page.emulate_media(media="print")
    # On paper: no site header, no navigation, no button; the signature lines are there.
    expect(page.locator("header.top")).to_be_hidden()
    expect(page.get_by_role("button", name="Print or save as PDF")).to_be_hidden()
    expect(page.locator(".signature").first).to_be_visible()
    expect(page.locator(".sheet-proof")).to_contain_text(table.refresh().audit_hash)
    shot(page, "results-sheet-print")
    pdf = page.pdf(format="A4", print_background=False)
    assert pdf.startswith(b"%PDF") and len(pdf) > 5_000
    from tests.browser.conftest import ARTIFACTS

    (ARTIFACTS / "results-sheet.pdf").write_bytes(pdf)
    context.close()


@pytest.mark.django_db(transaction=True)
def test_an_announcement_reaches_an_open_player_page(server: str, browser: Any) -> None:
    table = make_table("league", players=2, start=True)
    phones = []
    for player in table.players:
        context = logged_in(browser, server, player)
        page = context.new_page()
        page.goto(f"{server}/events/{table.event.pk}/")
        expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
        expect(page.locator("#announcements")).to_be_hidden()
        phones.append((context, page))
    house_context = logged_in(browser, server, table.house)
    house = house_context.new_page()
    house.set_viewport_size({"width": 1280, "height": 900})
    house.goto(f"{server}/house/events/{table.event.pk}/")
    expect(house.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    loads = [0 for _ in phones]
    for n, (_, page) in enumerate(phones):
        page.on("load", lambda *_, n=n: loads.__setitem__(n, loads[n] + 1))
    house.get_by_label("Message to every player").fill("Round 2 <starts> at 8:30 — grab a drink")
    house.get_by_role("button", name="Send").click()
    for _, page in phones:
        item = page.locator("#announcements .announcement").first
        expect(item).to_contain_text("Round 2 <starts> at 8:30 — grab a drink", timeout=WAIT)
        expect(page.locator("#announcements")).to_be_visible()
    assert loads == [0, 0]  # shown from the socket, not a reload
    shot(phones[0][1], "phone-announcement")
    # A page opened later lists it too.
    phones[1][1].reload()
    expect(phones[1][1].locator("#announcements .announcement")).to_have_count(1)
    for context, _ in phones:
        context.close()
    house_context.close()
