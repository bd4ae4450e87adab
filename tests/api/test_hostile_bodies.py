"""The API against bodies an attacker would send: nested past any parser's depth, over the upload
limit, numbers past the database's columns, text with control characters, ids past `bigint`.
Each gets a 4xx in the one error shape and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from events.models import Event, GameResult, Registration
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def raw_post(user, path: str, body: bytes) -> Any:
    client = Client()
    client.force_login(user)
    return client.post(
        path, body, content_type="application/json", headers={"Idempotency-Key": "k-raw"}
    )


def test_a_deeply_nested_body_is_refused_not_a_server_error() -> None:
    table = make_table(players=2, start=True)
    with unchanged(table.event.pk):
        body = b'{"reason": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        response = raw_post(table.house, f"/api/events/{table.event.pk}/finalize/", body)
        assert error(response) == (400, "invalid")
        assert "nested too deeply" in response.json()["error"]["message"]


def test_a_body_over_the_upload_limit_is_refused_with_413(settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    table = make_table(players=2, start=True)
    with unchanged(table.event.pk):
        body = b'{"reason": "' + b"x" * 20_000 + b'"}'
        path = f"/api/registrations/{table.rid(table.players[0])}/reviews/"
        response = raw_post(table.house, path, body)
        assert error(response) == (413, "too_large")


@pytest.mark.parametrize(
    "amount", [2**31, -(2**31) - 1, 10**20, 1_000_001, "\u00b9", "1" * 5000, 0, True]
)
def test_an_adjustment_past_its_bounds_is_refused(amount) -> None:
    table = make_table(players=2, start=True)
    services_close(table)
    with unchanged(table.event.pk):
        response = Api(table.house).post(
            f"/api/events/{table.event.pk}/pool/confirm/",
            {"adjustments": [{"amount": amount, "explanation": "Hostile"}]},
        )
        assert response.status_code in (400, 409), response.content


def services_close(table) -> None:
    from events import services

    services.registration_close(event_id=table.event.pk, by=table.house)


@pytest.mark.parametrize(
    "contribution", [2**31, -(2**31) - 1, 10**20, 1_000_001, "\u00b2", "9" * 5000, True]
)
def test_a_contribution_past_its_bounds_is_refused(contribution) -> None:
    table = make_table(players=2)
    with unchanged(table.event.pk):
        response = Api(table.house).patch(
            f"/api/events/{table.event.pk}/", {"contribution": contribution}
        )
        assert error(response) == (400, "invalid")
    events = Event.objects.count()
    response = Api(table.house).post(
        "/api/events/",
        {"name": "X", "date": "2026-12-01", "format": "league", "contribution": contribution},
    )
    assert error(response) == (400, "invalid")
    assert Event.objects.count() == events


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("opponent", "a\x00b"),
        ("opponent", "B" * 81),
        ("opponent", "\u202eevil"),
        ("opponent", "two\nlines"),
        ("score", "2" * 21),
        ("score", "\x1b[31m"),
        ("reason", "\x00"),
        ("reason", "r" * 501),
        ("opponent", 7),
        ("score", ["21-3"]),
    ],
)
def test_hostile_text_in_a_result_is_refused_not_cut(field, value) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    with unchanged(table.event):
        response = Api(player).post(
            f"/api/registrations/{table.rid(player)}/results/",
            {"game": 1, "outcome": "loss", field: value},
        )
        assert error(response) == (400, "invalid")
    assert not GameResult.objects.filter(registration__event=table.event).exists()


@pytest.mark.parametrize("value", [2**63, 10**30])
def test_an_id_past_bigint_is_not_found(value) -> None:
    player = make_user()
    api = Api(player)
    assert error(api.post(f"/api/events/{value}/register/")) == (404, "not_found")
    assert error(api.get(f"/api/events/{value}/")) == (404, "not_found")
    assert error(api.post(f"/api/registrations/{value}/withdraw/")) == (404, "not_found")
    assert error(api.post(f"/api/reviews/{value}/resolve/", {"reason": "x"})) == (
        404,
        "not_found",
    )
    assert not Registration.objects.filter(player=player).exists()


def test_the_service_refuses_an_over_long_opponent_too() -> None:
    from events import services
    from events.errors import Invalid

    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    with pytest.raises(Invalid, match="at most 80"):
        services.result_submit(
            registration_id=table.rid(player), by=player, game=1, outcome="loss", opponent="B" * 81
        )
    assert not GameResult.objects.filter(registration__event=table.event).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/events/{id}/",
        "/events/{id}/register",
        "/board/{id}/",
        "/board/{id}/snapshot",
        "/house/events/{id}/",
        "/house/events/{id}/players/{id}/withdraw",
        "/house/events/{id}/reviews/{id}/resolve",
    ],
)
def test_a_page_id_past_bigint_is_not_found(client, path) -> None:
    client.force_login(make_user())
    url = path.replace("{id}", str(10**30))
    assert client.get(url).status_code in (404, 405)  # 405: a POST-only route
    assert client.post(url, {"idempotency_key": "k"}).status_code in (404, 405)
