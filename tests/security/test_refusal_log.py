"""Refused authorization is logged on `syndicate.security` (who, what, where), without secrets."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from tests.api.support import Api, error
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

LOGGER = "syndicate.security"


@pytest.fixture
def refusals(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger=LOGGER)
    return caplog


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def only_line(caplog: pytest.LogCaptureFixture) -> str:
    found = lines(caplog)
    assert len(found) == 1, found
    return found[0]


def test_it_logs_a_not_allowed_refusal_of_the_api(refusals: pytest.LogCaptureFixture) -> None:
    table = make_table(players=1)
    player = table.players[0]
    response = Api(player).post(f"/api/events/{table.event.pk}/start/")
    assert error(response) == (403, "not_allowed")
    line = only_line(refusals)
    assert line.startswith("refused status=403 code=not_allowed action=api:start method=POST")
    assert f"path=/api/events/{table.event.pk}/start/" in line
    assert f"user={player.pk}" in line
    assert "ip=127.0.0.1" in line
    assert refusals.records[0].levelname == "WARNING"


def test_it_logs_a_visitor_refused_by_drf(refusals: pytest.LogCaptureFixture) -> None:
    table = make_table()
    response = Api().post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (403, "not_allowed")
    assert "user=anonymous" in only_line(refusals)


def test_it_logs_an_api_csrf_failure(refusals: pytest.LogCaptureFixture) -> None:
    table = make_table()
    player = make_user()
    response = Api(player, csrf_checks=True).post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (403, "not_allowed")
    line = only_line(refusals)
    assert 'reason="csrf: CSRF cookie not set."' in line
    # DRF treats the request as anonymous once CSRF fails; the session still names the user.
    assert f"user=session:{player.pk}" in line


def test_it_logs_a_page_csrf_failure(refusals: pytest.LogCaptureFixture) -> None:
    table = make_table()
    player = make_user()
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    response = client.post(f"/events/{table.event.pk}/register", {"idempotency_key": "k1"})
    assert response.status_code == 403
    line = only_line(refusals)
    assert "status=403 code=forbidden action=web:register" in line
    assert 'reason="csrf: CSRF cookie not set."' in line


def test_it_logs_the_404_that_hides_someone_elses_registration(
    refusals: pytest.LogCaptureFixture,
) -> None:
    table = make_table(players=2)
    mine, theirs = table.players
    response = Api(mine).get(f"/api/registrations/{table.rid(theirs)}/")
    assert error(response) == (404, "not_found")
    line = only_line(refusals)
    assert "status=404 code=not_found action=api:registration method=GET" in line
    assert f"user={mine.pk}" in line
    assert refusals.records[0].levelname == "INFO"


def test_it_logs_a_house_page_hidden_from_a_player(refusals: pytest.LogCaptureFixture) -> None:
    table = make_table(players=1)
    client = Client()
    client.force_login(table.players[0])
    assert client.get(f"/house/events/{table.event.pk}/").status_code == 404
    assert "status=404 code=not_found action=house:dashboard" in only_line(refusals)


def test_it_does_not_log_a_404_outside_the_hiding_paths(
    refusals: pytest.LogCaptureFixture,
) -> None:
    assert Client().get("/no-such-page/").status_code == 404
    assert lines(refusals) == []


def test_it_logs_a_failed_sign_in_without_the_email_or_password(
    refusals: pytest.LogCaptureFixture,
) -> None:
    player = make_user()
    response = Client().post(
        "/accounts/login/", {"login": player.email, "password": "not the password"}
    )
    assert response.status_code == 200
    line = only_line(refusals)
    assert (
        line
        == f"login_failed account={player.pk} path=/accounts/login/ ip=127.0.0.1 user=anonymous"
    )
    record = refusals.records[0]
    everything = repr(record.__dict__)
    assert player.email not in everything
    assert "not the password" not in everything


def test_it_logs_a_failed_sign_in_for_an_unknown_account(
    refusals: pytest.LogCaptureFixture,
) -> None:
    Client().post("/accounts/login/", {"login": "nobody@example.com", "password": "guess"})
    assert only_line(refusals).startswith("login_failed account=unknown ")


def test_it_never_logs_the_session_key(refusals: pytest.LogCaptureFixture) -> None:
    table = make_table(players=1)
    api = Api(table.players[0])
    assert error(api.post(f"/api/events/{table.event.pk}/start/")) == (403, "not_allowed")
    session_key = api.client.cookies["sessionid"].value
    assert lines(refusals)
    assert all(session_key not in repr(r.__dict__) for r in refusals.records)


def test_it_logs_a_reset_link_as_its_route_not_its_secret(
    refusals: pytest.LogCaptureFixture,
) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/password/reset/key/4-set-password-secret-token/", {})
    assert response.status_code == 403
    line = only_line(refusals)
    assert "secret-token" not in line
    assert "path=/accounts/password/reset/key/<uidb36>-<key>/" in line


def test_it_escapes_line_breaks_in_the_path(refusals: pytest.LogCaptureFixture) -> None:
    assert Client().get("/api/events/1%0Arefused status=403 user=1/").status_code == 404
    line = only_line(refusals)
    assert "\n" not in line
    assert 'path="/api/events/1\\x0arefused status=403 user=1/"' in line


def test_the_records_carry_the_fields_for_structured_handlers(
    refusals: pytest.LogCaptureFixture,
) -> None:
    table = make_table(players=1)
    Api(table.players[0]).get(f"/api/events/{table.event.pk}/house/")
    fields = refusals.records[0].security  # type: ignore[attr-defined]
    assert fields["status"] == 403
    assert fields["code"] == "not_allowed"
    assert fields["action"] == "api:house"
    assert fields["user"] == str(table.players[0].pk)
