"""House's night page: the lines and the totals, the forms that write a line, the CSV that
balances to the dollar; 404 to anyone not House; a refused form changes nothing."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from events import services
from ledger import services as ledger
from tests.events.support import complete_table, finalized_table
from tests.factories import make_table, make_user
from tests.refusals import refused_by_page

pytestmark = pytest.mark.django_db


def client_for(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_house_records_entries_on_the_page_and_sees_the_box():
    table = make_table(players=2, contribution=10)
    ann, bob = table.players
    client = client_for(table.house)
    url = reverse("ledger:entry", kwargs={"event_id": table.event.pk})
    answer = client.post(
        url,
        {"idempotency_key": "k1", "registration": table.rid(ann), "method": "cash"},
        follow=True,
    )
    assert "Entry recorded (cash, $10): $10 in the box." in answer.content.decode()
    client.post(
        url,
        {"idempotency_key": "k2", "registration": table.rid(bob), "method": "card"},
    )
    page = client.get(reverse("ledger:night", kwargs={"event_id": table.event.pk}))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="expected-cash">$10<' in html
    assert "The lines balance" in html
    assert html.count("<td>entry</td>") == 2
    dashboard = client.get(reverse("house:dashboard", kwargs={"event_id": table.event.pk}))
    assert 'id="cash-box"' in dashboard.content.decode()
    assert "The ledger's figure: <strong>$20</strong>" in dashboard.content.decode()


def test_a_refused_form_says_why_and_changes_nothing():
    table = make_table(players=1, contribution=10)
    (ann,) = table.players
    client = client_for(table.house)
    url = reverse("ledger:entry", kwargs={"event_id": table.event.pk})
    refused_by_page(
        lambda: client.post(
            url, {"idempotency_key": "k1", "registration": table.rid(ann), "method": "online"}
        ),
        table.event,
        message="An online payment needs its reference.",
        location=reverse("ledger:night", kwargs={"event_id": table.event.pk}),
    )


def test_anyone_but_house_gets_404():
    table = make_table(players=1, contribution=10)
    (ann,) = table.players
    for who in (ann, make_user("Stranger")):
        client = client_for(who)
        assert (
            client.get(reverse("ledger:night", kwargs={"event_id": table.event.pk})).status_code
            == 404
        )
        assert (
            client.get(reverse("ledger:night_csv", kwargs={"event_id": table.event.pk})).status_code
            == 404
        )
        answer = client.post(
            reverse("ledger:entry", kwargs={"event_id": table.event.pk}),
            {"idempotency_key": "k", "registration": table.rid(ann), "method": "cash"},
        )
        assert answer.status_code == 404
    assert not table.registration(ann).paid


def test_the_csv_balances_to_the_dollar():
    table = complete_table(players=2, contribution=10)
    ann, bob = table.players
    for player, method in ((ann, "cash"), (bob, "card")):
        ledger.entry_payment(
            event_id=table.event.pk,
            registration_id=table.rid(player),
            by=table.house,
            method=method,
        )
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    winner = next(p for p in table.players if table.registration(p).award)
    award = table.registration(winner).award or 0
    ledger.payout_record(
        event_id=table.event.pk,
        registration_id=table.rid(winner),
        by=table.house,
        amount=award,
        method="cash",
        handed_by="Dana",
        acknowledged=True,
    )
    text = (
        client_for(table.house)
        .get(reverse("ledger:night_csv", kwargs={"event_id": table.event.pk}))
        .content.decode()
    )
    rows = list(csv.DictReader(io.StringIO(text)))
    lines = [row for row in rows if row["line"] != "total"]
    totals = {row["method"]: int(row["dollars"]) for row in rows if row["line"] == "total"}
    assert sum(int(row["dollars"]) for row in lines) == totals["net"]
    cash = sum(int(row["dollars"]) for row in lines if row["method"] == "cash")
    assert cash == totals["expected cash in the box"] == 10 - award
    assert totals["difference"] == 0
    assert [row["acknowledged"] for row in lines if row["line"] == "payout"] == ["yes"]


def test_house_refunds_and_pays_out_on_the_page():
    table = make_table(players=1, contribution=10)
    cal = make_user("Cal")
    table.register(cal)
    client = client_for(table.house)
    night = reverse("ledger:night", kwargs={"event_id": table.event.pk})
    assert 'id="refund-form"' not in client.get(night).content.decode()  # nobody to refund
    client.post(
        reverse("ledger:entry", kwargs={"event_id": table.event.pk}),
        {"idempotency_key": "k1", "registration": table.rid(cal), "method": "cash"},
    )
    services.registration_cancel(registration_id=table.rid(cal), by=cal)
    assert 'id="refund-form"' in client.get(night).content.decode()
    answer = client.post(
        reverse("ledger:refund", kwargs={"event_id": table.event.pk}),
        {
            "idempotency_key": "k2",
            "registration": table.rid(cal),
            "amount": "10",
            "method": "cash",
            "reason": "Cannot come",
        },
        follow=True,
    )
    assert "Refund recorded: $10 (cash)." in answer.content.decode()
    assert 'id="expected-cash">$0<' in answer.content.decode()

    final = finalized_table(players=2, contribution=10)
    winner = next(p for p in final.players if final.registration(p).award)
    award = final.registration(winner).award or 0
    house = client_for(final.house)
    answer = house.post(
        reverse("ledger:payout", kwargs={"event_id": final.event.pk}),
        {
            "idempotency_key": "k3",
            "registration": final.rid(winner),
            "amount": str(award),
            "method": "cash",
            "handed_by": "Dana",
            "acknowledged": "1",
        },
        follow=True,
    )
    html = answer.content.decode()
    assert f"Payout recorded: ${award}, $0 of the award left." in html
    assert "(handed over by Dana)" in html
