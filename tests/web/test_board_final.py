"""The final results page: winners, payouts, the pool's arithmetic, the commitment and the seed."""

from __future__ import annotations

import hashlib

import pytest
from django.test import Client
from django.urls import reverse

from cards.stock import seed_hex
from events.models import RegistrationStatus
from events.reads.final import final_results
from tests.events.support import finalized_table, last
from tests.factories import make_table


@pytest.mark.django_db
def test_it_shows_winners_payouts_arithmetic_commitment_and_seed(client: Client):
    table = finalized_table("switch", players=3, contribution=10)
    event = table.refresh()
    page = client.get(reverse("web:board_final", args=[event.pk])).content.decode()
    seed = last(event, "event_finalized").details["seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == event.commitment
    assert f'<code class="hex seed">{seed}</code>' in page
    assert f'<code class="hex commitment">{event.commitment}</code>' in page
    assert "SHA-256 of the seed equals the commitment." in page
    assert "$10 \u00d7 3 participants" in page
    assert "$30 ÷ 5, whole dollars" in page  # the Low share, $6
    players = event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
    for r in players:
        assert r.label in page
        if r.high_place == 1 or r.low_place == 1:
            assert f'<strong class="who">{r.label}</strong>' in page
    assert f'class="num unallocated">${event.unallocated}<' in page


@pytest.mark.django_db
def test_its_arithmetic_adds_up_to_the_pool():
    table = finalized_table("league", players=4, contribution=7)
    event = table.refresh()
    results = final_results(event)
    assert results is not None
    split = results.split
    assert results.pool.pool == 28
    assert split.low_share == 28 // 5
    assert split.high_share == 28 - split.low_share + split.low_moved
    paid = sum(p.award for p in results.payouts)
    assert paid + results.unallocated == 28
    assert split.low_paid + split.high_paid == paid
    assert results.seed == seed_hex(event.pk)
    assert results.seed_matches is True


@pytest.mark.django_db
def test_it_shows_no_seed_before_the_event_is_final(client: Client):
    table = make_table("league", players=2, start=True)
    event = table.refresh()
    assert final_results(event) is None
    page = client.get(reverse("web:board_final", args=[event.pk])).content.decode()
    assert event.commitment in page
    assert seed_hex(event.pk) not in page
    assert "appear here when House finalizes" in page
