"""Every page write carries its form's Idempotency-Key (docs/rules.md section 11.1): a form posted
without one (a stale page, a hand-made request) is refused in plain words and changes nothing.

The routes are every POST route of the player and House pages that calls a service, read from
the resolver; those that call none (settings, the Scoreholio check) are listed apart.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import URLPattern, get_resolver, reverse

from events.models import Event
from staff.scopes import Scope
from tests import routes
from tests.factories import make_table
from tests.refusals import unchanged

OUT_OF_DATE = "This form is out of date: reload the page and try again."
# Page routes that change no event: nothing to key.
UNKEYED = {
    "web:home",
    "web:rules",
    "web:js_catalog",
    "web:health",
    "web:settings",
    "web:event",
    "web:event_partial",
    "web:board",
    "web:board_partial",
    "web:board_snapshot",
    "web:board_final",
    "web:board_venue",
    "web:display",
    "web:display_now",
    "house:events",
    "house:dashboard",
    "house:dashboard_partial",
    "house:audit_csv",
    "house:audit_json",
    "house:scoreholio_upload",
    "house:scoreholio_clear",
    "house:results_sheet",
    "house:tonight",
}
# Each form's body, by its route's name without the namespace (tests/routes.py).
FORMS = {**routes.FORMS, **routes.MORE_FORMS}


def page_routes() -> list[str]:
    names = []
    for namespace in ("web", "house"):
        resolver = get_resolver().namespace_dict[namespace][1]
        for entry in resolver.url_patterns:
            if isinstance(entry, URLPattern) and f"{namespace}:{entry.name}" not in UNKEYED:
                names.append(f"{namespace}:{entry.name}")
    return sorted(names)


ROUTES = page_routes()


def test_the_sweep_covers_the_actions() -> None:
    assert {"web:register", "web:leave", "house:event_start", "house:pool_confirm"} <= set(ROUTES)


@pytest.fixture
def table(db: None, settings: Any):
    table = make_table("league", players=2, start=True)
    table.choose_start(table.players[1])
    table.report(table.players[1], 1, "win")
    return table


@pytest.mark.parametrize("name", ROUTES)
@pytest.mark.parametrize("key", [None, "", "   "])
def test_a_form_without_its_key_is_refused(client: Client, table, name: str, key) -> None:
    pattern = next(
        p
        for p in get_resolver().namespace_dict[name.split(":")[0]][1].url_patterns
        if isinstance(p, URLPattern) and p.name == name.split(":")[1]
    )
    route = str(pattern.pattern)
    registration = table.rid(table.players[1])
    kwargs: dict[str, int | str] = {}
    if "event_id" in route:
        kwargs["event_id"] = table.event.pk
    if "scope_id" in route and name.startswith("house:"):  # the staff pages of an event
        kwargs["scope_id"] = table.event.pk
    if "registration_id" in route:
        kwargs["registration_id"] = registration
    if "review_id" in route:
        from events import services

        kwargs["review_id"] = int(
            services.review_open(
                registration_id=registration, by=table.house, reason="Why"
            ).review_id
        )
    if "user_id" in route:
        kwargs["user_id"] = table.house.pk
    if "invitation_id" in route or "<str:token>" in route:
        from events import services

        invited = services.staff_invite(
            scope=Scope.of(table.event), by=table.house, email="invited@example.com"
        )
        if "invitation_id" in route:
            kwargs["invitation_id"] = invited.invitation_id
        else:
            kwargs["token"] = invited.token
    client.force_login(table.house if name.startswith("house:") else table.players[1])
    with unchanged(table.event.pk, name):
        events = Event.objects.count()
        data = dict(FORMS.get(name.split(":")[1], {}))
        if key is not None:
            data["idempotency_key"] = key
        response = client.post(reverse(name, kwargs=kwargs), data)
        assert response.status_code in (200, 302), (name, response.status_code)
        shown = [str(m) for m in get_messages(response.wsgi_request)]
        assert OUT_OF_DATE in shown or OUT_OF_DATE.encode() in response.content, (name, shown)
    assert Event.objects.count() == events
