"""The series page's staff section and defaults, and an invitation's link (docs/decisions.md,
"Roles"): what each role sees, the owner's forms, leaving, the acceptance page; and the role
matrix over the page: every series form posted by each role that may not use it, sent back
with the service's words and nothing changed; a player and an outsider get 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from events.models import Event
from seasons.models import Series
from staff.models import Invitation, Membership
from tests.refusals import said
from tests.seasons.test_series_staff import Crew, make_crew, nothing_changes, series_allowed

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(crew: Crew) -> str:
    return reverse("seasons:series", args=[crew.series_id])


def _role(crew: Crew, user: Any) -> str | None:
    held = Membership.objects.filter(series=crew.series_id, user=user).first()
    return None if held is None else held.role


def _forms(crew: Crew) -> dict[str, tuple[str, dict[str, str]]]:
    """Each form of the series' House pages: its action, its path and what it posts."""
    s, season = crew.series_id, crew.season_id
    return {
        "house_member_add": (
            reverse("seasons:staff_add", args=[s]),
            {"email": crew.newcomer.email, "role": "scorer"},
        ),
        "house_member_add:role": (
            reverse("seasons:staff_role", args=[s, crew.spare.pk]),
            {"role": "cashier"},
        ),
        "house_member_remove": (reverse("seasons:staff_remove", args=[s, crew.spare.pk]), {}),
        "ownership_transfer": (
            reverse("seasons:owner", args=[s]),
            {"user_id": str(crew.spare.pk), "confirm": "1"},
        ),
        "staff_invite": (
            reverse("seasons:invite", args=[s]),
            {"email": "someone@example.com", "role": "cashier"},
        ),
        "series_defaults_set": (
            reverse("seasons:defaults", args=[s]),
            {"entry_mode": "sponsored", "asks_age": "1", "minimum_age": "21"},
        ),
        "series_next_event": (reverse("seasons:next_event", args=[s]), {}),
        "season_create": (
            reverse("seasons:season_new", args=[s]),
            {"name": "Spring", "starts_on": "2027-01-01", "ends_on": "2027-03-31"},
        ),
        "season_update": (reverse("seasons:season_rules", args=[season]), {"name": "Autumn 26"}),
        "championship_create": (
            reverse("seasons:championship_new", args=[season]),
            {"date": "2026-12-10"},
        ),
        "display_link_create": (
            reverse("seasons:display_link_create", args=[s]),
            {"label": "Door screen"},
        ),
        "display_link_revoke": (
            reverse("seasons:display_link_revoke", args=[s]),
            {"link": str(crew.link_id)},
        ),
    }


def _post(client: Client, path: str, data: dict[str, str], key: str = "k") -> Any:
    return client.post(path, {**data, "idempotency_key": key})


def test_every_series_form_is_refused_to_each_role_that_may_not_use_it() -> None:
    crew = make_crew()
    forms = _forms(crew)
    tried = 0
    for role in ("owner", "director", "cashier", "scorer"):
        client = _client(crew.people[role])
        assert client.get(_page(crew)).status_code == 200
        for name, (path, data) in forms.items():
            if series_allowed(role, name.split(":")[0]):
                continue
            with nothing_changes(crew, f"{role} {name}"):
                response = _post(client, path, data, key=f"{role}-{name}")
            assert response.status_code == 302, (role, name)
            wanted = f"Your role in this series ({role}) does not include"
            assert any(wanted in text for text in said(response)), (role, name, said(response))
            tried += 1
    for role in ("player", "outsider"):
        client = _client(crew.people[role])
        assert client.get(_page(crew)).status_code == 404
        for name, (path, data) in forms.items():
            with nothing_changes(crew, f"{role} {name}"):
                assert _post(client, path, data).status_code == 404, (role, name)
            tried += 1
    # 12 forms: the owner is refused none, a director the 5 staff forms, a cashier and a scorer
    # all 12; a player and an outsider find none of them (404): 53 cases.
    assert (len(forms), tried) == (12, 0 + 5 + 12 + 12 + 12 + 12)


def test_the_staff_section_lists_each_member_with_their_role() -> None:
    crew = make_crew()
    owner_view = _client(crew.people["owner"]).get(_page(crew)).content.decode()
    for role in ("owner", "director", "cashier", "scorer"):
        assert f'{crew.people[role].display_name} <span class="chip muted" data-role>{role}' in (
            owner_view
        )
    assert "Appoint a staff member by email" in owner_view
    assert "Hand ownership over" in owner_view and "Leave this series" not in owner_view
    cashier_view = _client(crew.people["cashier"]).get(_page(crew)).content.decode()
    assert "Owner" in cashier_view and "Leave this series" in cashier_view
    assert "Appoint a staff member" not in cashier_view and "Save the defaults" not in cashier_view
    assert crew.people["owner"].email not in cashier_view  # only who manages the staff sees them
    director_view = _client(crew.people["director"]).get(_page(crew)).content.decode()
    assert "Save the defaults" in director_view and "Hand ownership over" not in director_view


