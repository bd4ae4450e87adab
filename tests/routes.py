"""Every URL pattern of the project, read from the resolver, so a sweep covers a new route
without anyone listing it: its route, its name, the parameters it takes, the methods its view
answers, and a plausible body for each write (so a request reaches the object it names rather
than stopping at the body's checks)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>")

# A plausible body for each API write, by the route's name.
BODIES: dict[str, dict[str, Any]] = {
    "event": {"name": "Renamed"},
    "starting-selection": {"slots": [0]},
    "results": {"game": 1, "outcome": "loss"},
    "win-choice": {"slot": 0},
    "withdraw": {"reason": "Left"},
    "house-members": {"user_id": 1},
    "participants": {"email": "someone@example.com"},
    "pool-confirm": {"adjustments": []},
    "corrections": {"game": 1, "outcome": "win", "reason": "Checked"},
    "reviews": {"reason": "Checked"},
    "review-resolve": {"reason": "Checked"},
    "access-reset": {"reason": "Lost phone"},
    "event-series": {"series_id": None},
    "display-links": {"label": "Projector"},
    "promote": {"reason": "Next in line"},
    "remove": {"reason": "Asked to leave"},
    "seasons": {"name": "Spring", "starts_on": "2027-03-01", "ends_on": "2027-05-31"},
    "season": {"name": "Renamed"},
    "series": {"capacity": 20},
    "championship": {"date": "2026-12-20"},
    "ledger-entries": {"method": "cash"},
    "ledger-refunds": {"amount": 10, "method": "cash", "reason": "Left early"},
    "ledger-payouts": {"amount": 10, "method": "cash", "acknowledged": True},
    "ledger-sponsor": {"amount": 50, "method": "cash"},
    "self-check-in-switch": {"enabled": False},
    "self-check-in": {"code": "ABCDEF"},
    "payment": {"paid": True},
    "announcements": {"text": "Free drinks at the bar"},
    "staff-invitations": {"email": "someone@example.com", "role": "scorer"},
    "series-staff-invitations": {"email": "someone@example.com", "role": "scorer"},
    "series-display-links": {"label": "Projector"},
    "venues": {"name": "Annex", "time_zone_name": "UTC"},
}
# The values of a body that name an object, by the route's name: the body's field and the name
# of the id it carries (`body`).
ID_BODIES: dict[str, dict[str, str]] = {
    "house-members": {"user_id": "user_id"},
    "series-house-members": {"user_id": "user_id"},
    "event-owner": {"user_id": "user_id"},
    "series-owner": {"user_id": "user_id"},
    "event-series": {"series_id": "series_id"},
    "ledger-entries": {"registration_id": "registration_id"},
    "ledger-refunds": {"registration_id": "registration_id"},
    "ledger-payouts": {"registration_id": "registration_id"},
    "staff-invitation-accept": {"token": "invitation_token"},
    "series-staff-invitation-accept": {"token": "series_invitation_token"},
}
# The same for the pages' forms.
ID_FORMS: dict[str, dict[str, str]] = {
    "display_link_revoke": {"link": "link_id"},
    "event_add": {"event": "event_id"},
    "entry": {"registration": "registration_id"},
    "refund": {"registration": "registration_id"},
    "payout": {"registration": "registration_id"},
}
# The same for each page's form, by the route's name.
FORMS: dict[str, dict[str, str]] = {
    "report": {"game": "1", "outcome": "loss"},
    "keep": {"slot": "0"},
    "start_confirm": {"slot": "0"},
    "result_submit": {"game": "1", "outcome": "loss", "reason": "Hand"},
    "result_correct": {"game": "1", "outcome": "win", "reason": "Checked"},
    "win_choice": {"slot": "0", "reason": "Asked"},
    "starting_selection": {"slot": "0", "reason": "Asked"},
    "review_open": {"reason": "Checked"},
    "review_resolve": {"reason": "Checked"},
    "withdraw": {"reason": "Left"},
    "access_reset": {"reason": "Lost phone"},
    "participant_add": {"email": "someone@example.com"},
    "pool_confirm": {"amount": "5", "explanation": "Tip"},
    "house_member_add": {"email": "someone@example.com"},
    "display_link_create": {"label": "Projector"},
    "announcement_send": {"text": "Free drinks at the bar"},
    "payment_mark": {"paid": "1"},
    "registration_cancel": {"reason": "Asked to leave"},
    "waitlist_promote": {"reason": "Next in line"},
    "registration_remove": {"reason": "Asked to leave"},
    "staff_role": {"role": "scorer"},
    "staff_invite": {"email": "someone@example.com", "role": "scorer"},
    "invite": {"email": "someone@example.com", "role": "scorer"},
    "season_new": {"name": "Spring", "starts_on": "2027-03-01", "ends_on": "2027-05-31"},
    "championship_new": {"date": "2026-12-20"},
    "entry": {"method": "cash"},
    "refund": {"amount": "10", "method": "cash", "reason": "Left early"},
    "payout": {"amount": "10", "method": "cash", "acknowledged": "1"},
    "sponsor": {"amount": "50", "method": "cash"},
    "venue_add": {"name": "Annex", "time_zone": "UTC"},
}
# Page forms that the sweeps by id post without a body, and a new event's form (no id), for
# the tests that post every page form with a body that passes its checks
# (tests/security/test_form_keys.py).
MORE_FORMS: dict[str, dict[str, str]] = {
    "event_edit": {
        "name": "Renamed",
        "date": "2026-12-04",
        "time_zone": "UTC",
        "format": "league",
        "contribution": "10",
        "extra_decks": "1",
        "remainder_policy": "Rolls over.",
    },
    "self_check_in": {"code": "ABCDEF"},
    "self_check_in_switch": {"enabled": "1"},
}
MORE_FORMS["event_new"] = MORE_FORMS["event_edit"]


def every_route(
    resolver: URLResolver | None = None, prefix: str = "", namespace: str = ""
) -> Iterator[tuple[str, str, URLPattern]]:
    """(route, namespaced name, pattern) for every URL pattern of the project."""
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = entry.namespace or ""
            within = ":".join(part for part in (namespace, inner) if part)
            yield from every_route(entry, route, within)
        elif isinstance(entry, URLPattern):
            yield route, f"{namespace}:{entry.name or ''}", entry


def parameters(route: str) -> list[str]:
    """The names of the values a route takes (`event_id`, `token`, ...)."""
    return [a or b for a, b in PARAMETER.findall(route)]


def methods(entry: URLPattern) -> list[str]:
    """The methods a view answers: a class's own, or GET and POST for a function (which
    refuses the others itself)."""
    view = entry.callback
    cls = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if cls is not None:
        return [m.upper() for m in ("get", "post", "put", "patch", "delete") if hasattr(cls, m)]
    return ["GET", "POST"]


def body(name: str, ids: dict[str, Any], *, form: bool = False) -> dict[str, Any]:
    """A plausible body for the write `name`, its object ids taken from `ids`."""
    plain, named = (FORMS, ID_FORMS) if form else (BODIES, ID_BODIES)
    return {**plain.get(name, {}), **{k: ids[v] for k, v in named.get(name, {}).items()}}


def fill(route: str, ids: dict[str, Any]) -> str:
    """The route's address with its values from `ids` (a value not given is left as written).
    The staff pages name their scope's id `scope_id`: an event's under events/, a series' under
    series/, an organization's under organizations/."""
    scope = "event_id"
    if "series/<int:scope_id>" in route:
        scope = "series_id"
    elif "organizations/<int:scope_id>" in route:
        scope = "organization_id"
    ids = {**ids, "scope_id": ids.get(scope, "<scope_id>")}
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(ids.get(m.group(1), m.group(0))), route)
    return "/" + path.lstrip("^").rstrip("$")
