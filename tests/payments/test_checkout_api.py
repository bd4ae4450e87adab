"""`POST /api/registrations/<id>/checkout/`, and the night report's "Online payments"."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from events import services
from ledger.services import entry_payment
from payments.models import CheckoutSession, PaymentState
from tests.api.support import Api
from tests.factories import make_table, make_user
from tests.payments.stripe_server import StripeServer
from tests.payments.support import paying_table, registered, state
from tests.refusals import api_error, unchanged
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def _checkout(user: Any, rid: int) -> Any:
    return Api(user).post(f"/api/registrations/{rid}/checkout/")


def test_it_answers_the_checkout_page_and_offers_an_open_one_again(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    player, rid = registered(table)
    response = _checkout(player, rid)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"url", "session_id"}
    assert body["url"] == stripe_server.sessions[body["session_id"]]["url"]
    assert _checkout(player, rid).json() == body
    assert len(stripe_server.sessions) == 1


def test_it_is_the_players_own_and_an_unpaid_place(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    with unchanged(table.event, "another player's checkout"):
        assert api_error(_checkout(make_user(), rid)) == (404, "not_found")
    services.registration_cancel(registration_id=rid, by=player)
    with unchanged(table.event, "a cancelled place's checkout"):
        assert api_error(_checkout(player, rid)) == (409, "wrong_state")
    assert stripe_server.sessions == {}


def test_without_stripe_it_answers_a_plain_error_and_registering_works(settings: Any) -> None:
    settings.STRIPE_SECRET_KEY = settings.STRIPE_WEBHOOK_SECRET = ""
    table = make_table(contribution=10)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"pay_ahead": True})
    player, rid = registered(table)
    with unchanged(table.event, "a checkout without Stripe"):
        status, code = api_error(_checkout(player, rid))
    assert (status, code) == (409, "online_payment_unavailable")
    assert table.registration(player).hold_until is None  # no pay deadline: paid at the door
    response = Client().post("/payments/stripe/webhook", b"{}", content_type="application/json")
    assert response.status_code == 400
    assert not CheckoutSession.objects.exists()


def test_the_night_report_lists_online_payments_beside_the_ledger(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    paid_player, paid = registered(table, "Paid Online")
    refused_player, refused = registered(table, "Paid Short")
    stripe_server.pay(_checkout(paid_player, paid).json()["session_id"])
    stripe_server.pay(_checkout(refused_player, refused).json()["session_id"], amount=500)
    house = Client()
    house.force_login(table.house)
    page = house.get(reverse("ledger:night", args=[table.event.pk])).content.decode()
    assert 'id="night-online"' in page
    assert "Paid Online" in page and "$10.00 USD" in page and "matches" in page
    assert "Paid Short" in page and "Paid 5.00: the entry is 10.00." in page


def test_the_night_csv_has_a_row_per_online_payment_as_the_page_shows_it(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    paid_player, paid = registered(table, "Paid Online")
    short_player, short = registered(table, "Paid Short")
    paid_session = _checkout(paid_player, paid).json()["session_id"]
    short_session = _checkout(short_player, short).json()["session_id"]
    intent = stripe_server.pay(paid_session)["data"]["object"]["payment_intent"]
    short_intent = stripe_server.pay(short_session, amount=500)["data"]["object"]["payment_intent"]
    wait_until(lambda: state(short_session) == PaymentState.REFUSED_REFUNDED, "the refund")
    house = Client()
    house.force_login(table.house)
    text = house.get(reverse("ledger:night_csv", args=[table.event.pk])).content.decode()

    rows = list(csv.DictReader(io.StringIO(text)))
    [entry] = [row for row in rows if row["line"] == "entry"]
    online = [row for row in rows if row["line"] == "online payment"]
    assert [
        (
            row["player"],
            row["stripe_payment"],
            row["stripe_paid"],
            row["stripe_state"],
            row["note"],
            row["entry_line"],
            row["refund_line"],
            row["check"],
        )
        for row in online
    ] == [
        (
            "Paid Online",
            intent,
            "$10.00 USD",
            "Paid: entry line written",
            "",
            entry["seq"],
            "",
            "matches",
        ),
        (
            "Paid Short",
            short_intent,
            "$5.00 USD",
            "Refused and refunded",
            "Paid 5.00: the entry is 10.00.",
            "",
            "",
            "matches",
        ),
    ]
    assert {row["dollars"] for row in online} == {""}
    # The ledger's lines still add up to the net row, the online rows adding nothing.
    net = next(row for row in rows if row["line"] == "total" and row["method"] == "net")
    counted = [row for row in rows if row["line"] not in ("total", "online payment")]
    assert sum(int(row["dollars"]) for row in counted) == int(net["dollars"]) == 10


def test_an_online_entry_house_records_by_hand_is_shown_but_not_flagged(settings: Any) -> None:
    settings.STRIPE_SECRET_KEY = settings.STRIPE_WEBHOOK_SECRET = ""
    table = make_table(contribution=10)
    _player, rid = registered(table, "Paid By Transfer")
    services.player_check_in(registration_id=rid, by=table.house)
    entry_payment(
        event_id=table.event.pk,
        registration_id=rid,
        by=table.house,
        method="online",
        reference="venmo-4411",
    )
    house = Client()
    house.force_login(table.house)
    page = house.get(reverse("ledger:night", args=[table.event.pk])).content.decode()
    assert "Paid By Transfer" in page and "Recorded by House, not through Stripe" in page
    assert "An online entry line with no payment Stripe confirmed." not in page