def test_the_owner_appoints_changes_a_role_removes_and_hands_ownership_over() -> None:
    crew = make_crew()
    owner = _client(crew.people["owner"])
    forms = _forms(crew)
    path, data = forms["house_member_add"]
    response = _post(owner, path, data, key="add")
    assert response["Location"] == _page(crew) + "#staff"
    assert _role(crew, crew.newcomer) == "scorer"
    _post(owner, *forms["house_member_add:role"], key="role")
    assert _role(crew, crew.spare) == "cashier"
    # No account with the email: said plainly, nothing changed.
    with nothing_changes(crew):
        missing = _post(owner, path, {"email": "nobody@example.com"}, key="missing")
    assert any("No Syndicate Account uses that email" in text for text in said(missing))
    # Handing ownership over needs the box ticked.
    path, data = forms["ownership_transfer"]
    with nothing_changes(crew):
        unticked = _post(owner, path, {"user_id": data["user_id"]}, key="unticked")
    assert any("Tick the box" in text for text in said(unticked))
    _post(owner, path, data, key="owner")
    assert (_role(crew, crew.spare), _role(crew, crew.people["owner"])) == ("owner", "director")
    new_owner = _client(crew.spare)
    _post(new_owner, reverse("seasons:staff_remove", args=[crew.series_id, crew.newcomer.pk]), {})
    assert _role(crew, crew.newcomer) is None


def test_a_member_leaves_and_the_owner_is_told_to_hand_over_first() -> None:
    crew = make_crew()
    leave = reverse("seasons:leave", args=[crew.series_id])
    response = _post(_client(crew.people["scorer"]), leave, {})
    assert response["Location"] == reverse("house:events")
    assert _role(crew, crew.people["scorer"]) is None
    with nothing_changes(crew):
        refused = _post(_client(crew.people["owner"]), leave, {})
    assert any("hands ownership over first" in text for text in said(refused))


def test_an_invitation_shows_its_link_and_its_page_accepts_it_once() -> None:
    crew = make_crew()
    owner = _client(crew.people["owner"])
    made = _post(
        owner,
        reverse("seasons:invite", args=[crew.series_id]),
        {"email": crew.newcomer.email, "role": "cashier"},
    )
    invitation = Invitation.objects.get(series=crew.series_id)
    link = reverse("staff_invitation", args=[invitation.token])  # the one invitation page
    former = reverse("seasons:series_invitation", args=[invitation.token])
    assert _client(crew.newcomer).get(former)["Location"] == link
    assert any("its link is listed below" in text for text in said(made))
    assert link in owner.get(_page(crew)).content.decode()  # pending, with its link
    # Someone else signed in sees whom it is for, and no Accept.
    other = _client(crew.people["outsider"]).get(link).content.decode()
    assert "for another email address" in other and ">Accept<" not in other
    with nothing_changes(crew):
        _post(_client(crew.people["outsider"]), link, {})
    invitee = _client(crew.newcomer)
    page = invitee.get(link).content.decode()
    assert "Thursday League" in page and ">cashier<" in page and ">Accept<" in page
    accepted = _post(invitee, link, {}, key="accept")
    assert accepted["Location"] == _page(crew)
    assert _role(crew, crew.newcomer) == "cashier"
    again = invitee.get(link).content.decode()
    assert "already been accepted" in again and ">Accept<" not in again
    unknown = reverse("staff_invitation", args=["nope"])
    assert invitee.get(unknown).status_code == 404
    assert link not in owner.get(_page(crew)).content.decode()  # no longer pending


def test_the_defaults_form_saves_them_and_the_next_event_takes_them() -> None:
    crew = make_crew()
    director = _client(crew.people["director"])
    path = reverse("seasons:defaults", args=[crew.series_id])
    page = director.get(_page(crew)).content.decode()
    assert 'name="minimum_age" min="1" max="99" value="21"' in page  # 21 offered
    _post(director, path, {"entry_mode": "sponsored", "asks_age": "1", "minimum_age": "21"})
    series = Series.objects.get(pk=crew.series_id)
    assert (series.entry_mode, series.minimum_age) == ("sponsored", 21)
    created = _post(director, reverse("seasons:next_event", args=[crew.series_id]), {}, key="n")
    event = Event.objects.exclude(pk=crew.event_id).get(series=crew.series_id)
    assert created["Location"] == reverse("house:dashboard", args=[event.pk])
    assert (event.entry_mode, event.minimum_age) == ("sponsored", 21)
    # Unticked: no age asked.
    _post(director, path, {"entry_mode": "paid", "minimum_age": "21"}, key="off")
    assert Series.objects.get(pk=crew.series_id).minimum_age == 0
    with nothing_changes(crew):
        bad = _post(director, path, {"entry_mode": "paid", "asks_age": "1", "minimum_age": "x"})
    assert any("whole number" in text for text in said(bad))


def test_an_invitation_is_emailed_with_its_link_after_the_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    crew = make_crew()
    owner = _client(crew.people["owner"])
    with django_capture_on_commit_callbacks(execute=True):
        _post(
            owner,
            reverse("seasons:invite", args=[crew.series_id]),
            {"email": crew.newcomer.email, "role": "scorer"},
        )
    invitation = Invitation.objects.get(series=crew.series_id)
    (message,) = [m for m in mail.outbox if m.to == [crew.newcomer.email]]
    assert reverse("staff_invitation", args=[invitation.token]) in message.body
    assert "Thursday League" in message.subject and "scorer" in message.subject
