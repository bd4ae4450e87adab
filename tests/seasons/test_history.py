"""A player's history (docs/rules.md section 14.5): their own page shows every hand they held;
anyone else sees what the public board showed, a withdrawn player only as withdrawn."""

from __future__ import annotations

import pytest

from accounts.models import User
from events.models import Registration, RegistrationStatus
from events.progress import hands
from seasons.models import SeasonResult
from seasons.reads import player_history
from tests.factories import make_user
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db


def _withdrawn_player_and_events() -> tuple[User, list[int], Registration]:
    league = make_league(4)
    league.open_season()
    # The second to check in withdraws (events.simulation): someone else on the second night.
    played = [
        league.night(0, league.players, seed=20),
        league.night(1, league.players[::-1], seed=21),
    ]
    withdrawn = Registration.objects.filter(
        event_id=played[0], status=RegistrationStatus.WITHDRAWN
    ).get()
    assert withdrawn.player is not None
    return withdrawn.player, played, withdrawn


def test_the_player_sees_every_event_with_hand_places_award_and_points() -> None:
    player, played, withdrawn = _withdrawn_player_and_events()
    history = player_history(player, player)
    assert history.own and history.played == 2
    assert [row.event_id for row in history.events] == played[::-1]
    mine = {row.event_id: row for row in history.events}
    left = mine[played[0]]
    assert left.status == "withdrawn" and left.season_points == 0
    assert left.hand == list(hands(withdrawn.event, [withdrawn])[withdrawn.pk].cards)
    assert left.high_place is None
    assert history.season_points == sum(
        SeasonResult.objects.filter(player=player).values_list("points", flat=True)
    )
    assert history.awards == sum(row.award for row in history.events)
    other = mine[played[1]]
    assert other.series == "Thursday League at The Dock" and other.format == "league"


def test_others_never_see_a_withdrawn_hand() -> None:
    player, played, _ = _withdrawn_player_and_events()
    seen = player_history(player, make_user("Nosy"))
    assert not seen.own
    left = next(row for row in seen.events if row.event_id == played[0])
    assert left.status == "withdrawn"
    assert left.hand == [] and left.wild_rank is None
    anonymous = player_history(player, None)
    assert next(row for row in anonymous.events if row.event_id == played[0]).hand == []
    # An eligible night's final hand is public once the event is final.
    eligible = next(row for row in seen.events if row.status == "eligible")
    assert len(eligible.hand) == 7
    assert seen.best_hand and seen.best_hand_name
