"""docs/rules.md section 2: the stock, the House deck, the shuffle and dealing order."""

from __future__ import annotations

import datetime
import hashlib
from collections import Counter
from functools import partial

import pytest

from cards.models import Shoe, Shuffle
from events import services
from events.errors import Invalid, WrongPhase
from events.models import Event
from tests.events.support import dealt, entries, last, next_position, reference_shoe
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "players", "extra", "decks", "places", "house_decks"),
    [
        # ceil(2 x 15 / 52) = 1, + 1 extra = 2 decks; floor(104 / 15) = 6 places; 1 House deck.
        ("league", 2, 1, 2, 6, 1),
        # ceil(4 x 13 / 52) = 1, no extra: 1 deck; floor(52 / 13) = 4 places.
        ("switch", 4, 0, 1, 4, 1),
        # ceil(5 x 12 / 52) = 2, + 2 extra = 4 decks; floor(208 / 12) = 17 places.
        ("standard-v1", 5, 2, 4, 17, 1),
        # ceil(3 x 15 / 52) = 1, + 0 = 1 deck; floor(52 / 15) = 3 places.
        ("league", 3, 0, 1, 3, 1),
        # ceil(2 x 15 / 52) = 1, + 20 = 21 decks; floor(1092 / 15) = 72 places; ceil(72/52) = 2.
        ("league", 2, 20, 21, 72, 2),
    ],
)
def test_it_sizes_the_stock_from_the_checked_in_players(
    format, players, extra, decks, places, house_decks
):
    """Decks in the stock = ceil(checked-in players x reserve / 52) + extra decks. Supported places
    = floor(decks x 52 / reserve). House deck: ceil(supported places / 52) decks."""
    table = make_table(format, players=players, extra_decks=extra)
    table.register(make_user("Registered only"))  # never checked in: not counted
    table.start()
    details = last(table.event, "event_started").details
    assert details["decks"] == decks
    assert details["supported_places"] == places
    assert details["house_decks"] == house_decks
    assert details["players"] == players
    assert table.refresh().supported_places == places
    stock = Shoe.objects.get(event=table.event, kind="stock")
    house = Shoe.objects.get(event=table.event, kind="house")
    assert (stock.decks, stock.size, len(stock.order)) == (decks, decks * 52, decks * 104)
    assert (house.decks, house.size) == (house_decks, house_decks * 52)


@pytest.mark.django_db
def test_it_adds_one_extra_deck_by_default():
    """The gameplay stock is sized ... from checked-in players, plus one extra deck by default."""
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Night", date=datetime.date(2026, 12, 3), format="league"
    ).event_id
    assert Event.objects.get(pk=event_id).extra_decks == 1
    assert entries(event_id, "event_created")[0].details["extra_decks"] == 1


@pytest.mark.django_db
def test_it_lets_house_change_the_extra_decks_before_starting():
    """House can change the extra-deck allowance before starting."""
    table = make_table("league", players=2)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"extra_decks": 3})
    assert last(table.event, "event_updated").details == {"changes": {"extra_decks": [1, 3]}}
    table.start()
    assert last(table.event, "event_started").details["decks"] == 1 + 3


@pytest.mark.django_db
def test_it_refuses_changing_the_extra_decks_after_the_start():
    """The stock is never expanded mid-event (extra decks are changeable until start)."""
    table = make_table("league", players=2, start=True)
    error = refused(
        WrongPhase,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"extra_decks": 5}
        ),
    )
    assert error.status == 409


@pytest.mark.django_db
def test_it_refuses_extra_decks_that_are_not_a_whole_number_from_zero():
    """Extra decks (default 1, >= 0, changeable until start)."""
    table = make_table("league", players=2)
    for extra in (-1, 1.5, True, "2", None):
        refused(
            Invalid,
            table.event,
            partial(
                services.event_update,
                event_id=table.event.pk,
                by=table.house,
                changes={"extra_decks": extra},
            ),
        )
    services.event_update(event_id=table.event.pk, by=table.house, changes={"extra_decks": 0})
    table.start()
    assert last(table.event, "event_started").details["decks"] == 1  # ceil(2 x 15 / 52) + 0


