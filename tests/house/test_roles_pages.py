"""The role matrix over House's pages (staff/roles.py, docs/decisions.md "Roles"): each staff
role posts every House form its role does not include; the page sends the form back with the
service's words naming the role, and nothing in the event changes. Staff in every role open
House's pages; a player of the event and an outsider get 404 (tests/house/test_access.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events.models import Review
from tests.events.test_roles import _scene, allowed
from tests.factories import make_user
from tests.house.support import post, url
from tests.refusals import refused_by_page, unchanged

pytestmark = pytest.mark.django_db

NEWCOMER = "newcomer@example.com"

EVENT_FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "registration_open": ("registration_open", {}),
    "registration_close": ("registration_close", {}),
    "event_start": ("event_start", {}),
    "participant_add": ("participant_add", {"email": NEWCOMER}),
    "self_check_in_switch": ("self_check_in_switch", {"enabled": "1"}),
    "check_in_all": ("check_in_all", {}),
    "announcement_send": ("announcement_send", {"text": "Last games."}),
    "pool_confirm": ("pool_confirm", {}),
    "event_finalize": ("event_finalize", {}),
    "house_member_add": ("house_member_add", {"email": NEWCOMER}),
}
PLAYER_FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "check_in": ("player_check_in", {}),
    "check_in_undo": ("check_in_undo", {}),
    "registration_cancel": ("registration_cancel", {}),
    "payment_mark": ("payment_mark", {"paid": "1"}),
    "result_submit": ("result_submit", {"game": "1", "outcome": "loss", "reason": "x"}),
    "win_choice": ("win_choice_confirm", {"slot": "0", "reason": "x"}),
    "starting_selection": ("starting_selection_confirm", {"slots": ["0"], "reason": "x"}),
    "result_correct": ("result_correct", {"game": "1", "outcome": "win", "reason": "x"}),
    "review_open": ("review_open", {"reason": "x"}),
    "withdraw": ("player_withdraw", {"reason": "x"}),
    "access_reset": ("access_reset", {"reason": "x"}),
    "wild_reveal": ("wild_reveal", {}),
}
LEDGER_FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "entry": ("entry_paid", {"method": "cash"}),
    "refund": ("entry_refunded", {"amount": "5", "method": "cash", "reason": "x"}),
    "payout": ("payout_made", {"amount": "5", "method": "cash", "acknowledged": "1"}),
    "sponsor": ("sponsor_paid", {"amount": "5", "method": "cash"}),
}


def test_each_staff_role_is_refused_every_form_its_role_does_not_include(client: Client) -> None:
    scene = _scene()
    User.objects.filter(pk=make_user("Newcomer").pk).update(email=NEWCOMER)
    event = scene.table.event
    bob = scene.rid(scene.bob)
    review = Review.objects.get(registration__event=event)
    forms: list[tuple[str, str, Callable[[], Any]]] = []
    for name, (action, data) in EVENT_FORMS.items():
        forms.append((name, action, partial(post, client, name, event.pk, **data)))
    for name, (action, data) in PLAYER_FORMS.items():
        forms.append((name, action, partial(post, client, name, event.pk, bob, **data)))
    forms.append(
        (
            "review_resolve",
            "review_resolve",
            lambda: post(client, "review_resolve", event.pk, review.pk, reason="x"),
        )
    )
    forms.append(
        (
            "house_member_remove",
            "house_member_remove",
            lambda: post(client, "house_member_remove", event.pk, scene.spare.pk),
        )
    )
    forms.append(
        (
            "staff_invite",
            "staff_invite",
            lambda: post(client, "staff_invite", event.pk, email=NEWCOMER, role="scorer"),
        )
    )
    forms.append(
        (
            "display_link_create",
            "display_link_create",
            lambda: post(client, "display_link_create", event.pk, label="Door screen"),
        )
    )
    forms.append(
        (
            "staff_invitation_cancel",
            "staff_invitation_cancel",
            lambda: post(client, "staff_invitation_cancel", event.pk, scene.invitation_id),
        )
    )
    forms.append(
        (
            "ownership_transfer",
            "ownership_transfer",
            lambda: post(client, "ownership_transfer", event.pk, scene.spare.pk),
        )
    )
    forms.append(
        (
            "display_link_revoke",
            "display_link_revoke",
            lambda: post(client, "display_link_revoke", event.pk, link=str(scene.link_id)),
        )
    )
    for name, (action, data) in LEDGER_FORMS.items():
        path = reverse(f"ledger:{name}", args=[event.pk])
        forms.append((name, action, partial(client.post, path, {"registration": bob, **data})))
    tried = 0
    for role in ("owner", "director", "cashier", "scorer"):
        client.force_login(scene.people[role])
        assert client.get(url("dashboard", event.pk)).status_code == 200
        for _name, action, send in forms:
            if allowed(role, action):
                continue
            refused_by_page(send, event, message=f"Your role in this event ({role}) does not")
            tried += 1
    # 33 forms: the owner is refused none, a director 5 (the staff's), a cashier 24, a scorer 28.
    assert (len(forms), tried) == (33, 0 + 5 + 24 + 28)


def test_a_scorer_sees_no_money_on_the_night_report_its_csv_or_the_dashboard(
    client: Client,
) -> None:
    """The night's money (staff/roles.py `SIGHTS`): the owner, a director and a cashier see the
    night report (its print is the same page), its CSV and the dashboard's cash box; a scorer is
    refused the report and the CSV with a House action's words, its role named, and its dashboard
    names the role where the cash box would be. Nothing changes."""
    scene = _scene()
    event = scene.table.event
    night = reverse("ledger:night", args=[event.pk])
    csv = reverse("ledger:night_csv", args=[event.pk])
    for role in ("owner", "director", "cashier", "scorer"):
        client.force_login(scene.people[role])
        with unchanged(event, role):
            report, sheet, dashboard = (
                client.get(night),
                client.get(csv),
                client.get(url("dashboard", event.pk)),
            )
        assert dashboard.status_code == 200, role
        board = dashboard.content.decode()
        if role == "scorer":
            words = f"Your role in this event ({role}) does not include that"
            for refused in (report, sheet):
                assert refused.status_code == 403, role
                text = refused.content.decode()
                assert words in text and 'id="expected-cash"' not in text, role
                assert "text/csv" not in refused["Content-Type"], role
            assert 'id="cash-box-unseen"' in board and words in board
            assert "Expected in the box" not in board and 'id="pool-ledger"' not in board
        else:
            assert report.status_code == 200 and 'id="expected-cash"' in report.content.decode()
            assert sheet.status_code == 200 and sheet["Content-Type"].startswith("text/csv")
            assert "Expected in the box" in board and 'id="cash-box-unseen"' not in board, role
