"""House adds a participant (late entry): POST /api/events/{id}/participants/."""

from __future__ import annotations

import pytest

from cards.models import DealtCard
from events.models import Registration
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def test_it_adds_and_checks_in_a_participant_by_email() -> None:
    table = make_table()
    newcomer = make_user("Newcomer")
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/participants/", {"email": newcomer.email.upper()}
    )
    assert response.status_code == 201
    registration = Registration.objects.get(player=newcomer)
    assert response.json() == {"registration_id": registration.pk, "label": "Newcomer"}
    assert registration.status == "checked_in" and registration.added_by_house


def test_it_adds_a_late_participant_by_account_with_a_face_down_offer() -> None:
    table = make_table(players=2, start=True)
    late = make_user()
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/participants/", {"user_id": late.pk}
    )
    assert response.status_code == 201
    registration = Registration.objects.get(player=late)
    assert registration.late
    offered = DealtCard.objects.filter(registration=registration)
    assert offered.count() == 3 and all(card.face_down for card in offered)
    assert set(response.json()) == {"registration_id", "label"}


def test_it_adds_a_participant_after_registration_closed_and_unconfirms_the_pool() -> None:
    table = make_table(players=2, start=True)
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/registration/close/")
    assert api.post(f"/api/events/{table.event.pk}/pool/confirm/").status_code == 200
    response = api.post(f"/api/events/{table.event.pk}/participants/", {"user_id": make_user().pk})
    assert response.status_code == 201
    pool = api.get(f"/api/events/{table.event.pk}/board/").json()["pool"]
    assert pool["confirmed"] is False and pool["participants"] == 3


def test_it_refuses_late_entry_after_a_round_two_result() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    table.report(player, 1, "loss")
    table.report(player, 2, "loss")
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/participants/", {"user_id": make_user().pk}
    )
    assert error(response) == (409, "late_entry_closed")


def test_it_answers_404_for_an_unknown_account() -> None:
    table = make_table()
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/participants/", {"email": "nobody@example.com"}
    )
    assert error(response) == (404, "not_found")


@pytest.mark.parametrize("body", [{}, {"user_id": 1, "email": "a@example.com"}, {"email": "x"}])
def test_it_needs_exactly_one_way_to_name_the_account(body: dict) -> None:
    table = make_table()
    response = Api(table.house).post(f"/api/events/{table.event.pk}/participants/", body)
    assert error(response) == (400, "invalid")


def test_it_refuses_a_player_without_revealing_which_accounts_exist() -> None:
    table = make_table()
    player = make_user()
    stranger = make_user()
    table.register(player)
    # Its player is refused (403); a stranger is told the event is not theirs (404): neither
    # learns whether the address has an account.
    for asking, expected in ((player, (403, "not_allowed")), (stranger, (404, "not_found"))):
        api = Api(asking)
        with unchanged(table.event):
            known = api.post(
                f"/api/events/{table.event.pk}/participants/", {"email": stranger.email}
            )
            unknown = api.post(
                f"/api/events/{table.event.pk}/participants/", {"email": "nobody@example.com"}
            )
            assert error(known) == error(unknown) == expected
            assert known.json() == unknown.json()


def test_withdrawn_players_cannot_return() -> None:
    """A withdrawal is final: adding the player again or checking them in is refused with its
    own code (not "already checked in") and changes nothing."""
    table = make_table(players=2, start=True)
    player = table.players[0]
    Api(player).post(f"/api/registrations/{table.rid(player)}/withdraw/")
    house = Api(table.house)
    with unchanged(table.event):
        for response in (
            house.post(f"/api/events/{table.event.pk}/participants/", {"user_id": player.pk}),
            house.post(f"/api/registrations/{table.rid(player)}/check-in/"),
            Api(player).post(f"/api/events/{table.event.pk}/register/"),
        ):
            assert error(response) == (409, "withdrawn_cannot_return")
            assert "withdrawn players cannot return" in response.json()["error"]["message"]