@pytest.mark.django_db
def test_it_never_expands_the_stock_mid_event():
    """The stock is never expanded mid-event."""
    table = make_table("league", players=2, start=True, extra_decks=0)
    shoes = Shoe.objects.filter(event=table.event).order_by("kind")  # rows in a fixed order
    before = list(shoes.values("kind", "decks", "size", "order"))
    table.join("Late")  # a late entry takes a remaining supported place, never a new deck
    after = list(shoes.values("kind", "decks", "size", "order"))
    assert after == before


@pytest.mark.django_db
def test_it_commits_to_the_seed_before_any_card_is_dealt():
    """At start, seed = secrets.token_bytes(32); the audit records commitment = sha256(seed)
    before any card is dealt; the seed stays secret until finalization."""
    table = make_table("league", players=2, start=True)
    written = entries(table.event)
    started = next(e for e in written if e.action == "event_started")
    first_deal = next(e for e in written if e.action == "starting_offer_dealt")
    assert started.seq < first_deal.seq
    seed = bytes(Shuffle.objects.get(event=table.event).seed)
    assert len(seed) == 32
    commitment = hashlib.sha256(seed).hexdigest()
    assert started.details["commitment"] == commitment == table.event.commitment
    assert seed.hex() not in str([e.details for e in written])


@pytest.mark.django_db
def test_it_shuffles_both_shoes_from_the_seed_as_specified():
    """Canonical order (deck, rank 23456789TJQKA, suit cdhs), HMAC-SHA256 stream, Fisher-Yates;
    label b"stock" for the stock, b"house" for the House deck."""
    table = make_table("switch", players=4, start=True, extra_decks=1)
    seed = bytes(Shuffle.objects.get(event=table.event).seed)
    stock = Shoe.objects.get(event=table.event, kind="stock")
    house = Shoe.objects.get(event=table.event, kind="house")
    assert stock.order == "".join(reference_shoe(stock.decks, seed, b"stock"))
    assert house.order == "".join(reference_shoe(house.decks, seed, b"house"))
    # All decks are shuffled together: duplicate printed cards are possible (and normal).
    assert stock.decks == 2
    printed = Counter(stock.order[i : i + 2] for i in range(0, len(stock.order), 2))
    assert len(printed) == 52
    assert set(printed.values()) == {2}


@pytest.mark.django_db
def test_it_deals_from_position_zero_upward_strictly_in_order():
    """Cards are dealt from shoe position 0 upward, strictly in order. Each dealt card records its
    position."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    table.choose_start(first)
    table.report(first, 1, "win")
    table.choose_win(first, 1)
    table.report(first, 2, "loss")
    table.choose_start(second)
    table.report(second, 1, "loss")
    seed = bytes(Shuffle.objects.get(event=table.event).seed)
    shoe = reference_shoe(2, seed, b"stock")
    cards = dealt(table.event)
    # 3 + 3 offered at start, 2 for the win, 1 for each of two losses: 0..9, none skipped.
    assert [c.position for c in cards] == list(range(10))
    assert [c.card for c in cards] == shoe[:10]
    assert sorted(cards, key=lambda c: c.pk) == cards  # dealt in position order
    assert next_position(table.event) == 10


@pytest.mark.django_db
def test_it_never_returns_discards_to_the_stock():
    """Discards never return to it (the stock); duplicate printed cards are normal."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)  # two starting cards Not kept
    table.report(player, 1, "win")
    table.choose_win(player)  # one win card discarded
    discarded = {c.position for c in dealt(table.event) if c.state in ("not_kept", "discarded")}
    assert len(discarded) == 3
    table.report(player, 2, "loss")
    table.report(player, 3, "loss")
    positions = [c.position for c in dealt(table.event)]
    assert len(positions) == len(set(positions)) == next_position(table.event)
    assert {c.position for c in dealt(table.event) if c.state in ("not_kept", "discarded")} == (
        discarded
    )
