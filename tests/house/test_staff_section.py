"""The one staff section (house/staff_pages.py, templates/staff/_section.html) on an event's
settings page and on a series' page: the same forms for the same role on both, left out rather
than hidden; each form works on both scopes; refusals keep their words and change nothing; one
invitation page accepts both kinds of invitation."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events import services as events
from events.models import Event
from seasons import services as seasons
from seasons.models import Series
from staff.models import DisplayLink, Invitation, Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

ROLES = ("owner", "director", "cashier", "scorer")


@dataclass
class Scene:
    """An event of no series and a series, each with the same people in the same roles."""

    event: Event
    series: Series
    people: dict[str, User]
    newcomer: User
    outsider: User

    def scopes(self) -> dict[str, Model]:
        return {"event": self.event, "series": self.series}


def _scene() -> Scene:
    table = make_table()
    site = table.house
    people = {role: make_user(role.capitalize()) for role in ROLES}
    series_id = seasons.series_create(by=site, name="Friday Series", venue="The Dock").series_id
    series = Series.objects.get(pk=series_id)
    event = table.event
    owner = people["owner"]
    events.house_member_add(scope=Scope.of(event), by=site, member=owner)
    events.ownership_transfer(scope=Scope.of(event), by=site, member=owner)
    events.house_member_add(scope=Scope.of(series), by=site, member=owner)
    events.ownership_transfer(scope=Scope.of(series), by=site, member=owner)
    for role, person in people.items():
        if role != "owner":
            events.house_member_add(scope=Scope.of(event), by=owner, member=person, role=role)
            events.house_member_add(scope=Scope.of(series), by=owner, member=person, role=role)
    # The site staff who made both, a director since, leave both staffs.
    events.house_member_remove(scope=Scope.of(event), by=owner, member=site)
    events.house_member_remove(scope=Scope.of(series), by=owner, member=site)
    return Scene(event, series, people, make_user("Newton"), make_user("Otto"))


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(scope: Model) -> str:
    if isinstance(scope, Event):
        return reverse("house:event_edit", args=[scope.pk])
    return reverse("seasons:series", args=[scope.pk])


def _anchor(scope: Model) -> str:
    return "house" if isinstance(scope, Event) else "staff"


def _section(client: Client, scope: Model) -> str:
    page = client.get(_page(scope)).content.decode()
    start = page.index(f'<section class="panel" id="{_anchor(scope)}"')
    return page[start : page.index("</section>", start)]


def _forms(section: str) -> list[str]:
    """Each form of the section, as the member it stands beside (or the section) and its
    button's words."""
    start = section.index('<ul class="plain members">')
    end = section.index("</ul>", start)
    found = []
    for row in section[start:end].split("<li ")[1:]:
        member = re.match(r'data-member="(\d+)"', row)
        assert member is not None
        who = User.objects.get(pk=int(member.group(1))).display_name
        found += [f"{who}: {words}" for words in re.findall(r"<button[^>]*>([^<]*)</button>", row)]
    found += [
        f"section: {words}" for words in re.findall(r"<button[^>]*>([^<]*)</button>", section[end:])
    ]
    return [words.replace("event", "SCOPE").replace("series", "SCOPE") for words in found]


