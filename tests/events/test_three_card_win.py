"""A format whose Win offers three cards, played through the services from start to finalization:
the engine reads the format's shape and repeats none of its numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial

import pytest

from audit.export import audit_document
from audit.models import AuditEntry
from audit.verify import verify_json
from cards.models import CardState, DealtCard, Offer
from events import services
from events.errors import Invalid
from events.formats import Format
from events.models import Event
from events.progress import progress_of
from tests.factories import THREE_CARD_WIN, Table, format_registered, make_table
from tests.refusals import refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def rules() -> Iterator[Format]:
    with format_registered(THREE_CARD_WIN) as registered:
        yield registered


@pytest.fixture
def table(rules: Format) -> Table:
    table = make_table(rules.name, players=2, start=True)
    for player in table.players:
        table.choose_start(player)
    return table


def details(event: Event, action: str) -> list[dict]:
    return list(
        AuditEntry.objects.filter(event=event, action=action)
        .order_by("seq")
        .values_list("details", flat=True)
    )


def test_the_shape_derives_the_reserve_and_the_hand(rules: Format) -> None:
    assert rules.reserve == 3 + 3 * 3
    assert rules.kept == 1 + 3
    assert rules.win_choice_words == "keep one of three cards"


def test_the_stock_reserves_what_the_format_deals(table: Table) -> None:
    (started,) = details(table.event, "event_started")
    assert started["reserve_per_place"] == 12


def test_a_win_offers_three_face_up_cards_and_keeps_the_third(table: Table) -> None:
    ann = table.players[0]
    offered = table.win(ann, 1)
    assert len(offered) == 3
    offer = Offer.objects.get(registration=table.registration(ann), kind="win")
    assert offer.keep == 1
    assert table.choose_win(ann, 2).kept == offered[2]
    assert table.kept(ann)[-1] == offered[2]
    discarded = DealtCard.objects.filter(offer=offer, state=CardState.DISCARDED)
    assert sorted(discarded.values_list("card", flat=True)) == sorted(offered[:2])
    (dealt,) = details(table.event, "win_cards_dealt")
    assert [c["card"] for c in dealt["cards"]] == offered
    (chosen,) = details(table.event, "win_choice_confirmed")
    # More than one card left: the audit lists them.
    assert [c["card"] for c in chosen["discarded"]] == offered[:2]


def test_a_slot_past_the_offer_is_refused_naming_its_count(table: Table) -> None:
    ann = table.players[0]
    table.win(ann, 1)
    error = refused(Invalid, table.event, partial(table.choose_win, ann, 3))
    assert error.message == "This win offers 3 cards: choose card 0 to 2."


def test_the_event_plays_out_and_its_audit_verifies(table: Table) -> None:
    ann, bob = table.players
    table.play_out(ann, "wlw")
    table.play_out(bob, "lwl")
    for player in (ann, bob):
        registration = table.registration(player)
        assert len(table.kept(player)) == 4
        assert progress_of(registration).complete(registration)
        assert registration.wild_rank  # revealed automatically, as the format says
    services.pool_confirm(event_id=table.event.pk, by=table.house, adjustments=[])
    services.event_finalize(event_id=table.event.pk, by=table.house)
    verdict = verify_json(json.dumps(audit_document(table.refresh())))
    assert verdict.ok, verdict
