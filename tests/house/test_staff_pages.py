"""The staff on House's pages (docs/decisions.md, "Roles"): the owner invites by email and the
invitee accepts on the invitation's page; the owner hands ownership over and withdraws an
invitation; a member leaves; each role's dashboard leaves out the buttons its role does not use, and
Tonight counts the entry money the ledger holds."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import URLPattern, get_resolver, resolve, reverse

from accounts.models import User
from audit.models import AuditEntry
from events import services
from house.read_model import HOUSE_FORMS
from ledger import services as ledger
from staff import roles as staff
from staff.models import Invitation, Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.house.support import post, url
from tests.refusals import said

pytestmark = pytest.mark.django_db


def _account(name: str, email: str) -> User:
    user = make_user(name)
    User.objects.filter(pk=user.pk).update(email=email)
    user.refresh_from_db()
    return user


def test_the_owner_invites_by_email_and_the_invitee_accepts_on_the_invitation_page(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    table = make_table()
    event = table.event
    client.force_login(table.house)
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, "staff_invite", event.pk, email="casey@example.com", role="cashier")
    assert response.status_code == 302
    assert "Invitation emailed to casey@example.com (cashier)" in said(response)[0]
    invitation = Invitation.objects.get(event=event)
    link = reverse("house:invitation", kwargs={"token": invitation.token})
    # The email carries the link; the settings page lists it to hand over.
    (message,) = [m for m in mail.outbox if m.to == ["casey@example.com"]]
    assert link in message.body and event.name in message.subject
    settings_page = client.get(url("event_edit", event.pk)).content.decode()
    assert link in settings_page and "casey@example.com" in settings_page

    # Someone else signed in is told plainly, and nothing changes.
    client.force_login(make_user("Stranger"))
    page = client.get(link).content.decode()
    assert "This invitation is for another email address" in page
    refused = client.post(link, {"idempotency_key": "k1"})
    assert "for another email address" in said(refused)[0]
    assert not Membership.objects.filter(event=event, role="cashier").exists()

    casey = _account("Casey", "Casey@Example.com")
    client.force_login(casey)
    page = client.get(link).content.decode()
    assert "Join the staff of" in page and "cashier" in page and ">Accept<" in page
    accepted = client.post(link, {"idempotency_key": "k2"})
    assert accepted["Location"] == url("dashboard", event.pk)
    assert Membership.objects.get(event=event, user=casey).role == "cashier"
    again = client.get(link).content.decode()
    assert "already been accepted" in again and ">Accept<" not in again


def test_a_visitor_is_sent_to_sign_in_and_an_unknown_link_is_not_found(client: Client) -> None:
    table = make_table()
    invited = services.staff_invite(
        scope=Scope.of(table.event), by=table.house, email="a@example.com"
    )
    link = reverse("house:invitation", kwargs={"token": invited.token})
    assert client.get(link)["Location"].startswith(reverse("account_login"))
    client.force_login(make_user("Someone"))
    assert client.get(reverse("house:invitation", kwargs={"token": "forged"})).status_code == 404


def test_the_owner_withdraws_an_invitation_and_its_link_stops_working(client: Client) -> None:
    table = make_table()
    event = table.event
    invited = services.staff_invite(scope=Scope.of(event), by=table.house, email="dee@example.com")
    client.force_login(table.house)
    done = post(client, "staff_invitation_cancel", event.pk, invited.invitation_id)
    assert "Invitation withdrawn" in said(done)[0]
    assert not Invitation.objects.filter(pk=invited.invitation_id).exists()
    entry = AuditEntry.objects.filter(event=event, action="staff_invitation_cancelled").get()
    assert entry.details == {"invitation": invited.invitation_id}
    dee = _account("Dee", "dee@example.com")
    client.force_login(dee)
    link = reverse("house:invitation", kwargs={"token": invited.token})
    assert client.get(link).status_code == 404
    assert not Membership.objects.filter(event=event, user=dee).exists()


def test_the_owner_hands_ownership_over_on_the_settings_page(client: Client) -> None:
    table = make_table()
    event = table.event
    owner, helper = make_user("Olive"), make_user("Hal")
    services.house_member_add(scope=Scope.of(event), by=table.house, member=owner)
    services.ownership_transfer(scope=Scope.of(event), by=table.house, member=owner)
    services.house_member_add(scope=Scope.of(event), by=table.house, member=helper, role="scorer")
    client.force_login(owner)
    page = client.get(url("event_edit", event.pk)).content.decode()
    handover = url("ownership_transfer", event.pk, helper.pk)
    assert handover in page and 'data-confirm-text="Hand ownership' in page
    done = post(client, "ownership_transfer", event.pk, helper.pk)
    assert "Hal owns this event now" in said(done)[0]
    roles = dict(Membership.objects.filter(event=event).values_list("user__display_name", "role"))
    assert roles["Hal"] == "owner" and roles["Olive"] == "director"
    # Olive is a director now: no ownership buttons for her any more.
    assert "Make owner" not in client.get(url("event_edit", event.pk)).content.decode()


def test_a_member_leaves_and_the_owner_cannot_before_handing_over(client: Client) -> None:
    table = make_table()
    event = table.event
    owner, scorer = make_user("Olive"), make_user("Sam")
    services.house_member_add(scope=Scope.of(event), by=table.house, member=owner)
    services.ownership_transfer(scope=Scope.of(event), by=table.house, member=owner)
    services.house_member_add(scope=Scope.of(event), by=table.house, member=scorer, role="scorer")
    client.force_login(scorer)
    assert url("house_leave", event.pk) in client.get(url("event_edit", event.pk)).content.decode()
    left = post(client, "house_leave", event.pk)
    assert left["Location"] == url("events") and "You left the staff" in said(left)[0]
    assert not Membership.objects.filter(event=event, user=scorer).exists()
    assert client.get(url("dashboard", event.pk)).status_code == 404

    client.force_login(owner)
    assert (
        url("house_leave", event.pk) not in client.get(url("event_edit", event.pk)).content.decode()
    )
    refused = post(client, "house_leave", event.pk)
    assert "hands ownership over before leaving" in said(refused)[0]
    assert Membership.objects.get(event=event, user=owner).role == "owner"


# --- the buttons of each role -----------------------------------------------------------------

# The forms of the settings and invitation pages, outside the dashboard's buttons.
SETTINGS_FORMS = {
    "house:event_new",
    "house:event_edit",
    "house:house_member_add",
    "house:house_member_remove",
    "house:staff_invite",
    "house:staff_role",
    "house:staff_invitation_cancel",
    "house:ownership_transfer",
    "house:house_leave",
    "house:invitation",
}
# Pages that only read.
READS = {
    "house:events",
    "house:tonight",
    "house:dashboard",
    "house:dashboard_partial",
    "house:results_sheet",
    "house:audit_csv",
    "house:audit_json",
    "ledger:night",
    "ledger:night_csv",
}


def test_every_house_form_has_its_action_in_the_forms_table() -> None:
    resolver = get_resolver()
    names = {
        f"{namespace}:{pattern.name}"
        for namespace in ("house", "ledger")
        for pattern in resolver.namespace_dict[namespace][1].url_patterns
        if isinstance(pattern, URLPattern)
    }
    assert names == set(HOUSE_FORMS) | SETTINGS_FORMS | READS


def offered(page: str) -> set[str]:
    """The House actions a page's forms and dialog buttons perform (`HOUSE_FORMS`)."""
    found = set()
    for address in re.findall(r'(?:action|data-url)="(/[^"]*)"', page):
        match = resolve(address)
        name = f"{match.namespace}:{match.url_name}"
        if name in HOUSE_FORMS:
            found.add(HOUSE_FORMS[name])
    return found