def _said(response: Any) -> list[str]:
    """The messages the response leaves, the last one the action's own."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def _answer(response: Any) -> str:
    return _said(response)[-1]


def _post(client: Client, path: str, **data: str) -> Any:
    return client.post(path, {"idempotency_key": uuid.uuid4().hex, **data})


def _staff(scope: Model) -> dict[str, str]:
    rows = Membership.objects.of(scope).select_related("user")
    return {row.user.display_name: row.role for row in rows}


def _state(scope: Model) -> tuple[Any, ...]:
    """Everything the staff forms could change in a scope."""
    return (
        sorted(_staff(scope).items()),
        list(
            Invitation.objects.of(scope)
            .order_by("pk")
            .values_list("pk", "email", "role", "token", "accepted_at")
        ),
        list(
            DisplayLink.objects.of(scope)
            .order_by("pk")
            .values_list("pk", "label", "token_hash", "revoked_at")
        ),
    )


# Each form's URL name on each page.
NAMES = {
    "event": {
        "add": "house:house_member_add",
        "role": "house:staff_role",
        "remove": "house:house_member_remove",
        "owner": "house:ownership_transfer",
        "invite": "house:staff_invite",
        "withdraw": "house:staff_invitation_cancel",
        "leave": "house:house_leave",
        "display": "house:display_link_create",
        "revoke": "house:display_link_revoke",
    },
    "series": {
        "add": "seasons:staff_add",
        "role": "seasons:staff_role",
        "remove": "seasons:staff_remove",
        "owner": "seasons:staff_owner",
        "invite": "seasons:invite",
        "withdraw": "seasons:invitation_withdraw",
        "leave": "seasons:leave",
        "display": "seasons:display_link_create",
        "revoke": "seasons:display_link_revoke",
    },
}


def _url(kind: str, form: str, scope: Model, *more: int) -> str:
    return reverse(NAMES[kind][form], args=[scope.pk, *more])


def test_both_pages_render_the_same_section_for_the_same_role() -> None:
    scene = _scene()
    for role in ROLES:
        client = _client(scene.people[role])
        event, series = (_section(client, scope) for scope in (scene.event, scene.series))
        assert _forms(event) == _forms(series), role
        for kind, scope in scene.scopes().items():
            section = event if kind == "event" else series
            for person_role, person in scene.people.items():
                assert (
                    f'{person.display_name} <span class="chip muted" data-role>{person_role}'
                    in (section)
                )
            # What the viewer may not use is left out, not hidden: not even its address.
            others = [p for r, p in scene.people.items() if r not in ("owner", role)]
            addresses = [_url(kind, "add", scope), _url(kind, "invite", scope)]
            addresses += [_url(kind, form, scope, p.pk) for p in others for form in NAMES_PER]
            for address in addresses:
                assert (f'action="{address}"' in section) == (role == "owner"), (kind, role)
            assert ('action="' + _url(kind, "leave", scope) + '"' in section) == (role != "owner")
            # Only who may appoint sees the members' emails.
            assert (scene.people["scorer"].email in section) == (role == "owner"), (kind, role)
    owner = _forms(_section(_client(scene.people["owner"]), scene.event))
    assert "Director: Make owner" in owner and "Scorer: Change role" in owner
    assert "section: Appoint" in owner and "section: Invite" in owner
    scorer = _forms(_section(_client(scene.people["scorer"]), scene.series))
    assert scorer == ["Scorer: Leave this SCOPE"]


NAMES_PER = ("role", "remove", "owner")


@pytest.mark.parametrize("kind", ["event", "series"])
def test_each_form_works_on_the_scope(kind: str) -> None:
    scene = _scene()
    scope = scene.scopes()[kind]
    owner = _client(scene.people["owner"])
    newcomer = scene.newcomer
    back = f"{_page(scope)}#{_anchor(scope)}"

    added = _post(owner, _url(kind, "add", scope), email=newcomer.email.upper(), role="scorer")
    assert added["Location"] == back
    assert _staff(scope)["Newton"] == "scorer"
    assert _answer(added) == (
        "Newton is House for this event (scorer)."
        if kind == "event"
        else "Newton is on the series' staff (scorer)."
    )

    changed = _post(owner, _url(kind, "role", scope, newcomer.pk), role="cashier")
    assert _staff(scope)["Newton"] == "cashier"
    assert _answer(changed) == f"Newton is now cashier of the {kind}."

    removed = _post(owner, _url(kind, "remove", scope, newcomer.pk))
    assert "Newton" not in _staff(scope) and "is no longer" in _answer(removed)

    invited = _post(owner, _url(kind, "invite", scope), email="ivy@example.com", role="cashier")
    assert "ivy@example.com (cashier)" in _answer(invited)
    invitation = Invitation.objects.of(scope).get()
    section = _section(owner, scope)
    link = reverse("house:invitation", args=[invitation.token])
    assert link in section and "ivy@example.com" in section
    withdrawn = _post(owner, _url(kind, "withdraw", scope, invitation.pk))
    assert "its link no longer works" in _answer(withdrawn)
    assert not Invitation.objects.of(scope).exists()

    handed = _post(owner, _url(kind, "owner", scope, scene.people["director"].pk))
    assert handed["Location"] == back and "owns" in _answer(handed)
    assert (_staff(scope)["Director"], _staff(scope)["Owner"]) == ("owner", "director")

    left = _post(_client(scene.people["scorer"]), _url(kind, "leave", scope))
    assert left["Location"] == reverse("house:events")
    assert "Scorer" not in _staff(scope)

    director = _client(scene.people["owner"])  # a director now: displays are theirs too
    made = _post(director, _url(kind, "display", scope), label="Door screen")
    assert (
        made["Location"]
        == (reverse("house:dashboard", args=[scope.pk]) if kind == "event" else _page(scope))
        + "#displays"
    )
    assert "Door screen" in _answer(made)
    link_row = DisplayLink.objects.of(scope).get()
    page = director.get(made["Location"].split("#")[0]).content.decode()
    assert "data-fresh-display-link" in page and _url(kind, "revoke", scope) in page
    revoked = _post(director, _url(kind, "revoke", scope), link=str(link_row.pk))
    assert _answer(revoked) == "Display link revoked: its screen now says so."
    link_row.refresh_from_db()
    assert link_row.revoked_at is not None


# The refusals of each page, as they were before the pages shared one section.
REFUSALS = {
    "event": {
        "cashier adds": (
            "Your role in this event (cashier) does not include that (house member add)."
        ),
        "director invites": (
            "Your role in this event (director) does not include that (staff invite)."
        ),
        "owner leaves": "The owner hands ownership over before leaving or being removed",
        "no account": "No Syndicate Account uses that email: they sign up first.",
        "bad email": "Enter the House member's email address.",
        "not a member": "That person is not House for this event.",
        "bad role": "A staff member is a director, a cashier or a scorer.",
        "no link": "Choose the display link to revoke.",
    },
    "series": {
        "cashier adds": (
            "Your role in this series (cashier) does not include that (house member add)."
        ),
        "director invites": (
            "Your role in this series (director) does not include that (staff invite)."
        ),
        "owner leaves": "The owner hands ownership over first: a series keeps an owner.",
        "no account": "No Syndicate Account uses that email: they sign up first.",
        "bad email": "Enter the staff member's email address.",
        "not a member": "That person is not on this series' staff.",
        "bad role": "A staff member is a director, a cashier or a scorer.",
        "no link": "Choose the display link to revoke.",
    },
}


@pytest.mark.parametrize("kind", ["event", "series"])
def test_refusals_keep_their_words_and_change_nothing(kind: str) -> None:
    scene = _scene()
    scope = scene.scopes()[kind]
    people = {role: _client(person) for role, person in scene.people.items()}
    tries = {
        "cashier adds": (people["cashier"], _url(kind, "add", scope), {"email": "x@example.com"}),
        "director invites": (
            people["director"],
            _url(kind, "invite", scope),
            {"email": "x@example.com"},
        ),
        "owner leaves": (people["owner"], _url(kind, "leave", scope), {}),
        "no account": (people["owner"], _url(kind, "add", scope), {"email": "no@example.com"}),
        "bad email": (people["owner"], _url(kind, "add", scope), {"email": "not an email"}),
        "not a member": (people["owner"], _url(kind, "remove", scope, scene.outsider.pk), {}),
        "bad role": (
            people["owner"],
            _url(kind, "role", scope, scene.people["scorer"].pk),
            {"role": "captain"},
        ),
        "no link": (people["owner"], _url(kind, "revoke", scope), {"link": "x"}),
    }
    assert tries.keys() == REFUSALS[kind].keys()
    for name, (client, path, data) in tries.items():
        before = _state(scope)
        response = _post(client, path, **data)
        assert response.status_code == 302, name
        assert any(REFUSALS[kind][name] in text for text in _said(response)), (
            name,
            _said(response),
        )
        assert _state(scope) == before, name
    # Anyone not House for the scope finds none of its forms, nor its page.
    outsider = _client(scene.outsider)
    assert outsider.get(_page(scope)).status_code == 404
    for form in ("add", "invite", "leave", "display", "revoke"):
        before = _state(scope)
        assert _post(outsider, _url(kind, form, scope), email="x@example.com").status_code == 404
        assert _state(scope) == before


def test_a_series_hand_over_chosen_in_a_list_still_wants_its_box_ticked() -> None:
    scene = _scene()
    owner = _client(scene.people["owner"])
    path = reverse("seasons:owner", args=[scene.series.pk])
    chosen = str(scene.people["director"].pk)
    before = _state(scene.series)
    unticked = _post(owner, path, user_id=chosen)
    assert "Tick the box to confirm: you stay on as director." in _said(unticked)
    assert _state(scene.series) == before
    _post(owner, path, user_id=chosen, confirm="1")
    assert _staff(scene.series)["Director"] == "owner"


@pytest.mark.parametrize("kind", ["event", "series"])
def test_one_invitation_page_accepts_both_kinds(kind: str) -> None:
    scene = _scene()
    scope = scene.scopes()[kind]
    owner = scene.people["owner"]
    if kind == "event":
        token = events.staff_invite(
            scope=Scope.of(scope), by=owner, email=scene.newcomer.email, role="cashier"
        ).token
    else:
        token = events.staff_invite(
            scope=Scope.of(scope), by=owner, email=scene.newcomer.email, role="cashier"
        ).token
    link = reverse("house:invitation", args=[token])
    assert link == reverse("staff_invitation", args=[token]) == f"/house/invitations/{token}"
    # The series' old address sends to the one page.
    old = _client(scene.newcomer).get(f"/house/series/invitations/{token}/")
    assert old.status_code == 301 and old["Location"] == link

    stranger = _client(scene.outsider)
    page = stranger.get(link).content.decode()
    assert "for another email address" in page and ">Accept<" not in page
    before = _state(scope)
    refused = _post(stranger, link)
    assert refused["Location"] == link
    assert any("for another email address" in text for text in _said(refused))
    assert _state(scope) == before

    invitee = _client(scene.newcomer)
    page = invitee.get(link).content.decode()
    assert f"Join the staff of {scope}" in page and ">cashier<" in page and ">Accept<" in page
    accepted = _post(invitee, link)
    landing = reverse("house:dashboard", args=[scope.pk]) if kind == "event" else _page(scope)
    assert accepted["Location"] == landing
    assert _answer(accepted) == f"You are on the staff of {scope} (cashier)."
    assert _staff(scope)["Newton"] == "cashier"
    # The new member is in the section now, as the owner sees it.
    assert "Newton" in _section(_client(owner), scope)
    again = invitee.get(link).content.decode()
    assert "already been accepted" in again and ">Accept<" not in again
    assert invitee.get(reverse("house:invitation", args=["forged"])).status_code == 404
