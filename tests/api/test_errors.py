"""The one error shape (docs/rules.md section 11.2) for the framework's own refusals, and CSRF."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from api.errors import exception_handler
from events.models import Registration
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def test_it_refuses_a_write_without_an_idempotency_key() -> None:
    table = make_table()
    player = make_user()
    with unchanged(table.event):
        response = Api(player).post(f"/api/events/{table.event.pk}/register/", key=None)
        assert error(response) == (400, "idempotency_key_required")
        assert "Idempotency-Key" in response.json()["error"]["message"]
    assert not Registration.objects.filter(player=player).exists()


def test_it_refuses_a_blank_idempotency_key() -> None:
    table = make_table()
    response = Api(make_user()).post(f"/api/events/{table.event.pk}/register/", key="   ")
    assert error(response) == (400, "idempotency_key_required")


def test_it_refuses_a_body_that_is_not_json() -> None:
    table = make_table()
    client = APIClient()
    client.force_login(make_user())
    response = client.post(
        f"/api/events/{table.event.pk}/register/",
        data="{not json",
        content_type="application/json",
        headers={"Idempotency-Key": "k1"},
    )
    assert error(response) == (400, "invalid")
    assert "JSON" in response.json()["error"]["message"]


def test_it_refuses_a_form_encoded_body() -> None:
    table = make_table()
    client = APIClient()
    client.force_login(make_user())
    response = client.post(
        f"/api/events/{table.event.pk}/register/",
        data={"a": "b"},
        format="multipart",
        headers={"Idempotency-Key": "k1"},
    )
    assert error(response) == (400, "invalid")
    assert "application/json" in response.json()["error"]["message"]


def test_it_refuses_a_json_list_where_an_object_belongs() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).post(f"/api/registrations/{table.rid(player)}/results/", [1, 2])
    assert error(response) == (400, "invalid")


def test_it_names_each_bad_field_in_the_message() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/results/", {"game": "first", "outcome": "draw"}
    )
    assert error(response) == (400, "invalid")
    message = response.json()["error"]["message"]
    assert "game: " in message and "outcome: " in message


def test_it_names_a_nested_field_by_its_position() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/pool/confirm/",
        {"adjustments": [{"amount": 5, "explanation": "ok"}, {"amount": "x", "explanation": "y"}]},
    )
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("adjustments[1].amount: ")


def test_it_answers_a_wrong_method_with_405_in_the_error_shape() -> None:
    table = make_table()
    client = Api(make_user())
    assert error(client.get(f"/api/events/{table.event.pk}/register/")) == (
        405,
        "method_not_allowed",
    )
    response = client.client.put(f"/api/events/{table.event.pk}/", {}, format="json")
    assert error(response) == (405, "method_not_allowed")
    assert "PUT" in response.json()["error"]["message"]


def test_it_answers_an_unknown_api_path_with_json_404() -> None:
    for path in ("/api/nothing/", "/api/events/1", "/api/registrations/x/"):
        response = Api().get(path)
        assert response["Content-Type"] == "application/json"
        assert error(response) == (404, "not_found")


def test_it_refuses_visitors_with_403_and_a_plain_message() -> None:
    table = make_table()
    response = Api().post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (403, "not_allowed")
    assert response.json()["error"]["message"] == "Sign in first."


def test_it_answers_json_even_when_a_browser_asks_for_html() -> None:
    table = make_table()
    client = APIClient()
    for path in (f"/api/events/{table.event.pk}/", "/api/events/999/", "/api/formats/?format=api"):
        response = client.get(path, headers={"Accept": "text/html"})
        assert response["Content-Type"] == "application/json"
        response.json()


def test_it_refuses_a_session_write_without_the_csrf_token() -> None:
    table = make_table()
    player = make_user()
    api = Api(player, csrf_checks=True)
    response = api.post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (403, "not_allowed")
    assert "CSRF" in response.json()["error"]["message"]
    assert not Registration.objects.filter(player=player).exists()

    # The same session with the token from a page it loaded is let through.
    api.get("/api/docs/?script=")
    token = api.client.cookies["csrftoken"].value
    response = api.client.post(
        f"/api/events/{table.event.pk}/register/",
        {},
        format="json",
        headers={"Idempotency-Key": "with-token", "X-CSRFToken": token},
    )
    assert response.status_code == 201


def test_it_turns_an_unexpected_failure_into_a_plain_500() -> None:
    response = exception_handler(RuntimeError("secret internals"), {})
    assert response.status_code == 500
    assert response.data == {
        "error": {
            "code": "server_error",
            "message": "The server could not complete this request.",
        }
    }
