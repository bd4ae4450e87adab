"""The ledger over the API: entries, refunds and payouts as House records them, the cash box,
and every refusal with its code, changing nothing."""

from __future__ import annotations

import pytest

from tests.api.support import Api, error
from tests.events.support import complete_table
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def test_house_records_entries_and_reads_the_cash_box() -> None:
    table = make_table(players=3, contribution=25)
    ann, bob, cy = table.players
    api = Api(table.house)
    path = f"/api/events/{table.event.pk}/ledger/entries/"
    answer = api.post(path, {"registration_id": table.rid(ann), "method": "cash"})
    assert answer.status_code == 201, answer.content
    assert answer.json() == {
        "registration_id": table.rid(ann),
        "method": "cash",
        "amount": 25,
        "expected_cash": 25,
    }
    api.post(path, {"registration_id": table.rid(bob), "method": "online", "reference": "pi_9"})
    api.post(path, {"registration_id": table.rid(cy), "method": "comp", "reason": "Sponsor"})
    box = api.get(f"/api/events/{table.event.pk}/cash-box/").json()
    assert (box["cash_in"], box["online_in"], box["comped"], box["expected_cash"]) == (
        25,
        25,
        25,
        25,
    )
    assert box["difference"] == -25
    assert box["differences"] == [{"what": "1 comped entry", "amount": -25}]


def test_refusals_have_their_codes_and_change_nothing() -> None:
    table = make_table(players=1, contribution=10)
    other = make_table(players=1, contribution=10)
    (ann,) = table.players
    api = Api(table.house)
    entries = f"/api/events/{table.event.pk}/ledger/entries/"
    refunds = f"/api/events/{table.event.pk}/ledger/refunds/"
    payouts = f"/api/events/{table.event.pk}/ledger/payouts/"
    with unchanged(table.event), unchanged(other.event):
        wrong_box = {"registration_id": other.rid(other.players[0]), "method": "cash"}
        assert error(Api(other.house).post(entries, wrong_box)) == (409, "wrong_cash_box")
        assert error(api.post(entries, {"registration_id": table.rid(ann), "method": "gold"})) == (
            400,
            "invalid",
        )
        assert error(
            api.post(entries, {"registration_id": table.rid(ann), "method": "online"})
        ) == (
            400,
            "invalid",
        )
        refund = {"registration_id": table.rid(ann), "amount": 10, "method": "cash", "reason": "x"}
        assert error(api.post(refunds, refund)) == (409, "refund_not_in_policy")
        payout = {
            "registration_id": table.rid(ann),
            "amount": 5,
            "method": "cash",
            "handed_by": "Dana",
            "acknowledged": True,
        }
        assert error(api.post(payouts, payout)) == (409, "wrong_phase")
        assert error(
            Api(ann).post(entries, {"registration_id": table.rid(ann), "method": "cash"})
        ) == (
            404,
            "not_found",
        )
        assert error(Api(ann).get(f"/api/events/{table.event.pk}/cash-box/")) == (
            403,
            "not_allowed",
        )


def test_a_refund_and_a_payout_beyond_what_is_due_are_refused() -> None:
    table = complete_table(players=2, contribution=10)
    api = Api(table.house)
    entries = f"/api/events/{table.event.pk}/ledger/entries/"
    for player in table.players:
        api.post(entries, {"registration_id": table.rid(player), "method": "cash"})
    api.post(f"/api/events/{table.event.pk}/pool/confirm/", {"adjustments": []})
    api.post(f"/api/events/{table.event.pk}/finalize/")
    winner = next(p for p in table.players if table.registration(p).award)
    award = table.registration(winner).award or 0
    payouts = f"/api/events/{table.event.pk}/ledger/payouts/"
    payout = {
        "registration_id": table.rid(winner),
        "amount": award + 1,
        "method": "cash",
        "handed_by": "Dana",
        "acknowledged": True,
    }
    with unchanged(table.event):
        assert error(api.post(payouts, payout)) == (409, "payout_exceeds_award")
    answer = api.post(payouts, {**payout, "amount": award})
    assert answer.status_code == 201, answer.content
    assert answer.json()["award_left"] == 0
    box = api.get(f"/api/events/{table.event.pk}/cash-box/").json()
    assert (box["expected_cash"], box["paid_out"], box["awards"]) == (20 - award, award, 20)
    assert box["owed"] == 20 - award


def test_a_free_entry_event_for_players_of_age_over_the_api() -> None:
    staff = make_user("Staff", staff=True)
    api = Api(staff)
    created = api.post(
        "/api/events/",
        {
            "name": "Sponsored night",
            "date": "2026-12-04",
            "format": "switch",
            "entry_mode": "sponsored",
            "sponsored_pool": 400,
            "minimum_age": 21,
        },
    )
    assert created.status_code == 201, created.content
    event_id = created.json()["event_id"]
    api.post(f"/api/events/{event_id}/registration/open/")
    ann = Api(make_user("Ann"))
    with unchanged(event_id):
        assert error(ann.post(f"/api/events/{event_id}/register/")) == (
            409,
            "age_not_confirmed",
        )
    answer = ann.post(f"/api/events/{event_id}/register/", {"age_confirmed": True})
    assert answer.status_code == 201, answer.content
    with unchanged(event_id):
        assert error(api.patch(f"/api/events/{event_id}/", {"contribution": 5})) == (
            409,
            "wrong_state",
        )
