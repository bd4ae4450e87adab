"""Every House page fits a 390 px phone: a cashier working from a phone reaches every button
without the page sliding sideways. A table wider than the phone scrolls inside its own box."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from events import services
from events.models import Event
from ledger import services as ledger
from seasons.models import Series
from staff.scopes import Scope
from tests.browser.test_accessibility import Audit
from tests.browser.test_event_flow import PHONE, WAIT, shot, sign_in
from tests.factories import Table, make_table
from tests.seasons.support import make_league

# The page's width beside the phone's, and the outermost elements that reach past its right edge:
# an element inside a box that scrolls sideways is reachable, one inside a box that hides its
# overflow is cut off, and counts.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const past = [];
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 0.5) continue;
    if (element.closest(".visually-hidden, .skip")) continue;  // words for screen readers
    const parent = element.parentElement.getBoundingClientRect();
    if (parent.right > width + 0.5 && element.parentElement !== document.body) continue;
    let scrolled = false;
    for (let up = element.parentElement; up; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow === "auto" || overflow === "scroll") { scrolled = true; break; }
    }
    if (scrolled) continue;
    const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "")
      + (element.className && typeof element.className === "string"
         ? "." + element.className.trim().split(/\\s+/).join(".") : "");
    past.push(`${name} ${Math.round(box.right)}px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, past: past.slice(0, 12)};
}"""


def played(table: Table) -> None:
    """A night under way: picks made, results in, a pending win, entries paid three ways."""
    first, second, third = table.players[:3]
    table.choose_start(first)
    table.win(first, 1)
    table.play_out(second)
    table.choose_start(third)
    table.report(third, 1, "loss")
    for player, method, extra in (
        (first, "cash", {}),
        (second, "card", {}),
        (third, "online", {"reference": "stripe pi_3MtwBwLkdIwHu7ix28a3tqPa"}),
    ):
        ledger.entry_payment(
            event_id=table.event.pk,
            registration_id=table.rid(player),
            by=table.house,
            method=method,
            **extra,
        )


@pytest.mark.django_db(transaction=True)
def test_every_house_page_fits_a_390_px_phone(server: str, browser: Any) -> None:
    league = make_league(players=4)
    season = league.open_season()
    final = league.night(0, league.players)
    house = league.house
    today = timezone.now().date()
    waiting = make_table(players=3)  # open, not started
    empty = make_table()  # open, nobody registered yet: the players' table has no button
    table = make_table(players=6, start=True)
    for other in (waiting, empty, table):
        other.event.staff.create(user=house)
        Event.objects.filter(pk=other.event.pk).update(
            date=today, name="Thursday League at The Dock, Riverside bar"
        )
    services.self_check_in_switch(event_id=waiting.event.pk, by=waiting.house, enabled=True)
    played(table)
    invited = services.staff_invite(
        scope=Scope.of(table.event), by=table.house, email="cashier@example.com", role="cashier"
    )
    series_invited = services.staff_invite(
        scope=Scope(Series, league.series_id), by=house, email="scorer@example.com", role="scorer"
    )
    # Display links listed, with their maker's name and a Revoke button each.
    house.display_name = "Olive Featherstonehaugh"
    house.save(update_fields=["display_name"])
    for label in ("Projector by the bar", "Screen at the door"):
        services.display_link_create(scope=Scope(Series, league.series_id), by=house, label=label)
        services.display_link_create(scope=Scope.of(table.event), by=table.house, label=label)
    pages = {
        "House's events": "/house/",
        "Tonight": "/house/tonight",
        "a new event": "/house/events/new",
        "the dashboard with nobody registered": f"/house/events/{empty.event.pk}/",
        "the dashboard before the start": f"/house/events/{waiting.event.pk}/",
        "the dashboard in play": f"/house/events/{table.event.pk}/",
        "the night report in play": f"/house/events/{table.event.pk}/night",
        "the event's settings": f"/house/events/{table.event.pk}/edit",
        "the results sheet in play": f"/house/events/{table.event.pk}/sheet",
        "the dashboard once final": f"/house/events/{final}/",
        "the night report once final": f"/house/events/{final}/night",
        "the results sheet once final": f"/house/events/{final}/sheet",
        "the series page": f"/house/series/{league.series_id}/",
        "the season's House page": f"/house/seasons/{season}/",
        "a staff invitation": f"/house/invitations/{invited.token}",
        "a series' staff invitation": f"/house/series/invitations/{series_invited.token}/",
    }
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    sign_in(page, server, house.email)
    wide: dict[str, Any] = {}
    audit = Audit()  # a table that scrolls on a phone is a region the keyboard reaches
    for name, path in pages.items():
        response = page.goto(f"{server}{path}")
        assert response is not None and response.status == 200, (name, path)
        page.wait_for_load_state("load", timeout=WAIT)
        found = page.evaluate(OVERFLOW)
        shot(page, "house-phone-" + name.replace(" ", "-").replace("'", ""))
        if found["scrollWidth"] > PHONE["width"] or found["past"]:
            wide[name] = found
        audit.check(page, f"{name} on a phone")
    context.close()
    audit.assert_clean()
    assert not wide, "wider than the phone:\n" + "\n".join(
        f"{name}: {found['scrollWidth']} px, {found['past']}" for name, found in wide.items()
    )