def test_each_role_dashboard_leaves_out_the_buttons_outside_its_role(client: Client) -> None:
    table = make_table(players=2)
    event = table.event
    people = {role: make_user(role.capitalize()) for role in ("director", "cashier", "scorer")}
    for role, person in people.items():
        services.house_member_add(scope=Scope.of(event), by=table.house, member=person, role=role)
    people["owner"] = table.house
    for role, person in people.items():
        client.force_login(person)
        page = client.get(url("dashboard", event.pk)).content.decode()
        actions = offered(page)
        assert actions, role
        for action in actions:
            assert staff.acting_role([role], action) is not None, (role, action)
        assert "<style nonce" not in page  # nothing is hidden: it is left out
        if role == "cashier":
            assert 'class="more"' not in page
        assert f"Your role: {staff.Role(role).label}." in page
        night = client.get(reverse("ledger:night", args=[event.pk]))
        if role == "scorer":  # no money for a scorer: tests/house/test_roles_pages.py
            assert night.status_code == 403, role
        else:
            assert "<style nonce" not in night.content.decode(), role
            for action in offered(night.content.decode()):
                assert staff.acting_role([role], action) is not None, (role, action)


def test_tonight_counts_the_entry_money_the_ledger_holds(client: Client) -> None:
    table = make_table(players=3, contribution=10, start=True)
    event = table.event
    first, second, third = (table.rid(player) for player in table.players)
    ledger.entry_payment(event_id=event.pk, registration_id=first, by=table.house, method="cash")
    ledger.entry_payment(event_id=event.pk, registration_id=second, by=table.house, method="card")
    ledger.entry_payment(
        event_id=event.pk, registration_id=third, by=table.house, method="comp", reason="Sponsor"
    )
    client.force_login(table.house)
    page = client.get(url("tonight")).content.decode()
    # Two paid entries of $10; the comp holds no money.
    assert "$20 collected" in page
