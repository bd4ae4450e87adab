"""API rate limits, as a greedy client meets them: per account (reads, writes) and per address.

Each test counts under a cache key prefix of its own on the real Redis and sets low rates.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from rest_framework.test import APIClient

from accounts.models import User
from events.models import IdempotencyRecord, Registration
from syndicate import settings as configured
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

LOW = {"address": "10/min", "account_read": "3/min", "account_write": "2/min"}


def client(user: User | None, ip: str) -> APIClient:
    api = APIClient(REMOTE_ADDR=ip)
    if user is not None:
        api.force_login(user)
    return api


def read(api: APIClient) -> Any:
    return api.get("/api/events/")


def refused_as_throttled(response: Any) -> None:
    assert response.status_code == 429
    body = response.json()
    assert body["error"]["code"] == "throttled"
    assert body["error"]["message"].startswith("Too many requests: try again in ")
    assert int(response["Retry-After"]) >= 1


def test_an_account_reading_too_fast_is_slowed_down_and_no_one_else_is(settings: Any) -> None:
    settings.API_THROTTLE_RATES = LOW
    greedy, neighbour = make_user(), make_user()
    api = client(greedy, "192.0.2.10")
    for _ in range(3):
        assert read(api).status_code == 200
    refused_as_throttled(read(api))
    # Another account on the same address, and the same account on another address, are counted
    # on their own (the account's limit follows the account).
    assert read(client(neighbour, "192.0.2.10")).status_code == 200
    refused_as_throttled(read(client(greedy, "198.51.100.7")))


def test_a_throttled_write_changes_nothing(settings: Any) -> None:
    settings.API_THROTTLE_RATES = LOW
    first, second, third = (make_table() for _ in range(3))
    player = make_user()
    api = client(player, "192.0.2.20")
    for table in (first, second):
        response = api.post(
            f"/api/events/{table.event.pk}/register/",
            {},
            format="json",
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        assert response.status_code in (200, 201), response.content
    records = IdempotencyRecord.objects.count()

    response = api.post(
        f"/api/events/{third.event.pk}/register/",
        {},
        format="json",
        headers={"Idempotency-Key": uuid.uuid4().hex},
    )
    refused_as_throttled(response)
    assert not Registration.objects.filter(event=third.event, player=player).exists()
    assert IdempotencyRecord.objects.count() == records
    # Reads are counted apart from writes: still allowed.
    assert read(api).status_code == 200


def test_one_address_is_limited_across_accounts(settings: Any) -> None:
    settings.API_THROTTLE_RATES = LOW
    players = [make_user() for _ in range(5)]
    for player in players:
        api = client(player, "203.0.113.5")
        assert read(api).status_code == 200
        assert read(api).status_code == 200
    refused_as_throttled(read(client(make_user(), "203.0.113.5")))
    assert read(client(make_user(), "203.0.113.6")).status_code == 200


def test_a_forged_forwarded_for_header_does_not_buy_a_fresh_count(settings: Any) -> None:
    settings.API_THROTTLE_RATES = LOW
    player = make_user()
    api = client(player, "192.0.2.40")
    for n in range(10):
        api.get("/api/formats/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    refused_as_throttled(client(make_user(), "192.0.2.40").get("/api/formats/"))


def test_a_venue_of_sixty_players_behind_one_address_is_not_throttled(settings: Any) -> None:
    """The default rates: sixty players on the venue's one NAT address, each reloading their
    page a few times and making a move, all within the same minute."""
    settings.API_THROTTLE_RATES = configured.API_THROTTLE_RATES  # the suite has them off
    assert all(configured.API_THROTTLE_RATES.values())
    table = make_table()
    for _ in range(60):
        player = make_user()
        api = client(player, "198.51.100.60")
        for _ in range(5):
            assert read(api).status_code == 200
            assert api.get(f"/api/events/{table.event.pk}/").status_code == 200
        response = api.post(
            f"/api/events/{table.event.pk}/register/",
            {},
            format="json",
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        assert response.status_code in (200, 201), response.content


def test_the_rates_can_be_raised_or_turned_off_from_the_environment() -> None:
    from django.core.exceptions import ImproperlyConfigured

    defaults = {"address": "3000/min", "account_read": "300/min", "account_write": "60/min"}
    assert configured.throttle_rates(defaults, "") == defaults
    assert configured.throttle_rates(defaults, "address=9000/min, account_write=off") == {
        "address": "9000/min",
        "account_read": "300/min",
        "account_write": None,
    }
    with pytest.raises(ImproperlyConfigured, match="no rate 'adress'"):
        configured.throttle_rates(defaults, "adress=1/min")


def test_house_writes_for_a_whole_venue_under_a_limit_of_its_own(settings: Any) -> None:
    """House checks in a venue's players one request each: more writes than a player makes."""
    settings.API_THROTTLE_RATES = {**LOW, "house_write": "5/min"}
    table = make_table()
    player = make_user()

    def write(user: User) -> Any:
        return client(user, "192.0.2.40").post(
            f"/api/events/{table.event.pk}/register/",
            {},
            format="json",
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )

    assert [write(player).status_code != 429 for _ in range(2)] == [True, True]
    refused_as_throttled(write(player))
    assert all(write(table.house).status_code != 429 for _ in range(5))
    refused_as_throttled(write(table.house))


