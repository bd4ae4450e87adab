"""The data download holds everything kept about the person (privacy/services.py:
personal_data walks every app's handler): season results and standings, their public player id,
staff roles, invitations, display links they made; and after a deletion none of it names them."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events import services
from events.models import Event
from privacy.services import delete_account, personal_data
from seasons.models import FormerPlayer, PlayerKey, SeasonResult, SeasonStanding, Series
from staff.models import DisplayLink, Invitation, Membership
from staff.scopes import Scope
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db


def download(user: User) -> dict[str, Any]:
    client = Client()
    client.force_login(user)
    answer = client.get(reverse("privacy:data_download"))
    assert answer.status_code == 200
    data: dict[str, Any] = json.loads(answer.content)
    return data


def test_the_download_holds_everything_kept_about_the_person():
    league = make_league(players=4)
    ann = league.players[0]
    league.open_season()
    night = league.night(0, league.players, seed=3)
    # Ann runs an event of her own, and joins the series' staff by invitation.
    User.objects.filter(pk=ann.pk).update(is_staff=True)
    ann.refresh_from_db()
    own = services.event_create(
        by=ann, name="Ann's Friday", date=datetime.date(2026, 12, 4), format="league"
    ).event_id
    services.staff_invite(
        scope=Scope(Event, own), by=ann, email="cashier@example.com", role="cashier"
    )
    services.display_link_create(scope=Scope(Event, own), by=ann, label="Bar TV")
    invited = services.staff_invite(
        scope=Scope(Series, league.series_id), by=league.house, email=ann.email, role="director"
    )
    services.staff_invitation_accept(
        scope=Scope(Series, league.series_id), by=ann, token=invited.token
    )

    data = download(ann)

    assert data["account"]["email"] == ann.email
    assert data["account"]["email_addresses"] == [
        {"email": ann.email, "verified": True, "primary": True}
    ]
    (played,) = data["registrations"]
    assert played["event"]["id"] == night
    seasons = data["seasons"]
    assert seasons["player_id"] == PlayerKey.objects.get(user=ann).public_id
    (result,) = seasons["results"]
    row = SeasonResult.objects.get(player=ann)
    assert (result["event"], result["label"], result["points"]) == (night, row.label, row.points)
    (standing,) = seasons["standings"]
    assert standing["total"] == SeasonStanding.objects.get(player=ann).total
    assert standing["display_name"] == ann.display_name

    def of(section: str, scope: str) -> list[dict[str, Any]]:
        return [row for row in data[section] if row["scope"] == scope]

    assert of("staff_roles", "event") == [
        {"scope": "event", "id": own, "name": "Ann's Friday", "role": "owner"}
    ]
    (sent,) = of("staff_invitations", "event")
    assert (sent["email"], sent["role"], sent["sent_by_you"]) == (
        "cashier@example.com",
        "cashier",
        True,
    )
    assert "token" not in sent
    assert of("staff_roles", "series") == [
        {
            "scope": "series",
            "id": league.series_id,
            "name": "Thursday League at The Dock",
            "role": "director",
        }
    ]
    (to_ann,) = of("staff_invitations", "series")
    assert (to_ann["sent_by_you"], to_ann["accepted_at"] is not None) == (False, True)
    (link,) = data["display_links"]
    assert (link["label"], link["scope"], link["id"], link["made_by_you"]) == (
        "Bar TV",
        "event",
        own,
        True,
    )
    assert "token" not in json.dumps(link) and "token_hash" not in link
    assert data["push_subscriptions"] == []
    # Every section the registry declares, and the download says nothing of anyone else.
    assert list(data) == list(personal_data(ann))
    others = league.players[1:]
    assert not any(other.email in json.dumps(data) for other in others)

    delete_account(user=ann)

    assert not Membership.objects.of_kind(Event).filter(user_id=ann.pk).exists()
    assert not Membership.objects.of_kind(Series).filter(user_id=ann.pk).exists()
    assert Invitation.objects.of_kind(Event).get().invited_by is None
    assert DisplayLink.objects.get().created_by is None
    assert not Invitation.objects.of_kind(Series).exists()  # accepted: it held her address
    former = FormerPlayer.objects.get()
    assert SeasonResult.objects.get(former=former).points == row.points
