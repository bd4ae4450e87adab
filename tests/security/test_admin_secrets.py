"""No admin page, filter, search or ordering tells a superuser which card is face down.

Each test is a request an attacker with a superuser account would try: guess a card in a URL
parameter and watch the answer. The answer must be the same whether the guess is right or not.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client

from accounts.models import User
from cards.models import DealtCard, Shoe, Shuffle
from helpers.admin import SecretsHiddenAdmin, secrets_check
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

RANKS = "23456789TJQKA"
SUITS = "cdhs"


@pytest.fixture
def superuser() -> Client:
    user = make_user("Root", staff=True)
    User.objects.filter(pk=user.pk).update(is_superuser=True)
    client = Client()
    client.force_login(User.objects.get(pk=user.pk))
    return client


@pytest.fixture
def hidden() -> tuple[DealtCard, str]:
    """A face-down card of a started event, and a card that nobody was dealt."""
    table = make_table("league", players=4, start=True)
    # A card's two letters can stand in public text ("Th" in "Thursday"); such a search finds
    # that row whatever is dealt, so the guesses compared are ones no public text holds.
    public = searchable_text()
    card = next(
        card
        for card in DealtCard.objects.filter(face_down=True).order_by("pk")
        if card.card.lower() not in public
    )
    dealt = set(DealtCard.objects.values_list("card", flat=True))
    absent = next(
        r + s for r in RANKS for s in SUITS if r + s not in dealt and (r + s).lower() not in public
    )
    assert table.event.pk
    return card, absent


def searchable_text() -> str:
    """Every value an admin search reads, lower-cased, one per line."""
    values: list[str] = []
    for model, model_admin in admin.site._registry.items():
        for name in model_admin.search_fields:
            values.extend(
                str(value)
                for value in model._default_manager.values_list(name.lstrip("^=@"), flat=True)
            )
    return "\n".join(values).lower()


def answers(client: Client, path: str, params: dict[str, str]) -> tuple[int, object, list[int]]:
    response = client.get(path, params)
    cl = response.context["cl"] if response.status_code == 200 and response.context else None
    count = cl.result_count if cl is not None else None
    order = [row.pk for row in cl.result_list] if cl is not None else []
    return response.status_code, count, order


CARD_LOOKUPS = [
    ("/admin/cards/dealtcard/", "card"),
    ("/admin/cards/dealtcard/", "card__exact"),
    ("/admin/cards/dealtcard/", "card__iexact"),
    ("/admin/cards/dealtcard/", "card__startswith"),
    ("/admin/cards/dealtcard/", "card__contains"),
    ("/admin/cards/dealtcard/", "card__in"),
    ("/admin/cards/dealtcard/", "card__regex"),
    ("/admin/cards/dealtcard/", "card__gte"),
    ("/admin/cards/dealtcard/", "registration__dealt_cards__card"),
    ("/admin/cards/dealtcard/", "offer__cards__card"),
    ("/admin/cards/dealtcard/", "shoe__order__contains"),
    ("/admin/cards/offer/", "cards__card"),
    ("/admin/cards/offer/", "cards__card__startswith"),
    ("/admin/events/registration/", "dealt_cards__card"),
    ("/admin/events/registration/", "event__shoes__order__contains"),
    ("/admin/events/event/", "shoes__order__startswith"),
    ("/admin/events/event/", "shoes__dealt__card"),
    ("/admin/events/event/", "shuffle__seed"),
    ("/admin/accounts/user/", "registrations__dealt_cards__card"),
    ("/admin/account/emailaddress/", "user__registrations__dealt_cards__card"),
]


@pytest.mark.parametrize(("path", "lookup"), CARD_LOOKUPS)
def test_a_filter_on_a_card_is_refused_whatever_the_guess(
    superuser: Client, hidden: tuple[DealtCard, str], path: str, lookup: str
) -> None:
    card, absent = hidden
    right = answers(superuser, path, {lookup: card.card})
    wrong = answers(superuser, path, {lookup: absent})
    assert right == wrong
    assert right[0] == 400


def test_the_filter_the_review_found_answers_400(
    superuser: Client, hidden: tuple[DealtCard, str]
) -> None:
    card, _ = hidden
    response = superuser.get("/admin/cards/dealtcard/", {"card": card.card})
    assert response.status_code == 400
    assert b"dealt card" not in response.content


@pytest.mark.parametrize(
    "path",
    [
        "/admin/cards/dealtcard/",
        "/admin/cards/offer/",
        "/admin/events/registration/",
        "/admin/events/event/",
        "/admin/accounts/user/",
        "/admin/account/emailaddress/",
        "/admin/audit/auditentry/",
    ],
)
def test_a_search_for_a_card_finds_the_same_rows_whatever_the_guess(
    superuser: Client, hidden: tuple[DealtCard, str], path: str
) -> None:
    card, absent = hidden
    assert answers(superuser, path, {"q": card.card}) == answers(superuser, path, {"q": absent})


def test_no_column_sorts_the_dealt_cards_by_their_identity(
    superuser: Client, hidden: tuple[DealtCard, str]
) -> None:
    plain = answers(superuser, "/admin/cards/dealtcard/", {})
    assert plain[0] == 200
    columns = superuser.get("/admin/cards/dealtcard/").context["cl"].list_display
    shown_card_column = str(list(columns).index("shown_card"))
    up = answers(superuser, "/admin/cards/dealtcard/", {"o": shown_card_column})
    down = answers(superuser, "/admin/cards/dealtcard/", {"o": f"-{shown_card_column}"})
    # Not sortable: both directions fall back to the same order, which is not the cards' order.
    assert up == down
    by_card = list(DealtCard.objects.order_by("card", "pk").values_list("pk", flat=True))
    assert up[2] not in (by_card, by_card[::-1])


def test_the_change_page_of_a_face_down_card_shows_it_face_down(
    superuser: Client, hidden: tuple[DealtCard, str]
) -> None:
    card, _ = hidden
    response = superuser.get(f"/admin/cards/dealtcard/{card.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<div class="readonly">face down</div>' in page
    assert f'<div class="readonly">{card.card}</div>' not in page
    assert f">{card.card}<" not in page


def test_the_changelist_shows_no_face_down_card(
    superuser: Client, hidden: tuple[DealtCard, str]
) -> None:
    page = superuser.get("/admin/cards/dealtcard/").content.decode()
    for card in DealtCard.objects.filter(face_down=True):
        assert f">{card.card}<" not in page
    assert "face down" in page


def test_the_shoes_and_the_seed_have_no_admin_pages(
    superuser: Client, hidden: tuple[DealtCard, str]
) -> None:
    shoe = Shoe.objects.first()
    shuffle = Shuffle.objects.first()
    assert shoe is not None and shuffle is not None
    assert Shoe not in admin.site._registry and Shuffle not in admin.site._registry
    for path in (
        "/admin/cards/shoe/",
        f"/admin/cards/shoe/{shoe.pk}/change/",
        "/admin/cards/shuffle/",
        f"/admin/cards/shuffle/{shuffle.pk}/change/",
    ):
        response = superuser.get(path)
        assert response.status_code == 404, path
        assert shoe.order[:20].encode() not in response.content


def test_the_check_refuses_an_admin_that_filters_by_a_card() -> None:
    site = admin.AdminSite(name="probe")

    class Leaky(SecretsHiddenAdmin):
        list_filter = ("card",)
        search_fields = ("registration__dealt_cards__card",)

    site.register(DealtCard, Leaky)
    ids = sorted(str(problem.id) for problem in secrets_check(site))
    assert ids == ["syndicate.E102", "syndicate.E102"]


def test_the_check_refuses_an_admin_without_the_guard() -> None:
    site = admin.AdminSite(name="probe")
    site.register(Shoe, admin.ModelAdmin)
    assert [problem.id for problem in secrets_check(site)] == ["syndicate.E101"]


def test_the_site_passes_its_own_check() -> None:
    assert secrets_check(admin.site) == []