@pytest.mark.django_db(transaction=True)
def test_a_flooding_session_is_refused_before_any_database_work(settings: Any) -> None:
    """Through the server's application: once the account's write limit refuses a session, its
    next writes are answered 429 before Django (no request reaches a view or the database), with
    the same answer, while its reads and another player's writes still go through."""
    from asgiref.testing import ApplicationCommunicator
    from django.core.signals import request_started
    from django.test import Client

    from syndicate.asgi import application
    from syndicate.limits import refusals

    settings.API_THROTTLE_RATES = LOW  # two writes a minute
    table = make_table()
    greedy, neighbour = make_user(), make_user()
    token = "a" * 32

    def session_of(user: User) -> str:
        browser = Client()
        browser.force_login(user)
        return str(browser.cookies[settings.SESSION_COOKIE_NAME].value)

    async def send(session: str, method: str, path: str) -> tuple[int, dict[bytes, bytes], Any]:
        cookie = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={token}"
        headers = [(b"host", b"testserver"), (b"cookie", cookie.encode())]
        body = b""
        if method == "POST":
            body = b"{}"
            headers += [
                (b"content-type", b"application/json"),
                (b"content-length", b"2"),
                (b"x-csrftoken", token.encode()),
                (b"idempotency-key", uuid.uuid4().hex.encode()),
            ]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("192.0.2.77", 50000),
            "server": ("testserver", 80),
        }
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": body})
        start = await communicator.receive_output(timeout=30)
        content = b""
        while True:
            message = await communicator.receive_output(timeout=30)
            content += message.get("body", b"")
            if not message.get("more_body"):
                break
        await communicator.wait(timeout=30)
        answered = {name.lower(): value for name, value in start["headers"]}
        return start["status"], answered, json.loads(content or b"null")

    started: list[object] = []

    def count(**kwargs: object) -> None:
        started.append(kwargs)

    request_started.connect(count, dispatch_uid="flood-test")
    greedy_session, neighbour_session = session_of(greedy), session_of(neighbour)
    register = f"/api/events/{table.event.pk}/register/"
    try:
        statuses = [async_to_sync(send)(greedy_session, "POST", register)[0] for _ in range(3)]
        assert statuses[:2] in ([201, 409], [200, 409]), statuses  # counted, then refused
        assert statuses[2] == 429  # refused by the throttle in Django
        reached_django = len(started)

        for _ in range(5):
            status, headers, body = async_to_sync(send)(greedy_session, "POST", register)
            assert status == 429
            assert body["error"]["code"] == "throttled"
            wait = int(headers[b"retry-after"])
            assert 1 <= wait <= 60
            assert body["error"]["message"] == f"Too many requests: try again in {wait} seconds."
        assert len(started) == reached_django  # none of the five reached Django

        assert async_to_sync(send)(greedy_session, "GET", "/api/events/")[0] == 200
        assert async_to_sync(send)(neighbour_session, "POST", register)[0] in (200, 201)
        assert Registration.objects.filter(event=table.event, player=greedy).count() == 1
    finally:
        request_started.disconnect(dispatch_uid="flood-test")
        refusals.clear()
