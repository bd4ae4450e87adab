"""House's tools over the API, tried as an attacker would: self check-in with its code, check in
everyone, paid flags, announcements; other events' House, players, wrong codes, double taps."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from events import services
from events.check_in import GUESSES, _guess_key
from events.models import Announcement, Registration
from tests.api.support import Api, error
from tests.factories import Table, make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def switch(table: Table, enabled: bool = True) -> dict:
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/self-check-in/", {"enabled": enabled}
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_house_switches_self_check_in_and_gets_the_code() -> None:
    table = make_table()
    on = switch(table)
    assert on["self_check_in"] is True and len(on["code"]) == 6
    off = switch(table, False)
    assert off == {"event_id": table.event.pk, "self_check_in": False}


def test_players_and_another_events_house_cannot_switch_it() -> None:
    table = make_table(players=1)
    path = f"/api/events/{table.event.pk}/self-check-in/"
    with unchanged(table.event):
        for who in (table.players[0], make_table().house):
            assert error(Api(who).post(path, {"enabled": True})) == (403, "not_allowed")
        assert error(Api().post(path, {"enabled": True})) == (403, "not_allowed")


@pytest.mark.parametrize("body", [{}, {"enabled": "maybe"}, {"enabled": True, "code": "X"}])
def test_a_malformed_switch_is_refused(body: dict) -> None:
    table = make_table()
    response = Api(table.house).post(f"/api/events/{table.event.pk}/self-check-in/", body)
    assert error(response) == (400, "invalid")


def test_a_player_checks_in_with_the_code() -> None:
    table = make_table()
    code = switch(table)["code"]
    ann = make_user("Ann")
    rid = table.register(ann)
    response = Api(ann).post(f"/api/events/{table.event.pk}/check-in/", {"code": code.lower()})
    assert response.status_code == 200
    assert response.json() == {"registration_id": rid, "status": "checked_in"}


def test_registering_with_the_code_asks_the_events_age_as_registering_does() -> None:
    table = make_table()
    services.event_update(event_id=table.event.pk, by=table.house, changes={"minimum_age": 21})
    code = switch(table)["code"]
    ann = make_user("Ann")
    path = f"/api/events/{table.event.pk}/check-in/"
    with unchanged(table.event):
        assert error(Api(ann).post(path, {"code": code})) == (404, "not_found")
        refused = Api(ann).post(path, {"code": code, "register": True})
        assert error(refused) == (409, "age_not_confirmed")
    response = Api(ann).post(path, {"code": code, "register": True, "age_confirmed": True})
    assert response.status_code == 200, response.content
    registration = Registration.objects.get(event=table.event, player=ann)
    assert response.json() == {"registration_id": registration.pk, "status": "checked_in"}
    assert registration.age_confirmed


def test_a_wrong_code_is_refused_changes_nothing_and_is_limited() -> None:
    table = make_table()
    code = switch(table)["code"]
    ann = make_user("Ann")
    rid = table.register(ann)
    cache.delete(_guess_key(table.event.pk, ann.pk))
    path = f"/api/events/{table.event.pk}/check-in/"
    with unchanged(table.event):
        for n in range(GUESSES):
            assert error(Api(ann).post(path, {"code": f"WRONG{n}"})) == (403, "wrong_check_in_code")
        assert error(Api(ann).post(path, {"code": code})) == (403, "too_many_guesses")
    assert Registration.objects.get(pk=rid).status == "registered"
    cache.delete(_guess_key(table.event.pk, ann.pk))


@pytest.mark.parametrize(
    "body", [{}, {"code": 123456}, {"code": "A" * 13}, {"code": "AB\nCD"}, {"code": ["ABC"]}]
)
def test_a_malformed_code_is_refused(body: dict) -> None:
    table = make_table()
    switch(table)
    ann = make_user("Ann")
    table.register(ann)
    response = Api(ann).post(f"/api/events/{table.event.pk}/check-in/", body)
    assert error(response) == (400, "invalid")


def test_the_code_of_one_event_does_not_open_another() -> None:
    one, two = make_table(), make_table()
    code = switch(one)["code"]
    other_code = switch(two)["code"]
    ann = make_user("Ann")
    two.register(ann)
    cache.delete(_guess_key(two.event.pk, ann.pk))
    if code != other_code:
        response = Api(ann).post(f"/api/events/{two.event.pk}/check-in/", {"code": code})
        assert error(response) == (403, "wrong_check_in_code")
    cache.delete(_guess_key(two.event.pk, ann.pk))


def test_self_check_in_off_and_strangers_are_refused() -> None:
    table = make_table()
    ann = make_user("Ann")
    table.register(ann)
    path = f"/api/events/{table.event.pk}/check-in/"
    assert error(Api(ann).post(path, {"code": "ABCDEF"})) == (409, "self_check_in_off")
    code = switch(table)["code"]
    assert error(Api(make_user()).post(path, {"code": code})) == (404, "not_found")
    assert error(Api().post(path, {"code": code})) == (403, "not_allowed")


def test_a_double_tap_with_the_same_key_checks_in_once() -> None:
    table = make_table()
    code = switch(table)["code"]
    ann = make_user("Ann")
    table.register(ann)
    path = f"/api/events/{table.event.pk}/check-in/"
    first = Api(ann).post(path, {"code": code}, key="tap-1")
    with unchanged(table.event):
        again = Api(ann).post(path, {"code": code}, key="tap-1")
        assert (again.status_code, again.json()) == (first.status_code, first.json())
    conflict = Api(ann).post(path, {"code": "OTHER1"}, key="tap-1")
    assert error(conflict) == (422, "idempotency_conflict")


def test_house_checks_everyone_in_once() -> None:
    table = make_table()
    rids = [table.register(make_user(n)) for n in ("Ann", "Bob")]
    path = f"/api/events/{table.event.pk}/check-in-all/"
    assert error(Api(make_table().house).post(path)) == (403, "not_allowed")
    first = Api(table.house).post(path, key="all")
    assert first.json() == {"event_id": table.event.pk, "checked_in": rids}
    again = Api(table.house).post(path, key="all")
    assert again.json() == first.json()
    assert error(Api(table.house).post(path)) == (409, "wrong_state")


def test_payments_are_house_only_and_shown_as_collected() -> None:
    table = make_table(players=2, contribution=20)
    ann, bob = table.players
    path = f"/api/registrations/{table.rid(ann)}/payment/"
    with unchanged(table.event):
        for who in (ann, bob, make_table().house):
            assert error(Api(who).post(path, {"paid": True})) == (404, "not_found")
        assert error(Api(table.house).post(path, {"paid": "yes please"})) == (400, "invalid")
    response = Api(table.house).post(path, {"paid": True})
    assert response.json() == {"registration_id": table.rid(ann), "paid": True, "collected": 20}
    patch = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"contribution": 25})
    assert error(patch) == (409, "paid_entries_exist")
    patch = Api(table.house).patch(
        f"/api/events/{table.event.pk}/", {"remainder_policy": "Split among the House."}
    )
    assert error(patch) == (409, "paid_entries_exist")


def test_an_unknown_registration_is_not_found() -> None:
    table = make_table()
    response = Api(table.house).post("/api/registrations/999999999/payment/", {"paid": True})
    assert error(response) == (404, "not_found")


def test_announcements_are_house_only_bounded_and_sent_once() -> None:
    table = make_table(players=2)
    path = f"/api/events/{table.event.pk}/announcements/"
    with unchanged(table.event):
        for who in (table.players[0], make_table().house):
            assert error(Api(who).post(path, {"text": "Free drinks"})) == (403, "not_allowed")
        for text in ("", "x" * 281, "two\nlines", "bell\x07", 42):
            assert error(Api(table.house).post(path, {"text": text})) == (400, "invalid")
    first = Api(table.house).post(path, {"text": "Last call for Round 2"}, key="a1")
    assert first.status_code == 201
    body = first.json()
    assert body["recipients"] == 2 and body["event_id"] == table.event.pk
    again = Api(table.house).post(path, {"text": "Last call for Round 2"}, key="a1")
    assert again.json() == body
    assert Announcement.objects.filter(event=table.event).count() == 1


def test_house_cancels_a_registration_before_check_in_only() -> None:
    table = make_table(players=1)
    ann = make_user("Ann")
    rid = table.register(ann)
    response = Api(table.house).post(f"/api/registrations/{rid}/cancel/")
    assert response.json() == {"registration_id": rid, "status": "cancelled"}
    checked_in = table.rid(table.players[0])
    response = Api(table.house).post(f"/api/registrations/{checked_in}/cancel/")
    assert error(response) == (409, "wrong_phase")
    response = Api(make_table().house).post(f"/api/registrations/{checked_in}/cancel/")
    assert error(response) == (404, "not_found")
