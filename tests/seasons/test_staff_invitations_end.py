"""Staff invitations end (docs/decisions.md, "Staff invitations end"): the owner withdraws one,
it expires, and a member's removal voids the pending ones to their address; an event's and a
series' invitations follow the same rules (staff/invitations.py)."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events import services as events
from events.errors import DomainError, NotAllowed, NotFound, WrongState
from events.models import Event
from seasons.models import Series
from staff.invitations import LIFETIME
from staff.models import Invitation, Membership
from staff.scopes import Scope
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import every_field, refused, said
from tests.seasons.support import refused_season
from tests.seasons.test_series_staff import make_crew

pytestmark = pytest.mark.django_db


def series_refused(error: type[DomainError], series_id: int, call: Callable[[], object]) -> None:
    """`call` is refused with exactly `error`; no series, season, member or invitation changes."""
    rows = Invitation.objects.filter(series=series_id).order_by("pk")
    before = every_field(rows)
    refused_season(error, call)
    assert every_field(rows) == before


def test_a_series_members_removal_voids_their_pending_invitations() -> None:
    crew = make_crew()
    owner, sid = crew.people["owner"], crew.series_id
    max_ = crew.newcomer
    invited = events.staff_invite(scope=Scope(Series, sid), by=owner, email=max_.email)
    events.house_member_add(scope=Scope(Series, sid), by=owner, member=max_, role="scorer")
    events.house_member_remove(scope=Scope(Series, sid), by=owner, member=max_)
    assert not Invitation.objects.filter(pk=invited.invitation_id).exists()
    series_refused(
        NotFound,
        sid,
        lambda: events.staff_invitation_accept(
            scope=Scope(Series, sid), by=max_, token=invited.token
        ),
    )
    assert not Membership.objects.filter(series=sid, user=max_).exists()


def test_the_series_owner_withdraws_a_pending_invitation() -> None:
    crew = make_crew()
    owner, sid = crew.people["owner"], crew.series_id
    invited = events.staff_invite(scope=Scope(Series, sid), by=owner, email=crew.newcomer.email)
    series_refused(
        NotAllowed,
        sid,
        lambda: events.staff_invitation_cancel(
            scope=Scope(Series, sid),
            by=crew.people["director"],
            invitation_id=invited.invitation_id,
        ),
    )
    events.staff_invitation_cancel(
        scope=Scope(Series, sid), by=owner, invitation_id=invited.invitation_id
    )
    series_refused(
        NotFound,
        sid,
        lambda: events.staff_invitation_accept(
            scope=Scope(Series, sid), by=crew.newcomer, token=invited.token
        ),
    )
    # One already accepted is not withdrawn: its member is removed instead.
    again = events.staff_invite(scope=Scope(Series, sid), by=owner, email=crew.newcomer.email)
    events.staff_invitation_accept(scope=Scope(Series, sid), by=crew.newcomer, token=again.token)
    series_refused(
        WrongState,
        sid,
        lambda: events.staff_invitation_cancel(
            scope=Scope(Series, sid), by=owner, invitation_id=again.invitation_id
        ),
    )
    series_refused(
        NotFound,
        sid,
        lambda: events.staff_invitation_cancel(
            scope=Scope(Series, sid), by=owner, invitation_id=2**63
        ),
    )


def _age(pk: int) -> None:
    Invitation.objects.filter(pk=pk).update(
        created_at=datetime.datetime.now(datetime.UTC) - LIFETIME - datetime.timedelta(minutes=1)
    )


def test_a_series_invitation_expires() -> None:
    crew = make_crew()
    owner, sid = crew.people["owner"], crew.series_id
    invited = events.staff_invite(scope=Scope(Series, sid), by=owner, email=crew.newcomer.email)
    _age(invited.invitation_id)
    series_refused(
        WrongState,
        sid,
        lambda: events.staff_invitation_accept(
            scope=Scope(Series, sid), by=crew.newcomer, token=invited.token
        ),
    )


def _invited(by: User, event_id: int, email: str) -> tuple[int, str]:
    answer = events.staff_invite(scope=Scope(Event, event_id), by=by, email=email)
    return answer.invitation_id, answer.token


def test_an_event_members_removal_voids_their_pending_invitations_and_invitations_expire() -> None:
    table = make_table(players=0)
    event, owner = table.event, table.house
    max_ = make_user("Max")
    pk, token = _invited(owner, event.pk, max_.email.upper())  # compared without case
    events.house_member_add(scope=Scope.of(event), by=owner, member=max_, role="cashier")
    events.house_member_remove(scope=Scope.of(event), by=owner, member=max_)
    assert not Invitation.objects.filter(pk=pk).exists()
    refused(
        NotFound,
        event,
        lambda: events.staff_invitation_accept(scope=Scope.of(event), by=max_, token=token),
    )
    assert not Membership.objects.filter(event=event, user=max_).exists()
    # An invitation past its lifetime appoints nobody.
    pk, token = _invited(owner, event.pk, max_.email)
    _age(pk)
    refused(
        WrongState,
        event,
        lambda: events.staff_invitation_accept(scope=Scope.of(event), by=max_, token=token),
    )


def test_the_series_page_withdraws_a_pending_invitation_for_the_owner_only() -> None:
    crew = make_crew()
    owner, sid = crew.people["owner"], crew.series_id
    invited = events.staff_invite(scope=Scope(Series, sid), by=owner, email=crew.newcomer.email)
    withdraw = reverse("seasons:invitation_withdraw", args=[sid, invited.invitation_id])
    owner_page, director_page = Client(), Client()
    owner_page.force_login(owner)
    director_page.force_login(crew.people["director"])
    assert withdraw in owner_page.get(reverse("seasons:series", args=[sid])).content.decode()
    assert withdraw not in director_page.get(reverse("seasons:series", args=[sid])).content.decode()
    response = director_page.post(withdraw, {"idempotency_key": "d"})
    assert response.status_code == 302
    assert any("(director) does not include that" in text for text in said(response))
    assert Invitation.objects.filter(pk=invited.invitation_id).exists()
    done = owner_page.post(withdraw, {"idempotency_key": "o"}, follow=True)
    assert "The invitation is withdrawn" in done.content.decode()
    assert not Invitation.objects.filter(pk=invited.invitation_id).exists()


def test_the_events_settings_page_lists_no_expired_invitation() -> None:
    table = make_table(players=0)
    owner = Client()
    owner.force_login(table.house)
    fresh = _invited(table.house, table.event.pk, "fresh@example.com")
    old = _invited(table.house, table.event.pk, "old@example.com")
    _age(old[0])
    page = owner.get(reverse("house:event_edit", args=[table.event.pk])).content.decode()
    assert fresh[1] in page and old[1] not in page


@pytest.mark.parametrize("role", ["director", "cashier", "scorer", "player", "outsider"])
def test_only_the_series_owner_withdraws_an_invitation(role: str) -> None:
    crew = make_crew()
    sid = crew.series_id
    invited = events.staff_invite(
        scope=Scope(Series, sid), by=crew.people["owner"], email=crew.newcomer.email
    )
    # A stranger to the series is told it is not there; a player of its events, who knows it,
    # and its staff are refused (403, the role named to a member of the staff).
    stranger = role == "outsider"
    series_refused(
        NotFound if stranger else NotAllowed,
        sid,
        lambda: events.staff_invitation_cancel(
            scope=Scope(Series, sid), by=crew.people[role], invitation_id=invited.invitation_id
        ),
    )
    # Over the API too.
    response = Api(crew.people[role]).delete(
        f"/api/series/{sid}/staff-invitations/{invited.invitation_id}/"
    )
    assert error(response) == ((404, "not_found") if stranger else (403, "not_allowed"))
    assert Invitation.objects.filter(pk=invited.invitation_id).exists()
    answer = Api(crew.people["owner"]).delete(
        f"/api/series/{sid}/staff-invitations/{invited.invitation_id}/"
    )
    assert answer.status_code == 200 and answer.json()["invitation_id"] == invited.invitation_id


def test_an_expired_invitations_page_says_so_and_offers_no_accept() -> None:
    crew = make_crew()
    series_invited = events.staff_invite(
        scope=Scope(Series, crew.series_id), by=crew.people["owner"], email=crew.newcomer.email
    )
    _age(series_invited.invitation_id)
    table = make_table(players=0)
    event_invited = events.staff_invite(
        scope=Scope.of(table.event), by=table.house, email=crew.newcomer.email
    )
    _age(event_invited.invitation_id)
    invitee = Client()
    invitee.force_login(crew.newcomer)
    for path in (
        reverse("staff_invitation", args=[series_invited.token]),
        reverse("house:invitation", args=[event_invited.token]),
    ):
        html = invitee.get(path).content.decode()
        assert "This invitation has expired" in html and ">Accept<" not in html, path
