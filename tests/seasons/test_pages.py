"""The season pages (docs/rules.md section 14): the public table on a phone, the projector view,
the downloads, a player's history, and House's series and season pages."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from cards.names import card_name
from events import services as staff_changes
from events.models import Event, Registration, RegistrationStatus
from events.progress import hands
from seasons import services
from seasons.models import Season, SeasonResult, SeasonStanding, Series
from seasons.reads import if_tonight_ended, public_id, season_table
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.seasons.support import FIRST, WEEK, League, make_league, seasons_unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def league() -> League:
    league = make_league(5)
    league.open_season({"min_events": 2, "qualifiers": 2})
    league.night(0, league.players, seed=41)
    league.night(1, league.players[::-1], seed=42)
    return league


def shown_hands(page: str) -> list[list[str]]:
    """The hands a history page shows, each as its cards' names (each card's words)."""
    cells = re.findall(r'<td class="played-hand"[^>]*>(.*?)</td>', page, re.S)
    return [
        [name.removesuffix(", wild") for name in re.findall(r'aria-label="([^"]+)"', cell)]
        for cell in cells
    ]


def _client(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _shown(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_the_season_table_is_public_and_names_no_email(league: League) -> None:
    season = league.season
    page = _client().get(reverse("seasons:season", args=[season.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    for row in season_table(season).rows:
        assert row.display_name in text
    assert "@" not in text
    assert "One event short" not in text  # House's word only
    assert 'name="viewport"' in text


def test_the_projector_view_pages_the_table_as_the_board_does(league: League) -> None:
    page = _client().get(reverse("seasons:season_board", args=[league.season_id]), {"seconds": "5"})
    text = page.content.decode()
    assert 'data-page-seconds="5"' in text and "js/board.js" in text
    assert text.count('class="board-row') == len(season_table(league.season).rows)


def test_the_downloads_are_the_exports(league: League) -> None:
    client = _client()
    csv = client.get(reverse("seasons:season_csv", args=[league.season_id]))
    assert csv["Content-Type"].startswith("text/csv")
    document = json.loads(
        client.get(reverse("seasons:season_json", args=[league.season_id])).content
    )
    assert len(document["events"]) == 2
    assert [row["player_id"] for row in document["standings"]] == [
        row.player_id for row in season_table(league.season).rows
    ]


def test_a_history_page_shows_others_no_withdrawn_hand(league: League) -> None:
    first = Event.objects.filter(series=league.series_id).order_by("date").first()
    assert first is not None
    withdrawn = Registration.objects.get(event=first, status=RegistrationStatus.WITHDRAWN)
    assert withdrawn.player is not None
    hand = [card_name(card) for card in hands(first, [withdrawn])[withdrawn.pk].cards]
    path = reverse("seasons:history", args=[public_id(withdrawn.player)])
    others = _client(make_user("Nosy")).get(path).content.decode()
    own = _client(withdrawn.player).get(reverse("seasons:my_history")).content.decode()
    assert "Withdrawn" in others and "Withdrawn" in own
    # The withdrawn night: the player's own page shows the hand, anyone else's shows none.
    assert hand and hand in shown_hands(own)
    assert hand not in shown_hands(others)
    assert "@" not in others
    assert _client().get(reverse("seasons:history", args=["pl_nobody"])).status_code == 404


def test_house_sees_who_is_one_event_short_and_others_get_nothing(league: League) -> None:
    house = _client(league.house)
    page = house.get(reverse("seasons:season_house", args=[league.season_id]))
    assert page.status_code == 200
    short = [row.display_name for row in season_table(league.season).rows if row.one_event_short]
    for name in short:
        assert name in page.content.decode()
    assert (
        _client(make_user("Player"))
        .get(reverse("seasons:season_house", args=[league.season_id]))
        .status_code
        == 404
    )


def test_house_opens_a_season_from_the_form_and_bad_rules_change_nothing() -> None:
    league = make_league(2)
    house = _client(league.house)
    path = reverse("seasons:season_new", args=[league.series_id])
    form = {
        "idempotency_key": "k1",
        "name": "Spring",
        "starts_on": (FIRST + 30 * WEEK).isoformat(),
        "ends_on": (FIRST + 40 * WEEK).isoformat(),
        "high_points": "10, 7, 5",
        "low_points": "3, 1",
        "attendance": "1",
        "best_of": "",
        "min_events": "2",
        "qualifiers": "4",
    }
    with seasons_unchanged():
        bad = house.post(path, {**form, "idempotency_key": "k0", "low_points": "3, -1"})
        assert any("not a whole number" in m for m in _shown(bad))
        keyless = house.post(path, {**form, "idempotency_key": ""})
        assert any("out of date" in m for m in _shown(keyless))
    house.post(path, form)
    season = Season.objects.get(series_id=league.series_id)
    assert season.rules["high_points"] == [10, 7, 5] and season.rules["best_of"] is None


def test_next_event_and_the_championship_from_house_pages(league: League) -> None:
    house = _client(league.house)
    created = house.post(
        reverse("seasons:next_event", args=[league.series_id]), {"idempotency_key": "n1"}
    )
    assert created.status_code == 302
    assert Event.objects.filter(series=league.series_id).count() == 3
    season = league.season
    # docs/rules.md section 14.6: dated after the season; the form starts the day after.
    form = house.get(reverse("seasons:season_house", args=[season.pk])).content.decode()
    day_after = season.ends_on + datetime.timedelta(days=1)
    assert f'name="date" value="{(season.ends_on + WEEK).isoformat()}" min="{day_after}"' in form
    with seasons_unchanged():
        last_day = house.post(
            reverse("seasons:championship_new", args=[season.pk]),
            {"idempotency_key": "c0", "date": season.ends_on.isoformat()},
        )
        assert any("after the season's last day" in m for m in _shown(last_day))
    done = house.post(
        reverse("seasons:championship_new", args=[season.pk]),
        {"idempotency_key": "c1", "date": (season.ends_on + WEEK).isoformat()},
    )
    assert done.status_code == 302, _shown(done)
    season.refresh_from_db()
    assert season.championship_id is not None
    page = house.get(reverse("seasons:season_house", args=[season.pk])).content.decode()
    assert "Not yet" in page or "Registered" in page
    qualified = [row for row in season_table(season).rows if row.qualified]
    invited_user = next(u for u in league.players if public_id(u) == qualified[0].player_id)
    mine = _client(invited_user).get(reverse("seasons:my_history")).content.decode()
    assert "invited to the" in mine


def test_the_season_page_shows_if_tonight_ended_now_without_changing_the_table(
    league: League,
) -> None:
    table = make_table(players=0)
    table.event.date = FIRST + 2 * WEEK
    table.event.save(update_fields=["date"])
    staff_changes.house_member_add(
        scope=Scope(Series, league.series_id), by=league.house, member=table.house
    )
    services.event_series_set(event_id=table.event.pk, series_id=league.series_id, by=table.house)
    for player in league.players[:3]:
        table.players.append(player)
        table.register(player)
        table.check_in(player)
    table.start()
    table.play_out(league.players[0], "wlllll")
    before = list(SeasonResult.objects.values_list("pk", flat=True))
    standing = {s.player_id: s.total for s in SeasonStanding.objects.all()}

    page = _client().get(reverse("seasons:season", args=[league.season_id])).content.decode()

    assert "If tonight ended now" in page
    tonight = if_tonight_ended(league.season)
    assert [night.event_id for night in tonight] == [table.event.pk]
    rows = {row.display_name: row for row in tonight[0].rows}
    # Each player of tonight has one more event's points in the projection, at least attendance.
    for player in league.players[:3]:
        assert rows[player.display_name].total >= standing[player.pk]
    assert list(SeasonResult.objects.values_list("pk", flat=True)) == before
    assert {s.player_id: s.total for s in SeasonStanding.objects.all()} == standing


def test_a_history_shows_each_hand_as_cards_with_their_names_and_the_wild_marked(
    league: League,
) -> None:
    player = league.players[0]
    page = _client(player).get(reverse("seasons:my_history")).content.decode()
    played = Registration.objects.filter(player=player, event__series=league.series_id)
    assert len(shown_hands(page)) == played.count() == 2
    for registration in played:
        cards = hands(registration.event, [registration])[registration.pk].cards
        assert [card_name(card) for card in cards] in shown_hands(page)
        for card in cards:
            wild = ", wild" if card[0] == registration.wild_rank else ""
            assert f'aria-label="{card_name(card)}{wild}"' in page
    assert re.search(r'class="card suit-[cdhs] small', page)
    best = re.search(r"Best hand:.*?</p>\s*<p class=\"hand\">(.*?)</p>", page, re.S)
    assert best is not None
    assert re.findall(r'aria-label="([^"]+)"', best[1]) in [
        re.findall(r'aria-label="([^"]+)"', cell)
        for cell in re.findall(r'<td class="played-hand"[^>]*>(.*?)</td>', page, re.S)
    ]  # the best hand is one of the nights', its wild marked as there
    # No card written as its code ("9c 2h"): only as a card, its suit a symbol.
    codes = {c for r in played for c in hands(r.event, [r])[r.pk].cards}
    text = re.sub(r"<[^>]+>", " ", page)
    assert not any(re.search(rf"\b{code}\b", text) for code in codes)


def test_the_season_page_lists_the_nights_ahead_to_register_for() -> None:
    league = make_league(3)
    league.open_season()
    house, now = league.house, datetime.datetime.now(datetime.UTC)

    def night(name: str, week: int, **settings: Any) -> int:
        event_id = staff_changes.event_create(
            by=house, name=name, date=FIRST + WEEK * week, format="league"
        ).event_id
        # A draft put in the series takes its defaults; then its own settings.
        services.event_series_set(event_id=event_id, series_id=league.series_id, by=house)
        if settings:
            staff_changes.event_update(event_id=event_id, by=house, changes=settings)
        return event_id

    full = night("Capped Night", 2, capacity=2)
    later = night("Later Night", 3, registration_opens_at=now + datetime.timedelta(days=2))
    roomy = night("Roomy Night", 4, capacity=10)
    night("Draft Night", 5)  # not open: not listed
    for event_id in (full, later, roomy):
        staff_changes.registration_open(event_id=event_id, by=house)
    for player in league.players[:2]:
        staff_changes.player_register(event_id=full, by=player)
    staff_changes.player_register(event_id=roomy, by=league.players[2])

    text = _client(league.players[2]).get(reverse("seasons:season", args=[league.season_id]))
    page = text.content.decode()
    listed = re.findall(r'data-night="(\d+)"', page)
    assert listed == [str(full), str(later), str(roomy)]
    capped = page[page.index(f'data-night="{full}"') : page.index(f'data-night="{later}"')]
    assert "Full: registering joins the waitlist." in capped and "Join the waitlist" in capped
    waiting = page[page.index(f'data-night="{later}"') : page.index(f'data-night="{roomy}"')]
    assert "Registration opens on" in waiting and "Register</a>" not in waiting
    open_night = page[page.index(f'data-night="{roomy}"') :]
    assert "9 of 10 places left." in open_night
    assert f'href="{reverse("web:event", args=[roomy])}">Register</a>' in open_night
    assert "Draft Night" not in page
