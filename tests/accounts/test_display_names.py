"""Names cannot impersonate: sign-up and the admin refuse names that read as the system or House,
or that hide characters; look-alike names in one event get told apart (" #2")."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from django.test import Client

from accounts.models import User
from accounts.names import skeleton
from tests.api.support import Api
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

_emails = itertools.count(1)

REFUSED = {
    "the system": "system",
    "the system, shouting": "SYSTEM",
    "the system, spaced out": " s y s t e m ",
    "the system in Cyrillic look-alikes": "\u0455\u0443\u0455t\u0435m",
    "House": "House",
    "a House actor": "House: Dealer",
    "a House actor, lower case, no space": "house:dealer",
    "a House actor with a fullwidth colon": "House\uff1aDealer",
    "a House actor in Cyrillic look-alikes": "\u041d\u043eus\u0435: Dealer",
    "a House actor with a modifier-letter colon": "House\u02d0 Dealer",
    "an account with no name": "user 12",
    "zero-width spaces only": "\u200b\u200b\u200b",
    "zero-width joiners only": "\u200d\u200c",
    "a zero-width space inside": "Ann\u200bie",
    "a right-to-left override": "Ann\u202eeiL",
    "a left-to-right isolate": "\u2066Ann\u2069",
    "a byte-order mark": "\ufeffAnn",
    "a Hangul filler": "\u3164",
    "a Braille blank": "\u2800\u2800",
    "a variation selector": "Ann\ufe0f",
    "a control character": "Ann\x07",
    "stacked accents": "A" + "\u0301" * 8,
    "combining marks only": "\u0301\u0302",
    "spaces only": "   ",
    "too long once normalized": "\ufdfa" * 3,  # one character each, 18 once NFKC expands it
}


def sign_up(display_name: str) -> tuple[int, User | None]:
    email = f"signup{next(_emails)}@example.com"
    response = Client().post(
        "/accounts/signup/",
        {
            "email": email,
            "display_name": display_name,
            "password1": "correct horse battery staple",
            "password2": "correct horse battery staple",
        },
    )
    return response.status_code, User.objects.filter(email=email).first()


@pytest.mark.parametrize("name", list(REFUSED.values()), ids=list(REFUSED))
def test_sign_up_refuses_a_name_that_impersonates_or_hides(name: str) -> None:
    status, user = sign_up(name)
    assert status == 200  # the form again, with its error
    assert user is None


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("  Bob   Smith ", "Bob Smith"),
        ("\ufb01sh", "fish"),  # the "fi" ligature
        ("Zoe\u0308", "Zo\u00eb"),  # a decomposed diaeresis, composed
        ("\uff21nn", "Ann"),  # fullwidth A
        ("Ann\u2028Bob", "Ann Bob"),  # a line separator is a space
        ("Houseman", "Houseman"),
        ("System of a Down fan", "System of a Down fan"),
        ("\u0639\u0644\u064a", "\u0639\u0644\u064a"),  # right-to-left letters are fine
        ("\U0001f33d Corn", "\U0001f33d Corn"),
    ],
)
def test_sign_up_stores_the_name_normalized(typed: str, stored: str) -> None:
    status, user = sign_up(typed)
    assert status == 302
    assert user is not None
    assert user.display_name == stored
    assert unicodedata.is_normalized("NFKC", user.display_name)


def test_the_sign_up_page_says_why_a_name_is_refused() -> None:
    email = "why@example.com"
    response = Client().post(
        "/accounts/signup/",
        {
            "email": email,
            "display_name": "House: Dealer",
            "password1": "correct horse battery staple",
            "password2": "correct horse battery staple",
        },
    )
    assert "reads as a name the audit uses for the system or House" in response.content.decode()


@pytest.mark.parametrize("name", ["system", "House: Dealer", "\u200b", "Ann\u202e"])
def test_the_admin_refuses_changing_a_name_to_one_that_impersonates(name: str) -> None:
    staff = User.objects.create_superuser(email="root@example.com", password="pw", display_name="R")
    target = make_user("Ann")
    client = Client()
    client.force_login(staff)
    response = client.post(
        f"/admin/accounts/user/{target.pk}/change/",
        {
            "email": target.email,
            "display_name": name,
            "is_active": "on",
            "last_login_0": "",
            "last_login_1": "",
            "date_joined_0": "2026-12-01",
            "date_joined_1": "10:00:00",
        },
    )
    assert response.status_code == 200
    assert "display_name" in response.context["adminform"].form.errors
    target.refresh_from_db()
    assert target.display_name == "Ann"


def test_the_admin_stores_a_changed_name_normalized() -> None:
    staff = User.objects.create_superuser(email="root@example.com", password="pw", display_name="R")
    target = make_user("Ann")
    client = Client()
    client.force_login(staff)
    response = client.post(
        f"/admin/accounts/user/{target.pk}/change/",
        {
            "email": target.email,
            "display_name": " \ufb01fi  Fox ",
            "is_active": "on",
            "date_joined_0": "2026-12-01",
            "date_joined_1": "10:00:00",
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    target.refresh_from_db()
    assert target.display_name == "fifi Fox"


def register(event_id: int, user: User) -> str:
    response = Api(user).post(f"/api/events/{event_id}/register/")
    assert response.status_code == 201, response.content
    return str(response.json()["label"])


def test_look_alike_names_get_told_apart_on_the_board() -> None:
    table = make_table()
    latin = make_user("Bob")
    cyrillic_b = make_user("\u0412ob")  # Cyrillic Ve
    cyrillic_o = make_user("B\u043eb")  # Cyrillic o
    exact = make_user("Bob")
    labels = [register(table.event.pk, user) for user in (latin, cyrillic_b, cyrillic_o, exact)]
    assert labels == ["Bob", "\u0412ob #2", "B\u043eb #3", "Bob #4"]
    assert len({skeleton(label) for label in labels}) == 4


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("paypal", "\u0440\u0430\u0443\u0440\u0430l"),  # Cyrillic letters
        ("Ann", "\u13aann"),  # Cherokee A
        ("Olly", "0lly"),  # digit zero
        ("Sam", "\U0001d412am"),  # mathematical bold S (kept by the admin's ORM-level writes)
        ("Iris", "lris"),
        ("Tom", "\u03a4\u03bfm"),  # Greek Tau and omicron
        ("Tim", "Tirn"),  # r and n side by side
    ],
)
def test_the_second_of_two_confusable_names_gets_a_suffix(first: str, second: str) -> None:
    table = make_table()
    register(table.event.pk, make_user(first))
    label = register(table.event.pk, make_user(second))
    assert label != second
    assert skeleton(label) != skeleton(first)
    assert label.endswith(" #2") or label.endswith(" #3")


def test_an_account_named_before_the_rules_cannot_impersonate_on_the_board() -> None:
    table = make_table()
    legacy = make_user("Ann")
    User.objects.filter(pk=legacy.pk).update(display_name="system")  # as stored before the rules
    legacy.refresh_from_db()
    assert register(table.event.pk, legacy) == "Player"
