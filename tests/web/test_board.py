"""The public board page and its read model: every player, the pool, prizes by column, wilds."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from events import services
from events.models import RegistrationStatus
from events.reads.board import board_view, stood_for, wild_stands_for
from events.reads.common import to_json
from payouts.allocation import allocate
from scoring.evaluator import evaluate_high
from tests.events.support import finalized_table
from tests.factories import make_table, make_user
from web.follow import qr_svg


@pytest.mark.django_db
def test_it_ranks_every_player_not_only_the_top_ten(client: Client):
    table = make_table("league", players=12, start=True)
    for player in table.players:
        table.choose_start(player)
    view = board_view(table.refresh())
    assert len(view.high) == len(view.low) == 12
    # The JSON snapshot keeps its top ten places per list, as before.
    assert view.data.high == tuple(e.row for e in view.high[:10])
    assert view.data.low == tuple(e.row for e in view.low[:10])
    page = client.get(reverse("web:board", args=[table.event.pk])).content.decode()
    for player in table.players:
        assert page.count(f'id="board-row-{table.rid(player)}"') == 1
        assert page.count(f'id="board-row-{table.rid(player)}-low"') == 1
    assert len(re.findall(r'class="board-row high"', page)) == 12
    assert len(re.findall(r'class="board-row low"', page)) == 12


@pytest.mark.django_db
def test_it_gives_each_row_its_player_registration_in_place_order():
    table = make_table("league", players=5, start=True)
    for player in table.players:
        table.choose_start(player)
    view = board_view(table.refresh())
    ids = {table.rid(p) for p in table.players}
    labels = {table.rid(p): table.registration(p).label for p in table.players}
    for entries in (view.high, view.low):
        assert {e.registration_id for e in entries} == ids
        assert all(e.row.player == labels[e.registration_id] for e in entries)
        places = [e.row.place for e in entries]
        assert places == sorted(places)


@pytest.mark.django_db
def test_it_shows_the_provisional_pool_with_the_adjustments_in_force():
    """After a late entry the pool is the new base plus the adjustments House confirmed."""
    table = make_table("league", players=3, start=True, contribution=10)
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house, adjustments=[(-5, "Refund")])
    assert board_view(table.refresh()).data.pool.pool == 25
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    pool = board_view(table.refresh()).data.pool
    assert (pool.confirmed, pool.base, pool.pool) == (False, 40, 35)


@pytest.mark.django_db
def test_it_shows_each_prize_in_the_column_where_it_was_won():
    table = finalized_table("switch", players=4, contribution=10)
    event = table.refresh()
    view = board_view(event)
    registrations = {
        r.pk: r for r in event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
    }
    high = [pk for pk, r in registrations.items() if r.high_place == 1]
    low = [pk for pk, r in registrations.items() if r.low_place == 1]
    split = allocate(40, high, low)
    assert high and low
    prizes = {pk: 0 for pk in registrations}
    for entry in view.high:
        assert entry.prize == (split.high_each if entry.registration_id in high else None)
        prizes[entry.registration_id] += entry.prize or 0
    for entry in view.low:
        assert entry.prize == (split.low_each if entry.registration_id in low else None)
        prizes[entry.registration_id] += entry.prize or 0
    assert prizes == {pk: r.award for pk, r in registrations.items()}
    # The public snapshot keeps its shape: the prize by column is the page's alone.
    public = to_json(view.data)
    assert all("prize" not in row for row in public["high"] + public["low"])


@pytest.mark.django_db
def test_it_shows_no_prize_before_the_event_is_final():
    table = make_table("league", players=3, start=True)
    for player in table.players:
        table.choose_start(player)
    view = board_view(table.refresh())
    assert all(entry.prize is None for entry in view.high + view.low)


def test_it_names_the_card_each_wild_stands_for():
    assert wild_stands_for(("7h", "Ks", "Kd", "Qc", "2c"), "7") == (("7h", "Kh"),)
    assert wild_stands_for(("7h", "7s", "7d", "7c", "Jh"), "7") == (
        ("7h", "Jh"),
        ("7s", "Js"),
        ("7d", "Jd"),
        ("7c", "Jc"),
    )
    assert wild_stands_for(("7h", "7s", "7d", "7c", "7h"), "7") == (
        ("7h", "Ah"),
        ("7s", "As"),
        ("7d", "Ad"),
        ("7c", "Ac"),
        ("7h", "Ah"),
    )
    # A flush takes the wild in its own suit.
    assert wild_stands_for(("7c", "Ah", "Kh", "2h", "5h"), "7") == (("7c", "Ah"),)
    # No wild rank yet, fewer than five cards, or no substitution: nothing to say.
    assert wild_stands_for(("Ks", "Kd", "Qc", "2c", "3d"), None) == ()
    assert wild_stands_for(("7h", "Ks"), "7") == ()
    assert wild_stands_for(("Ks", "Kd", "Qc", "2c", "3d"), "7") == ()


def test_the_cards_the_wilds_stand_for_make_the_hand_the_evaluator_scored():
    """Put in place of the wilds, the named cards give the same hand with no wild at all."""
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    chance = random.Random(14)
    checked = 0
    while checked < 300:
        wild = chance.choice("23456789TJQKA")
        # Two decks' worth, so duplicates and hands heavy with wilds come up too.
        five = tuple(
            chance.choice(deck)
            if i % 2
            else chance.choice([c for c in deck if c[0] == wild] + deck[:8])
            for i in range(5)
        )
        value = evaluate_high(five, wild)
        if not value.substitutions:
            continue
        stands = wild_stands_for(five, wild)
        assert len(stands) == value.substitutions
        made = stood_for(five, stands)
        natural = evaluate_high(made, None)
        assert natural.category == value.category
        assert natural.description == value.description.rsplit(" (", 1)[0]
        checked += 1


@pytest.mark.django_db
def test_the_page_shows_a_qr_code_of_the_event_address_and_no_sign_in_link(client: Client):
    table = make_table("league", players=2, start=True)
    page = client.get(reverse("web:board", args=[table.event.pk])).content.decode()
    url = f"http://testserver/events/{table.event.pk}/"
    assert str(qr_svg(url)) in page
    assert f"testserver/events/{table.event.pk}</strong>" in page
    assert "Sign in" not in page
    assert reverse("account_login") not in page
    assert 'class="board"' in page
    kiosk = client.get(reverse("web:board", args=[table.event.pk]), {"kiosk": "1"})
    assert 'class="board kiosk"' in kiosk.content.decode()


@pytest.mark.django_db
def test_the_public_board_never_shows_the_check_in_code(client: Client):
    """The code proves presence at the venue: it is on the venue's display only
    (tests/web/test_board_venue.py), never on the board anyone opens."""
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    page = client.get(reverse("web:board", args=[table.event.pk]), {"kiosk": "1"})
    shown = page.content.decode()
    assert code not in shown
    assert "check-in-code" not in shown and "?code=" not in shown
    assert str(qr_svg(f"http://testserver/events/{table.event.pk}/")) in shown
    for name in ("web:board_partial", "web:board_snapshot", "web:board_final"):
        assert code not in client.get(reverse(name, args=[table.event.pk])).content.decode()
    # A player signed in, not House, opens the public board too.
    client.force_login(table.players[0])
    assert code not in client.get(reverse("web:board", args=[table.event.pk])).content.decode()


@pytest.mark.django_db
def test_a_signed_in_visitor_sees_no_account_links_either(client: Client):
    table = make_table("league", players=2, start=True)
    client.force_login(table.house)
    page = client.get(reverse("web:board", args=[table.event.pk])).content.decode()
    assert "Sign out" not in page and "Sign in" not in page


@pytest.mark.django_db
def test_the_paging_interval_is_bounded(client: Client):
    table = make_table("league", players=2, start=True)
    path = reverse("web:board", args=[table.event.pk])
    for asked, used in [(None, 8), ("3", 3), ("0", 2), ("999", 60), ("x", 8)]:
        page = client.get(path, {} if asked is None else {"seconds": asked}).content.decode()
        assert f'data-page-seconds="{used}"' in page
