"""The venue's display: the board opened by House, or House's display link, shows the check-in
code and its QR while players may check themselves in (events.venue)."""

from __future__ import annotations

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse

from events import services
from events.venue import DISPLAY_SALT, display_path
from tests.events.support import complete_table
from tests.factories import Table, make_table, make_user
from web.follow import qr_svg

pytestmark = pytest.mark.django_db


def switch(table: Table, enabled: bool) -> str:
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=enabled)
    return table.refresh().check_in_code


def board(client: Client, table: Table, **query: str) -> str:
    return client.get(reverse("web:board", args=[table.event.pk]), query).content.decode()


def check_in_qr(table: Table, code: str) -> str:
    return str(qr_svg(f"http://testserver/events/{table.event.pk}/check-in?code={code}"))


def test_the_kiosk_opened_by_house_shows_the_code_and_its_qr(client: Client) -> None:
    table = make_table("league", players=2)
    code = switch(table, True)
    client.force_login(table.house)
    page = board(client, table, kiosk="1")
    assert f"data-check-in-code>{code}</strong>" in page
    assert check_in_qr(table, code) in page
    assert f"testserver/events/{table.event.pk}/check-in</strong>" in page
    # The check-in part is pushed to this page over its socket (stream "venue").
    assert 'data-live-stream="venue" data-live-swap' in page
    assert f'"venue": {table.event.version}' in page


def test_the_display_link_shows_the_code_to_a_laptop_that_is_not_signed_in(
    client: Client,
) -> None:
    table = make_table("league", players=2)
    code = switch(table, True)
    link = display_path(table.event)
    assert link is not None
    page = client.get(link).content.decode()
    assert f"data-check-in-code>{code}</strong>" in page
    assert check_in_qr(table, code) in page
    assert 'class="board kiosk"' in page
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert f'data-live-socket="/ws/events/{table.event.pk}/board/{token}/"' in page


def test_a_new_code_ends_the_display_link(client: Client) -> None:
    table = make_table("league", players=2)
    first = switch(table, True)
    link = display_path(table.event)
    assert link is not None
    switch(table, False)
    off = client.get(link).content.decode()
    assert first not in off and "check-in-code" not in off
    second = switch(table, True)
    stale = client.get(link).content.decode()
    assert first not in stale and second not in stale and "check-in-code" not in stale
    assert "This display link is out of date" in stale
    fresh = display_path(table.refresh())
    assert fresh is not None and fresh != link
    assert display_path(table.refresh()) == fresh  # copied again: the same link
    assert f"data-check-in-code>{second}</strong>" in client.get(fresh).content.decode()


def test_a_forged_or_borrowed_display_link_is_not_found(client: Client) -> None:
    table = make_table("league", players=2)
    other = make_table("league", players=2)
    switch(table, True)
    switch(other, True)
    link = display_path(other.event)
    assert link is not None
    token = link.rstrip("/").rsplit("/", 1)[1]
    # Another event's link does not open this event's display.
    borrowed = reverse("web:board_venue", args=[table.event.pk, token])
    assert client.get(borrowed).status_code == 404
    forged = signing.Signer(salt="another salt").sign_object([table.event.pk, "0" * 20])
    signed = signing.Signer(salt=DISPLAY_SALT).sign_object([table.event.pk, "0" * 20])
    unsigned = signed[:-2] + ("xx" if not signed.endswith("xx") else "yy")
    # Signed with the same salt, but not a display link's shape (a timestamped value).
    timestamped = signing.dumps([table.event.pk, "0" * 20], salt=DISPLAY_SALT)
    for token in (forged, unsigned, timestamped):
        response = client.get(reverse("web:board_venue", args=[table.event.pk, token]))
        assert response.status_code == 404


def test_a_player_or_visitor_never_gets_the_venue_part(client: Client) -> None:
    table = make_table("league", players=2)
    code = switch(table, True)
    for who in (None, table.players[0], make_user("Stranger")):
        if who is not None:
            client.force_login(who)
        page = board(client, table, kiosk="1")
        assert code not in page and "check-in-code" not in page
        assert 'data-live-stream="venue"' not in page


def test_after_the_start_the_venue_display_sends_late_arrivals_to_house(client: Client) -> None:
    table = make_table("league", players=2, start=True)
    code = switch(table, True)
    client.force_login(table.house)
    page = board(client, table, kiosk="1")
    assert code not in page and "check-in-code" not in page
    assert "Late arrivals: see House to check in." in page
    assert str(qr_svg(f"http://testserver/events/{table.event.pk}/")) in page


def test_after_finalization_the_venue_display_shows_no_check_in(client: Client) -> None:
    table = complete_table("league", players=2)
    code = switch(table, True)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    client.force_login(table.house)
    page = board(client, table, kiosk="1")
    assert code not in page and "check-in-code" not in page and "Late arrivals" not in page
    assert "Scan to check in" not in page


def test_the_final_page_qr_never_carries_the_code(client: Client) -> None:
    table = make_table("league", players=2)
    code = switch(table, True)
    client.force_login(table.house)
    page = client.get(reverse("web:board_final", args=[table.event.pk])).content.decode()
    assert code not in page and "?code=" not in page
    assert str(qr_svg(f"http://testserver/events/{table.event.pk}/")) in page


def test_the_dashboard_hands_out_display_links_not_the_code_bound_one(client: Client) -> None:
    """One kind of link on the dashboard: its Displays section (tests/web/test_display.py)."""
    table = make_table("league", players=2)
    switch(table, True)
    client.force_login(table.house)
    page = client.get(reverse("house:dashboard", args=[table.event.pk])).content.decode()
    link = display_path(table.event)
    assert link is not None and link not in page
    assert 'id="displays"' in page and 'href="#displays"' in page
